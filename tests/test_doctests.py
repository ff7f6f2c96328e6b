"""Run the Examples sections of every public module's docstrings (they must stay true)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import negtheory

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(negtheory.__path__, prefix="negtheory.")
    if not any(part.startswith("_") for part in m.name.split(".")[1:])
    and not m.name.startswith("negtheory.bridge")  # torch-only; its own tests run the examples
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
