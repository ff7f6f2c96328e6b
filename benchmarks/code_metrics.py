"""Code-size metrics of the ``negtheory`` package (issue 32's before/after table).

For the working tree, or for a git revision (extracted with ``git archive`` into a temporary
folder), prints:

1. the code lines of each module over ``--module-min`` (400) code lines; a *code line* is a line
   that holds a Python token other than a comment, and is not part of a docstring (blank lines,
   comment lines and docstrings do not count);
2. the ``--top`` (15) longest functions and methods, in code lines (nested functions count in
   their parent too; ``numba`` marks a function decorated with ``njit`` / ``jit`` /
   ``vectorize``: numba kernels are exempt from the ~100-line rule);
3. the public functions and methods (no leading underscore, in a class without one; ``__init__``
   of a public class counts) with more than ``--max-params`` (15) parameters, ``self`` / ``cls``
   not counted, ``*args`` and ``**kwargs`` counted as one each (and flagged);
4. the number of pairs of repeated code that the ``duplicates`` command reports on the whole
   tree (skipped when the command is not on PATH);
5. the import cycles among ``negtheory`` modules: the strongly connected components of the
   static graph of ``import`` / ``from ... import`` statements (anywhere in a module, except under
   ``if TYPE_CHECKING:``; the implicit import of parent packages is not an edge; the same rules as
   ``tests/test_import_graph.py``).

Usage::

    python benchmarks/code_metrics.py                 # the working tree
    python benchmarks/code_metrics.py --rev d149125   # a git revision
    python benchmarks/code_metrics.py --pairs         # and every repeated-code pair
"""

from __future__ import annotations

import argparse
import ast
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SKIP_TOKENS = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}
_NUMBA = {"njit", "jit", "vectorize", "guvectorize", "generated_jit", "cfunc"}


def _docstring_lines(tree: ast.AST) -> set[int]:
    """Line numbers covered by module, class and function docstrings."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
        ):
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def code_lines(source: str, tree: ast.AST) -> set[int]:
    """The line numbers of ``source`` that hold code (see the module notes)."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _SKIP_TOKENS:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines - _docstring_lines(tree)


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def _functions(tree: ast.AST):
    """Yield (qualified name, node, public) for every function and method, nested ones included."""

    def walk(node, prefix, public):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                yield from walk(
                    child, f"{prefix}{child.name}.", public and not child.name.startswith("_")
                )
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                is_public = public and (not child.name.startswith("_") or child.name == "__init__")
                yield f"{prefix}{child.name}", child, is_public
                yield from walk(child, f"{prefix}{child.name}.<locals>.", False)
            else:
                yield from walk(child, prefix, public)

    yield from walk(tree, "", True)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, bool]:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + (args.vararg is not None) + (args.kwarg is not None), args.kwarg is not None


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_targets(module: str, is_pkg: bool, tree: ast.AST, modules: set[str]) -> set[str]:
    """The negtheory modules that one module imports (edges of the import graph)."""

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    package = module if is_pkg else module.rpartition(".")[0]
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    out: set[str | None] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(known(a.name) for a in node.names if a.name.split(".")[0] == "negtheory")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(head + ([node.module] if node.module else []))
            if base.split(".")[0] == "negtheory":
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    out.add(sub if sub in modules else known(base))
    out.discard(None)
    out.discard(module)
    return {m for m in out if m is not None}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, recursive)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def duplicate_pairs(root: Path, seconds: int, rows: bool = False) -> str:
    """The first line of ``duplicates`` on the tree (its pair count), with every pair's row if ``rows``; or why it was skipped."""
    exe = shutil.which("duplicates")
    if exe is None:
        return "skipped (the duplicates command is not on PATH)"
    most = "200" if rows else "1"
    proc = subprocess.run(
        [exe, "--repo", str(root), "--seconds", str(seconds), "--most", most],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = proc.stdout.splitlines()
    head = lines[0] if lines else proc.stderr.strip()
    extra = [ln for ln in lines if ln.startswith(("incomplete:",))]
    listed = ["  " + ln for ln in lines[1:] if ln.startswith("D")] if rows else []
    return "\n".join([" ".join([head, *extra]), *listed])


def measure(root: Path, args: argparse.Namespace) -> str:
    """The report of the tree at ``root``."""
    package = root / "negtheory"
    files = sorted(package.rglob("*.py"))
    modules = {_module_name(root, p): p for p in files}
    sizes, funcs, wide, graph = [], [], [], {}
    for name, path in modules.items():
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(path))
        lines = code_lines(source, tree)
        sizes.append((len(lines), name))
        for qual, node, public in _functions(tree):
            span = range(node.lineno, (node.end_lineno or node.lineno) + 1)
            tag = " (numba)" if _decorator_names(node) & _NUMBA else ""
            funcs.append((sum(1 for i in span if i in lines), f"{name}.{qual}{tag}"))
            n_params, has_kwargs = _parameters(node)
            if public and n_params > args.max_params:
                wide.append((n_params, f"{name}.{qual}" + (" (**kwargs)" if has_kwargs else "")))
        graph[name] = _import_targets(name, path.name == "__init__.py", tree, set(modules))
    total = sum(n for n, _ in sizes)
    out = [f"package: {len(modules)} modules, {total} code lines"]
    big = sorted((s for s in sizes if s[0] > args.module_min), reverse=True)
    out.append(f"\nmodules over {args.module_min} code lines ({len(big)}):")
    out += [f"  {n:6d}  {m}" for n, m in big]
    out.append(f"\nthe {args.top} longest functions (code lines):")
    out += [f"  {n:6d}  {f}" for n, f in sorted(funcs, reverse=True)[: args.top]]
    over = [f for n, f in funcs if n > 100 and "(numba)" not in f]
    out.append(f"  functions over 100 code lines, numba kernels aside: {len(over)}")
    out.append(f"\npublic functions with more than {args.max_params} parameters ({len(wide)}):")
    out += [f"  {n:6d}  {f}" for n, f in sorted(wide, reverse=True)]
    out.append(f"\nrepeated code: {duplicate_pairs(root, args.seconds, args.pairs)}")
    cycles = import_cycles(graph)
    out.append(f"\nimport cycles among negtheory modules: {len(cycles)}")
    out += ["  " + " <-> ".join(c) for c in cycles]
    return "\n".join(out)


def _extract(rev: str, dest: Path) -> None:
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a git revision (default: the working tree)")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)"
    )
    parser.add_argument("--module-min", type=int, default=400)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--max-params", type=int, default=15)
    parser.add_argument("--seconds", type=int, default=120, help="time limit given to duplicates")
    parser.add_argument(
        "--pairs", action="store_true", help="also list every pair that duplicates reports"
    )
    args = parser.parse_args(argv)
    if args.rev is None:
        label = f"working tree of {args.root}"
        print(f"== {label}\n" + measure(args.root, args))
        return 0
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.rev],
        capture_output=True,
        text=True,
        check=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        _extract(args.rev, Path(tmp))
        print(f"== revision {sha.stdout.strip()}\n" + measure(Path(tmp), args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
