"""Helpers shared by the reproduction scripts (private)."""

from __future__ import annotations

import math
from pathlib import Path

from .._cli_common import INSTALL_HINT

#: where the mini-batch runs of the reproduce commands train (``--device``)
DEVICES = ("cpu", "cuda", "auto")


def cuda_available() -> bool:
    """Whether torch is installed and sees a CUDA device (torch imported only here, lazily)."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def resolve_device(device: str, name: str = "device") -> str:
    """``"cpu"`` or ``"cuda"`` for a :data:`DEVICES` value (``"auto"``: CUDA when torch sees a GPU).

    Raises ValueError naming ``name`` for a value outside :data:`DEVICES`, or for ``"cuda"`` on a
    machine where torch sees none (refused before any run starts, not in every run).
    """
    if device not in DEVICES:
        raise ValueError(f"{name} must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "auto":
        return "cuda" if cuda_available() else "cpu"
    if device == "cuda" and not cuda_available():
        raise ValueError(
            f"{name} cuda: torch sees no CUDA device on this machine (use cpu, or auto to pick one)"
        )
    return device


def check_paths(out, inputs) -> Path:
    """Fail before any work: every input (``{option: path}``) must be a regular interaction file
    (no FIFO, device or oversized file) and ``out`` a folder that exists or can be created and is
    writable (it is created here)."""
    from .._cli_common import input_file, output_dir

    for option, f in inputs.items():
        input_file(f, option)
    return output_dir(out, "--out")


def t_half_width(values) -> float:
    """Half-width of the 95 % Student-t interval of the mean (NaN for fewer than two values)."""
    import numpy as np
    from scipy import stats

    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return float("nan")
    return float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))


# ------------------------------------------------------------------------------------------
# where the jobs of a sweep run: --jobs / --executor local|dask|ADDRESS
# ------------------------------------------------------------------------------------------
#: values of ``--format`` (the layouts of :func:`negtheory.recsys.read_interactions`)
DATA_FORMATS = ("auto", "csv", "movielens-1m", "yahoo-r3", "lightgcn")

_EXECUTOR_VALUES = "'local', 'dask', a Dask scheduler address, a distributed.Client or a concurrent.futures.Executor"


def add_format_argument(p) -> None:
    """``--format``: the layout of the ``--train`` / ``--test`` files."""
    p.add_argument(
        "--format",
        choices=DATA_FORMATS,
        default="auto",
        help="layout of --train/--test: csv (CSV or MovieLens u.data), movielens-1m (ratings.dat), yahoo-r3, "
        "lightgcn (train.txt / test.txt); auto recognises it from the content",
    )


def add_output_arguments(p, default, what: str) -> None:
    """``--out`` (default ``default``; ``what`` names the files written there) and ``--quiet``."""
    p.add_argument(
        "--out",
        default=str(default),
        help=f"output folder for {what}; finished runs are kept in OUT/runs/ and reused",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def add_executor_arguments(p, jobs: bool = True) -> None:
    """``--jobs``, ``--executor`` and ``--dask-timeout``: where the (run, seed) jobs of a sweep run."""
    from .._cli_common import integer, real

    if jobs:
        p.add_argument(
            "--jobs",
            type=integer(1),
            default=1,
            help="parallel worker processes (local) or workers of the local Dask cluster (--executor dask)",
        )
    p.add_argument(
        "--executor",
        default="local",
        metavar="local|dask|ADDRESS",
        help="local: this machine (--jobs processes); dask: a local Dask cluster of --jobs single-threaded workers; "
        "ADDRESS: the Dask scheduler there (e.g. tcp://host:8786). Every job is seeded by its own (run, seed), so the "
        "CSV is the same wherever it runs; finished jobs are kept in OUT/runs/ and reused",
    )
    p.add_argument(
        "--dask-timeout",
        type=real(0.0, lo_open=True),
        default=10.0,
        help="seconds to wait for the scheduler",
    )


def open_executor(executor="local", jobs: int = 1, timeout: float = 10.0):
    """-> ``(executor, close)``: ``"local"``, a ``distributed.Client`` or a ``concurrent.futures.Executor``.

    ``"local"`` (or None) runs on this machine; ``"dask"`` starts a local cluster of ``jobs``
    single-threaded worker processes (closed by ``close()``); any other string is the address
    of a Dask scheduler; a Client or Executor is used as given (``close()`` leaves it open).
    """
    if executor is None or executor == "local":
        return "local", lambda: None
    if isinstance(executor, str):
        if not executor.strip():
            raise ValueError(f"executor must be {_EXECUTOR_VALUES}, got {executor!r}")
        try:
            import distributed
        except ImportError:
            raise ImportError(
                f"executor {executor!r} requires dask ({INSTALL_HINT.format(extra='dask')})"
            ) from None
        if executor == "dask":
            cluster = distributed.LocalCluster(
                n_workers=max(int(jobs), 1),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            client = distributed.Client(cluster)

            def close():
                client.close()
                cluster.close()

            return client, close
        client = distributed.Client(executor, timeout=timeout)
        return client, client.close
    if hasattr(executor, "submit"):
        return executor, lambda: None
    raise ValueError(f"executor must be {_EXECUTOR_VALUES}, got {executor!r}")


def connect_executor(args) -> tuple:
    """:func:`open_executor` for a command's ``--executor`` / ``--jobs`` / ``--dask-timeout``, failing clearly."""
    from .._cli_common import CommandError

    spec = getattr(args, "executor", "local")
    try:
        return open_executor(spec, getattr(args, "jobs", 1), getattr(args, "dask_timeout", 10.0))
    except ImportError:
        raise CommandError(
            f"--executor dask|ADDRESS requires dask ({INSTALL_HINT.format(extra='dask')})",
            exit_code=1,
        ) from None
    except (
        OSError,
        ValueError,
        TypeError,
    ) as exc:  # refused, timed out (TimeoutError is an OSError), bad address
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise CommandError(
            f"--executor {spec}: no Dask scheduler answered ({reason})", exit_code=1
        ) from None


