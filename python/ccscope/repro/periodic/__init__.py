"""Gilbert, Joo, McKeown, *Congestion Control and Periodic Behavior* (paper 001): FIGURES.md `periodic/*`."""
