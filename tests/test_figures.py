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


# --------------------------------------------------------------------------------------------
# figure defects of issue 13: each fix checked on the drawn artists
# --------------------------------------------------------------------------------------------
def _png_bytes(fig) -> bytes:
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=40)
    return buf.getvalue()


def test_fig6_9_leaves_hcl_out_and_draws_bcl_visibly():
    from negtheory.figures import thesis_mse

    fig = thesis_mse.fig_mse(n_anchors=256)
    panels = [ax for ax in fig.axes if ax.containers]
    assert len(panels) == len(thesis_mse.SWEEPS)
    for ax in panels:
        labels = [c.get_label() for c in ax.containers]
        assert "HCL" not in labels and "BCL (6.48)" in labels and "BCL, self-normalised" in labels
        # HCL's MSE is 1e5-6e5 at these settings (it set every y-range); the others stay below 1e4
        assert ax.get_ylim()[1] < 5e4
        bcl = ax.containers[labels.index("BCL (6.48)")].lines[0]
        norm = ax.containers[labels.index("BCL, self-normalised")].lines[0]
        # distinguishable where they overlap: big white-filled (hollow-looking) markers on a solid line, and the
        # self-normalised form's thin dotted line and small filled markers drawn on top, inside them
        assert (
            bcl.get_markersize() > 2 * norm.get_markersize()
            and bcl.get_linewidth() > norm.get_linewidth()
        )
        assert bcl.get_markerfacecolor() == "white" and norm.get_linestyle() != bcl.get_linestyle()
        assert norm.get_zorder() > bcl.get_zorder()
        assert ax.get_legend() is None  # one legend for all panels, below them
    legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert legend == ["Biased (6.46)", "DCL (6.47)", "BCL (6.48)", "BCL, self-normalised"]
    assert "`" not in fig._suptitle.get_text() and "hollow" not in fig._suptitle.get_text()


def test_fig6_10_shows_bcl_biased_low_at_alpha_1_small_n():
    from negtheory.figures import thesis_mse
    from negtheory.studies import Execution, mse_study

    df = thesis_mse.relative_bias(
        mse_study(
            "n_unlabeled",
            [16, 256],
            alpha=1.0,
            n_anchors=2048,
            estimators=("dcl", "bcl"),
            execution=Execution(progress=False),
        )
    )
    bcl = df[df.estimator == "bcl"].set_index("n_unlabeled")
    dcl = df[df.estimator == "dcl"].set_index("n_unlabeled")
    # measured with 1e5 anchors: -47 % at N = 16, -4.2 % at N = 256 (README, Fig. 6.10); DCL unbiased
    assert bcl.rel_bias[16] < -0.35 and bcl.rel_bias[16] < bcl.rel_bias[256] < 0
    assert abs(bcl.rel_bias[256]) < abs(bcl.rel_bias[16]) / 4
    assert (dcl.rel_bias.abs() < 4 * dcl.rel_bias_se + 1e-3).all()
    # why: the eCDF. The same weights at the exact parent CDF (uniform parent U(a, b) of Algorithm 6,
    # x = t ln(score)) give an unbiased estimate on the same scores
    from negtheory import estimators as est
    from negtheory.generators import score_sets

    alpha, tau, t = 1.0, 0.1, 0.5
    s = score_sets(4000, 16, alpha, tau, t=t, rng=1)
    a, b = s.parent_params[:, :1], s.parent_params[:, 1:]
    phi = np.clip((t * np.log(s.scores) - a) / (b - a), 0.0, 1.0)
    u = (
        2 * (alpha * (1 - tau) + (1 - alpha) * tau) * phi + (1 - 2 * alpha) * (1 - 2 * tau) * phi**2
    )  # eq. 6.28
    exact = (est._omega_of_ecdf(u, alpha, 0.5, tau) * s.scores).mean(axis=1)
    truth = est.theta_sup(s.scores, s.is_true_negative)
    ok = np.isfinite(truth)
    err_exact, err_ecdf = (
        exact[ok] - truth[ok],
        est.theta_bcl(s.scores, alpha, 0.5, tau)[ok] - truth[ok],
    )
    assert abs(err_exact.mean()) < 4 * err_exact.std() / np.sqrt(ok.sum())
    assert err_ecdf.mean() / truth[ok].mean() < -0.35
    fig = thesis_mse.fig_means(n_anchors=256)
    assert "biased low" in fig.axes[2].get_title() and "relative bias" in fig.axes[2].get_ylabel()


def test_wu_fig5_says_the_cap_is_a_cap():
    fig = wu_infonce.fig_training_stages(k_max=50)
    last = fig.axes[-1].get_title()
    assert "capped at k_max" in last and "K*=50" not in last
    assert "K*=" in fig.axes[0].get_title()  # an interior optimum keeps its value


