"""Write the generated sources of the documentation (called by ``conf.py`` on every build).

* ``generated/api/*.rst`` — one page per module, found at build time: the names of
  ``negtheory.__all__`` grouped by the module that defines them (documented under their public name
  ``negtheory.NAME``), then ``negtheory.bridge``, ``negtheory.recsys``, ``negtheory.reproduce`` and
  ``negtheory.figures`` with their public submodules (command-line modules excluded: ``negtheory
  --help`` documents them).
* ``generated/notebooks/*.ipynb`` — copies of ``notebooks/*.ipynb`` with their committed outputs.
* ``generated/gallery.md`` and ``generated/figures/*.png`` — every PNG in ``figures/``, what it shows
  and which command writes it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import shutil
from pathlib import Path

#: subpackages documented with their public submodules (each needs its own ``__all__``)
SUBPACKAGES = ("negtheory.bridge", "negtheory.recsys", "negtheory.reproduce", "negtheory.figures")
#: submodules left out of the API pages: the command line is documented by ``--help``
SKIP_SUBMODULES = re.compile(r"(^|\.)(cli|_[^.]*)$")
#: id(object) -> the public path it is documented under (filled by generate_api; used by conf.py to
#: resolve cross-references written with the defining module's path, e.g. ``negtheory.infonce.reliability``)
PUBLIC_BY_ID: dict[int, str] = {}


def _write(path: Path, text: str) -> None:
    """Write only when the content changed (keeps Sphinx's incremental builds incremental)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _title(text: str, ch: str = "=") -> str:
    return f"{text}\n{ch * len(text)}\n"


def _directive(obj, public: str) -> str:
    if inspect.isclass(obj):
        return f".. autoclass:: {public}\n   :members:\n"
    if callable(obj):
        return f".. autofunction:: {public}\n"
    return f".. autodata:: {public}\n   :no-value:\n"


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, o in vars(module).items()
            if not n.startswith("_") and getattr(o, "__module__", None) == module.__name__ and callable(o)
        ]
    return list(names)


class _Pages:
    def __init__(self, out: Path):
        self.out = out
        self.documented: set[int] = set()  # id() of objects already on a page
        self.public_names: list[str] = []  # every documented public path (checked by tests/test_docs.py)
        self.pages: list[str] = []

    def page(self, modname: str, entries: list[tuple[str, object]], *, intro: str = "") -> None:
        lines = [_title(modname), ""]
        try:
            importlib.import_module(modname)
            lines += [f".. automodule:: {modname}", "   :no-members:", ""]
        except ImportError:
            lines += [f".. py:module:: {modname}", ""]
        if intro:
            lines += [intro, ""]
        if entries:
            lines += [".. rubric:: Contents", ""]
            lines += [f"* :py:obj:`~{public}`" for public, _ in entries]
            lines.append("")
        for public, obj in entries:
            lines += [_directive(obj, public), ""]
            self.documented.add(id(obj))
            PUBLIC_BY_ID.setdefault(id(obj), public)
            self.public_names.append(public)
        _write(self.out / f"{modname}.rst", "\n".join(lines))
        self.pages.append(modname)

    def module_rest(self, modname: str, skip: set[int] | None = None) -> list[tuple[str, object]]:
        """The public names of ``modname`` not documented yet (under ``modname.NAME``)."""
        module = importlib.import_module(modname)
        entries = []
        for name in _public_names(module):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or id(obj) in self.documented or (skip and id(obj) in skip):
                continue
            entries.append((f"{modname}.{name}", obj))
        return entries


