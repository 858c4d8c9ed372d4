from ccscope.analysis.metrics import (  # noqa: F401
    LossOfUtilization, afct, aggregate_throughput, arrival_rate, autocorrelation, bottleneck_port, convergence_time,
    departure_rate, drop_bursts, drops_at, fct_stats, flow_throughput, group_drop_bursts, ingress_port,
    inter_drop_times, jain_index, loss_of_utilization, mean_flow_throughput, multi_drop_histogram, periodicity,
    periodicity_index, qr_trajectory, throughput_ratio, total_window, utilization,
)