def test_alias_figure_is_deterministic_and_untimed():
    from negtheory.figures import mechanics

    a = _png_bytes(mechanics.fig_alias_vs_inverse_cdf(draws=20_000, sizes=(10, 1000)))
    b = _png_bytes(mechanics.fig_alias_vs_inverse_cdf(draws=20_000, sizes=(10, 1000)))
    assert a == b
    # the comparison count of a binary search over n entries is ceil or floor of log2(n) + 1
    rng = np.random.default_rng(3)
    for n in (1, 7, 1000, 4096):
        cdf = np.cumsum(rng.exponential(size=n))
        cdf /= cdf[-1]
        c = mechanics._search_comparisons(cdf, rng.random(500))
        assert c.min() >= int(np.floor(np.log2(n))) and c.max() <= int(np.floor(np.log2(n))) + 1


def test_entropy_figure_right_axis_label_is_readable():
    from negtheory.figures import mechanics

    fig = mechanics.fig_entropy_temperature(steps=10)
    twin = fig.axes[-1]
    assert "temperature" in twin.get_ylabel() and twin.yaxis.label.get_fontsize() >= 10


def test_fig3_3_left_panel_is_decluttered():
    from negtheory.figures import thesis_vg

    ax = thesis_vg.fig_vg_posterior().axes[0]
    assert len(ax.lines) == 2 * len(thesis_vg.DIMS_POSTERIOR) <= 6


def _downstream_frame():
    import pandas as pd

    rows = [
        ("digits", loss, s, "probe_acc", 0.93 + 0.01 * i + 0.002 * s)
        for i, loss in enumerate(("infonce", "bcl"))
        for s in (0, 1)
    ]
    rows += [
        ("synthetic", loss, s, "ndcg@10", 0.07 + 0.02 * i + 0.003 * s)
        for i, loss in enumerate(("bpr", "dpl"))
        for s in (0, 1)
    ]
    return pd.DataFrame(rows, columns=["task", "loss", "seed", "metric", "value"])


def test_bridge_downstream_has_ylabels_points_and_error_bars():
    from negtheory.figures import _bridge

    fig = _bridge.plot_downstream(_downstream_frame())
    for ax in fig.axes:
        assert ax.get_ylabel()
        assert not [p for p in ax.patches if p.get_height() > 0]  # no bars with a cut baseline
        assert len(ax.containers) == 2  # one mean +- sd error bar per loss
        assert "not from 0" in ax.get_title()


def test_save_figures_redraws_bridge_figures_and_names_other_commands(tmp_path):
    from negtheory.figures import EXTERNAL_FIGURES, bridge_names, save_figures

    with pytest.raises(ValueError, match="negtheory reproduce thesis-tables"):
        save_figures(tmp_path, ["thesis_tables_ml100k"], progress=False)
    with pytest.raises(ValueError, match="bridge_downstream"):
        save_figures(tmp_path, ["no_such_figure"], progress=False)
    (tmp_path / "data").mkdir()
    _downstream_frame().to_csv(tmp_path / "data" / "bridge_downstream.csv", index=False)
    out = save_figures(
        tmp_path / "png", ["bridge_downstream"], progress=False, bridge_data=tmp_path / "data"
    )
    assert out[0].name == "bridge_downstream.png" and out[0].stat().st_size > 1000
    with pytest.raises(ValueError, match="negtheory bridge experiments"):
        save_figures(
            tmp_path / "png", ["bridge_wu_k_sweep"], progress=False, bridge_data=tmp_path / "data"
        )
    assert set(bridge_names()).isdisjoint(EXTERNAL_FIGURES) and set(registry()).isdisjoint(
        EXTERNAL_FIGURES
    )
    # the digits MSE experiment is retired (negtheory reproduce sim-vs-train replaces it)
    assert bridge_names() == ["bridge_wu_k_sweep", "bridge_downstream"]
    with pytest.raises(ValueError, match="unknown figure"):
        save_figures(
            tmp_path / "png",
            ["bridge_mse_sim_vs_train"],
            progress=False,
            bridge_data=tmp_path / "data",
        )


def test_gallery_describes_and_names_the_command_of_each_committed_png():
    """Every committed PNG is known to a command and described on the docs gallery (docs/_generate.py)."""
    import importlib.util
    from pathlib import Path

    from negtheory.figures import EXTERNAL_FIGURES, bridge_names

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(
        "_negtheory_docs_generate", root / "docs" / "_generate.py"
    )
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    committed = {p.stem for p in (root / "figures").glob("*.png")}
    known = set(registry()) | set(bridge_names()) | set(EXTERNAL_FIGURES)
    assert committed <= known, committed - known
    described = set(gen.FIGURE_DESCRIPTIONS) | set(gen.EXTRA_DESCRIPTIONS)
    assert committed <= described, committed - described
    reg = registry()
    for stem in committed:
        assert "not written by a command" not in gen._command(stem, reg), stem
