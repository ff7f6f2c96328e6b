"""The blank canvas every figure starts from (a leaf module: its figure modules import it without a circle)."""

from __future__ import annotations

__all__ = ["new_figure"]


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.2, **kwargs):
    """A pyplot-free Figure with a grid of axes (``squeeze=False`` semantics avoided for 1x1)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, **kwargs)
    return fig, axes
