"""Reproduced paper figures.

Every module in this package (file names not starting with ``_``) exposes ``FIGURES``, a dict
mapping a figure name (the PNG's file stem) to a function that takes no required argument and
returns a :class:`matplotlib.figure.Figure`. :func:`registry` discovers them, so adding a figure
never touches this file; ``negtheory figures`` writes every registered figure.

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

__all__ = ["registry", "save_figures", "new_figure"]


def registry() -> dict[str, Callable]:
    """Map every available figure name to the function that draws it (sorted by name)."""
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


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.2, **kwargs):
    """A pyplot-free Figure with a grid of axes (``squeeze=False`` semantics avoided for 1x1)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, **kwargs)
    return fig, axes


def save_figures(out: str | Path = "figures", only: list[str] | None = None, *, dpi: int = 110, progress: bool = True) -> list[Path]:
    """Draw the registered figures and write them as PNG files into ``out``.

    Parameters
    ----------
    out : path
        Output folder (created if missing).
    only : list of str, optional
        Names to draw; unknown names raise ``ValueError`` listing the available ones.
    dpi : int
        Resolution of the PNG files.
    progress : bool
        Print one line per figure with its drawing time.
    """
    reg = registry()
    names = list(reg) if not only else list(only)
    unknown = [n for n in names if n not in reg]
    if unknown:
        raise ValueError(f"only: unknown figure name(s) {unknown}; available: {', '.join(reg)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i, name in enumerate(names, 1):
        t0 = time.perf_counter()
        fig = reg[name]()
        path = out / f"{name}.png"
        fig.savefig(path, dpi=dpi)
        written.append(path)
        if progress:
            print(f"[{i}/{len(names)}] {path}  ({time.perf_counter() - t0:.1f} s)", flush=True)
    return written
