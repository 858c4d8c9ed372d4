"""Shared by the Python-controller equivalence tests: run a scenario on the native engine and list
the table columns in which two finished runs differ (bit for bit)."""
import numpy as np


def run_native(s: dict, until: float):
    """The finished native run of scenario dict `s` to `until` seconds (its tables and ledger)."""
    from ccscope import _native
    from ccscope.scenario.io import to_engine_json
    sim = _native.Simulation(to_engine_json(s), until, None)
    sim.run_until(until)
    return sim.finish()


def table_differences(a: dict, b: dict) -> list[str]:
    """`table.column` for every column whose values differ between finished runs a and b (same
    tables and columns asserted); equal means equal bytes and dtype, or equal lists for objects."""
    out = []
    assert a["tables"].keys() == b["tables"].keys()
    for table, cols in a["tables"].items():
        assert cols.keys() == b["tables"][table].keys(), table
        for name, col in cols.items():
            x, y = np.asarray(col), np.asarray(b["tables"][table][name])
            same = (x.tolist() == y.tolist()) if x.dtype == object else (x.dtype == y.dtype and x.shape == y.shape
                                                                            and x.tobytes() == y.tobytes())
            if not same:
                out.append(f"{table}.{name}")
    return out
