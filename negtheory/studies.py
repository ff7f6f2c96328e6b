r"""Monte-Carlo studies of the debiasing estimators (thesis §6.6.1, Fig. 6.9-6.10).

:func:`mse_study` sweeps one parameter of the score generator (Algorithm 6,
:func:`negtheory.generators.score_sets`), computes every estimator of the true-negative score
mean per anchor together with the truth theta_SUP (eq. 6.45), and returns a tidy
``pandas.DataFrame`` with one row per (parameter value, estimator).

Determinism
-----------
* Point i of the sweep draws its scores from the key ``SeedSequence(seed, spawn_key=(i,))``;
  inside a point every random number is keyed by the anchor index (counter-based Philox in
  :mod:`negtheory.generators`), so a chunk of anchors is the same whatever the chunking.
* Statistics are accumulated per canonical block of 1024 anchors (chunks are aligned to blocks)
  and the block partial sums are combined with ``math.fsum`` in block order. The result is
  therefore bit-identical for any thread count, chunk size or executor.

Execution
---------
``executor=None`` runs locally (numba-parallel kernels); ``"dask"`` starts a local
``distributed`` cluster of single-threaded processes; a ``distributed.Client`` or any
``concurrent.futures.Executor`` is used as given. Tasks are (point, chunk) pairs calling
:func:`_chunk_stats`, a top-level function of the installed package, so workers import and
compile the kernels once each.

``checkpoint=PATH`` appends every finished point to a JSON-lines file (flushed and fsync'ed);
calling again with the same configuration resumes, recomputing only the points not in the file.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numba
import numpy as np

from . import estimators as est
from ._validation import int_scalar, real_scalar

__all__ = ["mse_study", "ESTIMATORS", "VARYING"]

ESTIMATORS = ("biased", "dcl", "hcl", "bcl", "bcl_norm")
VARYING = ("alpha", "gamma", "tau_plus", "t", "n_unlabeled", "n_positives", "beta")
_BLOCK = 1024  # canonical anchor block: the unit of deterministic accumulation
_N_STATS = 5  # count, sum err^2, sum err^4, sum estimate, sum truth


@dataclass(frozen=True)
class _Point:
    """Everything a worker needs to compute one parameter point (picklable, hashable)."""

    index: int
    n_anchors: int
    n_unlabeled: int
    alpha: float
    gamma: float
    tau_plus: float
    t: float
    beta: float
    n_positives: int
    estimators: tuple
    seed: int | None
    base_interval: tuple | None
    method: str
    hcl_beta: float


_CODES = {"biased": 0, "dcl": 1, "hcl": 2, "bcl": 3, "bcl_norm": 4}


@numba.njit(cache=True, parallel=True)
def _fused_estimates(scores, sorted_scores, is_tn, pos, codes, omega, tau_plus, hcl_beta, truth, out):
    """theta_SUP and the requested estimators for every anchor, one pass per row.

    Same formulas as :mod:`negtheory.estimators` (eq. 6.45-6.48, HCL, DCL; eCDF of eq. 6.30,
    Phi by the stable root of eq. 6.29), fused so that a row is read once and the eCDF is shared
    by ``bcl`` and ``bcl_norm``; the tests check it against the public functions (a different
    algorithm: per-element ranks through argsort). ``sorted_scores`` holds each row sorted
    (numpy's vectorised sort is ~10x faster than sorting inside numba). omega depends on a score
    only through its eCDF value j / N and every row has the same N, so ``omega[j]`` is the BCL
    weight tabulated once for j = 1..N.
    """
    m, n = scores.shape
    k = pos.shape[1]
    tau_minus = 1.0 - tau_plus
    need_bcl = False
    need_hcl = False
    for c in codes:
        if c >= 3:
            need_bcl = True
        if c == 2:
            need_hcl = True
    for r in numba.prange(m):
        row = scores[r]
        s_all = 0.0
        s_tn = 0.0
        c_tn = 0
        rmax = row[0]
        for i in range(n):
            s_all += row[i]
            rmax = max(rmax, row[i])
            if is_tn[r, i]:
                s_tn += row[i]
                c_tn += 1
        truth[r] = s_tn / c_tn if c_tn > 0 else np.nan
        pmean = 0.0
        for j in range(k):
            pmean += pos[r, j]
        pmean = pmean / k if k > 0 else np.nan
        hcl = np.nan
        if need_hcl:
            # weights x^beta / mean(x^beta), scaled by the row maximum so nothing overflows; the
            # branch on beta is outside the loops, and the scale is a product, not a division
            sw = 0.0
            swx = 0.0
            if hcl_beta == 0.5:  # pow is ~10x slower than sqrt: the study's default beta = 1/2
                inv = 1.0 / np.sqrt(rmax)
                for i in range(n):
                    w = np.sqrt(row[i]) * inv
                    sw += w
                    swx += w * row[i]
            elif hcl_beta == 1.0:
                inv = 1.0 / rmax
                for i in range(n):
                    w = row[i] * inv
                    sw += w
                    swx += w * row[i]
            else:
                inv = 1.0 / rmax
                for i in range(n):
                    w = (row[i] * inv) ** hcl_beta
                    sw += w
                    swx += w * row[i]
            hcl = (swx / sw - tau_plus * pmean) / tau_minus
        bcl = np.nan
        bcl_norm = np.nan
        if need_bcl:
            # sum_i omega(F_hat(x_i)) x_i only needs the sorted scores: walking them from the top,
            # every member of a run of ties has F_hat = (index past the run's end) / N, and the
            # run's end changes exactly where the next sorted score differs
            srt = sorted_scores[r]
            s_w = 0.0
            s_wx = 0.0
            end = n
            for i in range(n - 1, -1, -1):
                if i < n - 1 and srt[i] != srt[i + 1]:
                    end = i + 1
                w = omega[end]
                s_w += w
                s_wx += w * srt[i]
            bcl = s_wx / n
            # all weights 0 only when every score ties at the top (beta = 0): their common value,
            # as estimators.theta_bcl
            bcl_norm = s_wx / s_w if s_w > 0.0 else s_all / n
        for j in range(codes.size):
            c = codes[j]
            if c == 0:
                out[j, r] = s_all / n
            elif c == 1:
                out[j, r] = (s_all / n - tau_plus * pmean) / tau_minus
            elif c == 2:
                out[j, r] = hcl
            elif c == 3:
                out[j, r] = bcl
            else:
                out[j, r] = bcl_norm


_fused_estimates_serial = numba.njit(cache=True)(_fused_estimates.py_func)

# below this many scores the parallel kernel cannot pay for waking the thread pool: the serial
# twin (same code, same results) runs instead
_PARALLEL_MIN_SIZE = 1 << 16


def _estimates(point: _Point, s) -> tuple[np.ndarray, np.ndarray]:
    """theta_SUP per anchor and every requested estimator per anchor, shape [n_est, count]."""
    m = s.scores.shape[0]
    truth = np.empty(m)
    out = np.empty((len(point.estimators), m))
    codes = np.array([_CODES[e] for e in point.estimators], dtype=np.int64)
    pos = s.positives if s.positives.shape[1] > 0 else np.empty((m, 0))
    need_sort = "bcl" in point.estimators or "bcl_norm" in point.estimators
    srt = np.sort(s.scores, axis=1) if need_sort else np.empty((m, 0))
    n = s.scores.shape[1]
    omega = np.zeros(n + 1)
    if need_sort:
        omega[1:] = est._omega_of_ecdf(np.arange(1, n + 1) / n, point.alpha, point.beta, point.tau_plus)
    kernel = _fused_estimates if s.scores.size >= _PARALLEL_MIN_SIZE else _fused_estimates_serial
    kernel(s.scores, srt, s.is_true_negative, pos, codes, omega, point.tau_plus, point.hcl_beta, truth, out)
    return truth, out


def _chunk_stats(point: _Point, start: int, count: int) -> np.ndarray:
    """Per-canonical-block sums for anchors [start, start + count) of one point.

    Returns an array [n_blocks, n_est, 5]; ``start`` is a multiple of the block size.
    """
    from .generators import score_sets

    s = score_sets(
        count,
        point.n_unlabeled,
        point.alpha,
        point.tau_plus,
        point.gamma,
        point.t,
        point.n_positives,
        point.base_interval,
        point.method,
        np.random.SeedSequence(point.seed, spawn_key=(point.index,)),
        anchor_offset=start,
    )
    truth, values = _estimates(point, s)
    n_blocks = -(-count // _BLOCK)
    stats = np.zeros((n_blocks, len(point.estimators), _N_STATS))
    for b in range(n_blocks):
        lo, hi = b * _BLOCK, min((b + 1) * _BLOCK, count)
        tb = np.ascontiguousarray(truth[lo:hi])
        for j in range(len(point.estimators)):
            vb = np.ascontiguousarray(values[j, lo:hi])
            ok = np.isfinite(tb) & np.isfinite(vb)
            err2 = (vb[ok] - tb[ok]) ** 2
            stats[b, j] = (ok.sum(), err2.sum(), (err2 * err2).sum(), vb[ok].sum(), tb[ok].sum())
    return stats


def _summarise(point: _Point, block_stats: list[np.ndarray], vary: str, value) -> list[dict]:
    allb = np.concatenate(block_stats, axis=0)  # blocks in anchor order
    rows = []
    for j, name in enumerate(point.estimators):
        n, s2, s4, se, st = (math.fsum(allb[:, j, k].tolist()) for k in range(_N_STATS))
        mse = s2 / n if n else math.nan
        var_sq = (s4 / n - mse * mse) * n / (n - 1) if n > 1 else math.nan
        rows.append(
            {
                vary: value,
                "estimator": name,
                "mse": mse,
                "mse_se": math.sqrt(max(var_sq, 0.0) / n) if n > 1 else math.nan,
                "mean": se / n if n else math.nan,
                "truth_mean": st / n if n else math.nan,
                "n_anchors": int(n),
            }
        )
    return rows


def _chunks(n_anchors: int, chunk_size: int):
    size = max(_BLOCK, -(-chunk_size // _BLOCK) * _BLOCK)  # a multiple of the canonical block
    return [(start, min(size, n_anchors - start)) for start in range(0, n_anchors, size)]


class _Checkpoint:
    """JSON-lines checkpoint: a header with the study's signature, then one line per point."""

    def __init__(self, path, signature: str):
        self.path = Path(path)
        self.signature = signature
        self.done: dict[int, list[dict]] = {}
        if self.path.exists() and self.path.stat().st_size > 0:
            lines = self.path.read_text(encoding="utf-8").splitlines()
            try:
                header = json.loads(lines[0])
            except (json.JSONDecodeError, IndexError) as exc:
                raise ValueError(f"checkpoint {self.path} is not a negtheory study checkpoint") from exc
            if header.get("signature") != signature:
                raise ValueError(
                    f"checkpoint {self.path} belongs to a different study (other parameters, values or seed); "
                    "use a new file or delete it"
                )
            for line in lines[1:]:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:  # a line cut by an interruption: that point is redone
                    continue
                self.done[int(rec["index"])] = rec["rows"]
        else:
            self._append({"signature": signature, "format": "negtheory.mse_study/1"})

    def _append(self, obj):
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(obj) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def record(self, index: int, rows: list[dict]):
        self.done[index] = rows
        self._append({"index": index, "rows": rows})


def _runner(executor):
    """-> (run(tasks) yielding (task_index, result) as tasks complete, shutdown())."""
    if executor is None:

        def run_local(tasks):
            for i, task in enumerate(tasks):
                yield i, _chunk_stats(*task)

        return run_local, lambda: None
    if isinstance(executor, str):
        if executor != "dask":
            raise ValueError(f"executor must be None, 'dask', a distributed.Client or a concurrent.futures.Executor, got {executor!r}")
        from distributed import Client, LocalCluster

        # processes with one thread each: numba kernels are compiled (or loaded from cache) once
        # per worker and never share the GIL
        cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        run, _ = _runner(client)

        def shutdown():
            client.close()
            cluster.close()

        return run, shutdown
    if hasattr(executor, "submit") and hasattr(executor, "gather"):  # distributed.Client
        from distributed import as_completed

        def run_dask(tasks):
            futures = [executor.submit(_chunk_stats, *task, pure=False) for task in tasks]
            index = {f.key: i for i, f in enumerate(futures)}
            for fut, result in as_completed(futures, with_results=True):
                yield index[fut.key], result

        return run_dask, lambda: None
    if hasattr(executor, "submit"):  # concurrent.futures.Executor
        import concurrent.futures as cf

        def run_futures(tasks):
            futures = {executor.submit(_chunk_stats, *task): i for i, task in enumerate(tasks)}
            for fut in cf.as_completed(futures):
                yield futures[fut], fut.result()

        return run_futures, lambda: None
    raise TypeError(f"executor must be None, 'dask', a distributed.Client or a concurrent.futures.Executor, got {executor!r}")


def _coerce(vary, value):
    if vary in ("n_unlabeled", "n_positives"):
        return int_scalar(vary, value, 0 if vary == "n_positives" else 1)
    return real_scalar(vary, value)


_REAL_BOUNDS = (
    ("alpha", 0.5, 1.0, False, False),
    ("gamma", 0.0, 1.0, False, False),
    ("tau_plus", 0.0, 1.0, True, True),
    ("t", 0.0, None, True, False),
    ("beta", 0.0, 1.0, False, False),
)


def mse_study(
    vary,
    values,
    *,
    n_anchors=1000,
    n_unlabeled=64,
    alpha=0.9,
    gamma=0.1,
    tau_plus=0.1,
    t=0.5,
    beta=0.5,
    n_positives=10,
    estimators=ESTIMATORS,
    seed=0,
    executor=None,
    checkpoint=None,
    progress=True,
    chunk_size=65_536,
    base_interval=None,
    method="inverse",
    hcl_beta=None,
):
    r"""MSE of the true-negative-mean estimators over a parameter sweep (thesis §6.6.1, Fig. 6.9-6.10).

    For each value of the varied parameter, M anchors with N unlabeled scores are generated by
    Algorithm 6 (:func:`negtheory.generators.score_sets`), every estimator theta-hat_m and the
    truth theta_SUP,m (eq. 6.45) are computed per anchor, and

    .. math:: \mathrm{MSE}\,\hat\theta = \frac1M \sum_{m=1}^M (\hat\theta_m - \theta_{SUP,m})^2 .

    Parameters
    ----------
    vary : str
        The swept parameter: one of ``alpha``, ``gamma``, ``tau_plus``, ``t``, ``n_unlabeled``,
        ``n_positives``, ``beta``.
    values : sequence
        Its values (validated like the corresponding keyword).
    n_anchors, n_unlabeled, alpha, gamma, tau_plus, t, beta, n_positives
        Fixed parameters (thesis defaults: M = 1e3, N = 64, alpha = 0.9, gamma = 0.1,
        tau+ = 0.1, t = 0.5; beta = 0.5 as in the study; K = 10 extra positives).
    estimators : sequence of str
        Any of ``"biased"`` (6.46), ``"dcl"`` (6.47), ``"hcl"``, ``"bcl"`` (6.48),
        ``"bcl_norm"`` (self-normalised BCL of the released code).
    seed : int or None
        Root seed; point i uses ``SeedSequence(seed, spawn_key=(i,))``.
    executor : None, "dask", distributed.Client or concurrent.futures.Executor
        Where (point, chunk) tasks run; the result does not depend on it.
    checkpoint : path, optional
        JSON-lines file recording finished points; rerunning resumes from it.
    progress : bool
        Show a tqdm progress bar over the tasks.
    chunk_size : int
        Anchors per task (rounded up to a multiple of 1024); bounds memory to
        chunk_size x N scores, so M = 10^7 runs in constant memory.
    base_interval, method
        Passed to :func:`negtheory.generators.score_sets`.
    hcl_beta : float, optional
        Concentration of HCL's weights x-hat^beta (default: ``beta``).

    Returns
    -------
    pandas.DataFrame
        One row per (value, estimator): columns ``<vary>``, ``estimator``, ``mse``, ``mse_se``
        (standard error of the MSE), ``mean`` (mean estimate), ``truth_mean`` (mean theta_SUP),
        ``n_anchors`` (anchors with a defined truth).

    Examples
    --------
    >>> from negtheory.studies import mse_study
    >>> df = mse_study("alpha", [0.7, 0.9], n_anchors=500, progress=False)
    >>> sorted(df.columns)
    ['alpha', 'estimator', 'mean', 'mse', 'mse_se', 'n_anchors', 'truth_mean']
    >>> bool((df.query("estimator == 'bcl'").mse.values < df.query("estimator == 'biased'").mse.values).all())
    True
    """
    import pandas as pd

    if vary not in VARYING:
        raise ValueError(f"vary must be one of {VARYING}, got {vary!r}")
    values = list(values) if np.ndim(values) else [values]
    if not values:
        raise ValueError("values must hold at least one value")
    if len(set(map(repr, values))) != len(values):
        raise ValueError(f"values must be distinct (one study point each), got {values!r}")
    estimators = tuple(estimators)
    unknown = [e for e in estimators if e not in ESTIMATORS]
    if unknown or not estimators:
        raise ValueError(f"estimators must be a non-empty subset of {ESTIMATORS}, got {list(estimators)}")
    n_anchors = int_scalar("n_anchors", n_anchors, 1)
    chunk_size = int_scalar("chunk_size", chunk_size, 1)
    if seed is not None:
        seed = int_scalar("seed", seed, 0)
    fixed = dict(
        n_unlabeled=n_unlabeled, alpha=alpha, gamma=gamma, tau_plus=tau_plus, t=t, beta=beta, n_positives=n_positives,
    )
    # every fixed keyword is checked, the swept one too: its value is unused, but garbage (NaN,
    # out of range) there is still the caller's mistake
    int_scalar("n_unlabeled", fixed["n_unlabeled"], 1)
    int_scalar("n_positives", fixed["n_positives"], 0)
    for name, lo, hi, lo_open, hi_open in _REAL_BOUNDS:
        real_scalar(name, fixed[name], lo, hi, lo_open=lo_open, hi_open=hi_open)
    points = []
    coerced = []
    for i, value in enumerate(values):
        p = dict(fixed)
        p[vary] = _coerce(vary, value)
        coerced.append(p[vary])
        p["n_unlabeled"] = int_scalar("n_unlabeled", p["n_unlabeled"], 1)
        p["n_positives"] = int_scalar("n_positives", p["n_positives"], 0)
        for name, lo, hi, lo_open, hi_open in _REAL_BOUNDS:
            p[name] = real_scalar(name, p[name], lo, hi, lo_open=lo_open, hi_open=hi_open)
        if p["n_positives"] == 0 and {"dcl", "hcl"} & set(estimators):
            raise ValueError("n_positives must be >= 1 for the dcl and hcl estimators (they correct with extra positives)")
        if ("bcl" in estimators or "bcl_norm" in estimators) and p["alpha"] == 1.0 and p["beta"] == 1.0:
            raise ValueError("alpha = 1 with beta = 1 gives Z = 0 (eq. 6.26): BCL is undefined there")
        hb = p["beta"] if hcl_beta is None else real_scalar("hcl_beta", hcl_beta, 0.0)
        points.append(
            _Point(
                i, n_anchors, p["n_unlabeled"], p["alpha"], p["gamma"], p["tau_plus"], p["t"], p["beta"],
                p["n_positives"], estimators, seed, tuple(base_interval) if base_interval is not None else None,
                method, hb,
            )
        )  # fmt: skip

    ckpt = None
    if checkpoint is not None:
        sig = hashlib.sha256(json.dumps([vary, coerced] + [asdict(p) for p in points], sort_keys=True, default=str).encode()).hexdigest()
        ckpt = _Checkpoint(checkpoint, sig)

    todo = [p for p in points if ckpt is None or p.index not in ckpt.done]
    tasks = [(p, start, count) for p in todo for start, count in _chunks(n_anchors, chunk_size)]
    results: dict[int, list] = {p.index: [] for p in todo}
    remaining = {p.index: len(_chunks(n_anchors, chunk_size)) for p in todo}
    rows_by_point: dict[int, list[dict]] = dict(ckpt.done) if ckpt else {}

    bar = None
    if progress and tasks:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), desc=f"mse_study({vary})", unit="chunk")

    def finish(point, chunk_index, stats):
        results[point.index].append((chunk_index, stats))
        remaining[point.index] -= 1
        if remaining[point.index] == 0:
            ordered = [s for _, s in sorted(results[point.index], key=lambda x: x[0])]
            rows = _summarise(point, ordered, vary, coerced[point.index])
            rows_by_point[point.index] = rows
            if ckpt is not None:
                ckpt.record(point.index, rows)
        if bar is not None:
            bar.update(1)

    run, shutdown = _runner(executor)
    try:
        for task_index, stats in run(tasks):
            p, start, _ = tasks[task_index]
            finish(p, start, stats)
    finally:
        if bar is not None:
            bar.close()
        shutdown()

    rows = [r for i in sorted(rows_by_point) for r in rows_by_point[i]]
    df = pd.DataFrame(rows, columns=[vary, "estimator", "mse", "mse_se", "mean", "truth_mean", "n_anchors"])
    return df
