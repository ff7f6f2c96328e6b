"""Static typing: mypy on the package, and annotations on every public signature.

``negtheory`` ships ``py.typed``, so its annotations are part of the API: every public callable
(the names in ``__all__`` of ``negtheory``, ``negtheory.recsys`` and ``negtheory.bridge``, the
public functions of the ``negtheory.reproduce`` modules, and the public methods of their classes)
annotates every parameter and its return, and ``mypy`` (configured in ``pyproject.toml``) reports
no error on the package.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import negtheory
import negtheory.recsys
import negtheory.reproduce

ROOT = Path(__file__).resolve().parents[1]


def _public_objects():
    out = {}
    mods = [negtheory, negtheory.recsys]
    if importlib.util.find_spec("torch") is not None:
        mods.append(importlib.import_module("negtheory.bridge"))
    for mod in mods:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.ismodule(obj):  # e.g. negtheory.bridge.functional: its own __all__
                for sub in getattr(obj, "__all__", ()):
                    out[f"{obj.__name__}.{sub}"] = getattr(obj, sub)
            elif callable(obj):
                out[f"{mod.__name__}.{name}"] = obj
    for path in negtheory.reproduce.REPRODUCTIONS.values():
        mod = importlib.import_module(path)
        for name, obj in vars(mod).items():
            if (
                not name.startswith("_")
                and getattr(obj, "__module__", None) == path
                and (inspect.isfunction(obj) or inspect.isclass(obj))
            ):
                out[f"{path}.{name}"] = obj
    return out


def _callables():
    """(qualified name, plain function) of every public callable and public method."""
    for qual, obj in sorted(_public_objects().items()):
        if inspect.isclass(obj):
            for name, member in vars(obj).items():
                if name.startswith("_") and name not in ("__init__", "__call__"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                elif isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    yield f"{qual}.{name}", member
        else:
            func = inspect.unwrap(obj)
            func = getattr(func, "py_func", func)  # a numba dispatcher: its Python function
            if inspect.isfunction(func):
                yield qual, func


CALLABLES = dict(_callables())


def test_the_package_is_marked_typed():
    assert (Path(negtheory.__file__).parent / "py.typed").is_file()


def test_there_is_a_public_surface_to_check():
    # guards the test itself: the introspection must see the package's API
    assert len(CALLABLES) > 150
    assert "negtheory.score_sets" in CALLABLES and "negtheory.ScoreDistribution.rvs" in CALLABLES
    assert "negtheory.training.fit" in CALLABLES and "negtheory.recsys.bns_prior" in CALLABLES


@pytest.mark.parametrize("qual", sorted(CALLABLES))
def test_public_signature_is_annotated(qual):
    func = CALLABLES[qual]
    sig = inspect.signature(inspect.unwrap(func))
    missing = [
        p.name
        for p in sig.parameters.values()
        if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
    ]
    if func.__name__ != "__init__" and sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    assert missing == [], f"{qual} lacks annotations for {missing}"


def test_every_rng_parameter_is_rnglike():
    rngs = {
        q: inspect.signature(f).parameters["rng"].annotation
        for q, f in CALLABLES.items()
        if "rng" in inspect.signature(f).parameters
    }
    assert len(rngs) >= 10
    assert {q: a for q, a in rngs.items() if a != "RNGLike"} == {}


@pytest.mark.slow
def test_mypy_reports_no_error():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it is in the 'test' extra: pip install -e '.[test]')")
    # the cache (.mypy_cache, git-ignored) makes warm runs take a few seconds
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
