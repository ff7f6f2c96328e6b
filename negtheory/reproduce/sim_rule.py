r"""The verdict rule of ``negtheory reproduce sim-vs-train``, fixed before the runs it judges.

Every constant of the rule lives here and a test pins them (``tests/test_sim_rule.py``): changing the
rule is a new commit, a rerun of every committed table and both tallies in the note. The report of
each run names :data:`RULE_ID`, and the docs name the commit that introduced it.

**The unit judged is a cell**: one (loss, probe epoch) with its five estimators (biased, DCL, HCL,
BCL, self-normalised BCL). Their per-seed log ratios are correlated almost perfectly (one score set
feeds all five), so five estimators are one test, not five confirmations.

Per seed s, source c and estimator e, :math:`r_{c,e,s} = \log(\widehat{\mathrm{MSE}}_{c,e,s} /
\mathrm{MSE}^{meas}_{e,s})`, the mean over the fit redraws of the log ratio of the simulated to the
measured MSE. Over the seeds, each quantity gets a Student-t interval of its mean at the simultaneous
level :math:`1 - (1 - \mathrm{LEVEL}) / E` over the E estimators of the cell (Bonferroni: the five
intervals hold together with probability at least LEVEL, whatever their correlation). Then, with
:math:`b = \log \mathrm{BAND}`:

* **insufficient seeds** -- fewer than :data:`MIN_SEEDS` seeds;
* **simulator off** -- some estimator's *oracle* interval lies outside :math:`[-b, b]`: the best the
  simulation can do (the empirical class laws, told the truth) misses training, so the cell cannot
  judge the theory's laws;
* **refuted** -- some estimator's calibrated interval lies outside :math:`[-b, b]`; or the
  calibrated model is measurably further from 1 than the oracle (the interval of
  :math:`|r_{cal}| - |r_{oracle}|` lies above 0, one-sided on the distance); or the blind control
  (alpha = 1/2) is measurably closer (the interval of :math:`|r_{blind}| - |r_{cal}|` below 0);
* **confirmed** -- for every estimator the oracle's and the calibrated intervals lie inside
  :math:`[-b, b]`, and the calibrated model is measurably closer than the blind control (the
  interval of :math:`|r_{blind}| - |r_{cal}|` above 0);
* **undetermined** -- otherwise (an interval straddles the band's edge, or the model cannot be told
  from the blind control).

Goals of the simulator (reported beside the verdicts, not part of them): at every probe point with a
training AUC of at least :data:`TRAINED_AUC` the oracle's interval lies inside
:math:`[1/\mathrm{ORACLE\_GOAL}, \mathrm{ORACLE\_GOAL}]` on MF data sets and inside the verdict band
on LightGCN and Gowalla (:data:`ORACLE_GOAL_LOOSE`), and alpha is at a bound of its family in at most
:data:`MAX_AT_BOUND` of those points.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RULE_ID",
    "BAND",
    "LEVEL",
    "MIN_SEEDS",
    "TRAINED_AUC",
    "ORACLE_GOAL",
    "ORACLE_GOAL_LOOSE",
    "MAX_AT_BOUND",
    "OUTCOMES",
    "t_interval",
    "judge_cell",
    "cell_verdicts",
]

#: the rule's name, printed in every report it judges
RULE_ID = "sim-rule-1"
#: the verdict band: simulated / measured MSE within a factor of BAND, interval included
BAND = 1.5
#: the family-wise confidence level of a cell's intervals (Bonferroni over its estimators)
LEVEL = 0.95
#: fewer seeds than this give "insufficient seeds", never a verdict
MIN_SEEDS = 3
#: probe points at or above this training AUC are "trained": the goals are judged there
TRAINED_AUC = 0.8
#: the oracle's goal band on MF data sets (ML-100K, ML-1M, Yahoo!-R3)
ORACLE_GOAL = 1.1
#: the oracle's goal band on LightGCN and Gowalla
ORACLE_GOAL_LOOSE = 1.5
#: the largest share of trained probe points with alpha at a bound of its family
MAX_AT_BOUND = 0.10
#: the outcomes, in report order
OUTCOMES = ("confirmed", "refuted", "undetermined", "simulator off", "insufficient seeds")


def t_interval(values, level: float = LEVEL) -> tuple[float, float, float]:
    """(mean, low, high) of the two-sided Student-t interval of the mean at ``level``.

    Parameters
    ----------
    values : array_like of float
        One value per seed; non-finite values are dropped.
    level : float in (0, 1)
        Coverage of the interval.

    Returns
    -------
    tuple of float
        The mean and the interval's bounds; NaN bounds with fewer than two finite values.

    Examples
    --------
    >>> from negtheory.reproduce.sim_rule import t_interval
    >>> m, lo, hi = t_interval([0.0, 0.1, 0.2])
    >>> round(m, 3), round(lo, 3), round(hi, 3)
    (0.1, -0.148, 0.348)
    """
    from scipy import stats

    if not (0.0 < level < 1.0):
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0:
        return math.nan, math.nan, math.nan
    m = float(v.mean())
    if v.size < 2:
        return m, math.nan, math.nan
    h = float(stats.t.ppf(0.5 + level / 2.0, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))
    return m, m - h, m + h


def _inside(iv: tuple[float, float, float], b: float) -> bool:
    """The interval (mean, low, high) lies inside [-b, b]."""
    _, lo, hi = iv
    return bool(np.isfinite(lo) and np.isfinite(hi) and -b <= lo and hi <= b)


def _outside(iv: tuple[float, float, float], b: float) -> bool:
    """The interval (mean, low, high) lies entirely outside [-b, b]."""
    _, lo, hi = iv
    return bool(np.isfinite(lo) and np.isfinite(hi) and (hi < -b or lo > b))


def judge_cell(
    calibrated: pd.DataFrame, oracle: pd.DataFrame, blind: pd.DataFrame
) -> tuple[str, str, dict]:
    """The verdict of one (loss, epoch) cell under the rule (module notes).

    Parameters
    ----------
    calibrated, oracle, blind : pandas.DataFrame
        Per-seed log ratios log(simulated / measured MSE): index the seeds, one column per
        estimator, the same shape for the three sources.

    Returns
    -------
    verdict : str
        One of :data:`OUTCOMES`.
    reason : str
        Why, naming the first estimator that decided it.
    intervals : dict
        ``{estimator: {"calibrated": (m, lo, hi), "oracle": ..., "blind": ..., "vs_oracle": ...,
        "vs_blind": ...}}`` at the simultaneous level.

    Examples
    --------
    >>> import pandas as pd
    >>> from negtheory.reproduce.sim_rule import judge_cell
    >>> near = pd.DataFrame({"bcl": [0.01, -0.02, 0.0, 0.02]})
    >>> far = pd.DataFrame({"bcl": [-1.5, -1.6, -1.4, -1.55]})
    >>> judge_cell(near, near, far)[0]
    'confirmed'
    >>> judge_cell(far, near, far)[0]
    'refuted'
    """
    for name, f in (("oracle", oracle), ("blind", blind)):
        if list(f.columns) != list(calibrated.columns) or len(f) != len(calibrated):
            raise ValueError(f"{name} must have the calibrated frame's shape and columns")
    n_est = max(len(calibrated.columns), 1)
    level = 1.0 - (1.0 - LEVEL) / n_est
    b = math.log(BAND)
    n_seeds = int(np.isfinite(calibrated.to_numpy(dtype=float)).all(axis=1).sum())
    iv: dict[str, dict] = {}
    for e in calibrated.columns:
        c, o, bl = (f[e].to_numpy(dtype=float) for f in (calibrated, oracle, blind))
        iv[e] = {
            "calibrated": t_interval(c, level),
            "oracle": t_interval(o, level),
            "blind": t_interval(bl, level),
            "vs_oracle": t_interval(np.abs(c) - np.abs(o), level),
            "vs_blind": t_interval(np.abs(bl) - np.abs(c), level),
        }
    if n_seeds < MIN_SEEDS:
        return "insufficient seeds", f"{n_seeds} seeds, the rule needs {MIN_SEEDS}", iv
    for e, d in iv.items():
        if not _inside(d["oracle"], b):
            return "simulator off", f"{e}: the oracle's interval is not inside the {BAND}x band", iv
    for e, d in iv.items():
        if _outside(d["calibrated"], b):
            return "refuted", f"{e}: the calibrated interval lies outside the {BAND}x band", iv
        if d["vs_oracle"][1] > 0:
            return (
                "refuted",
                f"{e}: the calibrated model is measurably further from 1 than the oracle",
                iv,
            )
        if d["vs_blind"][2] < 0:
            return "refuted", f"{e}: the blind control (alpha = 1/2) is measurably closer", iv
    for e, d in iv.items():
        if not _inside(d["calibrated"], b):
            return "undetermined", f"{e}: the calibrated interval straddles the band's edge", iv
        if not d["vs_blind"][1] > 0:
            return "undetermined", f"{e}: inside the band but not measurably closer than blind", iv
    return "confirmed", "every estimator: oracle and model inside the band, model beats blind", iv


def cell_verdicts(
    df: pd.DataFrame, quantity: str = "mse", model: str = "calibrated"
) -> pd.DataFrame:
    """One verdict per (loss, epoch) cell of a tidy ``sim_vs_train.csv`` table (module notes).

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``loss, epoch, seed, redraw, quantity, estimator, measured`` and
        ``simulated_calibrated``, ``simulated_oracle``, ``simulated_blind``; scalar rows
        (``estimator`` empty) with ``quantity == "train_auc"`` give the cell's training AUC.
    quantity : str
        The error measure judged (default ``"mse"``).
    model : str
        The simulation judged as the model: the column ``simulated_<model>`` (default
        ``"calibrated"``; e.g. ``"thesis_laws"``), against the same oracle and blind control.

    Returns
    -------
    pandas.DataFrame
        One row per cell: ``loss, epoch, n_seeds, train_auc, trained, verdict, reason``, and for
        each source in (model, oracle, blind) the geometric-mean ratio over the estimators'
        means with the widest simultaneous interval among them (``<source>_ratio``,
        ``<source>_low``, ``<source>_high``, as ratios).
    """
    import pandas as pd

    if not isinstance(quantity, str):
        raise ValueError(f"quantity must be a string, got {quantity!r}")
    if f"simulated_{model}" not in df.columns:
        raise ValueError(f"model {model!r} has no column simulated_{model} in df")
    est = df.estimator.fillna("")
    d = df[(df.quantity == quantity) & (est != "")]
    if d.empty:
        raise ValueError(f"df has no rows of quantity {quantity!r}")
    auc = df[(df.quantity == "train_auc") & (est == "")].groupby(["loss", "epoch"]).measured.mean()
    rows = []
    for (loss, ep), g in d.groupby(["loss", "epoch"], sort=False):
        frames = {}
        for src in (model, "oracle", "blind"):
            with np.errstate(divide="ignore", invalid="ignore"):
                lr = np.log(g[f"simulated_{src}"].astype(float) / g.measured.astype(float))
            frames[src] = lr.groupby([g.seed, g.estimator]).mean().unstack("estimator")
        verdict, reason, iv = judge_cell(frames[model], frames["oracle"], frames["blind"])
        a = float(auc.get((loss, ep), math.nan))
        row = dict(
            loss=loss,
            epoch=int(ep),
            n_seeds=int(g.seed.nunique()),
            train_auc=a,
            trained=bool(a >= TRAINED_AUC),
            verdict=verdict,
            reason=reason,
        )
        for src, key in ((model, "calibrated"), ("oracle", "oracle"), ("blind", "blind")):
            means = [v[key][0] for v in iv.values()]
            lows = [v[key][1] for v in iv.values()]
            highs = [v[key][2] for v in iv.values()]
            with np.errstate(over="ignore", invalid="ignore"):  # a far-off source may overflow: inf
                row[f"{src}_ratio"] = float(np.exp(np.mean(means)))
                row[f"{src}_low"] = (
                    float(np.exp(np.min(lows))) if np.all(np.isfinite(lows)) else math.nan
                )
                row[f"{src}_high"] = (
                    float(np.exp(np.max(highs))) if np.all(np.isfinite(highs)) else math.nan
                )
        rows.append(row)
    return pd.DataFrame(rows)
