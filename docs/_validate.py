"""numpydoc validation of every documented public callable (run by ``tests/test_docs.py``).

The targets are exactly what the API pages document (``_generate.generate_api``): every public
function and class, and every public method or property a class defines in ``negtheory`` (inherited
torch / scipy members are not ours to document). Usage::

    python docs/_validate.py            # one line per error, then a count per module
    python docs/_validate.py negtheory.dists   # only targets whose name starts with this prefix

The checks are fixed (``CHECKS``; ``EXAMPLE_CHECKS`` only for the core package, ``import negtheory``)
and there is no per-object exception list: a docstring either passes or is fixed.
"""

from __future__ import annotations

import collections
import inspect
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

#: numpydoc checks applied to every target (see numpydoc.validate.ERROR_MSGS)
CHECKS = frozenset(
    {
        "GL08",  # no docstring
        "SS01",  # no summary
        "SS03",  # summary does not end with a period
        "PR01",  # a parameter of the signature is not documented
        "PR02",  # a documented parameter is not in the signature
        "PR07",  # a parameter has no description
        "RT01",  # no Returns section where the function returns something
        "RT03",  # a return value has no description
    }
)
#: applied to the core package's functions and classes (not methods)
EXAMPLE_CHECKS = frozenset({"EX01"})


def _methods(cls) -> list[str]:
    names = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        func = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        if not (inspect.isfunction(func) or isinstance(member, property)):
            continue
        names.append(name)
    return names


def targets() -> list[tuple[str, str, bool]]:
    """``(public path, import path for numpydoc, core)`` for every documented callable."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(DOCS))
    import _generate

    with tempfile.TemporaryDirectory() as tmp:
        public = _generate.generate_api(Path(tmp) / "api")
    out = []
    for name in public:
        if name == "negtheory.__version__":
            continue
        obj = _generate.resolve(name)
        if inspect.ismodule(obj) or not callable(obj):
            continue
        core = name.count(".") == 1  # negtheory.NAME
        real = f"{obj.__module__}.{obj.__qualname__}"
        out.append((name, real, core))
        if inspect.isclass(obj):
            for cls in obj.__mro__:
                if not cls.__module__.startswith("negtheory"):
                    continue
                for meth in _methods(cls):
                    out.append(
                        (f"{name}.{meth}", f"{cls.__module__}.{cls.__qualname__}.{meth}", False)
                    )
    seen, unique = set(), []
    for t in out:
        if t[1] not in seen:
            seen.add(t[1])
            unique.append(t)
    return unique


def errors(prefix: str = "") -> list[tuple[str, str, str]]:
    """``(public path, code, message)`` for every failed check."""
    from numpydoc.validate import validate

    found = []
    for public, real, core in targets():
        if not public.startswith(prefix) and not real.startswith(prefix):
            continue
        checks = CHECKS | (EXAMPLE_CHECKS if core else frozenset())
        result = validate(real)
        for code, msg in result["errors"]:
            if code in checks:
                found.append((public, code, msg))
    return found


def main(argv: list[str]) -> int:
    prefix = argv[0] if argv else ""
    found = errors(prefix)
    for public, code, msg in found:
        print(f"{public}: {code} {msg}")
    per_module = collections.Counter(p.rsplit(".", 1)[0] for p, _, _ in found)
    print(f"\n{len(found)} errors in {len({p for p, _, _ in found})} objects")
    for mod, n in per_module.most_common():
        print(f"  {n:4d}  {mod}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
