"""Reproductions of every figure and table of the five papers (FIGURES.md IDs).

`ccscope repro list | run ID-or-glob [--quick] [--jobs N] | all | promote OUT | report [--check-stale]`.
One module per ID in `ccscope.repro.<paper>.<item>` ('-' -> '_'); see `registry` for the module
contract and the committed verdicts, `_base` for rows, bases, statistics and causes (docs/VERDICTS.md),
`runner` for the outputs (figure.png, data.parquet, result.json), `evidence` for docs/repro/<ID>/ and
`report` for docs/REPRODUCTIONS.md.
"""
from ccscope.repro.registry import entries, get, select
from ccscope.repro.runner import run_entry, run_many

__all__ = ["entries", "get", "run_entry", "run_many", "select"]