_SHARED = None  # the shared argument of the jobs of a local worker process (set by its initializer)


def _set_shared(shared) -> None:
    global _SHARED
    _SHARED = shared


def _call_shared(fn, task):
    return fn(_SHARED, task)


def run_jobs(fn, shared, tasks, *, executor="local", jobs: int = 1, timeout: float = 10.0):
    """Run ``fn(shared, task)`` for every task; yield ``(index, result)`` as the jobs finish.

    ``fn`` is a top-level function of the package (workers import it) and each task carries its
    own seed, so a result does not depend on where or in which order it runs: the caller sorts
    the results, and stores each one as it arrives (so that an interrupted sweep resumes).
    ``shared`` (e.g. the data) is sent once per worker: to each local process by its
    initializer, to a Dask cluster by ``scatter(broadcast=True)``.

    ``executor``: ``"local"`` runs the jobs one after the other in this process, or in ``jobs``
    spawned processes when ``jobs > 1``; ``"dask"``, an ADDRESS, a ``distributed.Client`` or a
    ``concurrent.futures.Executor`` as in :func:`open_executor`.

    Bit-identical results across machines assume the same package versions and the same torch
    thread count (Dask's nanny starts its workers with ``OMP_NUM_THREADS=1``; set it likewise for
    the local run, as the README advises); nothing here changes torch's or numba's thread settings.
    """
    tasks = list(tasks)
    if not tasks:
        return
    ex, close = open_executor(executor, jobs, timeout)
    try:
        if isinstance(ex, str):  # "local"
            if jobs > 1 and len(tasks) > 1:
                import concurrent.futures as cf
                import multiprocessing as mp

                ctx = mp.get_context("spawn")
                with cf.ProcessPoolExecutor(
                    min(jobs, len(tasks)),
                    mp_context=ctx,
                    initializer=_set_shared,
                    initargs=(shared,),
                ) as pool:
                    futs = {pool.submit(_call_shared, fn, t): i for i, t in enumerate(tasks)}
                    for fut in cf.as_completed(futs):
                        yield futs[fut], fut.result()
            else:
                for i, t in enumerate(tasks):
                    yield i, fn(shared, t)
        elif hasattr(ex, "scatter") and hasattr(ex, "gather"):  # distributed.Client
            from distributed import as_completed

            remote = ex.scatter(shared, broadcast=True, hash=False) if shared is not None else None
            futs = [ex.submit(fn, remote, t, pure=False) for t in tasks]
            index = {f.key: i for i, f in enumerate(futs)}
            for fut, result in as_completed(futs, with_results=True):
                yield index[fut.key], result
        else:  # a concurrent.futures.Executor
            import concurrent.futures as cf

            futs = {ex.submit(fn, shared, t): i for i, t in enumerate(tasks)}
            for fut in cf.as_completed(futs):
                yield futs[fut], fut.result()
    finally:
        close()
