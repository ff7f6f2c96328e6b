"""Write the generated sources of the documentation (called by ``conf.py`` on every build).

* ``generated/api/*.rst`` — one page per module, found at build time: the names of
  ``negtheory.__all__`` grouped by the module that defines them (documented under their public name
  ``negtheory.NAME``), then ``negtheory.bridge``, ``negtheory.recsys``, ``negtheory.reproduce`` and
  ``negtheory.figures`` with their public submodules (command-line modules excluded: ``negtheory
  --help`` documents them). Each page opens with an autosummary-style table (name, first docstring
  line). The modules are grouped by the themes of :data:`THEMES`: ``index.rst`` lists the themes with
  a table of their modules, and ``theme-NAME.rst`` every name of a theme's modules (the sidebar shows
  the themes, each opening on its modules).
* ``generated/notebooks/*.ipynb`` — copies of ``notebooks/*.ipynb`` with their committed outputs.
* ``generated/gallery.md`` and ``generated/figures/*.png`` — every PNG in ``figures/``, what it shows
  and which command writes it, grouped by source (:data:`GALLERY_GROUPS`).
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


#: the themes of the API index, in order: (file stem, title, what it covers, modules). A module belongs to the
#: first theme that names it or names a package it is in; a module no theme names lands in "Other modules".
THEMES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    (
        "theory",
        "Theory: how many negatives",
        "Wu et al. (Rethinking InfoNCE): the reliability of an InfoNCE step, training effectiveness, the AUC <-> "
        "label-quality map and the optimal number of negatives K.",
        ("negtheory.infonce",),
    ),
    (
        "distributions",
        "Score distributions",
        "Class-conditional score laws with the ``scipy.stats`` frozen-distribution surface (order statistics, "
        "true / false / hard negatives, unlabeled scores), their common base, and the variance-gamma law of "
        "matrix-factorisation scores (Liu Bin's thesis).",
        ("negtheory.dists", "negtheory.variance_gamma", "negtheory.distribution"),
    ),
    (
        "sampling",
        "Generators and sampling",
        "Score generators of the thesis's numerical study, proposal distributions and fast categorical samplers "
        "(alias tables, inverse CDF, Boltzmann).",
        ("negtheory.generators", "negtheory.sampling"),
    ),
    (
        "estimators",
        "Debiasing estimators",
        "Estimators of the true-negative score mean and the debiasing weights (BCL, DCL, HCL, DPL, BNS), and "
        "BPRAC's credence (Liu Bin's thesis).",
        ("negtheory.estimators", "negtheory.bprac"),
    ),
    (
        "studies",
        "Monte-Carlo studies",
        "The estimators' MSE studies, as tidy pandas tables.",
        ("negtheory.studies",),
    ),
    (
        "mechanics",
        "Mechanics, thresholds and Relaxed Softmax",
        "The mechanics of negative sampling of the negative-sampling textbook chapter (NCE, the InfoNCE margin, "
        "coverage, temperature, mining, false negatives, pool costs), the threshold-selection note's two "
        "thresholds, and Tanielian & Vasile (Relaxed Softmax).",
        (
            "negtheory.mechanics",
            "negtheory.nce",
            "negtheory.margins",
            "negtheory.coverage",
            "negtheory.temperature",
            "negtheory.mining",
            "negtheory.false_negatives",
            "negtheory.pool_costs",
            "negtheory.thresholds",
            "negtheory.relaxed_softmax",
        ),
    ),
    (
        "recommendation",
        "Recommendation and calibration",
        "Implicit-feedback data, composable training (``negtheory.training.fit`` with model, loss, sampler and "
        "optimizer specs), BPR-MF by SGD with the thesis's samplers, ranking metrics, probes of real training, and "
        "the simulations calibrated to what training measures.",
        ("negtheory.training", "negtheory.recsys", "negtheory.calibration"),
    ),
    (
        "bridge",
        "Torch bridge: losses and training",
        "The estimators as torch losses and samplers, mini-batch MF training and the simulation-against-training "
        "probes (extra ``torch``; one page per loss in the :doc:`loss guide </guide/losses>`).",
        ("negtheory.bridge",),
    ),
    (
        "reproductions",
        "Reproductions",
        "The papers' experiments behind ``negtheory reproduce NAME``.",
        ("negtheory.reproduce",),
    ),
    (
        "figures",
        "Figures",
        "The reproduced figures behind ``negtheory figures`` (shown in the :doc:`gallery </generated/gallery>`).",
        ("negtheory.figures",),
    ),
)
OTHER_THEME = ("other", "Other modules", "Modules no theme of the index names yet.")

_BARS = re.compile(r"(?<![\\|])\|(?=[^\s|])([^|`]*?[^\s|\\])\|(?!\|)")


def resolve(path: str):
    """The object at a dotted path: its longest importable module prefix, then attributes.

    ImportError when no prefix imports, AttributeError when an attribute is missing.
    """
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(path)


def escape_bars(line: str) -> str:
    """Escape ``|x|`` (plain-text absolute values and set sizes) outside inline literals.

    reStructuredText reads ``|...|`` as a substitution reference; the docstrings write it as maths.
    """
    parts = re.split(r"(``.*?``|:math:`[^`]*`)", line)
    for k in range(
        0, len(parts), 2
    ):  # even parts are outside ``inline literals`` and :math:`roles`
        parts[k] = _BARS.sub(r"\\|\1\\|", parts[k])
    return "".join(parts)


def _write(path: Path, text: str) -> None:
    """Write only when the content changed (keeps Sphinx's incremental builds incremental)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _title(text: str, ch: str = "=") -> str:
    return f"{text}\n{ch * len(text)}\n"


def _directive(obj, public: str) -> str:
    if inspect.isclass(obj):
        bases = obj.__mro__[1:]
        if any(c.__module__.startswith("negtheory") and c.__name__.startswith("_") for c in bases):
            # members written once in a private base (e.g. the losses' forward / logits / loss_from_logits)
            # are documented on every public subclass; those of torch / the standard library are not
            foreign = next(c.__name__ for c in bases if not c.__module__.startswith("negtheory"))
            return f".. autoclass:: {public}\n   :members:\n   :inherited-members: {foreign}\n"
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
            if not n.startswith("_")
            and getattr(o, "__module__", None) == module.__name__
            and callable(o)
        ]
    return list(names)


