r"""Simulation vs training: the three experiments of the bridge (CPU-sized, reproducible).

1. :func:`wu_k_sweep` — Wu et al. (seed 000): on synthetic PU data with known label noise
   mu_q, measure the training AUC of a K = 1 run, predict K* with
   :func:`negtheory.infonce.optimal_k_from_auc`, sweep K with InfoNCE and compare the real best K;
   then adaptive negative sampling (ANS, §5) peaking at the predicted K* against fixed K.
2. :func:`mse_sim_vs_train` — thesis §6.6: during contrastive training on digits, the real
   per-batch MSE of the biased / DCL / BCL estimators of the true-negative mean, at every epoch,
   against :func:`negtheory.studies.mse_study` at the measured (alpha, tau+, N) and the training
   temperature (scores exp(x / t) with x in [-1, 1], the cosine range).
3. :func:`downstream` — InfoNCE vs DCL vs HCL vs BCL on digits (linear probe) and BPR vs DPL vs
   BNS vs BPRAC on the synthetic PU data (NDCG@10, Recall@10, precision against the truth).

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

from .._deprecation import renamed_keyword
from .._rng import int_seed
from ..infonce import optimal_k_from_auc
from .train import train

if TYPE_CHECKING:
    from .._typing import RNGLike

__all__ = ["wu_k_sweep", "mse_sim_vs_train", "downstream", "run_all", "plot_wu", "plot_mse", "plot_downstream"]


def _best(history, key):
    return max(h[key] for h in history)


def wu_k_sweep(mu_qs=(1.0, 3.0), ks=(1, 2, 4, 8, 16, 32, 64), epochs=8, seeds=(0,), synthetic=None, progress=False):
    """Experiment 1: best NDCG@10 over epochs for InfoNCE with K negatives, plus the prediction and ANS.

    Returns a DataFrame with columns mu_q, seed, k (or "ans"), ndcg, recall, train_auc_k1,
    k_pred (the predicted K* from the K = 1 run's best training AUC), label_auc (ground truth) and
    k_pred_label (K* predicted from the ground-truth label AUC).
    """
    syn = dict(n_users=300, n_items=400, tau_plus=0.1)
    syn.update(synthetic or {})
    rows = []
    for mu in mu_qs:
        for seed in seeds:
            base = dict(data="synthetic", loss="infonce", epochs=epochs, probe=False, progress=progress, rng=seed,
                        synthetic=dict(syn, mu_q=mu))  # fmt: skip
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
                rows.append(dict(mu_q=mu, seed=seed, k=str(k), ndcg=_best(r["history"], "ndcg@10"),
                                 recall=_best(r["history"], "recall@10"), train_auc_k1=auc1, k_pred=k_pred, label_auc=label_auc, k_pred_label=k_label))  # fmt: skip
            ra = train(**base, k=float(k_pred), ans=True, k_opt=float(k_pred))
            rows.append(dict(mu_q=mu, seed=seed, k="ans", ndcg=_best(ra["history"], "ndcg@10"),
                             recall=_best(ra["history"], "recall@10"), train_auc_k1=auc1, k_pred=k_pred, label_auc=label_auc,
                             k_pred_label=k_label))  # fmt: skip
    return pd.DataFrame(rows)


@renamed_keyword("seed", "rng")
def mse_sim_vs_train(loss: str = "infonce", epochs: int = 8, batch_size: int = 128, temperature: float = 0.5, n_anchors: int = 4000, rng: RNGLike = 0, progress: bool = False) -> pd.DataFrame:
    """Experiment 2: real per-batch MSE (digits, in-batch negatives) vs mse_study at the measured parameters.

    ``rng`` (int, SeedSequence, Generator or None; ``seed`` before 0.2.0, deprecated) gives one
    integer seed that seeds both the training run and the simulation.

    Returns a DataFrame with one row per (epoch, estimator, source in {"training", "simulation"}):
    alpha, tau_plus, n, mse, rmse (MSE / mean truth^2), truth_mean.
    """
    from ..studies import mse_study
    from .probes import summarize

    seed = int_seed("rng", rng)  # one int for the training run and the simulation
    r = train(data="digits", loss=loss, epochs=epochs, batch_size=batch_size, temperature=temperature, probe=True,
              probe_every=1, progress=progress, rng=seed)  # fmt: skip
    rows = []
    probe = pd.DataFrame(r["probe_rows"])
    for ep in sorted(probe.epoch.unique()):
        s = summarize(probe[probe.epoch == ep].to_dict("records"), last_fraction=1.0)
        alpha = float(np.clip(s["alpha"], 0.5, 1.0))
        n = int(round(s["n"]))
        sim = mse_study(
            "alpha", [alpha], n_anchors=n_anchors, n_unlabeled=n, tau_plus=float(s["tau_plus"]), t=temperature, beta=0.5,
            n_positives=1, estimators=("biased", "dcl", "bcl", "bcl_norm"), rng=seed, progress=False, base_interval=(-1.0, 1.0),
        )  # fmt: skip
        for est in ("biased", "dcl", "bcl", "bcl_norm"):
            rows.append(dict(epoch=int(ep), estimator=est, source="training", alpha=s["alpha"], tau_plus=s["tau_plus"], n=n,
                             mse=s[f"mse_{est}"], rmse=s[f"rmse_{est}"], truth_mean=s["truth_mean"],
                             probe_acc=r["history"][int(ep)]["probe_acc"]))  # fmt: skip
            q = sim[sim.estimator == est].iloc[0]
            rows.append(dict(epoch=int(ep), estimator=est, source="simulation", alpha=alpha, tau_plus=s["tau_plus"], n=n,
                             mse=float(q.mse), rmse=float(q.mse) / float(q.truth_mean) ** 2, truth_mean=float(q.truth_mean),
                             probe_acc=math.nan))  # fmt: skip
    return pd.DataFrame(rows)


def downstream(digits_losses=("infonce", "dcl", "hcl", "bcl"), rec_losses=("bpr", "dpl", "bns", "bprac"), digits_epochs=10,
               rec_epochs=8, seeds=(0, 1), synthetic=None, movielens=None, progress=False):
    """Experiment 3: downstream quality per loss (digits: linear probe; synthetic PU / MovieLens: NDCG@10).

    Returns a DataFrame: task, loss, seed, metric, value.
    """
    rows = []
    for seed in seeds:
        for loss in digits_losses:
            r = train(data="digits", loss=loss, epochs=digits_epochs, batch_size=128, probe=False, progress=progress, rng=seed)
            rows.append(dict(task="digits", loss=loss, seed=seed, metric="probe_acc", value=r["final"]["probe_acc"]))
        syn = dict(n_users=300, n_items=400, tau_plus=0.1, mu_q=2.0)
        syn.update(synthetic or {})
        datasets = [("synthetic", "synthetic")] + ([("movielens", f"movielens:{movielens}")] if movielens else [])
        for task, data in datasets:
            for loss in rec_losses:
                r = train(data=data, loss=loss, epochs=rec_epochs, k=8.0, probe=False, progress=progress, rng=seed, synthetic=syn)
                for key in ("ndcg@10", "recall@10", "precision_true@10"):
                    if key in r["final"]:
                        rows.append(dict(task=task, loss=loss, seed=seed, metric=key, value=_best(r["history"], key)))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# figures (from the tables: a few seconds each)
# --------------------------------------------------------------------------------------------
def plot_wu(df):
    """NDCG@10 against K per label quality mu_q, with the predicted K* and ANS marked."""
    from ..figures import new_figure

    mus = sorted(df.mu_q.unique())
    fig, axes = new_figure(1, len(mus), width=5.0 * len(mus), height=3.8)
    axes = np.atleast_1d(axes)
    for ax, mu in zip(axes, mus):
        d = df[df.mu_q == mu]
        fixed = d[d.k != "ans"].assign(kk=lambda x: x.k.astype(int)).groupby("kk").ndcg.mean()
        ax.plot(fixed.index, fixed.values, "o-", label="InfoNCE, fixed K")
        kp = int(d.k_pred.iloc[0])
        ax.axvline(kp, color="C3", ls="--", label=f"K* from train AUC {d.train_auc_k1.mean():.3f}: {kp}")
        kl = int(d.k_pred_label.iloc[0])
        ax.axvline(kl, color="C4", ls="-.", label=f"K* from label AUC {d.label_auc.iloc[0]:.3f}: {kl}")
        ans = d[d.k == "ans"].ndcg.mean()
        ax.axhline(ans, color="C2", ls=":", label=f"ANS peaking at K* ({ans:.4f})")
        best = int(fixed.idxmax())
        ax.plot([best], [fixed.max()], "*", ms=14, color="C1", label=f"real best K = {best}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("negatives per positive K")
        ax.set_ylabel("best NDCG@10")
        ax.set_title(f"synthetic PU, mu_q = {mu:g} (label AUC {d.label_auc.iloc[0]:.3f})")
        ax.legend(fontsize=7)
    return fig


def plot_mse(df):
    """Relative MSE of biased / DCL / BCL per epoch: training (solid) vs simulation (dashed)."""
    from ..figures import new_figure

    fig, axes = new_figure(1, 2, width=10.0, height=3.8)
    for j, est in enumerate(("biased", "dcl", "bcl", "bcl_norm")):
        for src, ls in (("training", "-"), ("simulation", "--")):
            d = df[(df.estimator == est) & (df.source == src)]
            axes[0].plot(d.epoch, d.rmse, ls, marker="o", color=f"C{j}", label=f"{est} ({src})")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("epoch")
    axes[0].set_ylabel("MSE / theta_SUP^2")
    axes[0].set_title("digits, in-batch negatives")
    axes[0].legend(fontsize=7, ncol=2)
    d = df[(df.source == "training") & (df.estimator == "biased")]
    axes[1].plot(d.epoch, d.alpha, "o-", label="alpha = P(x_TN < x_FN)")
    axes[1].plot(d.epoch, d.tau_plus, "s-", label="tau+ (share of same-class negatives)")
    axes[1].set_xlabel("epoch")
    axes[1].set_title(f"measured parameters (N = {int(d.n.iloc[0])})")
    axes[1].legend(fontsize=8)
    return fig


def plot_downstream(df):
    """Bar charts: digits linear-probe accuracy and synthetic-PU NDCG@10 per loss (mean +- sd over seeds)."""
    from ..figures import new_figure

    fig, axes = new_figure(1, 2, width=10.0, height=3.6)
    for ax, (task, metric) in zip(axes, (("digits", "probe_acc"), ("synthetic", "ndcg@10"))):
        d = df[(df.task == task) & (df.metric == metric)].groupby("loss", sort=False).value
        m, s = d.mean(), d.std().fillna(0.0)
        ax.bar(m.index, m.values, yerr=s.values, capsize=4, color=[f"C{i}" for i in range(len(m))])
        lo = float((m - s).min())
        ax.set_ylim(max(0.0, lo - 0.05 * abs(lo) - 0.01), float((m + s).max()) * 1.02)
        ax.set_title(f"{task}: {metric}")
    return fig


def run_all(out="notebooks/data/bridge", figures="figures", quick=False, progress=True):
    """Run the three experiments, write ``bridge_*.csv`` to ``out`` and ``bridge_*.png`` to ``figures``."""
    out, figs = Path(out), Path(figures)
    out.mkdir(parents=True, exist_ok=True)
    figs.mkdir(parents=True, exist_ok=True)
    if quick:
        small = dict(n_users=60, n_items=80, n_train=10, n_test=3)
        w = wu_k_sweep(mu_qs=(1.0,), ks=(1, 4), epochs=2, synthetic=small)
        m = mse_sim_vs_train(epochs=1, n_anchors=500)
        d = downstream(digits_losses=("infonce", "bcl"), rec_losses=("bpr", "bprac"), digits_epochs=1, rec_epochs=2, seeds=(0,),
                       synthetic=small)  # fmt: skip
    else:
        w = wu_k_sweep(progress=progress)
        m = mse_sim_vs_train(progress=progress)
        d = downstream(progress=progress)
    for name, df, plot in (("wu_k_sweep", w, plot_wu), ("mse_sim_vs_train", m, plot_mse), ("downstream", d, plot_downstream)):
        df.to_csv(out / f"bridge_{name}.csv", index=False)
        plot(df).savefig(figs / f"bridge_{name}.png", dpi=110)
        if progress:
            print(f"wrote {out / f'bridge_{name}.csv'} and {figs / f'bridge_{name}.png'}")
    return w, m, d


if __name__ == "__main__":  # pragma: no cover
    import sys

    run_all(quick="--quick" in sys.argv)
