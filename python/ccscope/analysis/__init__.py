"""Trace metrics of a `SimResult` (or its tables), the ones of the README tour, all reachable here as
`ccscope.analysis.<name>`; each has a docstring with its definition and source (`help(...)`).

| what | function |
|---|---|
| utilization, loss of utilization | `utilization`, `loss_of_utilization` (`LossOfUtilization`) |
| throughput, fairness | `flow_throughput`, `mean_flow_throughput`, `aggregate_throughput`, `jain_index` |
| throughput ratio T_r of two classes | `throughput_ratio` |
| flow completion times (FCT buckets, AFCT) | `fct_stats`, `afct` |
| FCT slowdown by flow-size bin (p50/p95/p99), queue CDF | `slowdown_stats`, `slowdown_bin_edges`, `queue_cdf` |
| builtin flow-size CDFs | `builtin_cdf`, `cdf_quantile` |
| convergence time | `convergence_time` |
| drops and drop bursts | `drops_at`, `drop_bursts`, `group_drop_bursts`, `inter_drop_times`, `multi_drop_histogram` |
| periodicity index | `periodicity`, `periodicity_index`, `autocorrelation` |
| Q/R plane (QCN, ASM) | `qr_trajectory` |
| windows | `total_window`, `window_without_inflation` |
| rates at a port | `arrival_rate`, `departure_rate`, `bottleneck_port`, `ingress_port` |
| limit cycles (fluid or packet traces) | `limit_cycle_from_trace`, `LimitCycle` |

The run summary (`SimResult.summary`) has the headline numbers already: utilization and queue after
the warm-up, and for flows with a size (incast, Poisson) flows_completed, fct_mean_s / fct_p50_s /
fct_p99_s and, for incast, qct_mean_s / qct_p99_s.
"""
from ccscope.analysis.metrics import (  # noqa: F401
    LossOfUtilization,
    afct,
    aggregate_throughput,
    arrival_rate,
    autocorrelation,
    bottleneck_port,
    builtin_cdf,
    cdf_quantile,
    convergence_time,
    departure_rate,
    drop_bursts,
    drops_at,
    fct_stats,
    flow_throughput,
    group_drop_bursts,
    ingress_port,
    inter_drop_times,
    jain_index,
    loss_of_utilization,
    mean_flow_throughput,
    multi_drop_histogram,
    periodicity,
    periodicity_index,
    qr_trajectory,
    queue_cdf,
    slowdown_bin_edges,
    slowdown_stats,
    throughput_ratio,
    total_window,
    utilization,
    window_without_inflation,
)
from ccscope.analysis.limit_cycle import LimitCycle  # noqa: F401
from ccscope.analysis.limit_cycle import from_trace as limit_cycle_from_trace  # noqa: F401

__all__ = ["LimitCycle", "LossOfUtilization", "afct", "aggregate_throughput", "arrival_rate", "autocorrelation",
           "bottleneck_port", "builtin_cdf", "cdf_quantile", "convergence_time", "departure_rate", "drop_bursts", "drops_at", "fct_stats",
           "flow_throughput", "group_drop_bursts", "ingress_port", "inter_drop_times", "jain_index",
           "limit_cycle_from_trace", "loss_of_utilization", "mean_flow_throughput", "multi_drop_histogram",
           "periodicity", "periodicity_index", "qr_trajectory", "queue_cdf", "slowdown_bin_edges",
           "slowdown_stats", "throughput_ratio", "total_window", "utilization",
           "window_without_inflation"]