def _first_line(doc: str | None) -> str:
    """The summary line of a docstring (its first paragraph, joined), escaped for a table cell."""
    lines = []
    for line in (doc or "").strip().splitlines():
        if not line.strip():
            break
        lines.append(line.strip())
    return escape_bars(" ".join(lines))


def summary(obj, public: str = "") -> str:
    """One-line summary of a documented object: the first line of its own docstring.

    A module constant has no docstring of its own (``inspect.getdoc`` would give its type's): its ``#:``
    comment is read from the source instead, or its type is named.
    """
    if inspect.ismodule(obj) or inspect.isclass(obj) or callable(obj):
        return _first_line(inspect.getdoc(obj))
    import sys

    from sphinx.pycode import ModuleAnalyzer

    name = public.rpartition(".")[2]
    homes = [
        m
        for m in sorted(sys.modules)
        if m.startswith("negtheory") and getattr(sys.modules[m], name, None) is obj
    ]
    for home in homes:
        try:
            found = ModuleAnalyzer.for_module(home).find_attr_docs().get(("", name))
        except Exception:  # noqa: BLE001 - no source to read
            continue
        if found:
            return _first_line("\n".join(found))
    return f"A ``{type(obj).__name__}`` constant."


def _summary_table(rows: list[tuple[str, str]], header: str = "Name") -> list[str]:
    """An autosummary-style table: a reference and its one-line summary per row."""
    if not rows:
        return []
    lines = [
        ".. list-table::",
        "   :class: negtheory-api-summary",
        "   :widths: 35 65",
        "   :header-rows: 1",
        "",
    ]
    lines += [f"   * - {header}", "     - Summary"]
    for ref, text in rows:
        lines += [f"   * - {ref}", f"     - {text or ' '}"]
    return lines + [""]


