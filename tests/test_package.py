"""Package-level contracts: light import, exported names, docstrings."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import negtheory

ROOT = Path(__file__).resolve().parents[1]


def test_import_is_light():
    code = (
        "import sys, negtheory\n"
        "heavy = [m for m in ('matplotlib', 'torch', 'dask', 'distributed') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_training_names_are_lazy_and_are_the_spec_classes():
    """``negtheory.fit``, ``negtheory.BNS``, ...: fit, FitResult and every spec class of negtheory.training.specs.

    The tuple is a literal in ``negtheory/__init__.py`` (``import negtheory`` must not import the
    training package, whose engines pull in the numba kernels and torch); here it is checked against
    the spec classes of ``negtheory.training.specs.__all__``, in their order.
    """
    code = (
        "import sys, negtheory\n"
        "assert 'negtheory.training' not in sys.modules and 'torch' not in sys.modules\n"
        "assert 'BNS' in dir(negtheory) and 'fit' in negtheory.__all__\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    from negtheory import training
    from negtheory.training import specs

    classes = [
        n
        for n in specs.__all__
        if isinstance(getattr(specs, n), type) and issubclass(getattr(specs, n), specs.Spec)
    ]
    assert negtheory._TRAINING == ("fit", "FitResult", *classes)
    for name in negtheory._TRAINING:
        assert getattr(negtheory, name) is getattr(training, name)


def test_all_names_exist_and_are_documented():
    for name in negtheory.__all__:
        obj = getattr(negtheory, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__.strip()) > 40, name


#: a citation of the source a public function implements: an equation, a table, or a paper by name
CITATIONS = (
    "eq.",
    "thesis",
    "Wu et al.",
    "Tanielian",
    "textbook chapter",
    "threshold-selection note",
    "Table",
)


def test_public_functions_cite_their_source():
    # every public function names the paper (or the equation, table, thesis) it implements
    for name in negtheory.__all__:
        obj = getattr(negtheory, name)
        if callable(obj) and not isinstance(obj, type(negtheory)):
            doc = obj.__doc__ or ""
            assert any(c in doc for c in CITATIONS), name


def _missing_build_tools() -> list[str]:
    return [m for m in ("build", "twine", "setuptools") if importlib.util.find_spec(m) is None]


@pytest.mark.slow
@pytest.mark.skipif(
    bool(_missing_build_tools()), reason="build, twine and setuptools are in the 'test' extra"
)
def test_sdist_and_wheel_build_and_pass_twine_check(tmp_path):
    """What a release would upload: ``python -m build`` (sdist, then the wheel from the sdist) and ``twine check``.

    Built without isolation (offline, about 15 s) from a copy of the project's files, so the
    checkout gets no build/ or egg-info folder.
    """
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist", ".*")
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("negtheory", "tests"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    dist = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    files = sorted(dist.iterdir())
    version = negtheory.__version__
    assert [f.name for f in files] == [
        f"negtheory-{version}-py3-none-any.whl",
        f"negtheory-{version}.tar.gz",
    ]
    names = zipfile.ZipFile(files[0]).namelist()
    assert "negtheory/py.typed" in names and "negtheory/cli.py" in names
    assert any(n.endswith("entry_points.txt") for n in names)
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2, check.stdout
