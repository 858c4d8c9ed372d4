"""Irteza et al., *On the Coexistence of Transport Protocols in Data Centers* (paper 003): FIGURES.md `coexistence/*`."""
