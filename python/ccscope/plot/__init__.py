"""Plots: one function per figure kind; each takes `ax=None` and returns the Axes."""
from ccscope.plot.sim import plot_alpha, plot_cwnd, plot_queue, plot_result

__all__ = ["plot_queue", "plot_cwnd", "plot_alpha", "plot_result"]
