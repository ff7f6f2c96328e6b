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
How a study runs is one :class:`Execution` object, ``mse_study(..., execution=Execution(...))``;
none of its settings changes the numbers. ``executor=None`` runs locally (numba-parallel kernels); ``"dask"`` starts a local
``distributed`` cluster of single-threaded processes; a ``distributed.Client`` or any
``concurrent.futures.Executor`` is used as given. Tasks are (point, chunk) pairs calling
:func:`_chunk_stats`, a top-level function of the installed package, so workers import and
compile the kernels once each.

``Execution(checkpoint=PATH)`` appends every finished point to a JSON-lines file (flushed and fsync'ed);
calling again with the same configuration resumes, recomputing only the points not in the file.
The file starts with a header holding the full parameter set (seed included) and a format
version, and every record carries a sha256 checksum bound to that header: a record that was
edited, comes from another study (e.g. another seed) or lies outside the sweep is refused with a
``ValueError`` naming the file and line; a line cut by a crash is repaired.

Checkpoint format
-----------------
One JSON object per line, UTF-8, each line ended by ``\n``:

* line 1, the header: ``{"format": "negtheory.mse_study.checkpoint", "version": 2,
  "params": {...}, "signature": S}`` where ``params`` is the study's full parameter set
  (``vary``, the coerced ``values``, ``n_anchors``, every fixed parameter, ``estimators``,
  ``seed``, ``base_interval``, ``method``, ``hcl_beta`` and the negtheory version; not
  ``chunk_size``, ``executor`` or ``progress``, which do not change the result) and
  ``S = sha256(canonical JSON of params)``;
* every further line, one finished point: ``{"index": i, "value": v, "rows": [...],
  "sha256": H}`` with the point's result rows and
  ``H = sha256(canonical JSON of [S, i, v, rows])``, so a record is bound to its study.

Canonical JSON is ``json.dumps(obj, sort_keys=True, separators=(",", ":"))``; floats are
written as their shortest round-trip representation, so a resumed study is bit-identical
to an uninterrupted one.

On opening, a header of another study (other parameters, values or seed), a record whose
checksum does not match (edited, or copied from another run), an index outside the sweep,
two different records for one point, or any line that is not such an object raise
``ValueError`` naming the file and the line. The one exception is a last line without its
``\n`` that does not parse (a crash in mid-write): it is cut off and that point is
recomputed, so later appends are not lost. Checkpoints of format version 1 (negtheory
before the header carried the parameters) are not read: delete them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import sys
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numba
import numpy as np

from . import estimators as est
from ._deprecation import grouped_keywords, renamed_keyword
from ._rng import int_seed
from ._validation import flag, int_scalar, real_scalar

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import pandas as pd

    from ._typing import RNGLike

__all__ = ["mse_study", "Execution", "Generation", "ESTIMATORS", "VARYING"]

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
def _fused_estimates(
    scores, sorted_scores, roots, is_tn, pos, codes, omega, tau_plus, hcl_beta, truth, out
):
    """theta_SUP and the requested estimators for every anchor, one pass per row.

    Same formulas as :mod:`negtheory.estimators` (eq. 6.45-6.48, HCL, DCL; eCDF of eq. 6.30,
    Phi by the stable root of eq. 6.29), fused so that a row is read once and the eCDF is shared
    by ``bcl`` and ``bcl_norm``; the tests check it against the public functions (a different
    algorithm: per-element ranks through argsort). ``sorted_scores`` holds each row sorted
    (numpy's vectorised sort is ~10x faster than sorting inside numba). omega depends on a score
    only through its eCDF value j / N and every row has the same N, so ``omega[j]`` is the BCL
    weight tabulated once for j = 1..N. ``roots`` holds sqrt(scores) when HCL runs at
    beta = 1/2 (numpy's sqrt runs four to a vector instruction, the kernel's one at a time; both
    are correctly rounded, so the numbers are the same), else nothing.
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
            v = row[i]
            s_all += v
            rmax = max(rmax, v)
            tn = is_tn[r, i]  # selects, not branches: the labels are random
            s_tn += v if tn else 0.0
            c_tn += 1 if tn else 0
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
                rts = roots[r]
                for i in range(n):
                    w = rts[i] * inv
                    sw += w
                    swx += w * row[i]
            elif hcl_beta == 1.0:
                inv = 1.0 / rmax
                for i in range(n):
                    w = row[i] * inv
                    sw += w
                    swx += w * row[i]
            else:
                # a division here: x * (1 / max) can round the top score below 1, and its weight
                # (1 - 2^-53) ** beta then underflows to 0 for a huge beta (sw = 0); x / max is
                # exactly 1 there (pow dominates the cost of this branch anyway)
                for i in range(n):
                    w = (row[i] / rmax) ** hcl_beta
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


_fused_estimates_serial = numba.njit(cache=True, nogil=True)(_fused_estimates.py_func)

# below this many scores the parallel kernel cannot pay for waking the thread pool: the serial
# twin (same code, same results) runs instead
_PARALLEL_MIN_SIZE = 1 << 16


@functools.lru_cache(maxsize=64)
def _omega_table(n, alpha, beta, tau_plus):
    """BCL weight at eCDF value j / n for j = 0..n (0 at j = 0), read-only (shared by blocks)."""
    omega = np.zeros(n + 1)
    omega[1:] = est._omega_of_ecdf(np.arange(1, n + 1) / n, alpha, beta, tau_plus)
    omega.flags.writeable = False
    return omega


def _estimates(point: _Point, s, serial=False) -> tuple[np.ndarray, np.ndarray]:
    """theta_SUP per anchor and every requested estimator per anchor, shape [n_est, count].

    ``serial``: always the serial kernel (for callers running blocks on their own threads)."""
    m = s.scores.shape[0]
    truth = np.empty(m)
    out = np.empty((len(point.estimators), m))
    codes = np.array([_CODES[e] for e in point.estimators], dtype=np.int64)
    pos = s.positives if s.positives.shape[1] > 0 else np.empty((m, 0))
    need_sort = "bcl" in point.estimators or "bcl_norm" in point.estimators
    srt = np.sort(s.scores, axis=1) if need_sort else np.empty((m, 0))
    n = s.scores.shape[1]
    omega = (
        _omega_table(n, point.alpha, point.beta, point.tau_plus) if need_sort else np.zeros(n + 1)
    )
    kernel = (
        _fused_estimates
        if s.scores.size >= _PARALLEL_MIN_SIZE and not serial
        else _fused_estimates_serial
    )
    roots = (
        np.sqrt(s.scores)
        if "hcl" in point.estimators and point.hcl_beta == 0.5
        else np.empty((m, 0))
    )
    kernel(
        s.scores,
        srt,
        roots,
        s.is_true_negative,
        pos,
        codes,
        omega,
        point.tau_plus,
        point.hcl_beta,
        truth,
        out,
    )
    return truth, out


@numba.njit(cache=True, nogil=True)
def _block_sums(truth, values, stats):
    """stats[j] = (count, sum err^2, sum err^4, sum estimate, sum truth) over the anchors where
    both the truth and estimator j are finite (sequential sums: a fixed order)."""
    for j in range(values.shape[0]):
        c = 0
        s2 = 0.0
        s4 = 0.0
        sv = 0.0
        st = 0.0
        for i in range(truth.size):
            t = truth[i]
            v = values[j, i]
            if np.isfinite(t) and np.isfinite(v):
                e2 = (v - t) * (v - t)
                c += 1
                s2 += e2
                s4 += e2 * e2
                sv += v
                st += t
        stats[j, 0] = c
        stats[j, 1] = s2
        stats[j, 2] = s4
        stats[j, 3] = sv
        stats[j, 4] = st


def _block_stats(point: _Point, make, first: int, count: int) -> np.ndarray:
    """Sums [n_est, 5] of one canonical block of anchors [first, first + count) (serial kernels)."""
    tb, values = _estimates(point, make(first, count), serial=True)
    stats = np.zeros((len(point.estimators), _N_STATS))
    _block_sums(tb, values, stats)
    return stats


def _chunk_stats(point: _Point, start: int, count: int) -> np.ndarray:
    """Per-canonical-block sums for anchors [start, start + count) of one point.

    Returns an array [n_blocks, n_est, 5]; ``start`` is a multiple of the block size.

    One canonical block at a time (generation, numpy's exp and sort, estimates, sums, with the
    serial kernels): the working set stays in cache and the allocator reuses the same few
    hundred KiB, instead of faulting in and streaming chunk_size x N scores several times.
    With numba set to more than one thread, blocks run on that many Python threads (the
    kernels and numpy's exp / sort release the GIL) -- the same work split as the thread
    pool's, without waking it for every small kernel. Every random number is keyed by its
    anchor index and every block's sums are its own, so the result does not depend on the
    thread count.
    """
    from .generators import _block_maker

    make = _block_maker(
        point.n_unlabeled,
        point.alpha,
        point.tau_plus,
        point.gamma,
        point.t,
        point.n_positives,
        point.base_interval,
        point.method,
        np.random.SeedSequence(point.seed, spawn_key=(point.index,)),
    )
    n_blocks = -(-count // _BLOCK)
    spans = [(start + b * _BLOCK, min(_BLOCK, count - b * _BLOCK)) for b in range(n_blocks)]
    workers = min(numba.get_num_threads(), n_blocks)
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=workers) as pool:
            rows = list(pool.map(lambda span: _block_stats(point, make, *span), spans))
    else:
        rows = [_block_stats(point, make, *span) for span in spans]
    return np.stack(rows)


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


#: working memory per generated score of a block (measured: 41-48 bytes; scores, exp, sort, weights)
_BYTES_PER_SCORE = 48
#: a study needing more working memory than this says so (RuntimeWarning) before it starts
_WARN_BYTES = 1e9


def _physical_memory() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not POSIX, or the value is unknown
        return 8.0 * 1024**3


def _check_memory(points, n_anchors: int, chunk_size: int, max_memory) -> None:
    """Refuse, before any work, a point whose blocks would need more than ``max_memory`` bytes."""
    limit = 0.5 * _physical_memory() if max_memory is None else max_memory  # checked by Execution
    per_chunk = _chunks(n_anchors, chunk_size)[0][1]
    anchors = min(n_anchors, _BLOCK)
    workers = max(1, min(numba.get_num_threads(), -(-per_chunk // _BLOCK)))
    for p in points:
        need = float(anchors) * (p.n_unlabeled + p.n_positives + 1) * _BYTES_PER_SCORE * workers
        if _WARN_BYTES < need <= limit:
            warnings.warn(
                f"n_unlabeled = {p.n_unlabeled} needs about {need / 1e9:.3g} GB of working memory "
                f"({anchors} anchors per block x {p.n_unlabeled + p.n_positives + 1} scores x {_BYTES_PER_SCORE} bytes"
                f"{f' x {workers} threads' if workers > 1 else ''})",
                RuntimeWarning,
                stacklevel=_caller_level(),
            )
        if need > limit:
            raise ValueError(
                f"n_unlabeled = {p.n_unlabeled} (with n_positives = {p.n_positives}) needs about {need / 1e9:.3g} GB: "
                f"{anchors} anchors per block x {p.n_unlabeled + p.n_positives + 1} scores x {_BYTES_PER_SCORE} bytes"
                f"{f' x {workers} threads' if workers > 1 else ''}, above max_memory = {limit / 1e9:.3g} GB "
                "(default: half the physical memory); lower n_unlabeled, or raise max_memory"
            )


def _chunks(n_anchors: int, chunk_size: int):
    size = max(_BLOCK, -(-chunk_size // _BLOCK) * _BLOCK)  # a multiple of the canonical block
    return [(start, min(size, n_anchors - start)) for start in range(0, n_anchors, size)]


_FORMAT = "negtheory.mse_study.checkpoint"
_FORMAT_VERSION = 2
_ROW_KEYS = ("estimator", "mse", "mse_se", "mean", "truth_mean", "n_anchors")


def _canonical(obj) -> str:
    """The canonical JSON text of ``obj`` (sorted keys, no spaces; floats as their shortest repr)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _sha256(obj) -> str:
    return hashlib.sha256(_canonical(obj).encode("utf-8")).hexdigest()


class _Checkpoint:
    """JSON-lines checkpoint of :func:`mse_study`, format version 2 (see the module notes)."""

    def __init__(self, path, params: dict):
        self.path = Path(path)
        self.params = json.loads(_canonical(params))  # as it reads back from the file
        self.signature = _sha256(self.params)
        self.n_points = len(self.params["values"])
        self.done: dict[int, list[dict]] = {}
        if self.path.is_dir():
            raise ValueError(f"checkpoint {self.path} is a folder, not a file")
        if self.path.exists() and self.path.stat().st_size > 0:
            self._load()
        else:
            self._append(self._header())

    # -------------------------------------------------------------------------- reading
    def _header(self) -> dict:
        return {
            "format": _FORMAT,
            "version": _FORMAT_VERSION,
            "params": self.params,
            "signature": self.signature,
        }

    def _error(self, line_no: int, message: str) -> ValueError:
        return ValueError(f"checkpoint {self.path}, line {line_no}: {message}")

    def _load(self):
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        complete = lines[:-1]  # every line ended by "\n"
        tail = lines[-1]  # b"" when the file ends with "\n"
        parsed = []
        for no, raw in enumerate(complete, 1):
            parsed.append((no, self._parse(no, raw)))
        if tail:
            try:
                obj = json.loads(tail.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                obj = None  # cut by a crash in mid-write: dropped below, the point is redone
            if obj is not None:
                parsed.append((len(complete) + 1, obj))
        if not parsed:  # only a cut header: start afresh
            self.path.write_text(_canonical(self._header()) + "\n", encoding="utf-8")
            return
        self._check_header(*parsed[0])
        for no, obj in parsed[1:]:
            self._check_record(no, obj)
        if tail:  # repair: drop the cut line, or end the complete last one, before any append
            with open(self.path, "r+b") as fh:
                if (
                    parsed[-1][0] == len(complete) + 1
                ):  # a complete record that only lacks its newline
                    fh.seek(0, os.SEEK_END)
                    fh.write(b"\n")
                else:
                    fh.truncate(len(data) - len(tail))
                fh.flush()
                os.fsync(fh.fileno())

    def _parse(self, no: int, raw: bytes):
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise self._error(
                no, f"not a JSON object ({exc}); the file is damaged or not a negtheory checkpoint"
            ) from None

    def _check_header(self, no: int, header):
        if not isinstance(header, dict) or header.get("format") != _FORMAT:
            if isinstance(header, dict) and "signature" in header and "params" not in header:
                raise self._error(
                    no,
                    "a checkpoint of an older negtheory (format version 1), which is not read any more; "
                    "delete it or use a new file",
                )
            raise self._error(no, "not a negtheory mse_study checkpoint header")
        if header.get("version") != _FORMAT_VERSION:
            raise self._error(
                no,
                f"checkpoint format version {header.get('version')!r}, this negtheory reads version {_FORMAT_VERSION}",
            )
        params = header.get("params")
        if not isinstance(params, dict) or header.get("signature") != _sha256(params):
            raise self._error(
                no, "the header's parameters do not match its signature (the file was edited)"
            )
        if params != self.params:
            diff = sorted(set(params) | set(self.params))
            diff = [
                f"{k}: {params.get(k)!r} in the file, {self.params.get(k)!r} now"
                for k in diff
                if params.get(k) != self.params.get(k)
            ]
            raise self._error(
                no,
                "belongs to a different study ("
                + "; ".join(diff)
                + "); use a new file or delete it",
            )

    def _check_record(self, no: int, rec):
        if not isinstance(rec, dict) or set(rec) != {"index", "value", "rows", "sha256"}:
            raise self._error(
                no, "not a checkpoint record (expected the keys index, value, rows, sha256)"
            )
        index = rec["index"]
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < self.n_points:
            raise self._error(
                no,
                f"record index {index!r} is not a point of this study (0 .. {self.n_points - 1})",
            )
        if rec["sha256"] != _sha256([self.signature, index, rec["value"], rec["rows"]]):
            raise self._error(
                no,
                f"the checksum of record {index} does not match (edited, or written by another study)",
            )
        rows = rec["rows"]
        if (
            rec["value"] != self.params["values"][index]
            or not isinstance(rows, list)
            or len(rows) != len(self.params["estimators"])
        ):
            raise self._error(no, f"record {index} does not fit this study's sweep")
        for row, name in zip(rows, self.params["estimators"]):
            if (
                not isinstance(row, dict)
                or row.get("estimator") != name
                or any(k not in row for k in _ROW_KEYS)
            ):
                raise self._error(no, f"record {index} does not fit this study's estimators")
        if index in self.done and _canonical(self.done[index]) != _canonical(rows):
            raise self._error(no, f"a second, different record for point {index}")
        self.done[index] = rows

    # -------------------------------------------------------------------------- writing
    def _append(self, obj):
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(_canonical(obj) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def record(self, index: int, value, rows: list[dict]):
        rows = json.loads(_canonical(rows))
        self.done[index] = rows
        self._append(
            {
                "index": index,
                "value": value,
                "rows": rows,
                "sha256": _sha256([self.signature, index, value, rows]),
            }
        )


def _runner(executor):
    """-> (run(tasks) yielding (task_index, result) as tasks complete, shutdown())."""
    if executor is None:

        def run_local(tasks):
            for i, task in enumerate(tasks):
                yield i, _chunk_stats(*task)

        return run_local, lambda: None
    if isinstance(executor, str):
        if executor != "dask":
            raise ValueError(
                f"executor must be None, 'dask', a distributed.Client or a concurrent.futures.Executor, got {executor!r}"
            )
        from distributed import Client, LocalCluster

        # processes with one thread each: numba kernels are compiled (or loaded from cache) once
        # per worker and never share the GIL
        cluster = LocalCluster(
            n_workers=os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
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
    raise TypeError(
        f"executor must be None, 'dask', a distributed.Client or a concurrent.futures.Executor, got {executor!r}"
    )


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


_EXECUTOR_KINDS = "None, 'dask', a distributed.Client or a concurrent.futures.Executor"


@dataclass(frozen=True)
class Execution:
    """How :func:`mse_study` runs: where, with which checkpoint, progress bar, chunk size and memory cap.

    The execution settings of the thesis's Monte-Carlo study (§6.6.1). None of them changes the
    numbers: a study gives the same ``DataFrame``, bit for bit,
    whatever its executor, chunking or checkpoint (see the module notes). The values are checked
    on construction, so a misspelt or out-of-range setting fails before any work.

    Parameters
    ----------
    executor : None, "dask", distributed.Client or concurrent.futures.Executor
        Where (point, chunk) tasks run: ``None`` locally (numba-parallel kernels); ``"dask"`` a
        local ``distributed`` cluster of single-threaded processes started for the study; a
        ``distributed.Client`` or any ``concurrent.futures.Executor`` as given.
    checkpoint : str or os.PathLike, optional
        JSON-lines file recording finished points; rerunning with the same parameters resumes
        from it (bit-identical to an uninterrupted run). Its folder must exist. A file of another
        study, or an edited or foreign record, raises ``ValueError`` naming the file and line;
        the format (version 2; version 1 files are not read) is described in the module notes.
    progress : bool, default True
        Show a tqdm progress bar over the tasks.
    chunk_size : int, default 65536
        Anchors per task (rounded up to a multiple of 1024), so :math:`M = 10^7` runs in constant memory.
        Scores are generated one block of min(M, 1024) anchors at a time per numba thread: the
        memory is about 48 bytes x (N + K + 1) per anchor of a block, whatever ``chunk_size``.
    max_memory : float, optional
        Largest working memory in bytes the study may need (the estimate above, times the threads
        that generate blocks at once); a point above it raises ``ValueError`` before anything is
        computed, and above 1 GB a ``RuntimeWarning`` says how much it will take. Default: half the
        machine's physical memory (4 GiB where it is unknown).

    Raises
    ------
    ValueError
        ``chunk_size`` < 1, ``max_memory`` <= 0 or NaN, or ``executor`` a string other than ``"dask"``;
        the message names the field.
    TypeError
        A value of the wrong kind (``progress`` not a boolean, ``checkpoint`` not a path, ``executor``
        without a ``submit`` method); the message names the field.

    Examples
    --------
    >>> from negtheory.studies import Execution, mse_study
    >>> quiet = Execution(progress=False, chunk_size=4096)
    >>> quiet.chunk_size, quiet.executor is None
    (4096, True)
    >>> df = mse_study("alpha", [0.9], n_anchors=500, execution=quiet)
    >>> Execution(chunk_size=0)
    Traceback (most recent call last):
    ...
    ValueError: chunk_size must be an integer in [1, 2**63 - 1], got 0
    """

    executor: Any = None
    checkpoint: str | os.PathLike[str] | None = None
    progress: bool = True
    chunk_size: int = 65_536
    max_memory: float | None = None

    def __post_init__(self) -> None:
        ex = self.executor
        if isinstance(ex, str) and ex != "dask":
            raise ValueError(f"executor must be {_EXECUTOR_KINDS}, got {ex!r}")
        if not (ex is None or isinstance(ex, str) or hasattr(ex, "submit")):
            raise TypeError(f"executor must be {_EXECUTOR_KINDS}, got {ex!r}")
        if self.checkpoint is not None and not isinstance(self.checkpoint, (str, os.PathLike)):
            raise TypeError(
                f"checkpoint must be a path (str or os.PathLike) or None, got {self.checkpoint!r}"
            )
        object.__setattr__(self, "progress", flag("progress", self.progress))
        object.__setattr__(self, "chunk_size", int_scalar("chunk_size", self.chunk_size, 1))
        if self.max_memory is not None:
            object.__setattr__(
                self, "max_memory", real_scalar("max_memory", self.max_memory, 0.0, lo_open=True)
            )


@dataclass(frozen=True)
class Generation:
    """How :func:`mse_study` draws its scores: the options it passes to :func:`negtheory.generators.score_sets`.

    The scores are those of the thesis's Algorithm 6 (§6.6.1). Unlike :class:`Execution`, these
    options change the numbers (they are part of a checkpoint's key).

    Parameters
    ----------
    base_interval : (float, float), optional
        ``(lo, hi)`` of Algorithm 6's uniform parents (default: :math:`(-1/t^2, 1/t^2)`).
    method : {"inverse", "accept-reject"}, default "inverse"
        The algorithm that draws the class-conditional scores.

    Raises
    ------
    ValueError
        ``base_interval`` not a pair ``lo < hi`` of finite numbers, or an unknown ``method``;
        the message names the field.
    TypeError
        ``base_interval`` not a sequence of numbers; the message names the field.

    Examples
    --------
    >>> from negtheory.studies import Generation, mse_study
    >>> df = mse_study("alpha", [0.9], n_anchors=500, generation=Generation(base_interval=(-1.0, 1.0)),
    ...                execution=Execution(progress=False))
    >>> Generation(method="reject")
    Traceback (most recent call last):
    ...
    ValueError: method must be one of ('inverse', 'accept-reject'), got 'reject'
    """

    base_interval: tuple[float, float] | None = None
    method: str = "inverse"

    def __post_init__(self) -> None:
        from .generators import METHODS, _parse_parent

        if not isinstance(self.method, str) or self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.base_interval is not None:
            try:
                pair = tuple(self.base_interval)
            except TypeError:
                raise TypeError(
                    f"base_interval must be a pair (low, high) of scores, or None, got {self.base_interval!r}"
                ) from None
            _parse_parent("uniform", pair, 1.0)  # lo < hi, finite: the generator's own check
            object.__setattr__(self, "base_interval", pair)


#: the study's settings when ``execution=`` / ``generation=`` is not given
_DEFAULT_EXECUTION = Execution()
_DEFAULT_GENERATION = Generation()


def _settings(name: str, value, cls):
    """``value`` if it is a ``cls`` (the default for None), else a ``TypeError`` naming ``name``."""
    if value is None:
        return _DEFAULT_EXECUTION if cls is Execution else _DEFAULT_GENERATION
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be a negtheory.studies.{cls.__name__} or None, got {value!r}")
    return value


def _caller_level() -> int:
    """``stacklevel`` that makes a warning issued by the caller of this function point at mse_study's caller."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__") in (
        __name__,
        "negtheory._deprecation",
    ):
        frame, level = frame.f_back, level + 1
    return level


@renamed_keyword("seed", "rng")
@grouped_keywords(
    "execution", ("executor", "checkpoint", "progress", "chunk_size", "max_memory"), Execution
)
@grouped_keywords("generation", ("base_interval", "method"), Generation)
def mse_study(
    vary: str,
    values: Sequence[Any],
    *,
    n_anchors: int = 1000,
    n_unlabeled: int = 64,
    alpha: float = 0.9,
    gamma: float = 0.1,
    tau_plus: float = 0.1,
    t: float = 0.5,
    beta: float = 0.5,
    n_positives: int = 10,
    estimators: Sequence[str] = ESTIMATORS,
    rng: RNGLike = 0,
    hcl_beta: float | None = None,
    generation: Generation | None = None,
    execution: Execution | None = None,
) -> pd.DataFrame:
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
        Fixed parameters (thesis defaults: M = 1e3, N = 64, :math:`\alpha = 0.9`, :math:`\gamma = 0.1`,
        :math:`\tau^+ = 0.1`, t = 0.5; :math:`\beta = 0.5` as in the study; K = 10 extra positives).
    estimators : sequence of str
        Any of ``"biased"`` (6.46), ``"dcl"`` (6.47), ``"hcl"``, ``"bcl"`` (6.48),
        ``"bcl_norm"`` (self-normalised BCL of the released code).
    rng : int, SeedSequence, Generator or None
        Root seed; point i uses ``SeedSequence(seed, spawn_key=(i,))``. An int is the seed; a
        Generator or SeedSequence gives one 63-bit seed (so use an int to resume a
        checkpoint); ``None`` draws fresh entropy per task (``seed``: deprecated since 0.1, removed in 0.2).
    hcl_beta : float, optional
        Concentration of HCL's weights :math:`\hat x^\beta` (default: ``beta``).
    generation : Generation, optional
        The options passed to :func:`negtheory.generators.score_sets` (``base_interval``,
        ``method``); default ``Generation()``. The keywords ``base_interval=`` and ``method=`` are
        deprecated since 0.1 (removed in 0.2): they still work, with a ``DeprecationWarning``.
    execution : Execution, optional
        How the study runs (``executor``, ``checkpoint``, ``progress``, ``chunk_size``,
        ``max_memory``; none changes the numbers); default ``Execution()``, which shows a
        progress bar. The keywords ``executor=``, ``checkpoint=``, ``progress=``, ``chunk_size=``
        and ``max_memory=`` are deprecated since 0.1 (removed in 0.2): they still work, give the
        same numbers and emit a ``DeprecationWarning``; passing one of them with ``execution=``
        is a ``ValueError``.

    Returns
    -------
    pandas.DataFrame
        One row per (value, estimator): columns ``<vary>``, ``estimator``, ``mse``, ``mse_se``
        (standard error of the MSE), ``mean`` (mean estimate), ``truth_mean`` (mean theta_SUP),
        ``n_anchors`` (anchors with a defined truth).

    Raises
    ------
    ValueError
        ``n_anchors`` < 2 (one anchor gives no standard error of the MSE), a parameter out of range,
        or a point whose working memory would exceed ``execution.max_memory`` (e.g. :math:`N = 10^8`).

    Warns
    -----
    RuntimeWarning
        When a point needs more than 1 GB of working memory (see :class:`Execution`), and when fewer
        than two anchors of a point have a defined truth (an anchor without any true
        negative has none): that row's ``mse_se`` is NaN.

    Examples
    --------
    >>> from negtheory.studies import Execution, mse_study
    >>> df = mse_study("alpha", [0.7, 0.9], n_anchors=500, execution=Execution(progress=False))
    >>> sorted(df.columns)
    ['alpha', 'estimator', 'mean', 'mse', 'mse_se', 'n_anchors', 'truth_mean']
    >>> bool((df.query("estimator == 'bcl'").mse.values < df.query("estimator == 'biased'").mse.values).all())
    True
    """
    import pandas as pd

    values, estimators = _check_sweep(vary, values, estimators)
    # one anchor gives an MSE but no standard error (mse_se would be NaN): at least two
    n_anchors = int_scalar("n_anchors", n_anchors, 2)
    seed = None if rng is None else int_seed("rng", rng)
    gen = _settings("generation", generation, Generation)
    ex = _settings("execution", execution, Execution)
    fixed: dict[str, Any] = dict(
        zip(_FIXED, (n_unlabeled, alpha, gamma, tau_plus, t, beta, n_positives))
    )
    points, coerced = _study_points(
        vary, values, fixed, estimators, n_anchors, seed, gen.base_interval, gen.method, hcl_beta
    )
    _check_memory(points, n_anchors, ex.chunk_size, ex.max_memory)
    ckpt = None
    if ex.checkpoint is not None:
        ckpt = _open_checkpoint(
            ex.checkpoint, points, vary, coerced, n_anchors, estimators, gen.method, hcl_beta
        )
    rows_by_point = _run_study(
        points, ckpt, vary, coerced, n_anchors, ex.chunk_size, ex.progress, ex.executor
    )

    rows = [r for i in sorted(rows_by_point) for r in rows_by_point[i]]
    df = pd.DataFrame(
        rows, columns=[vary, "estimator", "mse", "mse_se", "mean", "truth_mean", "n_anchors"]
    )
    few = df["n_anchors"] < 2
    if few.any():
        warnings.warn(
            f"mse_study: {int(few.sum())} row(s) have fewer than two anchors with a defined truth (anchors "
            "without any true negative have none), so their mse_se is NaN (and mse, mean, truth_mean too "
            "with none); raise n_anchors or n_unlabeled",
            RuntimeWarning,
            stacklevel=_caller_level(),
        )
    return df


#: the generator's parameters a sweep holds fixed (all but the swept one), in the checkpoint's order
_FIXED = ("n_unlabeled", "alpha", "gamma", "tau_plus", "t", "beta", "n_positives")


def _check_sweep(vary, values, estimators):
    """The swept parameter's name and values and the estimators, checked: (values list, estimators tuple)."""
    if not isinstance(vary, str) or vary not in VARYING:
        raise ValueError(f"vary must be one of {VARYING}, got {vary!r}")
    values = list(values) if np.ndim(values) else [values]
    if not values:
        raise ValueError("values must hold at least one value")
    if len(set(map(repr, values))) != len(values):
        raise ValueError(f"values must be distinct (one study point each), got {values!r}")
    try:
        estimators = tuple(estimators)
    except TypeError:
        raise TypeError(
            f"estimators must be a sequence of estimator names from {ESTIMATORS}, got {estimators!r}"
        ) from None
    unknown = [e for e in estimators if e not in ESTIMATORS]
    if unknown or not estimators:
        raise ValueError(
            f"estimators must be a non-empty subset of {ESTIMATORS}, got {list(estimators)}"
        )
    return values, estimators


def _study_points(
    vary, values, fixed, estimators, n_anchors, seed, base_interval, method, hcl_beta
):
    """One :class:`_Point` per swept value, every parameter validated: (points, the coerced swept values)."""
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
        try:  # the fixed keywords passed above: only the swept value can fail here
            p[vary] = _coerce(vary, value)
            p["n_unlabeled"] = int_scalar("n_unlabeled", p["n_unlabeled"], 1)
            p["n_positives"] = int_scalar("n_positives", p["n_positives"], 0)
            for name, lo, hi, lo_open, hi_open in _REAL_BOUNDS:
                p[name] = real_scalar(name, p[name], lo, hi, lo_open=lo_open, hi_open=hi_open)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"values[{i}] = {value!r} is not a valid {vary}: {exc}") from None
        coerced.append(p[vary])
        if p["n_positives"] == 0 and {"dcl", "hcl"} & set(estimators):
            raise ValueError(
                "n_positives must be >= 1 for the dcl and hcl estimators (they correct with extra positives)"
            )
        if (
            ("bcl" in estimators or "bcl_norm" in estimators)
            and p["alpha"] == 1.0
            and p["beta"] == 1.0
        ):
            raise ValueError(
                "alpha = 1 with beta = 1 gives Z = 0 (eq. 6.26): BCL is undefined there"
            )
        hb = p["beta"] if hcl_beta is None else real_scalar("hcl_beta", hcl_beta, 0.0)
        points.append(
            _Point(
                i,
                n_anchors,
                p["n_unlabeled"],
                p["alpha"],
                p["gamma"],
                p["tau_plus"],
                p["t"],
                p["beta"],
                p["n_positives"],
                estimators,
                seed,
                tuple(base_interval) if base_interval is not None else None,
                method,
                hb,
            )
        )
    return points, coerced


def _open_checkpoint(checkpoint, points, vary, coerced, n_anchors, estimators, method, hcl_beta):
    """The study's :class:`_Checkpoint`, keyed by every parameter that shapes its rows."""
    from ._version import __version__

    p0 = asdict(points[0])
    params = dict(
        vary=vary,
        values=coerced,
        n_anchors=n_anchors,
        **{k: p0[k] for k in _FIXED if k != vary},
        estimators=list(estimators),
        seed=p0["seed"],
        base_interval=p0["base_interval"],
        method=method,
        hcl_beta=hcl_beta if hcl_beta is None else p0["hcl_beta"],
        negtheory=__version__,
    )
    return _Checkpoint(checkpoint, params)


def _run_study(points, ckpt, vary, coerced, n_anchors, chunk_size, progress, executor):
    """Run the (point, chunk) tasks not in the checkpoint; the summary rows of every point by index."""
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
                ckpt.record(point.index, coerced[point.index], rows)
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
    return rows_by_point
