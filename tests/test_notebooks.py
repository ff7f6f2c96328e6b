"""Execute every notebook in notebooks/ so that they never rot, and check that they show their figures."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

NB_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))


def _sync_module():
    spec = importlib.util.spec_from_file_location("_notebook_sync", NB_DIR / "sync.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sync = _sync_module()


@pytest.mark.slow
@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors
    # every cell that draws a figure displays it as a PNG (not as the text "<Figure size ...>")
    bad = sync.figure_cells_without_image(nb)
    assert not bad, f"{path.name}: figure cell(s) {bad} produce no image/png output"
    assert sync.count_images(nb) >= 1, f"{path.name} shows no figure"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_notebook_has_its_outputs(path):
    """The committed copy carries the outputs of a run (``python notebooks/sync.py``), plots included."""
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), f"{path.name}: run python notebooks/sync.py"
    assert not sync.figure_cells_without_image(nb), (
        f"{path.name}: a figure cell has no image; run python notebooks/sync.py"
    )
    assert not any(c.metadata.get("execution") for c in code), (
        f"{path.name}: volatile metadata left in"
    )
    text = nbformat.writes(nb)
    assert str(NB_DIR.parent) not in text, (
        f"{path.name}: an output shows an absolute path of this checkout"
    )


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"
    assert os.path.exists(NOTEBOOKS[0])
