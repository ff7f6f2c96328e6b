"""Package-level contracts: light import, exported names, docstrings."""

from __future__ import annotations

import subprocess
import sys

import negtheory


def test_import_is_light():
    code = (
        "import sys, negtheory\n"
        "heavy = [m for m in ('matplotlib', 'torch', 'dask', 'distributed') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


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
