"""Jiang, Ren, Yue, Lin, *Scale Congestion Control to Ultra-High Speed Ethernet* (paper 002): FIGURES.md `asm/*`."""
