"""Structure metrics of the ``negtheory`` package (issue 67, "one trainer": the before/after table).

Everything but ``--trace`` is read from the source with :mod:`ast` and :mod:`tokenize`; the
package is not imported. The script prints a markdown table of:

1. **deferred package imports**: ``import`` / ``from ... import`` statements of the package's own
   modules (``negtheory...`` or relative) inside a function or method body; module-level and
   class-level statements and those under ``if TYPE_CHECKING:`` do not count (``--verbose``: the
   count per file).
2. **arrows back up**: distinct import edges (module level and deferred; ``TYPE_CHECKING`` blocks
   excluded) from a module to a module of a strictly higher layer. The layers are
   :data:`LAYERS` (low to high) or the JSON object of ``--layers FILE.json``: layer name -> list
   of path globs relative to ``--root`` (``*`` within one path part, ``**`` any number of parts,
   a leading ``!`` removes the files it matches from that layer). A file matched by several
   layers belongs to the highest of them; a file matched by none (``negtheory/__init__.py``,
   ``negtheory/__main__.py``) is in no layer and its edges are not counted. The edges follow
   ``tests/test_import_graph.py``: ``from PKG import x`` is an edge to ``PKG.x`` when that is a
   module, else to ``PKG``; the implicit import of parent packages is not an edge
   (``--verbose``: the edges).
3. **long modules and functions**: modules of more than ``--module-lines`` (800) code lines, a
   code line being a non-blank line that holds a token other than a comment (docstrings and other
   strings count as code), and functions / methods (nested ones included) of more than
   ``--function-lines`` (100) lines, ``end_lineno - lineno + 1`` from the ``def`` line
   (decorators not counted; blank lines and comments counted).
4. **formatting**: ``# fmt: skip`` comments (comment tokens, so the words inside a string do not
   count), lines of more than 100 and more than 120 characters, and the longest line, over the
   ``.py`` files of ``negtheory/``, ``tests/`` and ``benchmarks/``, less those matched by an
   ``--exclude`` glob: by default this script and its test, so that adding them moves no number.
5. **engines** (a rough proxy for the number of training step loops): classes whose name ends in
   ``Runner`` and that define ``run_epoch`` in their body, plus functions and methods named
   ``_fit_*``, in ``negtheory/``. A loop written any other way is not seen.
6. **duplicate pairs**: the pair count on the first line of the ``duplicates`` command (the tool
   library's, on PATH on the development machines) run as
   ``duplicates --repo ROOT/negtheory --most 1 --seconds S``; where it is not on PATH, or to
   insert a count obtained elsewhere, ``--duplicates N``.
7. **call path of a fit call** (``--trace`` only; imports the package from ``--root``): a tiny
   random split (``load_split`` of 400 / ~200 pairs over 30 users x 40 items), ``fit`` with
   ``MF(dim=4)``, 1 epoch, ``Evaluation(ks=(5,))`` and the other defaults. The call runs once
   untraced (numba compiles or loads its kernels, deferred imports run), then again under
   :func:`sys.settrace`, which records the package's source file of every ``'call'`` event
   (numba-compiled code makes none). Consecutive repeats are merged; the row gives the distinct
   files and the number of times the sequence enters a file it had left earlier.

The first printed line names the commit of ``--root`` (``git rev-parse HEAD``) and how many paths
``git status --porcelain`` lists: the files measured are those on disk, which may carry
uncommitted edits. To measure a commit exactly, measure a clean worktree of it.

Examples
--------
::

    python benchmarks/architecture_metrics.py                       # the working tree, the table
    python benchmarks/architecture_metrics.py --verbose --json m.json
    git worktree add /tmp/arch HEAD
    PYTHONPATH=/tmp/arch python benchmarks/architecture_metrics.py --root /tmp/arch --trace --verbose
    git worktree remove --force /tmp/arch
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "negtheory"

# layer name -> path globs relative to the root, from low to high (see the module notes)
LAYERS: dict[str, list[str]] = {
    "core": [
        "negtheory/*.py",
        "!negtheory/__init__.py",
        "!negtheory/__main__.py",
        "!negtheory/cli.py",
        "!negtheory/_cli_*.py",
    ],
    "recsys": ["negtheory/recsys/**/*.py"],
    "training": ["negtheory/training/**/*.py"],
    "bridge": ["negtheory/bridge/**/*.py"],
    "figures": ["negtheory/figures/**/*.py"],
    "reproduce": ["negtheory/reproduce/**/*.py"],
    "cli": [
        "negtheory/cli.py",
        "negtheory/_cli_*.py",
        "negtheory/bridge/_commands.py",
        "negtheory/reproduce/cli.py",
    ],
}
LINE_DIRS = ("negtheory", "tests", "benchmarks")
# left out of the line rows (row 4): the measuring script and its test are not part of what is measured
LINE_EXCLUDE = ("benchmarks/architecture_metrics.py", "tests/test_architecture_metrics.py")
_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}
_FMT_SKIP = re.compile(r"#\s*fmt:\s*skip\b")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Module(NamedTuple):
    """One parsed source file of the package."""

    name: str
    rel: str
    path: Path
    is_pkg: bool
    source: str
    tree: ast.Module


class ImportStmt(NamedTuple):
    """One import statement of the package's own modules."""

    lineno: int
    deferred: bool
    targets: set[str]


