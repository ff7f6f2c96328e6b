"""Validation searches of ``negtheory reproduce thesis-tables --tune`` (issue 22): grids, the search, its report."""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

from .thesis_plan import TUNE_METRIC, TUNING, _split_key

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

__all__ = ["parse_tune_grid", "validation_search", "tuning_markdown", "tune_rows"]


def parse_tune_grid(specs: Sequence[str]) -> dict[str, list[dict[str, tuple]]]:
    """``--tune-grid`` arguments -> ``{method: [stage, ...]}`` (one stage per argument, in order).

    Parameters
    ----------
    specs : sequence of str
        ``"METHOD:NAME=V1,V2[:NAME=V1,...]"``, METHOD a key of :data:`TUNING`; values are read as
        int, else float, else kept as strings.

    Returns
    -------
    dict
        Method -> its stages, each a dict keyword -> tuple of candidate values.

    Raises
    ------
    ValueError
        A malformed spec or an unknown method (the message names ``tune_grid``).

    Examples
    --------
    >>> from negtheory.reproduce.thesis_tables import parse_tune_grid
    >>> parse_tune_grid(["BCL:alpha=0.55,0.7:tau_plus=0.06", "BCL:beta=0.6", "PNS:pns_power=0,1"])
    {'BCL': [{'alpha': (0.55, 0.7), 'tau_plus': (0.06,)}, {'beta': (0.6,)}], 'PNS': [{'pns_power': (0, 1)}]}
    """
    out: dict[str, list[dict[str, tuple]]] = {}
    for spec in specs:
        method, *parts = str(spec).split(":")
        if method not in TUNING or not parts:
            raise ValueError(
                f"tune_grid: expected METHOD:NAME=V1,V2 with METHOD among {tuple(TUNING)}, got {spec!r}"
            )
        stage = {}
        for part in parts:
            name, eq, vals = part.partition("=")
            if not eq or not name or not vals:
                raise ValueError(f"tune_grid: expected NAME=V1,V2 in {spec!r}, got {part!r}")
            stage[name] = tuple(_split_key((f"{name}={v}",))[1][name] for v in vals.split(","))
        out.setdefault(method, []).append(stage)
    return out


def validation_search(
    evaluate: Callable[[list[dict[str, Any]]], Sequence[float]],
    stages: Sequence[Mapping[str, Sequence[Any]]],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    r"""A stage-wise grid search: the candidate of largest validation score in each stage.

    Stage s evaluates every combination of its grids (the Cartesian product), each combined with
    the choices of stages 1 .. s - 1, and keeps

    .. math:: \theta_s = \arg\max_{\theta \in \Theta_s} \mathrm{score}(\theta)

    (the first in grid order on ties; a NaN score never wins unless all are NaN). ``evaluate``
    sees only the candidates, so what it trains on — train minus validation in
    :func:`run_tables`, never test — is its business.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(candidates) -> scores``: a list of keyword dicts in, one float per dict out
        (larger is better); called once per stage, so a stage's runs can go in parallel.
    stages : sequence of mapping
        Each stage a non-empty mapping keyword -> non-empty sequence of values.

    Returns
    -------
    chosen : dict
        The keywords of the last stage's winner (all stages' choices).
    records : list of dict
        One per candidate evaluated: ``stage`` (1-based), ``params`` (dict), ``score``, ``chosen``
        (the winner of its stage).

    Raises
    ------
    ValueError
        ``stages`` is empty, a stage or grid is empty, or ``evaluate`` returns the wrong number
        of scores.

    Examples
    --------
    >>> from negtheory.reproduce.thesis_tables import validation_search
    >>> f = lambda cands: [-(c["a"] - 2) ** 2 - (c.get("b", 0) - 1) ** 2 for c in cands]
    >>> validation_search(f, [{"a": [0, 1, 2, 3]}, {"b": [0, 1]}])[0]
    {'a': 2, 'b': 1}
    """
    import itertools

    if not stages:
        raise ValueError("stages must hold at least one stage")
    chosen: dict[str, Any] = {}
    records: list[dict[str, Any]] = []
    for n, stage in enumerate(stages, start=1):
        if not stage or any(len(list(v)) == 0 for v in stage.values()):
            raise ValueError(
                f"stages: stage {n} must map each keyword to a non-empty grid, got {dict(stage)!r}"
            )
        names = list(stage)
        cands = [
            {**chosen, **dict(zip(names, vals))}
            for vals in itertools.product(*(list(stage[k]) for k in names))
        ]
        scores = [float(x) for x in evaluate(cands)]
        if len(scores) != len(cands):
            raise ValueError(f"evaluate returned {len(scores)} scores for {len(cands)} candidates")
        best = max(
            range(len(cands)),
            key=lambda i: (
                not math.isnan(scores[i]),
                scores[i] if not math.isnan(scores[i]) else 0.0,
                -i,
            ),
        )
        chosen = cands[best]
        records += [
            dict(stage=n, params=c, score=sc, chosen=i == best)
            for i, (c, sc) in enumerate(zip(cands, scores))
        ]
    return chosen, records


def _tune_score(history: list[dict[str, Any]], criterion: str) -> tuple[float, int]:
    """(validation NDCG@10, its epoch): after the last evaluation (``"final"``) or the best one (``"best"``)."""
    if criterion == "final":
        h = history[-1]
    else:
        h = max(history, key=lambda r: r.get(TUNE_METRIC, -math.inf))
    return float(h.get(TUNE_METRIC, math.nan)), int(h["epoch"])


def tuning_markdown(
    records: Sequence[Mapping[str, Any]], valid_fraction: float = 0.1, tune_seed: int = 0
) -> list[str]:
    """Markdown lines of the validation searches: per tuned row, every candidate's score and the choice.

    Parameters
    ----------
    records : sequence of mapping
        The ``tuning_records`` of :func:`run_tables`.
    valid_fraction : float
        The validation share, for the heading (default 0.1).
    tune_seed : int
        The searches' seed, for the heading (default 0; ``tune_seed`` of :func:`run_tables`).

    Returns
    -------
    list of str
        A section ``## Hyper-parameters chosen on validation`` (a table per method and variant).
    """
    lines = [
        "## Hyper-parameters chosen on validation",
        "",
        f"Each candidate: one run (seed {tune_seed}) on train minus {valid_fraction:g} of it (test never read), "
        f"scored by validation NDCG@10; the chosen value (**bold**) is then run with every seed and reported above "
        "under the variant's name.",
        "",
    ]
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["method"], r["variant"], r["criterion"]), []).append(r)
    for (
        method,
        variant,
        criterion,
    ), rs in groups.items():  # method: the search's key, e.g. "BCL-LightGCN"
        chosen = [r for r in rs if r["chosen"] and r["stage"] == max(x["stage"] for x in rs)][0]
        lines += [
            f"### {method}, {variant} (validation NDCG@10 at the {criterion}): chosen {chosen['params']}",
            "",
        ]
        lines += ["| stage | candidate | valid NDCG@10 | epoch |", "|---|---|---|---|"]
        for r in rs:
            cell = f"**{r['params']}**" if r["chosen"] else r["params"]
            lines.append(f"| {r['stage']} | {cell} | {r[TUNE_METRIC]:.4f} | {r['epoch']} |")
        lines.append("")
    return lines


