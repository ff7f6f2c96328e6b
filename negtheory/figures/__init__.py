"""Reproduced paper figures.

Every module in this package (file names not starting with ``_``) exposes ``FIGURES``, a dict
mapping a figure name (the PNG's file stem) to a function that takes no required argument and
returns a :class:`matplotlib.figure.Figure`. :func:`registry` discovers them, so adding a figure
never touches this file; ``negtheory figures`` writes every registered figure.

The ``bridge_*`` figures are drawn from the tables of ``negtheory bridge experiments``
(:mod:`negtheory.figures._bridge`): :func:`save_figures` redraws them with ``bridge=True`` or
when ``only`` names them. :data:`EXTERNAL_FIGURES` names the committed figures that other
commands write (MovieLens and Relaxed-Softmax reproductions).

Figures are built on :class:`matplotlib.figure.Figure` directly (no ``pyplot`` state), so they
work headless and display in notebooks.

This package imports matplotlib; ``import negtheory`` does not import it.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from collections.abc import Callable
from pathlib import Path

from ._canvas import new_figure

__all__ = ["registry", "save_figures", "new_figure", "bridge_names", "EXTERNAL_FIGURES"]


def registry() -> dict[str, Callable]:
    """Map every available figure name to the function that draws it (sorted by name).

    Returns
    -------
    dict of str to callable
        Figure name (the PNG's file stem) -> a function with no required argument returning a
        :class:`matplotlib.figure.Figure`, gathered from the ``FIGURES`` of every public module
        of this package.

    Raises
    ------
    RuntimeError
        Two modules register the same name.
    """
    found: dict[str, Callable] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, func in getattr(module, "FIGURES", {}).items():
            if name in found:
                raise RuntimeError(f"figure name {name!r} is registered twice")
            found[name] = func
    return dict(sorted(found.items()))


# figures committed under figures/ that `negtheory figures` cannot draw: they need a training run
# or a data set that is not shipped. Name -> the command that writes it.
EXTERNAL_FIGURES = {
    "thesis_tables_ml100k": (
        "`negtheory reproduce thesis-tables --train 100k_train.csv --test 100k_test.csv --out DIR` "
        "(torch extra, your MovieLens-100K split; writes DIR/thesis_tables.png)"
    ),
    "sim_vs_train_ml100k": (
        "`negtheory reproduce sim-vs-train --train 100k_train.csv --test 100k_test.csv --out DIR` "
        "(torch extra, your MovieLens-100K split; writes DIR/sim_vs_train.png)"
    ),
    "wu_k_sweep_ml100k": (
        "`negtheory reproduce wu-k-sweep --train 100k_train.csv --test 100k_test.csv --out DIR` "
        "(torch extra, your MovieLens-100K split; writes DIR/wu_k_sweep.png)"
    ),
    **{
        f"relaxed_softmax_{stem}": (
            "`negtheory reproduce relaxed-softmax --update-committed` (torch extra; writes figures/relaxed_softmax_*.png "
            "in the source checkout; without the flag it writes negtheory_output/relaxed_softmax/)"
        )
        for stem in ("fig2_temperature", "fig3_batch_size", "fig4_train_size", "fig5_methods")
    },
    "relaxed_softmax_full_fig2_temperature": (
        "`negtheory reproduce relaxed-softmax --full --experiments fig2 --steps 300 --temperatures 0.05 0.1 0.2 0.3 0.5 "
        "0.75 1 1.5 3` and, for T = 6, 12, 36, `... --degeneracies uniform popularity --temperatures 6 12 36` (torch "
        "extra; each writes negtheory_output/relaxed_softmax_full/relaxed_softmax_fig2_temperature.png; the committed "
        "figure draws both tables, notebooks/data/relaxed_softmax/relaxed_softmax_full_fig2_temperature.csv)"
    ),
    "relaxed_softmax_tstar_ablation": (
        "`negtheory reproduce relaxed-softmax --t-star-ablation --ablation-items 100 300` (torch extra; writes "
        "negtheory_output/relaxed_softmax/relaxed_softmax_tstar_ablation.png)"
    ),
}


def bridge_names() -> list[str]:
    """Names of the ``bridge_*`` figures, redrawn from the bridge experiments' tables (see :func:`save_figures`).

    Returns
    -------
    list of str
        The names, in drawing order.
    """
    from ._bridge import BRIDGE_FIGURES

    return list(BRIDGE_FIGURES)


def save_figures(
    out: str | Path = "negtheory_output/figures",
    only: list[str] | None = None,
    *,
    dpi: int = 110,
    progress: bool = True,
    bridge: bool = False,
    bridge_data: str | Path | None = None,
) -> list[Path]:
    """Draw the registered figures and write them as PNG files into ``out``.

    Parameters
    ----------
    out : str or pathlib.Path
        Output folder (created if missing; default ``negtheory_output/figures``: the committed
        ``figures/`` of a source checkout is written only when named).
    only : list of str, optional
        Names to draw: registered figures and the ``bridge_*`` figures. A name that another
        command writes (e.g. ``thesis_tables_ml100k``) raises ``ValueError`` naming that command;
        an unknown name raises ``ValueError`` listing the valid ones.
    dpi : int
        Resolution of the PNG files in dots per inch (default 110).
    progress : bool
        Print one line per figure with its drawing time (default True).
    bridge : bool
        Also redraw the ``bridge_*`` figures (``negtheory figures --bridge``) from the tables of
        ``negtheory bridge experiments`` (no training, no torch). Naming a bridge figure in
        ``only`` implies it.
    bridge_data : path, optional
        Folder of those tables; default ``notebooks/data/bridge`` under the current directory
        (the committed tables in a source checkout).

    Returns
    -------
    list of pathlib.Path
        The PNG files written, ``out / f"{name}.png"``, in drawing order.

    Raises
    ------
    ValueError
        ``only`` names a figure that another command writes, or an unknown figure.
    """
    from ._bridge import BRIDGE_FIGURES, draw_bridge_figure

    reg = registry()
    if only:
        names = list(only)
    else:
        names = list(reg) + (list(BRIDGE_FIGURES) if bridge else [])
    valid = list(reg) + list(BRIDGE_FIGURES)
    external = [n for n in names if n in EXTERNAL_FIGURES]
    if external:
        lines = "; ".join(f"{n} is written by {EXTERNAL_FIGURES[n]}" for n in external)
        raise ValueError(
            f"only: {lines}, not by `negtheory figures`, which can draw: {', '.join(valid)}"
        )
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise ValueError(f"only: unknown figure name(s) {unknown}; available: {', '.join(valid)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i, name in enumerate(names, 1):
        t0 = time.perf_counter()
        fig = reg[name]() if name in reg else draw_bridge_figure(name, bridge_data)
        path = out / f"{name}.png"
        fig.savefig(path, dpi=dpi)
        written.append(path)
        if progress:
            print(f"[{i}/{len(names)}] {path}  ({time.perf_counter() - t0:.1f} s)", flush=True)
    return written
