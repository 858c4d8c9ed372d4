"""Jiang, Peng, Ruan, Wu, Wang, *Modeling and Analysis of DX* (paper 004): FIGURES.md `dx/*`."""