class _Pages:
    def __init__(self, out: Path):
        self.out = out
        self.documented: set[int] = set()  # id() of objects already on a page
        self.public_names: list[
            str
        ] = []  # every documented public path (checked by tests/test_docs.py)
        self.pages: list[str] = []
        #: modname -> [(public, obj)] of the page, and the part of it only in the module's own __all__
        self.entries: dict[str, list[tuple[str, object]]] = {}
        self.rest: dict[str, list[tuple[str, object]]] = {}

    def add(self, modname: str, entries: list[tuple[str, object]], *, rest: bool = False) -> None:
        """Put ``entries`` on the page of ``modname`` (``rest``: under "Also in this module")."""
        target = self.rest if rest else self.entries
        target.setdefault(modname, []).extend(entries)
        self.entries.setdefault(modname, [])
        self.rest.setdefault(modname, [])
        for public, obj in entries:
            self.documented.add(id(obj))
            PUBLIC_BY_ID.setdefault(id(obj), public)
            self.public_names.append(public)
        if modname not in self.pages:
            self.pages.append(modname)

    def write(self, modname: str) -> None:
        lines = [_title(modname), ""]
        try:
            importlib.import_module(modname)
            lines += [f".. automodule:: {modname}", "   :no-members:", ""]
        except ImportError:
            lines += [f".. py:module:: {modname}", ""]
        entries, rest = self.entries[modname], self.rest[modname]
        if entries or rest:
            lines += [".. rubric:: Contents", ""]
            lines += _summary_table(
                [(f":py:obj:`~{public}`", summary(obj, public)) for public, obj in entries + rest]
            )
        for public, obj in entries:
            lines += [_directive(obj, public), ""]
        if rest:
            lines += [".. rubric:: Also in this module", ""]
            lines += [_directive(obj, public) for public, obj in rest]
            lines.append("")
        _write(self.out / f"{modname}.rst", "\n".join(lines))

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


def _theme_of(modname: str) -> str:
    for slug, _name, _blurb, modules in THEMES:
        if any(modname == m or modname.startswith(m + ".") for m in modules):
            return slug
    return OTHER_THEME[0]


def _theme_order(modname: str) -> tuple[int, int]:
    """Sort key of a page inside its theme: the order of THEMES' module lists, a package before its modules."""
    for _slug, _name, _blurb, modules in THEMES:
        for i, m in enumerate(modules):
            if modname == m or modname.startswith(m + "."):
                return (i, 0 if modname == m else 1)
    return (0, 0)


def _write_themes(out: Path, pages: _Pages, version: str) -> None:
    """The index (themes, each with its modules' summaries) and one page per theme (its modules' names)."""
    by_theme: dict[str, list[str]] = {}
    for modname in pages.pages:
        by_theme.setdefault(_theme_of(modname), []).append(modname)
    themes = [t for t in THEMES if t[0] in by_theme]
    if OTHER_THEME[0] in by_theme:
        themes.append((*OTHER_THEME, ()))

    index = [
        _title("API reference"),
        "",
        "Generated from the docstrings. Every name of ``negtheory.__all__`` is documented under its public path",
        "``negtheory.NAME``, on the page of the module that defines it; the optional parts (:mod:`negtheory.bridge`",
        "needs the ``torch`` extra) follow. The modules are grouped by theme; each theme's page lists every name of",
        "its modules with a one-line summary.",
        "",
        f".. py:data:: negtheory.__version__\n   :type: str\n   :value: {version!r}\n\n   The package version.",
        "",
        ".. toctree::",
        "   :hidden:",
        "   :maxdepth: 2",
        "",
    ]
    index += [f"   theme-{slug}" for slug, *_ in themes]
    index.append("")
    for slug, title, blurb, _modules in themes:
        modnames = sorted(by_theme[slug], key=_theme_order)
        index += [_title(title, "-"), f"{blurb} :doc:`All names <theme-{slug}>`.", ""]
        rows = [(f":py:mod:`{m}`", summary(importlib.import_module(m))) for m in modnames]
        index += _summary_table(rows, header="Module")

        page = [_title(title), "", blurb, ""]
        for m in modnames:
            module = importlib.import_module(m)
            page += [_title(m, "-"), summary(module), ""]
            entries = pages.entries.get(m, []) + pages.rest.get(m, [])
            page += _summary_table(
                [(f":py:obj:`~{public}`", summary(obj, public)) for public, obj in entries]
            )
            if not entries:
                page += [f"See :py:mod:`{m}`.", ""]
        page += [".. toctree::", "   :hidden:", "", *[f"   {m}" for m in modnames], ""]
        _write(out / f"theme-{slug}.rst", "\n".join(page))
    _write(out / "index.rst", "\n".join(index) + "\n")


