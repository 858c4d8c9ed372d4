"""Unit multipliers and parsers for quantities written with units ("10Gbps", "100us", "1s").

Every bare number at a ccscope boundary carries its unit in its name (`rate_bps`, `delay_s`);
these helpers turn human strings into those base units (bits/s, seconds, bytes).
"""
from __future__ import annotations

import math
import re

# rates, bits per second
bps = 1.0
Kbps = 1e3
Mbps = 1e6
Gbps = 1e9
# times, seconds
s = 1.0
ms = 1e-3
us = 1e-6
ns = 1e-9
ps = 1e-12
# sizes, bytes (decimal, as the papers use: 1 KB = 1000 B)
B = 1
KB = 1000
MB = 1000_000
GB = 1000_000_000

_TIME = {"s": s, "ms": ms, "us": us, "µs": us, "ns": ns, "ps": ps}
_RATE = {"bps": bps, "kbps": Kbps, "mbps": Mbps, "gbps": Gbps, "tbps": 1e12}
_SIZE = {"b": B, "kb": KB, "mb": MB, "gb": GB}
#: memory sizes, bytes: decimal (KB, MB, GB, TB; K, M, G, T) and binary (KiB, MiB, GiB, TiB)
_MEMORY = {"b": 1, "k": 1e3, "kb": 1e3, "kib": 2 ** 10, "m": 1e6, "mb": 1e6, "mib": 2 ** 20,
           "g": 1e9, "gb": 1e9, "gib": 2 ** 30, "t": 1e12, "tb": 1e12, "tib": 2 ** 40}
_NUM = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-zµ/]*)\s*$")


def _parse(text: str, table: dict[str, float], default_unit: str, what: str) -> float:
    if isinstance(text, (int, float)):
        return float(text)
    m = _NUM.match(str(text))
    if not m:
        raise ValueError(f"{what} {text!r}: expected a number with an optional unit ({', '.join(table)})")
    value = float(m.group(1))
    unit = m.group(2) or default_unit
    key = unit if unit in table else unit.lower()
    if key not in table:
        raise ValueError(f"{what} {text!r}: unknown unit {unit!r}; allowed: {', '.join(table)}")
    out = value * table[key]
    if not math.isfinite(out):
        raise ValueError(f"{what} {text!r}: must be finite")
    return out


def parse_time(text: str | float) -> float:
    """'100us' -> 1e-4 seconds; a bare number is seconds."""
    return _parse(text, _TIME, "s", "time")


def parse_rate(text: str | float) -> float:
    """'10Gbps' -> 1e10 bits/s; a bare number is bits/s."""
    return _parse(text, _RATE, "bps", "rate")


def parse_size(text: str | float) -> float:
    """'150KB' -> 150000 bytes (decimal units); a bare number is bytes."""
    return _parse(text, _SIZE, "b", "size")


def parse_memory(text: str | float) -> float:
    """'4GiB' -> 4 * 2**30 bytes, '2G' -> 2e9 (binary and decimal units); a bare number is bytes."""
    return _parse(text, _MEMORY, "b", "memory size")


def parse_fraction(text: str | float) -> float:
    """'1/16' -> 0.0625; also plain numbers."""
    if isinstance(text, (int, float)):
        return float(text)
    t = str(text).strip()
    if "/" in t:
        num, den = t.split("/", 1)
        return float(num) / float(den)
    return float(t)