def py_files(root: Path, sub: str) -> list[Path]:
    """The ``.py`` files under ``root/sub``, sorted (``__pycache__`` and hidden folders skipped)."""
    base = root / sub
    if not base.is_dir():
        return []
    skip = ("__pycache__", ".")
    out = [
        p
        for p in base.rglob("*.py")
        if not any(part.startswith(skip) for part in p.relative_to(root).parts[:-1])
    ]
    return sorted(out)


def load_package(root: Path, package: str = PACKAGE) -> dict[str, Module]:
    """Dotted module name -> :class:`Module` for every ``.py`` file of ``root/package``."""
    out = {}
    for path in py_files(root, package):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_pkg else parts)
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(root).as_posix()
        out[name] = Module(name, rel, path, is_pkg, source, ast.parse(source, filename=str(path)))
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _longest_module(name: str, modules: dict[str, Module]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def own_imports(
    module: Module, modules: dict[str, Module], package: str = PACKAGE
) -> list[ImportStmt]:
    """The import statements of ``module`` that name the package's own modules.

    Parameters
    ----------
    module : Module
        The importer.
    modules : dict of str to Module
        Every module of the package (to resolve the imported names to modules).
    package : str
        The top-level package name.

    Returns
    -------
    list of ImportStmt
        In source order, statements under ``if TYPE_CHECKING:`` left out; ``deferred`` is True
        inside a function or method body; ``targets`` are the imported modules (self excluded).
    """
    pkg = module.name if module.is_pkg else module.name.rpartition(".")[0]
    found: list[ImportStmt] = []

    def is_own(name: str) -> bool:
        return name == package or name.startswith(package + ".")

    def record(node: ast.Import | ast.ImportFrom, deferred: bool) -> None:
        targets: set[str | None] = set()
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names if is_own(a.name)]
            if not names:
                return
            targets.update(_longest_module(n, modules) for n in names)
        else:
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                head = parts[: len(parts) - node.level + 1]
                base = ".".join(head + ([node.module] if node.module else []))
            elif not is_own(base):
                return
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.add(sub if sub in modules else _longest_module(base, modules))
        targets.discard(None)
        targets.discard(module.name)
        found.append(ImportStmt(node.lineno, deferred, {t for t in targets if t is not None}))

    def visit(nodes: list[ast.stmt] | list[ast.AST], in_func: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                visit(node.orelse, in_func)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                record(node, in_func)
            elif isinstance(node, _FUNCS):
                visit(node.body, True)
            else:
                visit(list(ast.iter_child_nodes(node)), in_func)

    visit(module.tree.body, False)
    return found


def deferred_imports(modules: dict[str, Module], package: str = PACKAGE) -> dict[str, int]:
    """File (relative to the root) -> number of deferred package imports, for files with any."""
    out = {}
    for mod in modules.values():
        n = sum(s.deferred for s in own_imports(mod, modules, package))
        if n:
            out[mod.rel] = n
    return out


def glob_match(path: str, pattern: str) -> bool:
    """Whether the posix ``path`` matches ``pattern`` (``*`` within a part, ``**`` any number of parts)."""

    def match(parts: list[str], pats: list[str]) -> bool:
        if not pats:
            return not parts
        if pats[0] == "**":
            return any(match(parts[i:], pats[1:]) for i in range(len(parts) + 1))
        return bool(parts) and fnmatch.fnmatchcase(parts[0], pats[0]) and match(parts[1:], pats[1:])

    return match(path.split("/"), pattern.split("/"))


def layer_of(rel: str, layers: dict[str, list[str]]) -> str | None:
    """The highest layer whose globs take in ``rel`` (None: no layer)."""
    chosen = None
    for name, patterns in layers.items():
        plus = [p for p in patterns if not p.startswith("!")]
        minus = [p[1:] for p in patterns if p.startswith("!")]
        if any(glob_match(rel, p) for p in plus) and not any(glob_match(rel, p) for p in minus):
            chosen = name
    return chosen


def load_layers(path: Path) -> dict[str, list[str]]:
    """Read a ``--layers`` JSON object: layer name -> list of globs, ordered low to high."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(
        isinstance(v, list) and all(isinstance(g, str) for g in v) for v in data.values()
    ):
        raise ValueError(f"{path}: expected a JSON object of layer name -> list of path globs")
    return {str(k): list(v) for k, v in data.items()}


def arrows_up(
    modules: dict[str, Module], layers: dict[str, list[str]], package: str = PACKAGE
) -> list[tuple[str, str, str, str, bool]]:
    """Distinct import edges to a strictly higher layer.

    Returns
    -------
    list of tuple
        ``(importer, its layer, imported, its layer, deferred)``, sorted; ``deferred`` is True
        when every statement that makes the edge is inside a function body.
    """
    rank = {name: i for i, name in enumerate(layers)}
    where = {name: layer_of(mod.rel, layers) for name, mod in modules.items()}
    edges: dict[tuple[str, str], bool] = {}
    for name, mod in modules.items():
        src = where[name]
        if src is None:
            continue
        for stmt in own_imports(mod, modules, package):
            for target in stmt.targets:
                dst = where.get(target)
                if dst is not None and rank[dst] > rank[src]:
                    edges[(name, target)] = edges.get((name, target), True) and stmt.deferred
    return sorted((a, where[a] or "", b, where[b] or "", d) for (a, b), d in edges.items())


def code_lines(source: str) -> int:
    """Non-blank lines that hold a token other than a comment (docstrings count as code)."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _NOT_CODE:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    text = source.splitlines()
    return sum(1 for i in lines if i <= len(text) and text[i - 1].strip())


def functions(tree: ast.AST, prefix: str = ""):
    """Yield ``(qualified name, node)`` for every function and method, nested ones included."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.ClassDef):
            yield from functions(child, f"{prefix}{child.name}.")
        elif isinstance(child, _FUNCS):
            yield f"{prefix}{child.name}", child
            yield from functions(child, f"{prefix}{child.name}.<locals>.")
        else:
            yield from functions(child, prefix)


def long_modules(modules: dict[str, Module], limit: int = 800) -> list[tuple[int, str]]:
    """``(code lines, file)`` of the modules over ``limit`` code lines, longest first."""
    sizes = ((code_lines(m.source), m.rel) for m in modules.values())
    return sorted((s for s in sizes if s[0] > limit), key=lambda s: (-s[0], s[1]))


def long_functions(modules: dict[str, Module], limit: int = 100) -> list[tuple[int, str]]:
    """``(lines, module.qualname)`` of the functions and methods over ``limit`` lines, longest first."""
    out = []
    for mod in modules.values():
        for qual, node in functions(mod.tree):
            n = (node.end_lineno or node.lineno) - node.lineno + 1
            if n > limit:
                out.append((n, f"{mod.name}.{qual}"))
    return sorted(out, key=lambda s: (-s[0], s[1]))


def line_stats(
    root: Path, dirs: tuple[str, ...] = LINE_DIRS, exclude: tuple[str, ...] = LINE_EXCLUDE
) -> dict:
    """``# fmt: skip`` comments and line lengths over the ``.py`` files of ``dirs``, less ``exclude`` (globs)."""
    stats = {"files": 0, "fmt_skip": 0, "over_100": 0, "over_120": 0, "max_len": 0, "max_at": ""}
    for sub in dirs:
        for path in py_files(root, sub):
            if any(glob_match(path.relative_to(root).as_posix(), g) for g in exclude):
                continue
            source = path.read_text(encoding="utf-8")
            stats["files"] += 1
            try:
                comments = [
                    t.string
                    for t in tokenize.generate_tokens(io.StringIO(source).readline)
                    if t.type == tokenize.COMMENT
                ]
            except (tokenize.TokenError, SyntaxError):
                comments = [ln[ln.index("#") :] for ln in source.splitlines() if "#" in ln]
            stats["fmt_skip"] += sum(1 for c in comments if _FMT_SKIP.search(c))
            for i, line in enumerate(source.splitlines(), 1):
                n = len(line)
                stats["over_100"] += n > 100
                stats["over_120"] += n > 120
                if n > stats["max_len"]:
                    stats["max_len"], stats["max_at"] = (
                        n,
                        f"{path.relative_to(root).as_posix()}:{i}",
                    )
    return stats


def engines(modules: dict[str, Module]) -> dict[str, list[str]]:
    """``*Runner`` classes that define ``run_epoch``, and ``_fit_*`` functions (qualified names)."""
    runners, fits = [], []
    for mod in modules.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Runner"):
                if any(isinstance(b, _FUNCS) and b.name == "run_epoch" for b in node.body):
                    runners.append(f"{mod.name}.{node.name}")
        fits += [f"{mod.name}.{q}" for q, n in functions(mod.tree) if n.name.startswith("_fit_")]
    return {"runners": sorted(runners), "fit_functions": sorted(fits)}


def duplicate_pairs(
    root: Path, package: str = PACKAGE, seconds: int = 120
) -> tuple[int | None, str]:
    """The pair count of the ``duplicates`` command over ``root/package``, and how it was obtained."""
    exe = shutil.which("duplicates")
    if exe is None:
        return None, "the duplicates command is not on PATH (pass --duplicates N)"
    cmd = [exe, "--repo", str(root / package), "--most", "1", "--seconds", str(seconds)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = proc.stdout.splitlines()
    head = lines[0] if lines else proc.stderr.strip()
    how = f"`duplicates --repo {root / package} --most 1 --seconds {seconds}`: {head}"
    how += "".join(f"; {ln}" for ln in lines if ln.startswith("incomplete:"))
    m = re.match(r"(\d+) pairs?\b", head)
    if m:
        return int(m.group(1)), how
    return (0, how) if head.startswith("no duplicates") else (None, how)


def trace_fit(root: Path, package: str = PACKAGE, seed: int = 0) -> dict:
    """Trace one small ``negtheory.training.fit`` call (see the module notes); imports the package."""
    sys.path.insert(0, str(root))
    import numpy as np

    pkg = __import__(package)
    from negtheory.recsys import load_split
    from negtheory.training import MF, Evaluation, fit

    pkg_dir = str((root / package).resolve()) + os.sep
    if not str(Path(pkg.__file__).resolve()).startswith(pkg_dir):
        raise RuntimeError(
            f"{package} was imported from {pkg.__file__}, not from {root} (set PYTHONPATH={root})"
        )
    rng = np.random.default_rng(seed)
    pairs = np.unique(rng.integers(0, [30, 40], size=(600, 2)), axis=0)
    data = load_split(pairs[:400], pairs[400:])
    kwargs = dict(model=MF(dim=4), epochs=1, evaluation=Evaluation(ks=(5,)), rng=seed)
    fit(data, **kwargs)  # warm-up: numba kernels, deferred imports
    calls: list[str] = []

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(pkg_dir):
            calls.append(frame.f_code.co_filename)

    sys.settrace(tracer)
    try:
        result = fit(data, **kwargs)
    finally:
        sys.settrace(None)
    seq = [f for i, f in enumerate(calls) if i == 0 or f != calls[i - 1]]
    seen: set[str] = set()
    returns = 0
    for f in seq:
        returns += f in seen
        seen.add(f)
    rel = [Path(f).resolve().relative_to(root.resolve()).as_posix() for f in seq]
    counts: dict[str, int] = {}
    for f in calls:
        key = Path(f).resolve().relative_to(root.resolve()).as_posix()
        counts[key] = counts.get(key, 0) + 1
    return {
        "engine": result.engine,
        "calls": len(calls),
        "distinct_files": len(seen),
        "file_switches": max(len(seq) - 1, 0),
        "returns_to_earlier_file": returns,
        "sequence": rel,
        "calls_per_file": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


def git_state(root: Path) -> str:
    """The first output line: the commit of ``root`` and its uncommitted paths."""

    def git(*args: str) -> str:
        proc = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
        )
        return proc.stdout.strip() if proc.returncode == 0 else ""

    sha = git("rev-parse", "HEAD") or "(not a git checkout)"
    status = git("status", "--porcelain")
    n = len(status.splitlines()) if status else 0
    return (
        f"commit {sha} (git rev-parse HEAD in {root}); the files measured are those on disk, and a working tree "
        f"may carry uncommitted edits: git status --porcelain lists {n} path(s) here"
    )


def measure(
    root: Path,
    layers: dict[str, list[str]] | None = None,
    package: str = PACKAGE,
    module_lines: int = 800,
    function_lines: int = 100,
    exclude: tuple[str, ...] = LINE_EXCLUDE,
) -> dict:
    """Every static metric of the tree at ``root`` (rows 1-5; see the module notes)."""
    layers = LAYERS if layers is None else layers
    modules = load_package(root, package)
    deferred = deferred_imports(modules, package)
    edges = arrows_up(modules, layers, package)
    where: dict[str, list[str]] = {}
    for mod in modules.values():
        where.setdefault(layer_of(mod.rel, layers) or "(none)", []).append(mod.rel)
    return {
        "root": str(root),
        "modules": len(modules),
        "deferred_imports": sum(deferred.values()),
        "deferred_imports_per_file": dict(sorted(deferred.items(), key=lambda kv: (-kv[1], kv[0]))),
        "arrows_up": len(edges),
        "arrows_up_edges": [
            {"from": a, "from_layer": la, "to": b, "to_layer": lb, "deferred": d}
            for a, la, b, lb, d in edges
        ],
        "layers": layers,
        "layer_files": {k: sorted(v) for k, v in where.items()},
        "module_lines_limit": module_lines,
        "long_modules": [
            {"code_lines": n, "file": f} for n, f in long_modules(modules, module_lines)
        ],
        "function_lines_limit": function_lines,
        "long_functions": [
            {"lines": n, "name": f} for n, f in long_functions(modules, function_lines)
        ],
        "lines": line_stats(root, exclude=exclude),
        "line_exclude": list(exclude),
        "engines": engines(modules),
    }


def render(m: dict, verbose: bool = False) -> str:
    """The markdown table, then the names (and, with ``verbose``, the details)."""
    ln, eng = m["lines"], m["engines"]
    n_eng = len(eng["runners"]) + len(eng["fit_functions"])
    dup = "n/a" if m.get("duplicates") is None else str(m["duplicates"])
    rows = [
        (
            "deferred package imports (statements in function bodies)",
            f"{m['deferred_imports']} in {len(m['deferred_imports_per_file'])} files",
        ),
        ("arrows back up (distinct import edges to a higher layer)", str(m["arrows_up"])),
        (f"modules over {m['module_lines_limit']} code lines", str(len(m["long_modules"]))),
        (
            f"functions/methods over {m['function_lines_limit']} lines",
            str(len(m["long_functions"])),
        ),
        ("`# fmt: skip` comments (negtheory/, tests/, benchmarks/)", str(ln["fmt_skip"])),
        ("lines over 100 characters (same files)", str(ln["over_100"])),
        ("lines over 120 characters (same files)", str(ln["over_120"])),
        ("longest line, characters", f"{ln['max_len']} ({ln['max_at']})"),
        (
            "engines: `*Runner` with `run_epoch` + `_fit_*` functions",
            f"{n_eng} ({len(eng['runners'])} + {len(eng['fit_functions'])})",
        ),
        ("duplicate pairs (`duplicates` over negtheory/)", dup),
    ]
    tr = m.get("trace")
    if tr is None:
        rows.append(("fit call path", "not traced (--trace)"))
    else:
        rows.append(("fit call path: distinct negtheory files entered", str(tr["distinct_files"])))
        rows.append(
            (
                "fit call path: returns to a file left earlier",
                f"{tr['returns_to_earlier_file']} (of {tr['file_switches']} switches)",
            )
        )
    out = ["", "| metric | value |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows), ""]
    out.append(
        f"package: {m['modules']} modules under {m['root']}; python files for the line rows: {ln['files']}"
        f" (left out: {', '.join(m['line_exclude']) or 'none'})"
    )
    out.append(f"duplicates: {m.get('duplicates_how', 'not run')}")
    out.append(
        f"\nmodules over {m['module_lines_limit']} code lines (non-blank, non-comment; docstrings count):"
    )
    out += [f"  {x['code_lines']:6d}  {x['file']}" for x in m["long_modules"]]
    out.append(
        f"\nfunctions/methods over {m['function_lines_limit']} lines (end_lineno - lineno + 1):"
    )
    out += [f"  {x['lines']:6d}  {x['name']}" for x in m["long_functions"]]
    out.append("\nengines (rough proxy: *Runner classes with run_epoch, _fit_* functions):")
    out += [f"  runner  {n}" for n in eng["runners"]] + [
        f"  _fit_*  {n}" for n in eng["fit_functions"]
    ]
    if tr is not None:
        out.append(
            f"\nfit trace: engine {tr['engine']!r}, {tr['calls']} call events in negtheory files"
        )
    if verbose:
        out.append("\ndeferred package imports per file:")
        out += [f"  {n:4d}  {f}" for f, n in m["deferred_imports_per_file"].items()]
        out.append("\nlayers (low to high) and their files:")
        for name in [*m["layers"], "(none)"]:
            files = m["layer_files"].get(name, [])
            out.append(f"  {name} ({len(files)}): " + ", ".join(files))
        out.append("\narrows back up (importer [layer] -> imported [layer]):")
        for e in m["arrows_up_edges"]:
            tag = "  (deferred)" if e["deferred"] else ""
            out.append(f"  {e['from']} [{e['from_layer']}] -> {e['to']} [{e['to_layer']}]{tag}")
        if tr is not None:
            out.append("\nfit trace, call events per file:")
            out += [f"  {n:6d}  {f}" for f, n in tr["calls_per_file"].items()]
            out.append("\nfit trace, the file sequence (consecutive repeats merged):")
            out += [f"  {i:4d}  {f}" for i, f in enumerate(tr["sequence"], 1)]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module notes)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the checkout to measure (default: this repository)"
    )
    parser.add_argument(
        "--json", type=Path, metavar="OUT", help="also write every metric to this JSON file"
    )
    parser.add_argument(
        "--verbose", action="store_true", help="per-file deferred imports, layers, edges, the trace"
    )
    parser.add_argument(
        "--layers",
        type=Path,
        metavar="FILE.json",
        help="layer name -> list of path globs, low to high",
    )
    parser.add_argument(
        "--module-lines", type=int, default=800, help="code lines over which a module counts (800)"
    )
    parser.add_argument(
        "--function-lines", type=int, default=100, help="lines over which a function counts (100)"
    )
    parser.add_argument(
        "--duplicates", type=int, metavar="N", help="the duplicate-pair count (skips the command)"
    )
    parser.add_argument(
        "--seconds", type=int, default=120, help="time limit given to the duplicates command (120)"
    )
    parser.add_argument(
        "--exclude",
        action="append",
        metavar="GLOB",
        help="a file left out of the line rows (repeatable; default: this script and its test)",
    )
    parser.add_argument(
        "--trace", action="store_true", help="trace one small fit call (imports the package)"
    )
    args = parser.parse_args(argv)
    root = args.root.resolve()
    layers = load_layers(args.layers) if args.layers else LAYERS
    exclude = LINE_EXCLUDE if args.exclude is None else tuple(args.exclude)
    metrics = measure(
        root,
        layers,
        module_lines=args.module_lines,
        function_lines=args.function_lines,
        exclude=exclude,
    )
    if args.duplicates is not None:
        metrics["duplicates"], metrics["duplicates_how"] = (
            args.duplicates,
            "given with --duplicates",
        )
    else:
        metrics["duplicates"], metrics["duplicates_how"] = duplicate_pairs(
            root, seconds=args.seconds
        )
    if args.trace:
        metrics["trace"] = trace_fit(root)
    print(git_state(root))
    print(render(metrics, args.verbose))
    if args.json:
        args.json.write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
