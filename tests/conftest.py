"""Shared pytest configuration: hypothesis profiles and the documentation build.

``fast`` (the default, used by CI) is hypothesis' default profile, derandomised, with the fuzz sweep of
``tests/test_fuzz.py`` cut to a few cases per target; ``long``
(``pytest tests/test_fuzz.py --hypothesis-profile=long``) runs the fuzz sweep with 55 cases per target
(more than 10 000 in all).  The ``--hypothesis-profile`` option comes from hypothesis' pytest plugin,
so plain ``pytest`` is unaffected.

``docs_site`` builds the documentation site once per test session (the README's command,
``python -m sphinx -W --keep-going -b html docs OUT``, in a temporary folder): ``tests/test_docs.py`` checks its
HTML and ``tests/test_browser.py`` opens it in a headless browser, from the same build.

``load_script`` imports a script of the repository that is not part of the package (``benchmarks/*.py``) as a
module, so its functions can be tested.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

# ``fast`` is derandomised: the CI run is the same every time, so a rare case found by one random
# draw cannot make one landing fail and the next pass; the random search belongs to
# ``--hypothesis-profile=long`` (with ``--hypothesis-seed=N`` to replay a draw).
settings.register_profile("fast", deadline=None, derandomize=True)
settings.register_profile("long", deadline=None)
settings.load_profile("fast")


def pytest_collection_modifyitems(config, items):
    """Skip the ``cuda``-marked tests where no CUDA device is usable (CI); torch is imported only if some
    collected test carries the marker."""
    marked = [item for item in items if item.get_closest_marker("cuda") is not None]
    if not marked:
        return
    try:
        import torch

        available = torch.cuda.is_available()
    except ImportError:
        available = False
    if not available:
        skip = pytest.mark.skip(reason="needs a CUDA device (torch.cuda.is_available() is False)")
        for item in marked:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory):
    """Build the documentation site once per session (no warning allowed); return the HTML folder.

    Skipped, with the reason, when the ``docs`` extra is not installed. ``NEGTHEORY_DOCS_HTML=FOLDER`` checks an
    existing build instead (e.g. ``python -m sphinx -W --keep-going -b html docs FOLDER`` run by hand).
    """
    prebuilt = os.environ.get("NEGTHEORY_DOCS_HTML")
    if prebuilt:
        return Path(prebuilt)
    for module in ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme"):
        pytest.importorskip(
            module, reason=f'{module} is not installed: pip install -e ".[docs]" to build the docs'
        )
    out = tmp_path_factory.mktemp("docs")
    html, doctrees = out / "html", out / "doctrees"
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        ),
    )
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        "-d",
        str(doctrees),
        str(ROOT / "docs"),
        str(html),
    ]
    proc = subprocess.run(
        cmd, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"sphinx failed ({proc.returncode}):\n{log[-6000:]}"
    assert "WARNING" not in log and "ERROR" not in log, log[-6000:]
    return html


@pytest.fixture
def count_chunks(monkeypatch):
    """``count_chunks()`` from then on records the point index of every ``studies._chunk_stats`` call.

    It returns the list the calls go into (tests of mse_study's checkpoint: which points are
    recomputed on resume).
    """
    from negtheory import studies

    def start():
        calls = []
        real = studies._chunk_stats

        def counting(point, start, count):
            calls.append(point.index)
            return real(point, start, count)

        monkeypatch.setattr(studies, "_chunk_stats", counting)
        return calls

    return start


@pytest.fixture(scope="session")
def load_script():
    """``load_script("benchmarks/x.py")``: the file, relative to the repository root, imported as a module."""

    def load(relpath: str):
        spec = importlib.util.spec_from_file_location(Path(relpath).stem, ROOT / relpath)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
