"""The blank canvas every figure starts from (a leaf module: its figure modules import it without a circle)."""

from __future__ import annotations

__all__ = ["new_figure", "mark_quick", "QUICK_LABEL"]


def new_figure(
    nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.2, **kwargs
):
    """A pyplot-free Figure with a grid of axes (``squeeze=False`` semantics avoided for 1x1).

    Parameters
    ----------
    nrows, ncols : int
        Shape of the grid of axes (default 1 x 1).
    width, height : float
        Figure size in inches (default 6.4 x 4.2).
    **kwargs
        Passed to :meth:`matplotlib.figure.Figure.subplots` (e.g. ``sharex=True``).

    Returns
    -------
    fig : matplotlib.figure.Figure
        A figure with the constrained layout, not attached to pyplot.
    axes : matplotlib.axes.Axes or ndarray of Axes
        One Axes for a 1 x 1 grid, else the array ``Figure.subplots`` returns (squeezed).

    Examples
    --------
    >>> from negtheory.figures import new_figure
    >>> fig, axes = new_figure(1, 2, width=8)
    >>> axes.shape, fig.get_size_inches().tolist()
    ((2,), [8.0, 4.2])
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, **kwargs)
    return fig, axes


QUICK_LABEL = "QUICK smoke run: not a result"


def mark_quick(fig, text: str = QUICK_LABEL):
    """Put ``text`` in red at the top of a ``--quick`` run's figure (before its suptitle, if any); return ``fig``."""
    if not hasattr(
        fig, "suptitle"
    ):  # not a matplotlib Figure (e.g. a stand-in of a test): nothing to mark
        return fig
    sup = getattr(fig, "_suptitle", None)
    old = sup.get_text() if sup is not None else ""
    fig.suptitle(f"{text} — {old}" if old else text, color="red", fontweight="bold", fontsize=10)
    if (
        fig.get_layout_engine() is None
    ):  # figures laid out once by tight_layout: make room for the new title
        fig.tight_layout()
    return fig
