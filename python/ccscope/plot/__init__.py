"""Plots: one function per figure kind; each takes `ax=None` and returns the Axes (or, for whole
figures, the Figure): `plot_runs` compares saved runs, `plot_sweep` draws sweep results."""
from ccscope.plot.runs import PlotInputError, Run, load_runs, plot_runs
from ccscope.plot.sim import plot_alpha, plot_cwnd, plot_queue, plot_result
from ccscope.plot.sweep import plot_sweep

__all__ = ["PlotInputError", "Run", "load_runs", "plot_alpha", "plot_cwnd", "plot_queue", "plot_result", "plot_runs",
           "plot_sweep"]
