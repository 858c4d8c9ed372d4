"""Alizadeh, Javanmard, Prabhakar, *Analysis of DCTCP* (paper 000): FIGURES.md `dctcp-analysis/*`."""
