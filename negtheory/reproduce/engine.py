r"""One engine for the ``negtheory reproduce`` commands: a declarative plan of runs, executed and collected.

Every reproduction that trains (``thesis-tables``, ``wu-k-sweep``, ``sim-vs-train``) states *what*
to run as a :class:`Plan` — one :class:`RunSpec` per (run, seed): the run's identity (data set,
model, method, variant and settings, as the command names them), its seed, the argument its worker
receives and the name under which its result is kept — and hands it to :func:`execute`, which

* reuses the results stored in ``cache_dir`` (``OUT/runs/*.json``, one file per spec, named by
  the command so that a rerun resumes an interrupted sweep),
* runs the rest locally (one after the other, or in ``jobs`` processes) or on Dask
  (:func:`negtheory.reproduce._common.run_jobs`), the longest first,
* stores each result as it arrives, and passes every result through JSON whether stored or not,
  so that a fresh, a resumed and a remote run give the same numbers,

and returns the results in plan order. The command then writes its own summary and report.
Every spec carries its own seed, so the results do not depend on where or in which order the
runs go.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ._common import run_jobs

if TYPE_CHECKING:
    import os
    from collections.abc import Callable
    from typing import Any

__all__ = ["RunSpec", "Plan", "execute"]


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """One (run, seed) of a plan.

    Parameters
    ----------
    key : tuple
        The run's identity as the command names it (e.g. ``("sgd", "bns", 5, "popularity")`` for
        the thesis tables: method, candidates, prior, variant; ``("k", 4)`` for a K sweep); the
        specs of one plan share a key across seeds.
    replicate : int
        The run's replicate seed (the only source of its randomness; the ``seeds`` 0 .. n-1 of the
        command, named as ``seeds`` are elsewhere: a replicate index, not an RNG argument).
    task : tuple
        What the plan's worker receives beside the shared data (picklable).
    name : str, optional
        File name of its stored result under the cache folder (None: never stored).
    cost : float
        A rough relative cost; the runs not stored start longest first (default 0: plan order).
    """

    key: tuple
    replicate: int
    task: tuple
    name: str | None = None
    cost: float = 0.0


@dataclasses.dataclass(frozen=True)
class Plan:
    """A declarative list of runs and how one is done.

    Parameters
    ----------
    specs : tuple of RunSpec
        The runs, in the order their results are returned.
    worker : callable
        ``worker(shared, task) -> result`` (a JSON-able mapping), a top-level function of the
        package so that worker processes and Dask workers import it.
    load : callable
        ``load() -> shared``: the data every run reads (called once, only when a run is missing).
    desc : str
        Label of the progress bar (default ``"runs"``).
    """

    specs: tuple[RunSpec, ...]
    worker: Callable[[Any, tuple], Any]
    load: Callable[[], Any]
    desc: str = "runs"

    def keys(self) -> list[tuple]:
        """The distinct run keys.

        Returns
        -------
        list of tuple
            Each key once, in plan order.
        """
        return list(dict.fromkeys(s.key for s in self.specs))


def _through_json(result: Any) -> tuple[str, Any]:
    text = json.dumps(result, default=float)
    return text, json.loads(text)


def execute(
    plan: Plan,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    executor: Any = "local",
    jobs: int = 1,
    progress: bool = True,
) -> list[Any]:
    """Run every spec of ``plan`` whose result is not stored; return all results in plan order.

    Parameters
    ----------
    plan : Plan
        The runs.
    cache_dir : str or os.PathLike, optional
        Folder of stored results (created if absent): a spec with a ``name`` whose file exists
        there is not run again, and each new result is stored as it arrives (written to a
        temporary file and renamed, so an interruption leaves no partial file). Default None:
        nothing stored.
    executor : str, Client or Executor
        ``"local"``, ``"dask"``, a scheduler address, a ``distributed.Client`` or a
        ``concurrent.futures.Executor`` (:func:`negtheory.reproduce._common.run_jobs`).
    jobs : int
        Local worker processes (or the workers of ``"dask"``; default 1: in this process).
    progress : bool
        A progress bar over the runs (default True).

    Returns
    -------
    list
        One result per spec, each as read back from its JSON text.

    Raises
    ------
    ValueError
        ``jobs`` is below 1.
    """
    if int(jobs) < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs!r}")
    specs = list(plan.specs)
    cache = Path(cache_dir) if cache_dir is not None else None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    results: dict[int, Any] = {}
    for i, s in enumerate(specs):
        if cache is not None and s.name is not None and (cache / s.name).exists():
            results[i] = json.loads((cache / s.name).read_text())
    todo = [i for i in range(len(specs)) if i not in results]
    bar = None
    if progress and specs:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(specs), initial=len(specs) - len(todo), desc=plan.desc, unit="run")
    try:
        if todo:
            todo.sort(
                key=lambda i: specs[i].cost, reverse=True
            )  # longest first (stable: ties keep plan order)
            tasks = [specs[i].task for i in todo]
            for j, result in run_jobs(
                plan.worker, plan.load(), tasks, executor=executor, jobs=jobs
            ):
                i = todo[j]
                text, results[i] = _through_json(result)
                if cache is not None and specs[i].name is not None:
                    tmp = cache / (specs[i].name + ".tmp")
                    tmp.write_text(text)
                    tmp.replace(cache / specs[i].name)
                if bar is not None:
                    bar.update()
    finally:
        if bar is not None:
            bar.close()
    return [results[i] for i in range(len(specs))]
