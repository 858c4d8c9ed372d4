"""Shared pieces of the DX packet-simulation entries (Y0, see `_y0`): the cause choice.

The analysis of other runs (the RTT-sample variant and its BDP/N = 2 resonance, start spreads, the other
mechanisms tried) is in docs/models/dx.md ("Packet-level DX vs the paper's ns-3 runs"); causes link it and
take their numbers from their own run only (docs/VERDICTS.md §5)."""
from __future__ import annotations

#: Prefix of every Y0 cause: the mechanism the run used.
MECH = ("DX here averages the RTT that ns-3's TcpSocketBase of P004's period handed to PktsAcked, the RFC 6298 "
        "smoothed estimate (gain one eighth; docs/models/dx.md). ")


def cause_key(c) -> str | None:
    """The cause is shown when the entry is not reproduced."""
    return None if c.verdict == "reproduced" else "partly"
