"""Every registered figure draws, and the numbers behind the seed-000 figures are right."""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from negtheory import infonce  # noqa: E402
from negtheory.figures import registry, wu_infonce  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(registry()))
def test_every_registered_figure_draws(name, tmp_path):
    fig = registry()[name]()
    assert fig.axes, name
    path = tmp_path / f"{name}.png"
    fig.savefig(path, dpi=40)
    assert path.stat().st_size > 1000


def test_registry_names_are_unique_snake_case():
    for name in registry():
        assert name == name.lower() and " " not in name


def test_fig4_curve_data_has_u_shape():
    fig = wu_infonce.fig_optimal_k_vs_mu(n=40)
    x, y = fig.axes[0].lines[0].get_data()
    i = int(np.argmin(y))
    assert y[0] > y[i] < y[-1]
    # the plotted K* are those of optimal_k, which test_infonce checks against quad
    np.testing.assert_array_equal(y, infonce.optimal_k(x))


def test_fig2b_marks_the_argmax():
    fig = wu_infonce.fig_effectiveness_vs_k(k_max=30)
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.lines]
    assert any("K*=5" in lab for lab in labels)  # continuous lambda = 0.9 at AUC 0.75
    assert any("discrete T=100: K*=4" in lab for lab in labels)
