r"""Simulation vs training on toy data: the experiments of the bridge (CPU-sized, reproducible).

1. :func:`wu_k_sweep` — Wu et al. (Rethinking InfoNCE): on synthetic PU data with known label noise
   mu_q, measure the training AUC of a K = 1 run, predict K* with
   :func:`negtheory.infonce.optimal_k_from_auc`, sweep K with InfoNCE and compare the real best K;
   then adaptive negative sampling (ANS, §5) peaking at the predicted K* against fixed K.
2. :func:`downstream` — InfoNCE vs DCL vs HCL vs BCL on digits (linear probe) and BPR vs DPL vs
   BNS vs BPRAC on the synthetic PU data (NDCG@10, Recall@10, precision against the truth).

:func:`mse_sim_vs_train` (the estimators' per-batch MSE during contrastive training on digits
against :func:`negtheory.studies.mse_study`) is deprecated since negtheory 0.1 and removed in 0.2:
``negtheory reproduce sim-vs-train`` (:mod:`negtheory.reproduce.sim_vs_train`) measures the same
errors in real MovieLens training and compares them with three simulations (parametric,
calibrated, resampled), and explains the gaps the digits experiment showed. :func:`run_all` no
longer runs it.

:func:`run_all` writes ``bridge_*.csv`` tables and ``bridge_*.png`` figures;
``negtheory bridge experiments`` (or ``python -m negtheory.bridge.experiments``) calls it.
Numbers are for one CPU and a few seeds: they are small-sample evidence, reported as such.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._deprecation import renamed_keyword, warn_deprecated
from .._rng import int_seed
from ..infonce import optimal_k_from_auc
from .train import train

if TYPE_CHECKING:
    from .._typing import RNGLike

__all__ = ["wu_k_sweep", "mse_sim_vs_train", "downstream", "run_all", "plot_wu", "plot_downstream"]

_SIM_VS_TRAIN = "`negtheory reproduce sim-vs-train` (negtheory.reproduce.sim_vs_train)"


def _best(history, key):
    return max(h[key] for h in history)


def wu_k_sweep(
    mu_qs=(1.0, 3.0),
    ks=(1, 2, 4, 8, 16, 32, 64),
    epochs=8,
    seeds=(0,),
    synthetic=None,
    progress=False,
):
    """Experiment 1: best NDCG@10 over epochs for InfoNCE with K negatives, plus the prediction and ANS.

    For each label quality mu_q and seed, InfoNCE is trained on :func:`~negtheory.bridge.data.synthetic_pu`
    data with every K of ``ks``; the K = 1 run's best training AUC (Wu et al.'s footnote 4)
    gives the predicted K* (:func:`negtheory.infonce.optimal_k_from_auc`), and one more run
    follows the ANS schedule peaking at that K*.

    Parameters
    ----------
    mu_qs : sequence of float, default (1.0, 3.0)
        Label qualities mu_q of the synthetic data (small: noisy labels).
    ks : sequence of int, default (1, 2, 4, 8, 16, 32, 64)
        Fixed negative sampling ratios K to sweep.
    epochs : int, default 8
        Epochs of every run.
    seeds : sequence of int, default (0,)
        Seeds of the data and the runs (one sweep per seed).
    synthetic : dict, optional
        Keyword arguments of :func:`~negtheory.bridge.data.synthetic_pu` (default: 300 users,
        400 items, tau+ = 0.1; ``mu_q`` is set by ``mu_qs``).
    progress : bool, default False
        Show progress bars.

    Returns
    -------
    pandas.DataFrame
        Columns mu_q, seed, k (or "ans"), ndcg, recall, train_auc_k1, k_pred (the predicted K*
        from the K = 1 run's best training AUC), label_auc (ground truth) and k_pred_label (K*
        predicted from the ground-truth label AUC).

    Examples
    --------
    A tiny sweep (it trains four small models: tens of seconds on one CPU core):

    >>> from negtheory.bridge.experiments import wu_k_sweep
    >>> df = wu_k_sweep(mu_qs=(1.0,), ks=(1, 2), epochs=1,
    ...                 synthetic=dict(n_users=40, n_items=60, n_train=5, n_test=2))   # doctest: +SKIP
    >>> df.k.tolist(), list(df.columns[:5])                                          # doctest: +SKIP
    (['1', '2', 'ans'], ['mu_q', 'seed', 'k', 'ndcg', 'recall'])
    """
    syn = dict(n_users=300, n_items=400, tau_plus=0.1)
    syn.update(synthetic or {})
    rows = []
    for mu in mu_qs:
        for seed in seeds:
            base = dict(
                data="synthetic",
                loss="infonce",
                epochs=epochs,
                probe=False,
                progress=progress,
                rng=seed,
                synthetic=dict(syn, mu_q=mu),
            )
            r1 = None
            runs = {}
            for k in ks:
                r = train(**base, k=float(k))
                runs[k] = r
                if k == 1:
                    r1 = r
            if r1 is None:
                r1 = train(**base, k=1.0)
            # Wu's footnote 4: the training AUC under K = 1, before overfitting -> best over epochs
            auc1 = _best(r1["history"], "train_auc")
            k_pred = int(optimal_k_from_auc(min(auc1, 0.999), steps=100))
            label_auc = r1["data_params"]["label_auc"]
            # the same prediction from the ground-truth label AUC (known only on synthetic data)
            k_label = int(optimal_k_from_auc(min(label_auc, 0.999), steps=100))
            for k, r in runs.items():
                rows.append(
                    dict(
                        mu_q=mu,
                        seed=seed,
                        k=str(k),
                        ndcg=_best(r["history"], "test_ndcg@10"),
                        recall=_best(r["history"], "test_recall@10"),
                        train_auc_k1=auc1,
                        k_pred=k_pred,
                        label_auc=label_auc,
                        k_pred_label=k_label,
                    )
                )
            ra = train(**base, k=float(k_pred), ans=True, k_opt=float(k_pred))
            rows.append(
                dict(
                    mu_q=mu,
                    seed=seed,
                    k="ans",
                    ndcg=_best(ra["history"], "test_ndcg@10"),
                    recall=_best(ra["history"], "test_recall@10"),
                    train_auc_k1=auc1,
                    k_pred=k_pred,
                    label_auc=label_auc,
                    k_pred_label=k_label,
                )
            )
    return pd.DataFrame(rows)


@renamed_keyword("seed", "rng")
def mse_sim_vs_train(
    loss: str = "infonce",
    epochs: int = 8,
    batch_size: int = 128,
    temperature: float = 0.5,
    n_anchors: int = 4000,
    rng: RNGLike = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """Real per-batch MSE (digits, in-batch negatives) vs mse_study at the measured parameters; deprecated.

    .. deprecated:: 0.1
        Removed in negtheory 0.2: use ``negtheory reproduce sim-vs-train``
        (:mod:`negtheory.reproduce.sim_vs_train`), which probes real MovieLens training with the
        test interactions as false-negative labels and compares the measured MSE with three
        simulations. This experiment plugged the measured P(x_TN < x_FN) in as the alpha of eq.
        6.14-6.15, whose own value of that probability is 1/2 + (2 alpha - 1)/3 <= 5/6, and used
        the parametric study's parent law, whose score scale is not the trained one.

    Parameters
    ----------
    loss : str, default "infonce"
        Contrastive loss of the digits run (one of ``DIGITS_LOSSES`` of :mod:`negtheory.bridge.train`).
    epochs : int, default 8
        Training epochs.
    batch_size : int, default 128
        Images per batch (N = 2B - 2 in-batch negatives).
    temperature : float > 0, default 0.5
        Temperature of the run and of the simulation.
    n_anchors : int, default 4000
        Anchors of each simulated point.
    rng : int, SeedSequence, Generator or None, default 0
        Gives one integer seed that seeds both the training run and the simulation (``seed``:
        deprecated since 0.1, removed in 0.2).
    progress : bool, default False
        Show progress bars.

    Returns
    -------
    pandas.DataFrame
        One row per (epoch, estimator, source in {"training", "simulation"}): alpha, tau_plus,
        n, mse, rmse (MSE / mean truth^2), truth_mean, probe_acc.
    """
    # stacklevel 4: the caller of renamed_keyword's wrapper
    warn_deprecated("negtheory.bridge.experiments.mse_sim_vs_train", _SIM_VS_TRAIN, stacklevel=4)
    from ..studies import Execution, Generation, mse_study
    from .probes import summarize

    seed = int_seed("rng", rng)  # one int for the training run and the simulation
    r = train(
        data="digits",
        loss=loss,
        epochs=epochs,
        batch_size=batch_size,
        temperature=temperature,
        probe=True,
        probe_every=1,
        progress=progress,
        rng=seed,
    )
    rows = []
    probe = pd.DataFrame(r["probe_rows"])
    for ep in sorted(probe.epoch.unique()):
        s = summarize(probe[probe.epoch == ep].to_dict("records"), last_fraction=1.0)
        alpha = float(np.clip(s["alpha"], 0.5, 1.0))
        n = int(round(s["n"]))
        sim = mse_study(
            "alpha",
            [alpha],
            n_anchors=n_anchors,
            n_unlabeled=n,
            tau_plus=float(s["tau_plus"]),
            t=temperature,
            beta=0.5,
            n_positives=1,
            estimators=("biased", "dcl", "bcl", "bcl_norm"),
            rng=seed,
            generation=Generation(base_interval=(-1.0, 1.0)),
            execution=Execution(progress=False),
        )
        for est in ("biased", "dcl", "bcl", "bcl_norm"):
            rows.append(
                dict(
                    epoch=int(ep),
                    estimator=est,
                    source="training",
                    alpha=s["alpha"],
                    tau_plus=s["tau_plus"],
                    n=n,
                    mse=s[f"mse_{est}"],
                    rmse=s[f"rmse_{est}"],
                    truth_mean=s["truth_mean"],
                    probe_acc=r["history"][int(ep)]["probe_acc"],
                )
            )
            q = sim[sim.estimator == est].iloc[0]
            rows.append(
                dict(
                    epoch=int(ep),
                    estimator=est,
                    source="simulation",
                    alpha=alpha,
                    tau_plus=s["tau_plus"],
                    n=n,
                    mse=float(q.mse),
                    rmse=float(q.mse) / float(q.truth_mean) ** 2,
                    truth_mean=float(q.truth_mean),
                    probe_acc=math.nan,
                )
            )
    return pd.DataFrame(rows)


def downstream(
    digits_losses=("infonce", "dcl", "hcl", "bcl"),
    rec_losses=("bpr", "dpl", "bns", "bprac"),
    digits_epochs=10,
    rec_epochs=8,
    seeds=(0, 1),
    synthetic=None,
    progress=False,
):
    """Experiment 2: downstream quality per loss (digits: linear probe; synthetic PU: NDCG@10).

    Real data follows the thesis's protocol elsewhere: :func:`negtheory.recsys.load_movielens_dir`
    (or :func:`negtheory.recsys.load_split`) with :func:`negtheory.training.fit`, as ``negtheory
    reproduce thesis-tables`` runs it.

    Parameters
    ----------
    digits_losses : sequence of str, default ("infonce", "dcl", "hcl", "bcl")
        Contrastive losses trained on digits (scored by linear-probe accuracy).
    rec_losses : sequence of str, default ("bpr", "dpl", "bns", "bprac")
        Recommendation losses trained on the synthetic PU data (K = 8 negatives).
    digits_epochs : int, default 10
        Epochs of each digits run.
    rec_epochs : int, default 8
        Epochs of each recommendation run.
    seeds : sequence of int, default (0, 1)
        One run per seed and loss.
    synthetic : dict, optional
        Keyword arguments of :func:`~negtheory.bridge.data.synthetic_pu` (default: 300 users,
        400 items, tau+ = 0.1, mu_q = 2).
    progress : bool, default False
        Show progress bars.

    Returns
    -------
    pandas.DataFrame
        Columns task, loss, seed, metric (probe_acc; ndcg@10, recall@10, precision_true@10),
        value (the best over epochs for recommendation, the final accuracy for digits).
    """
    rows = []
    for seed in seeds:
        for loss in digits_losses:
            r = train(
                data="digits",
                loss=loss,
                epochs=digits_epochs,
                batch_size=128,
                probe=False,
                progress=progress,
                rng=seed,
            )
            rows.append(
                dict(
                    task="digits",
                    loss=loss,
                    seed=seed,
                    metric="probe_acc",
                    value=r["final"]["probe_acc"],
                )
            )
        syn = dict(n_users=300, n_items=400, tau_plus=0.1, mu_q=2.0)
        syn.update(synthetic or {})
        for loss in rec_losses:
            r = train(
                data="synthetic",
                loss=loss,
                epochs=rec_epochs,
                k=8.0,
                probe=False,
                progress=progress,
                rng=seed,
                synthetic=syn,
            )
            # history keys of the one trainer -> the metric names of the table
            for key, metric in (
                ("test_ndcg@10", "ndcg@10"),
                ("test_recall@10", "recall@10"),
                ("precision_true@10", "precision_true@10"),
            ):
                if key in r["final"]:
                    rows.append(
                        dict(
                            task="synthetic",
                            loss=loss,
                            seed=seed,
                            metric=metric,
                            value=_best(r["history"], key),
                        )
                    )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# figures (from the tables: a few seconds each; torch-free, so `negtheory figures --only bridge_*`
# can redraw them from the committed tables)
# --------------------------------------------------------------------------------------------
from ..figures._bridge import plot_downstream, plot_wu  # noqa: E402
from ..figures._canvas import mark_quick  # noqa: E402


def run_all(out="negtheory_output/bridge_experiments", figures=None, quick=False, progress=True):
    """Run Wu's K sweep and the downstream experiment; write ``bridge_*.csv`` to ``out`` and ``bridge_*.png`` to ``figures``.

    The deprecated digits MSE experiment (:func:`mse_sim_vs_train`) is no longer run:
    ``negtheory reproduce sim-vs-train`` replaces it.

    Parameters
    ----------
    out : str or Path, default "negtheory_output/bridge_experiments"
        Folder of the tables (created if missing). The committed tables of a source checkout
        (``notebooks/data/bridge``) are written only when named here.
    figures : str or Path, optional
        Folder of the figures (created if missing; default None: ``out``).
    quick : bool, default False
        A small smoke run (60 users, 80 items, one mu_q, K in {1, 4}, two losses per task, one seed);
        its figures are titled "QUICK smoke run: not a result".
    progress : bool, default True
        Show progress bars and the written paths.

    Returns
    -------
    tuple of pandas.DataFrame
        ``(wu_k_sweep, downstream)``, the tables of :func:`wu_k_sweep` and :func:`downstream`.
    """
    out = Path(out)
    figs = out if figures is None else Path(figures)
    out.mkdir(parents=True, exist_ok=True)
    figs.mkdir(parents=True, exist_ok=True)
    if quick:
        small = dict(n_users=60, n_items=80, n_train=10, n_test=3)
        w = wu_k_sweep(mu_qs=(1.0,), ks=(1, 4), epochs=2, synthetic=small)
        d = downstream(
            digits_losses=("infonce", "bcl"),
            rec_losses=("bpr", "bprac"),
            digits_epochs=1,
            rec_epochs=2,
            seeds=(0,),
            synthetic=small,
        )
    else:
        w = wu_k_sweep(progress=progress)
        d = downstream(progress=progress)
    for name, df, plot in (("wu_k_sweep", w, plot_wu), ("downstream", d, plot_downstream)):
        df.to_csv(out / f"bridge_{name}.csv", index=False)
        fig = plot(df)
        if quick:
            mark_quick(fig)
        fig.savefig(figs / f"bridge_{name}.png", dpi=110)
        if progress:
            print(f"wrote {out / f'bridge_{name}.csv'} and {figs / f'bridge_{name}.png'}")
    return w, d


if __name__ == "__main__":  # pragma: no cover
    import sys

    run_all(
        quick="--quick" in sys.argv
    )  # writes negtheory_output/bridge_experiments (see `negtheory bridge experiments`)
