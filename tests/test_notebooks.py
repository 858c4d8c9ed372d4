"""The notebooks in examples/ run top to bottom in a headless Jupyter kernel without an error.

Each is executed in a copy of examples/ (what it writes stays in a temporary folder) with
CCSCOPE_ROOT pointing at this repository; a cell that raises fails the test with the cell's
source and the error. The notebooks simulate a few milliseconds each, so each runs in seconds."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))
#: Seconds a cell may run before the test fails.
CELL_TIMEOUT_S = 120


def test_three_notebooks_exist():
    names = [p.name for p in NOTEBOOKS]
    assert names == ["01-first-experiment.ipynb", "02-sweep-and-fluid.ipynb", "03-reproduce-a-figure.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        f"{path.name}: commit notebooks without outputs"
    work = tmp_path / "examples"
    work.mkdir()
    shutil.copy(path, work / path.name)
    monkeypatch.setenv("CCSCOPE_ROOT", str(ROOT))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(work)}})
    try:
        client.execute()
    except CellExecutionError as e:
        pytest.fail(f"{path.name}: {e}")
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # every notebook shows at least one figure, and the result objects render as HTML
    assert any("image/png" in o.get("data", {}) for o in outputs), f"{path.name}: no figure shown"
    if path.stem != "03-reproduce-a-figure":
        assert any("text/html" in o.get("data", {}) for o in outputs), f"{path.name}: no HTML view"
    assert (work / "out").is_dir()