def generate_api(out: Path) -> list[str]:
    """Write the API pages; return the public names they document."""
    import negtheory

    if out.exists():
        shutil.rmtree(out)
    pages = _Pages(out)

    # negtheory.__all__, grouped by the module that defines each name (or the module itself)
    groups: dict[str, list[tuple[str, object]]] = {}
    for name in negtheory.__all__:
        obj = getattr(negtheory, name)
        if name == "__version__":
            continue
        if inspect.ismodule(obj):
            groups.setdefault(obj.__name__, [])
            pages.public_names.append(f"negtheory.{name}")
            continue
        home = getattr(obj, "__module__", None) or "negtheory"
        groups.setdefault(home, []).append((f"negtheory.{name}", obj))
    top_pages = []
    for modname, entries in groups.items():
        pages.page(modname, entries)
        top_pages.append(modname)
    # the rest of each module's own __all__ (e.g. negtheory.bprac.posterior)
    for modname in top_pages:
        rest = pages.module_rest(modname)
        if rest:
            path = out / f"{modname}.rst"
            extra = ["", ".. rubric:: Also in this module", ""] + [_directive(obj, public) for public, obj in rest]
            for public, obj in rest:
                pages.documented.add(id(obj))
                PUBLIC_BY_ID.setdefault(id(obj), public)
                pages.public_names.append(public)
            _write(path, path.read_text(encoding="utf-8") + "\n".join(extra) + "\n")

    sub_pages: dict[str, list[str]] = {}
    for pkgname in SUBPACKAGES:
        try:
            pkg = importlib.import_module(pkgname)
        except ImportError:  # pragma: no cover - e.g. torch missing: the bridge pages are left out
            continue
        pages.page(pkgname, pages.module_rest(pkgname))
        sub_pages[pkgname] = []
        for info in pkgutil.iter_modules(pkg.__path__, prefix=f"{pkgname}."):
            if SKIP_SUBMODULES.search(info.name):
                continue
            pages.page(info.name, pages.module_rest(info.name))
            sub_pages[pkgname].append(info.name)

    index = [
        _title("API reference"),
        "",
        "Generated from the docstrings. Every name of ``negtheory.__all__`` is documented under its",
        "public path ``negtheory.NAME``, on the page of the module that defines it; the optional parts",
        "(:mod:`negtheory.bridge` needs the ``torch`` extra) follow.",
        "",
        f".. py:data:: negtheory.__version__\n   :type: str\n   :value: {negtheory.__version__!r}\n\n   The package version.",
        "",
        _title("The core package (``import negtheory``)", "-"),
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    index += [f"   {m}" for m in top_pages]
    for pkgname, subs in sub_pages.items():
        index += ["", _title(f"``{pkgname}``", "-"), ".. toctree::", "   :maxdepth: 1", "", f"   {pkgname}"]
        index += [f"   {m}" for m in subs]
    _write(out / "index.rst", "\n".join(index) + "\n")
    pages.public_names.append("negtheory.__version__")
    _write(out / "public_names.txt", "\n".join(pages.public_names) + "\n")
    return pages.public_names


def copy_notebooks(root: Path, out: Path) -> list[str]:
    """Copy the committed notebooks (outputs included; they are rendered, not executed)."""
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        target = out / nb.name
        if not target.exists() or target.read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, target)
        names.append(nb.stem)
    for stale in out.glob("*.ipynb"):
        if stale.stem not in names:
            stale.unlink()
    return names


# Descriptions of figures the README's gallery table does not describe.
EXTRA_DESCRIPTIONS = {
    "relaxed_softmax_fig2_temperature": "**Tanielian & Vasile Fig. 2** — KL(P ‖ Pop(I) × g) against the "
    "Boltzmann temperature T for the degeneracies D = 1/P_i, U(J) and Pop(J) (5 seeds).",
    "relaxed_softmax_fig3_batch_size": "**Tanielian & Vasile Fig. 3** — MLE against Relaxed Softmax: train and "
    "test KL against the batch size.",
    "relaxed_softmax_fig4_train_size": "**Tanielian & Vasile Fig. 4** — MLE against Relaxed Softmax: train and "
    "test KL against the number of training pairs.",
    "relaxed_softmax_fig5_methods": "**Tanielian & Vasile Fig. 5** — KL, MPR and Prec@10 of MLE, SS, US, PS, UBS "
    "and PBS on 10, 50 and 90 mixture components.",
    "thesis_tables_ml100k": "**Thesis Tables 4.2, 4.5, 5.2, 6.3** — NDCG@10 on MovieLens-100K: the printed "
    "values against negtheory's runs (3 seeds, 95 % intervals).",
    "wu_k_sweep_ml100k": "**Wu et al. on MovieLens-100K** — InfoNCE-MF validation and test NDCG@10 against K, "
    "with the K* predicted from the K = 1 model's validation AUC.",
    "sim_vs_train_ml100k": "**Simulation against training on MovieLens-100K** — each estimator's MSE in real training "
    "(test items as false-negative labels) against the parametric, calibrated and resampled simulations, per trained "
    "loss at epoch 50 (3 seeds, 95 % intervals), and BNS's posterior reliability for two priors.",
}