def generate_api(out: Path) -> list[str]:
    """Write the API pages; return the public names they document."""
    import negtheory

    if out.exists():
        shutil.rmtree(out)
    pages = _Pages(out)

    # negtheory.__all__, grouped by the module that defines each name (or the module itself)
    groups: dict[str, list[tuple[str, object]]] = {}
    module_names: list[str] = []
    for name in negtheory.__all__:
        obj = getattr(negtheory, name)
        if name == "__version__":
            continue
        if inspect.ismodule(obj):
            groups.setdefault(obj.__name__, [])
            module_names.append(f"negtheory.{name}")
            continue
        home = getattr(obj, "__module__", None) or "negtheory"
        groups.setdefault(home, []).append((f"negtheory.{name}", obj))
    for modname, entries in groups.items():
        pages.add(modname, entries)
    pages.public_names[:0] = module_names
    top_pages = list(groups)
    # the rest of each module's own __all__ (e.g. negtheory.bprac.posterior)
    for modname in top_pages:
        pages.add(modname, pages.module_rest(modname), rest=True)

    for pkgname in SUBPACKAGES:
        try:
            pkg = importlib.import_module(pkgname)
        except ImportError:  # pragma: no cover - e.g. torch missing: the bridge pages are left out
            continue
        pages.add(pkgname, pages.module_rest(pkgname))
        for info in pkgutil.iter_modules(pkg.__path__, prefix=f"{pkgname}."):
            if SKIP_SUBMODULES.search(info.name):
                continue
            pages.add(info.name, pages.module_rest(info.name))

    for modname in pages.pages:
        pages.write(modname)
    _write_themes(out, pages, negtheory.__version__)
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


