"""The blank canvas every figure starts from (a leaf module: its figure modules import it without a circle)."""

from __future__ import annotations

__all__ = ["new_figure", "mark_quick", "QUICK_LABEL"]


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.2, **kwargs):
    """A pyplot-free Figure with a grid of axes (``squeeze=False`` semantics avoided for 1x1)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, **kwargs)
    return fig, axes


QUICK_LABEL = "QUICK smoke run: not a result"


def mark_quick(fig, text: str = QUICK_LABEL):
    """Write ``text`` in red in the figure's top-left corner (figures of ``--quick`` runs); return ``fig``."""
    fig.text(0.005, 0.995, text, ha="left", va="top", color="red", fontsize=9, fontweight="bold",
             bbox=dict(facecolor="white", edgecolor="red", alpha=0.85, boxstyle="round,pad=0.2"))  # fmt: skip
    return fig