def _readme_gallery(root: Path) -> dict[str, str]:
    text = (root / "README.md").read_text(encoding="utf-8")
    found = {}
    for m in re.finditer(r"^\| !\[[^\]]*\]\(figures/([\w.-]+)\.png\) \| (.+?) \|\s*$", text, flags=re.MULTILINE):
        found[m.group(1)] = m.group(2).split(" | ")[0].strip()  # first text column only
    return found


def _command(name: str, registry: dict) -> str:
    if name in registry:
        return f"``negtheory figures --out figures`` (alone: ``negtheory figures --only {name} --out figures``)"
    if name.startswith("bridge_"):
        return (
            "``negtheory figures --only " + name + " --out figures`` from the tables in ``notebooks/data/bridge/``, "
            "which ``negtheory bridge experiments --update-committed`` retrains (torch extra)"
        )
    if name.startswith("relaxed_softmax_"):
        return (
            "``negtheory reproduce relaxed-softmax --update-committed`` (torch extra; tables in "
            "``notebooks/data/relaxed_softmax/``)"
        )
    for cmd in ("thesis_tables", "wu_k_sweep", "sim_vs_train"):
        if name == f"{cmd}_ml100k":
            sub = cmd.replace("_", "-")
            return (
                f"``negtheory reproduce {sub} --train 100k_train.csv --test 100k_test.csv --out DIR`` writes it as "
                f"``DIR/{cmd}.png``; the committed copy is the MovieLens-100K run of the README"
            )
    return "not written by a command of the package (committed by hand)"


def generate_gallery(root: Path, out: Path) -> list[str]:
    """Write ``gallery.md`` with every PNG of ``figures/`` (copied next to it)."""
    from negtheory.figures import registry

    reg = registry()
    readme = _readme_gallery(root)
    figdir = out / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    pngs = sorted((root / "figures").glob("*.png"))
    lines = [
        "# Figure gallery",
        "",
        (
            "Every PNG committed under `figures/`, what it shows and which command writes it. "
            "`negtheory figures --out figures` writes the figures of the theory (embedded defaults, no download; "
            "measured on 2 cores: 29 s with cold numba caches and 13 s warm when the cores are free, 25 s warm at load "
            "1.5 and 110 s at load 13 from other jobs; without `--out` it writes `negtheory_output/figures/`); the "
            "`bridge_*`, `relaxed_softmax_*` and MovieLens-100K figures come from training runs "
            "(see the [reproductions](../guide/reproductions.md))."
        ),
        "",
    ]
    names = []
    for png in pngs:
        name = png.stem
        target = figdir / png.name
        if not target.exists() or target.read_bytes() != png.read_bytes():
            shutil.copyfile(png, target)
        desc = readme.get(name) or EXTRA_DESCRIPTIONS.get(name)
        if desc is None and name in reg:
            desc = (inspect.getdoc(reg[name]) or "").split("\n")[0]
        desc = desc or "(no description yet)"
        lines += [
            f"## `{name}`",
            "",
            desc,
            "",
            f"*Written by* {_command(name, reg).replace('``', '`')}.",
            "",
            f"```{{image}} figures/{png.name}",
            f":alt: {name}",
            ":width: 90%",
            "```",
            "",
        ]
        names.append(name)
    for stale in figdir.glob("*.png"):
        if stale.stem not in names:
            stale.unlink()
    _write(out / "gallery.md", "\n".join(lines))
    return names


def generate_all(root: Path, out: Path) -> None:
    generate_api(out / "api")
    copy_notebooks(root, out / "notebooks")
    generate_gallery(root, out)
