"""Shared by the host-port tests (per-flow fair queueing, the TCP host-queue limit): fifteen 1-MB
flows and then a one-packet flow, all from h0 to h15 at t = 0, on a k = 4 fat-tree at 100 Gb/s."""

#: one 1500-byte frame at 100 Gb/s, seconds
FRAME_S = 1500 * 8 / 100e9


def fat_tree_one_host_toml(topology_extra: str = "", tcp_extra: str = "") -> str:
    """The scenario's TOML text, with `topology_extra` lines in [topology] and `tcp_extra` in [tcp]."""
    flows = "".join('[[flow]]\nsrc = "h0"\ndst = "h15"\nsize_bytes = 1000000\n' for _ in range(15))
    flows += '[[flow]]\nsrc = "h0"\ndst = "h15"\nsize_bytes = 1000\n'
    return f"""
seed = 1
until_s = 0.01
[topology]
kind = "fat_tree"
k = 4
link_bps = 100e9
link_delay_s = 1e-6
buffer_pkts = 500
{topology_extra}
[tcp]
iw_pkts = 15
{tcp_extra}
{flows}
"""