def tune_rows(
    runner: Any, o: Any, tuning_records: list[dict[str, Any]] | None = None
) -> list[tuple]:
    """The rows of the validation searches of ``o.tune`` (issue 22), each search run through ``runner``.

    For each method of ``o.tune`` (keys of :data:`TUNING`), :func:`validation_search` over its
    stages (``o.tune_stages`` or :data:`TUNING`'s): each candidate is one run (seed
    ``o.tune_seed``) on train minus ``o.valid_fraction`` of it (split seeded by ``o.tune_seed``;
    the test pairs are removed from what the trainer receives), scored by :data:`TUNE_METRIC`
    after the last epoch (``valid-tuned``) or at the best one (``valid-tuned-es``); then one row per
    variant of ``o.tune_variants``, whose run key carries the chosen keywords (and
    ``protocol=valid`` for the early-stopping rows when the table's protocol is ``fixed``).

    Parameters
    ----------
    runner : object
        ``runner.task(key, seed, protocol)`` -> a task, ``runner.histories(tasks, desc)`` ->
        ``(key, seed, history, seconds)`` per task (the engine of ``thesis_tables``).
    o : TableOptions
        The options (``tune``, ``tune_variants``, ``tune_stages``, ``tune_seed``,
        ``valid_fraction``, ``protocol``).
    tuning_records : list, optional
        If given, one dict per (method, variant, candidate) is appended: ``method, table, setting,
        variant, criterion, stage, params``, one column per keyword, ``valid_ndcg@10, epoch,
        chosen, seed, valid_fraction``.

    Returns
    -------
    list of tuple
        ``(table, method, setting, variant, run_key)`` per tuned row.
    """
    from .thesis_plan import TUNE_VARIANTS, _tuned_key

    rows = []
    for method in o.tune:
        spec = TUNING[method]
        stages = (o.tune_stages or {}).get(method) or spec["stages"]
        done: dict[tuple, list[dict[str, Any]]] = {}

        def scores(cands, criterion, base=spec["base"], done=done, method=method):
            keys = [_tuned_key(base, c) for c in cands]
            tasks = [
                runner.task(k, o.tune_seed, "tune") for k in dict.fromkeys(keys) if k not in done
            ]
            for k, _, hist, _ in runner.histories(tasks, f"{method} search"):
                done[k] = hist
            return [_tune_score(done[k], criterion)[0] for k in keys]

        for variant in o.tune_variants:
            criterion, proto = TUNE_VARIANTS[variant]
            chosen, recs_v = validation_search(
                functools.partial(scores, criterion=criterion), stages
            )
            key = _tuned_key(spec["base"], chosen)
            if proto != o.protocol:
                key += (f"protocol={proto}",)
            rows.append((spec["table"], spec.get("method", method), spec["setting"], variant, key))
            for r in recs_v if tuning_records is not None else []:
                assert tuning_records is not None
                score, epoch = _tune_score(done[_tuned_key(spec["base"], r["params"])], criterion)
                tuning_records.append(
                    dict(
                        method=method,
                        table=spec["table"],
                        setting=spec["setting"],
                        variant=variant,
                        criterion="last epoch" if criterion == "final" else "best epoch",
                        stage=r["stage"],
                        params=";".join(f"{n}={v}" for n, v in sorted(r["params"].items())),
                        **r["params"],
                        **{TUNE_METRIC: score},
                        epoch=epoch,
                        chosen=r["chosen"],
                        seed=o.tune_seed,
                        valid_fraction=o.valid_fraction,
                    )
                )
    return rows