# What each committed figure shows (the gallery's descriptions; the README links the gallery)
FIGURE_DESCRIPTIONS = {
    "wu_fig2b3b_effectiveness_vs_k": "**Wu et al. Fig. 2b/3b** — trajectory-averaged effectiveness against K for lambda in {0.5, 0.7, 0.9, 0.95} at training AUC 0.75 and mu_q = 2.4, K* marked; the dashed curve is the paper's discrete average, which picks K* = 4 where the continuous average picks 5 (a flat optimum).",
    "wu_fig4_optimal_k_vs_mu": "**Fig. 4** — optimal K against the label quality mu_q: the U shape (many negatives for very noisy and for very clean labels).",
    "wu_fig5_training_stages": "**Fig. 5** — good / bad / easy fractions and v against K at four training stages; good = bad at convergence, where v has a local maximum at K = 1 and still rises at the cap (K* ≥ k_max = 50).",
    "wu_fig6_ans_schedule": "**Fig. 6** — the ANS schedule and the mean of the integer counts drawn by eq. 8.",
    "wu_fig9_auc_vs_mu": "**eq. 7** — training AUC against mu_q, closed form Phi(mu/sqrt 2) against the numerical integral.",
    "fig_2_3_order_statistic": "**Thesis Fig. 2.3** — a parent density and its order statistic g(x; k, n).",
    "thesis_fig3_2_vg_prior": "**Thesis Fig. 3.2** — the variance-gamma prior of MF inner products for several d and lambda.",
    "thesis_fig3_3_vg_posterior": "**Fig. 3.3** — the posterior of a true positive's score, 2F f (eq. 3.22), against the prior (dotted), for d = 1, 4, 16 and three lambda.",
    "fig_4_3_tn_fn_densities": "**Fig. 4.3** — true- and false-negative score densities 2f(1-F), 2fF for normal, Student-t and gamma parents.",
    "fig_6_4_class_conditional": "**Fig. 6.4** — phi_TN and phi_FN for several encoder qualities alpha.",
    "fig_6_8_generated_scores": "**Fig. 6.8** — generated exp(x/t) against the exact densities, alpha in {0.5, 0.7, 0.9, 1}.",
    "thesis_fig6_9_mse": "**Fig. 6.9** — MSE of the biased, DCL and BCL (eq. 6.48 and self-normalised) estimators of the true-negative mean against alpha, gamma, tau+, t, N and K. HCL is left out, as in the thesis (its MSE is 1e5-6e5 here; `negtheory study mse` reports it).",
    "thesis_fig6_10_means": '**Fig. 6.10** — their means against the truth, and BCL\'s relative bias against N. DCL is unbiased; the biased estimator is not; **BCL is biased low, by O(1/N), most as alpha → 1**: −47 / −30 / −16 / −8.4 / −4.2 / −2.1 % at N = 16 / 32 / 64 / 128 / 256 / 512 for alpha = 1, and −5.8 / −1.7 / −0.37 % at N = 16 / 64 / 256 for the default alpha = 0.9 (2 SE ≤ 0.8 %; DCL within 2 SE of 0 everywhere). Cause: the coarse eCDF of eq. 6.30 (each score counted over N, itself included) puts the top scores at F̂ = 1, where ω → 0 as alpha → 1 (ω ∝ 1 − Φ there), so the largest scores, which dominate the mean of exp(x/t), are under-weighted; with the exact parent CDF in place of the eCDF the bias at alpha = 1 vanishes (−0.2 / −0.4 / 0.0 % at N = 16 / 64 / 256, 20 000 anchors, 1 SE ≈ 0.5 %; checked in `tests/test_figures.py`). Protocol: `mse_study("n_unlabeled", [16, 32, 64, 128, 256, 512], alpha=a, n_anchors=100_000, rng=0)` at the thesis defaults (gamma = 0.1, tau+ = 0.1, t = 0.5, beta = 0.5), relative bias and SE by `negtheory.figures.thesis_mse.relative_bias`; the figure itself uses M = 1000.',
    "mechanics_entropy_temperature": "**Textbook chapter** — entropy of the negative softmax against tau (slopes from dH/dtau = Var_p(s)/tau^3) and an adaptive-temperature controller holding a band.",
    "mechanics_infonce_margin": "**Textbook chapter** — exact InfoNCE loss against its hinge at the effective margin beta + tau ln K.",
    "mechanics_alias_vs_inverse_cdf": "**Textbook chapter** — alias against inverse-CDF sampling: both draw the target law (frequencies of 100 000 seeded draws against f^0.75), and the work per draw, counted: one comparison against log2 n. Wall-clock timings depend on the machine and live in `python benchmarks/bench_sampling.py --plot` (writes `benchmarks/bench_sampling.png`).",
    "mechanics_threshold_selection": "**Threshold-selection note** — scores rebuilt from Tables I-II and the chosen false/hard thresholds.",
    "mechanics_boltzmann_temperature": "**Tanielian & Vasile** — the Boltzmann sampling law B(G, D, T) against T.",
    "mechanics_mixture_dataset": "**Tanielian & Vasile** — the discretised mixture-of-Gaussians task with 10, 50 and 90 components.",
    "bridge_wu_k_sweep": "**Bridge** — real NDCG@10 against K on synthetic data with known label noise, against the K* predicted by `optimal_k`; ANS.",
    "bridge_downstream": "**Bridge** — downstream results per loss (digits linear probe; synthetic PU recommendation): every seed and mean ± sd over the 2 seeds; the y-axes are zoomed on the data and do not start at 0.",
}


