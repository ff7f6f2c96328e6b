"""The import graph among negtheory's modules has no circle.

Every ``.py`` file under ``negtheory/`` is parsed with :mod:`ast` (nothing is imported); every
``import`` / ``from ... import`` statement anywhere in it (module level, inside functions,
methods, ``try`` blocks, ...) that names a negtheory module gives a directed edge
``importer -> imported``. How statements become edges:

* ``import negtheory.a.b`` and ``from negtheory.a.b import name`` are edges to ``negtheory.a.b``
  (relative forms ``from .b import name``, ``from ..a import b`` are resolved against the
  importer's package first). A dotted name that is not a module (``import negtheory.a.b.attr``
  cannot happen, but ``from negtheory.a.b import attr`` names an attribute) falls back to the
  longest prefix that is a module.
* ``from PKG import x`` is an edge to the submodule ``PKG.x`` when ``x`` is a module (so
  ``from . import functional`` inside ``negtheory/bridge/`` is an edge to
  ``negtheory.bridge.functional``, not to ``negtheory/bridge/__init__``); when ``x`` is a name
  defined in ``PKG/__init__.py`` it is an edge to ``PKG`` itself (its ``__init__``).
* The implicit initialisation of parent packages is *not* an edge: importing
  ``negtheory.bridge.train`` runs ``negtheory/__init__`` and ``negtheory/bridge/__init__`` first,
  but Python always finishes a parent's ``__init__`` before (or independently of) the child's
  body, and counting it would make every ``__init__`` that imports one of its submodules a
  circle. An *explicit* import of a name from an ancestor package's ``__init__`` (``from . import
  new_figure`` in ``negtheory/figures/_bridge.py``, ``from . import __version__`` in
  ``negtheory/studies.py``) is an edge: it is a real dependency on the parent's contents, and it
  is a circle when the parent imports the child. Such names live in leaf modules
  (``negtheory/_version.py``, ``negtheory/figures/_canvas.py``) instead.
* Imports under ``if TYPE_CHECKING:`` are ignored: they never run (they are how annotations
  refer to each other without an import), and type checkers resolve circles among them.
* Dynamic imports (``importlib.import_module`` with a computed name) are not seen.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "negtheory"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is_package) for every .py file under negtheory/."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_pkg)
    return out


MODULES = _modules()


def _longest_module(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str) -> set[str]:
    """The negtheory modules that ``module`` imports (see the module notes for the rules)."""
    path, is_pkg = MODULES[module]
    package = module if is_pkg else module.rpartition(".")[0]
    found: set[str] = set()

    def target(base: str, name: str | None) -> str | None:
        if name is not None and f"{base}.{name}" in MODULES:
            return f"{base}.{name}"
        return _longest_module(base)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.orelse:
                    visit_one(stmt)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "negtheory":
                    t = _longest_module(alias.name)
                    if t is not None:
                        found.add(t)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                if node.level - 1 > len(parts) - 1:
                    raise AssertionError(f"{module}: relative import beyond the top-level package")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] == "negtheory":
                for alias in node.names:
                    t = target(base, None if alias.name == "*" else alias.name)
                    if t is not None:
                        found.add(t)
        visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    found.discard(module)
    return found


def _graph() -> dict[str, set[str]]:
    return {m: _imports(m) for m in MODULES}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle (as a closed path) of the directed graph, or None (iterative DFS, three colours)."""
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    for start in sorted(graph):
        if colour[start] != white:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        colour[start] = grey
        while stack:
            node, children = stack[-1]
            for child in children:
                if colour.get(child, black) == grey:
                    return path[path.index(child) :] + [child]
                if colour.get(child) == white:
                    colour[child] = grey
                    stack.append((child, iter(sorted(graph[child]))))
                    path.append(child)
                    break
            else:
                colour[node] = black
                stack.pop()
                path.pop()
    return None


def test_the_parser_sees_the_package():
    g = _graph()
    assert len(g) > 50 and "negtheory.recsys.loop" in g
    # relative, absolute, function-level and `from . import submodule` imports are all edges
    assert "negtheory.recsys.metrics" in g["negtheory.recsys.loop"]
    assert (
        "negtheory.bridge.functional" in g["negtheory.bridge.losses.dcl"]
    )  # from .. import functional as Fn
    assert "negtheory.bridge" not in g["negtheory.bridge.recommend"]
    assert "negtheory.bridge.recommend" in g["negtheory.bridge.train"]  # inside _train_split
    assert "negtheory.bridge._commands" in g["negtheory._cli_bridge"]  # inside _lazy's run()
    assert (
        "negtheory.recsys.interactions" in g["negtheory.recsys"]
    )  # a package __init__ importing its submodules


def test_the_cycle_finder_reports_a_cycle():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert _find_cycle(g) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from . import functional", {"negtheory.bridge.functional"}),
        ("from .device import resolve_device", {"negtheory.bridge.device"}),
        ("from .. import _rng", {"negtheory._rng"}),
        ("from ..recsys import bns_prior", {"negtheory.recsys"}),
        ("def f():\n    import negtheory.recsys.metrics as m", {"negtheory.recsys.metrics"}),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .train import TrainConfig",
            set(),
        ),
        ("import numpy\nfrom numpy import random", set()),
    ],
)
def test_edges_of_one_statement(tmp_path, monkeypatch, source, expected):
    fake = tmp_path / "fake.py"
    fake.write_text(source + "\n")
    monkeypatch.setitem(MODULES, "negtheory.bridge.fake", (fake, False))
    assert _imports("negtheory.bridge.fake") == expected


def test_no_import_cycle():
    cycle = _find_cycle(_graph())
    assert cycle is None, "import circle among negtheory modules: " + " -> ".join(cycle or [])