# Descriptions of the figures written by training runs.
EXTRA_DESCRIPTIONS = {
    "relaxed_softmax_fig2_temperature": "**Tanielian & Vasile Fig. 2** — KL(P ‖ Pop(I) × g) against the "
    "Boltzmann temperature T for the degeneracies D = 1/P_i, U(J) and Pop(J) (5 seeds).",
    "relaxed_softmax_fig3_batch_size": "**Tanielian & Vasile Fig. 3** — MLE against Relaxed Softmax: train and "
    "test KL against the batch size.",
    "relaxed_softmax_fig4_train_size": "**Tanielian & Vasile Fig. 4** — MLE against Relaxed Softmax: train and "
    "test KL against the number of training pairs.",
    "relaxed_softmax_fig5_methods": "**Tanielian & Vasile Fig. 5** — KL, MPR and Prec@10 of MLE, SS, US, PS, UBS "
    "and PBS on 10, 50 and 90 mixture components.",
    "relaxed_softmax_full_fig2_temperature": "**Tanielian & Vasile Fig. 2 at the paper's size** — KL(P ‖ Pop(I) × g) "
    "against T on 1000 x 1000 items, 300 000 pairs, batch 512 (300 steps, 5 seeds).",
    "relaxed_softmax_tstar_ablation": "**Where T* comes from** — KL(P ‖ Pop(I) × g) against T for D = 1/P_i, one "
    "factor at a time: catalogue size, embedding size, RS negatives (5 seeds; stars: argmins).",
    "thesis_tables_ml100k": "**Thesis Tables 4.2-4.5, 5.2, 5.3, 6.3** — NDCG@10 on MovieLens-100K: the printed "
    "values against negtheory's runs and their named readings (MF and LightGCN; 3 seeds unless marked, 95 % "
    "intervals).",
    "wu_k_sweep_ml100k": "**Wu et al. on MovieLens-100K** — InfoNCE-MF validation and test NDCG@10 against K, "
    "with the K* predicted from the K = 1 model's validation AUC.",
    "sim_vs_train_ml100k": "**Simulation against training on MovieLens-100K** — each estimator's MSE in real training "
    "(test items as false-negative labels) against the parametric, calibrated and resampled simulations, per trained "
    "loss at epoch 50 (3 seeds, 95 % intervals), and BNS's posterior reliability for two priors.",
}


#: the gallery's sections: (heading, name prefixes); a figure no prefix matches goes under "Other figures"
GALLERY_GROUPS = (
    ("Wu et al. (Rethinking InfoNCE)", ("wu_",)),
    ("Liu Bin's thesis", ("fig_", "thesis_")),
    ("Mechanics, thresholds and Boltzmann sampling", ("mechanics_",)),
    ("Tanielian & Vasile (Relaxed Softmax)", ("relaxed_softmax_",)),
    ("Simulation against training", ("bridge_", "sim_vs_train_")),
)


def _gallery_group(name: str) -> str:
    for heading, prefixes in GALLERY_GROUPS:
        if name.startswith(prefixes):
            return heading
    return "Other figures"


def _command(name: str, registry: dict) -> str:
    if name in registry:
        return f"``negtheory figures --out figures`` (alone: ``negtheory figures --only {name} --out figures``)"
    if name.startswith("bridge_"):
        return (
            "``negtheory figures --only "
            + name
            + " --out figures`` from the tables in ``notebooks/data/bridge/``, "
            "which ``negtheory bridge experiments --update-committed`` retrains (torch extra)"
        )
    if name in ("relaxed_softmax_full_fig2_temperature", "relaxed_softmax_tstar_ablation"):
        from negtheory.figures import EXTERNAL_FIGURES

        return EXTERNAL_FIGURES[name].replace("`", "``")
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
                f"``DIR/{cmd}.png``; the committed copy is the MovieLens-100K run of the reproductions"
            )
    return "not written by a command of the package (committed by hand)"


def generate_gallery(root: Path, out: Path) -> list[str]:
    """Write ``gallery.md`` with every PNG of ``figures/`` (copied next to it)."""
    from negtheory.figures import registry

    reg = registry()
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
    sections: dict[str, list[str]] = {}
    for png in pngs:
        name = png.stem
        target = figdir / png.name
        if not target.exists() or target.read_bytes() != png.read_bytes():
            shutil.copyfile(png, target)
        desc = FIGURE_DESCRIPTIONS.get(name) or EXTRA_DESCRIPTIONS.get(name)
        if desc is None and name in reg:
            desc = (inspect.getdoc(reg[name]) or "").split("\n")[0]
        desc = desc or "(no description yet)"
        sections.setdefault(_gallery_group(name), []).extend(
            [
                f"### `{name}`",
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
        )
        names.append(name)
    for heading in [h for h, _ in GALLERY_GROUPS] + ["Other figures"]:
        if heading in sections:
            lines += [f"## {heading}", "", *sections[heading]]
    for stale in figdir.glob("*.png"):
        if stale.stem not in names:
            stale.unlink()
    _write(out / "gallery.md", "\n".join(lines))
    return names


def generate_all(root: Path, out: Path) -> None:
    generate_api(out / "api")
    copy_notebooks(root, out / "notebooks")
    generate_gallery(root, out)
