r"""What ``negtheory reproduce thesis-tables`` runs: each table's rows as data, and their run keys.

A table is data: :data:`TABLE_ROWS` lists, per model (``"mf"``, ``"lightgcn"``) and table, its
printed rows — method, setting, variant and the *run key* of the runs that fill it — and the
printed numbers per data set live in :mod:`negtheory.reproduce.thesis_numbers`. Rows that an option
multiplies (Table 4.5's |M_u| and readings, SRNS's extra readings, BNS-2's E, the LightGCN
readings, BNS-4's occupation file) name a *family* (:data:`FAMILIES`) that expands them. Equal
run keys share runs: the repeated rows of the thesis (Table 5.2's BPR is Table 4.2's RNS) cost
nothing.

A run key is ``("sgd", sampler, candidates, prior[, variant])`` for BPR-MF by batch-1 SGD,
``("mf", loss)`` for mini-batch MF, ``("lightgcn", loss, sampler[, variant])`` for LightGCN, each
optionally extended by ``"name=value"`` items (trainer keywords: tuned values, Table 5.3's DNS
negatives, ``protocol=valid`` for early-stopping rows); None for a row not run. The keywords of the
keys and of the variants are turned into :func:`negtheory.training.fit`'s specs by
:mod:`negtheory.reproduce._run_keys`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .thesis_numbers import TABLE_5_1

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "TABLES",
    "MODELS",
    "METRICS",
    "BNS_VARIANTS",
    "SRNS_VARIANTS",
    "LIGHTGCN_VARIANTS",
    "ABLATION_VARIANTS",
    "TUNING",
    "TUNE_VARIANTS",
    "TUNE_METRIC",
    "TABLE_ROWS",
    "FAMILIES",
    "Row",
    "plan",
    "method_names",
    "default_epochs",
    "DPL_HARD_TAU_PLUS",
    "DPL_HARD_TAU_PLUS_BY_DATASET",
    "BPR_VARIANTS",
    "DATASET_DENSITY",
    "TAU_VARIANTS",
]

TABLES = ("4.2", "4.3", "4.4", "4.5", "5.2", "5.3", "6.3")
DEFAULT_BNS_SIZES = ("1", "3", "5", "10", "20", "50", "100")
ALL_BNS_SIZES = ("1", "3", "5", "10", "20", "50", "100", "500", "all")
METRICS = ("precision", "recall", "ndcg")
#: recommenders of ``--models``
MODELS = ("mf", "lightgcn")
#: Table 4.5 readings: variant -> batch-1 SGD run-key keywords (BNS's, oracle prior; see the module docstring)
BNS_VARIANTS = {
    "soft": dict(oracle_levels=(0.64, 0.04), ecdf="negatives"),
    "soft-Fcand": dict(oracle_levels=(0.64, 0.04), ecdf="candidates"),
    "soft-tn0.001": dict(oracle_levels=(0.64, 0.001), ecdf="negatives"),
    "hard": dict(oracle_levels=(1.0, 0.0), ecdf="negatives"),
}
#: LightGCN readings beside the thesis's §4.5.1.2 settings: variant -> mini-batch run-key keywords over the thesis's
#: LightGCN ones (:data:`negtheory.reproduce._run_keys.LIGHTGCN_KEYWORDS`)
LIGHTGCN_VARIANTS = {
    # the batch the thesis gives for MovieLens-1M (and its ch. 5-6 MF code) instead of 128: 8x fewer steps
    "batch1024": dict(batch_size=1024),
    # the LightGCN release's L2: reg times the squared norm of the batch's layer-0 embeddings, per batch row, instead of
    # Adam's weight decay on the whole tables (the thesis says "reg 1e-5" without saying which)
    "batch-l2": dict(reg="batch"),
    # the LightGCN paper's and release's depth (3 layers) instead of the thesis's stated 1
    "layers3": dict(n_layers=3),
    # a constant lr 0.01 (no tenfold cut every 20 epochs)
    "no-decay": dict(lr_milestones=()),
}
#: readings of Table 5.2's BPR row beside the thesis's text (it repeats Table 4.2's RNS row, batch-1 SGD): variant -> run
#: key. On MovieLens-100K and -1M the printed BPR row equals the RNS row digit for digit; on Yahoo!-R3 it does not, so
#: ``minibatch`` reads it as the ch. 5-6 code's mini-batch BPR (loss BPR, the settings of the other 5.2 rows)
BPR_VARIANTS = {"minibatch": ("mf", "bpr")}
#: each data set's density |D+| / (|U| |I|) as Table 5.1 prints it; §5.6.2.2 names it as the reference for setting τ⁺
#: (the class prior of DCL, HCL, DPL and BCL). MovieLens-100K's 0.063 is the released code's τ⁺ = 0.06 to one digit
DATASET_DENSITY = {ds: s["density"] for ds, s in TABLE_5_1.items()}
#: readings of the class prior τ⁺ of the Tables 5.2 / 6.3 losses that take one (every such row of both tables):
#: ``density`` sets τ⁺ to the data set's density (:data:`DATASET_DENSITY`) instead of the released code's 0.06
TAU_VARIANTS = ("density",)
#: the printed methods of Tables 5.2 / 6.3 whose loss takes τ⁺
_TAU_METHODS = ("DCL", "HCL", "DPL", "BCL", "BCL-released")
#: τ⁺ of "DPL with Hard Samples" on MovieLens-100K (thesis §5.6.2.3, Table 5.3; 0.25 on MovieLens-1M)
DPL_HARD_TAU_PLUS = 0.3
#: τ⁺ of "DPL with Hard Samples" per data set as §5.6.2.3 states it (the other data sets: the MovieLens-100K value)
DPL_HARD_TAU_PLUS_BY_DATASET = {"ml-100k": 0.3, "ml-1m": 0.25}
#: SRNS readings beside the default (the released run script): variant -> batch-1 SGD run-key keywords (SRNS's)
SRNS_VARIANTS = {
    # the released SRNS_main.py's argparse defaults (S1 = 20, S2 = S1, alpha = 1, warm-up 1 epoch, tau = 1)
    "code-defaults": dict(
        srns_memory=20, srns_candidates=20, srns_alpha=1.0, srns_warmup=1.0, srns_tau=1.0
    ),
    # no variance term: the memory's highest sigma(x_uk - x_ui) (an ablation)
    "alpha0": dict(srns_alpha=0.0),
}


def _bns1_lam(epoch: int) -> float:
    """BNS-1's λ at the 0-based epoch: max(10 − 0.1 epoch, 2) (:func:`negtheory.recsys.bns_lam_warm_start`)."""
    from ..recsys.bpr_sgd import bns_lam_warm_start

    return bns_lam_warm_start(epoch)


#: E of BNS-2 (RNS for the first E epochs, then BNS): the thesis states none; 20 is the default row
BNS2_WARM_EPOCHS = (20, 50)
#: Tables 4.3 / 4.4 runs: variant -> batch-1 SGD run-key keywords (BNS-3 and BNS-4 are priors, in the run key)
ABLATION_VARIANTS = {
    "lam-warm": dict(lam_schedule=_bns1_lam),  # BNS-1
    **{f"rns-warm{e}": dict(warm_rns_epochs=e) for e in BNS2_WARM_EPOCHS},  # BNS-2
    "bce": dict(loss="bce"),  # Table 4.4, one negative per pair
    "infonce": dict(loss="infonce", n_negatives=2),  # Table 4.4, N = 2 negatives per pair
}
#: Table 4.4's losses: printed name -> variant of ABLATION_VARIANTS (None: BPR, Table 4.2's runs)
TABLE44_LOSSES = {"BPR": None, "BCE": "bce", "InfoNCE": "infonce"}
#: the BCL searches' stages (MF, its released form, LightGCN): alpha x tau+ at beta = 0.6, then beta
_BCL_STAGES = (
    {"alpha": (0.55, 0.7, 0.85), "tau_plus": (0.02, 0.06, 0.1)},
    {"beta": (0.2, 0.4, 0.6, 0.8)},
)
#: hyper-parameter searches on validation (issue 22): method -> its row (table, setting), the run key
#: the candidates extend and the stages of the search (each stage a grid over the named keywords,
#: searched with the earlier stages' choices fixed; keywords of no stage keep their defaults)
TUNING: dict[str, dict[str, Any]] = {
    # PNS's exponent of pop^beta (thesis: 0.75, as word2vec); 0 is uniform over the items
    "PNS": dict(
        table="4.2",
        setting="BPR-MF SGD",
        base=("sgd", "pns", 5, "popularity"),
        stages=({"pns_power": (0.0, 0.25, 0.5, 0.75, 1.0)},),
    ),
    # AOBPR's lambda of P(r) ∝ exp(-r / lambda), in items (log grid around |I| / 20 on MovieLens-100K)
    "AOBPR": dict(
        table="4.2",
        setting="BPR-MF SGD",
        base=("sgd", "aobpr", 5, "popularity"),
        stages=({"rank_scale": (10.0, 30.0, 100.0, 300.0, 1000.0)},),
    ),
    # BCL (eq. 6.48 and the released form): alpha x tau+ at beta = 0.6, then beta
    "BCL": dict(table="6.3", setting="MF", base=("mf", "bcl"), stages=_BCL_STAGES),
    "BCL-released": dict(
        table="6.3", setting="MF", base=("mf", "bcl_released"), stages=_BCL_STAGES
    ),
    # the same search for Table 6.3's LightGCN BCL row (the thesis's LightGCN settings, uniform negatives); its
    # row is the printed "BCL / LightGCN" one, so ``method`` names the printed row and the key names the search
    "BCL-LightGCN": dict(
        table="6.3",
        method="BCL",
        setting="LightGCN",
        base=("lightgcn", "bcl", "rns"),
        stages=_BCL_STAGES,
    ),
}
#: variants of a tuned row: name -> (the validation score of a candidate, the protocol of the reported runs):
#: ``valid-tuned`` scores validation NDCG@10 after the last epoch and reports the chosen value's
#: runs on the whole training split after their last epoch; ``valid-tuned-es`` (early stopping)
#: scores the best validation NDCG@10 over the evaluated epochs and reports the chosen value's runs
#: on train minus validation at their best validation epoch
TUNE_VARIANTS = {"valid-tuned": ("final", "fixed"), "valid-tuned-es": ("best", "valid")}
#: the validation metric of the searches
TUNE_METRIC = "valid_ndcg@10"


# ------------------------------------------------------------------------------------------
# the tables as data
# ------------------------------------------------------------------------------------------
class Row(NamedTuple):
    """One printed row of a table and the run that fills it.

    Parameters
    ----------
    method : str
        The method as printed (``"BNS"``, ``"DPL-hard"``).
    setting : str
        The row's setting (``"BPR-MF SGD"``, ``"MF"``, ``"LightGCN"``, a loss in Table 4.4, a
        template ``"|M_u|={size}"`` in Table 4.5).
    key : tuple or None
        The run key of the runs that fill it (None: not run).
    variant : str
        The reading (default ``"-"``: the thesis's text).
    family : str, optional
        An entry of :data:`FAMILIES` that expands the row by an option (default None: the row as
        it stands).
    """

    method: str
    setting: str
    key: tuple | None
    variant: str = "-"
    family: str | None = None


_SGD, _POP = "BPR-MF SGD", "popularity"


def _tau(method: str) -> str | None:
    """The family of a Table 5.2 / 6.3 row: ``"tau_variants"`` for a loss with a class prior τ⁺, else None."""
    return "tau_variants" if method in _TAU_METHODS else None


_RNS, _BNS = ("sgd", "rns", 5, _POP), ("sgd", "bns", 5, _POP)
_SAMPLERS = ("RNS", "PNS", "AOBPR", "DNS", "SRNS", "BNS")
_LOSSES = ("InfoNCE", "DCL", "HCL")
#: model -> table -> its rows, in print order (see the module notes of :mod:`thesis_tables`)
TABLE_ROWS: dict[str, dict[str, tuple[Row, ...]]] = {
    "mf": {
        "4.2": tuple(
            Row(
                m,
                _SGD,
                ("sgd", m.lower(), 5, _POP),
                family="srns_variants" if m == "SRNS" else None,
            )
            for m in _SAMPLERS
        ),
        "4.3": (
            Row("RNS", _SGD, _RNS),
            Row("BNS", _SGD, _BNS),
            Row("BNS-1", _SGD, (*_BNS, "lam-warm")),  # the lambda warm start
            Row("BNS-2", _SGD, _BNS, family="bns2_warm"),  # RNS for E epochs, then BNS
            Row("BNS-3", _SGD, ("sgd", "bns", 5, "uniform")),  # prior 1 / |I|
            Row(
                "BNS-4", _SGD, ("sgd", "bns", 5, "occupation"), family="occupation"
            ),  # needs u.user
        ),
        "4.4": tuple(
            Row(m, loss, _RNS[:1] + (m.lower(),) + _RNS[2:] + ((v,) if v else ()))
            for loss, v in (("BPR", None), ("BCE", "bce"), ("InfoNCE", "infonce"))
            for m in ("RNS", "BNS")
        ),
        "4.5": (
            Row("BNS-oracle", "|M_u|={size}", ("sgd", "bns", "{m}", "oracle"), family="bns_sizes"),
        ),
        "5.2": (
            Row("BPR", "MF", _RNS, family="bpr_variants"),
            *(Row(m, "MF", ("mf", m.lower()), family=_tau(m)) for m in (*_LOSSES, "DPL")),
        ),
        # BPR, BNS and DPL repeat Tables 4.2 / 5.2 (same runs); DPL with hard samples: DNS negatives, tau+ = 0.3
        "5.3": (
            Row("BPR", "MF", _RNS),
            Row("BNS", "MF", _BNS),
            Row("DPL", "MF", ("mf", "dpl")),
            Row(
                "DPL-hard",
                "MF",
                ("mf", "dpl", "sampler=dns", f"tau_plus={DPL_HARD_TAU_PLUS:g}"),
                family="dpl_hard",
            ),
        ),
        # the released recommendation code trains BCL as -ln sigma(s+ - sum omega e^s), not eq. 6.48
        "6.3": (
            *(Row(m, "MF", ("mf", m.lower()), family=_tau(m)) for m in (*_LOSSES, "BCL")),
            Row("BCL-released", "MF", ("mf", "bcl_released"), family="tau_variants"),
        ),
    },
    "lightgcn": {
        # mini-batch BPR with each sampler (AOBPR and SRNS: negtheory.recsys.adaptive_samplers)
        # a named reading (--lightgcn-variants) adds its rows beside every LightGCN row (plan): a reading of the
        # thesis's LightGCN settings is judged on the whole block, not on the row it was found on
        "4.2": tuple(Row(m, "LightGCN", ("lightgcn", "bpr", m.lower())) for m in _SAMPLERS),
        "5.2": tuple(
            Row(
                m,
                "LightGCN",
                ("lightgcn", "bpr" if m == "BPR" else m.lower(), "rns"),
                family=_tau(m),
            )
            for m in ("BPR", *_LOSSES, "DPL")
        ),
        "6.3": tuple(
            Row(m, "LightGCN", ("lightgcn", m.lower().replace("-", "_"), "rns"), family=_tau(m))
            for m in (*_LOSSES, "BCL", "BCL-released")
        ),
    },
}


def _key(row: Row) -> tuple:
    """The run key of a row that a family expands (never None)."""
    assert row.key is not None
    return row.key


def _srns_rows(row: Row, o: Mapping[str, Any]) -> list[Row]:
    return [row] + [row._replace(variant=v, key=(*_key(row), v)) for v in o["srns_variants"]]


def _lightgcn_variant_rows(row: Row, o: Mapping[str, Any]) -> list[Row]:
    # a LightGCN reading is a setting of the model: plan adds these beside every LightGCN row, after the row's own
    # family (fixed for the whole table, never crossed with the τ⁺ reading)
    return [row._replace(variant=v, key=(*_key(row), v)) for v in o["lightgcn_variants"]]


def _bpr_rows(row: Row, o: Mapping[str, Any]) -> list[Row]:
    return [row] + [row._replace(variant=v, key=BPR_VARIANTS[v]) for v in o["bpr_variants"]]


def _tau_rows(row: Row, o: Mapping[str, Any]) -> list[Row]:
    # one reading for every τ⁺ row of the table (never chosen per row); the value is the data set's, fixed in advance
    tau = DATASET_DENSITY[o["dataset"]]
    return [row] + [
        row._replace(variant="tau=density", key=(*_key(row), f"tau_plus={tau:g}"))
        for _ in o["tau_variants"]
    ]


def _dpl_hard_row(row: Row, o: Mapping[str, Any]) -> list[Row]:
    tau = DPL_HARD_TAU_PLUS_BY_DATASET.get(o["dataset"], DPL_HARD_TAU_PLUS)
    return [row._replace(key=(*_key(row)[:-1], f"tau_plus={tau:g}"))]


def _bns2_rows(row: Row, o: Mapping[str, Any]) -> list[Row]:
    return [
        row._replace(variant=f"E={e}", key=(*_key(row), f"rns-warm{e}")) for e in o["bns2_warm"]
    ]


def _occupation_row(row: Row, o: Mapping[str, Any]) -> list[Row]:
    return [row if o["occupation"] else row._replace(key=None)]


def _bns_size_rows(row: Row, o: Mapping[str, Any]) -> list[Row]:
    out = []
    for size in o["bns_sizes"]:
        m = 10**9 if size == "all" else int(size)
        setting = row.setting.format(size=size)
        if m == 1:  # RNS in every reading: one row
            out.append(row._replace(setting=setting, key=_RNS[:2] + (1, _POP)))
            continue
        for v in o["bns_variants"]:
            # F over M_u is F over all negatives when M_u holds all of them: the soft runs
            code = "soft" if (v == "soft-Fcand" and size == "all") else v
            key = tuple(m if x == "{m}" else x for x in _key(row)) + (
                () if code == "soft" else (code,)
            )
            out.append(row._replace(setting=setting, variant=v, key=key))
    return out


#: family -> how it expands a row of :data:`TABLE_ROWS` by the options of :func:`plan`
FAMILIES = {
    "srns_variants": _srns_rows,
    "bns2_warm": _bns2_rows,
    "occupation": _occupation_row,
    "bns_sizes": _bns_size_rows,
    "dpl_hard": _dpl_hard_row,
    "bpr_variants": _bpr_rows,
    "tau_variants": _tau_rows,
}


def _check_options(tables, models, o) -> None:
    """ValueError naming the option for a value outside its choices."""
    checks = [
        ("srns_variants", "4.2" in tables, tuple(SRNS_VARIANTS), False),
        ("bns2_warm", "4.3" in tables, BNS2_WARM_EPOCHS, True),
        ("bns_variants", "4.5" in tables, tuple(BNS_VARIANTS), True),
        ("lightgcn_variants", "lightgcn" in models, tuple(LIGHTGCN_VARIANTS), False),
        ("bpr_variants", "5.2" in tables, tuple(BPR_VARIANTS), False),
        ("tau_variants", bool({"5.2", "6.3"} & set(tables)), TAU_VARIANTS, False),
    ]
    for name, used, choices, nonempty in checks:
        bad = [v for v in o[name] if v not in choices]
        if used and (bad or (nonempty and not o[name])):
            raise ValueError(f"{name} must be among {choices}, got {(bad or list(o[name]))!r}")
    bad = [m for m in models if m not in MODELS]
    if bad:
        raise ValueError(f"models must be among {MODELS}, got {bad}")


def plan(
    tables: Sequence[str] = TABLES,
    methods: Sequence[str] | None = None,
    bns_sizes: Sequence[str] = DEFAULT_BNS_SIZES,
    bns_variants: Sequence[str] = tuple(BNS_VARIANTS),
    srns_variants: Sequence[str] = (),
    models: Sequence[str] = ("mf",),
    lightgcn_variants: Sequence[str] = (),
    bns2_warm: Sequence[int] = (20,),
    occupation: bool = False,
    dataset: str = "ml-100k",
    bpr_variants: Sequence[str] = (),
    tau_variants: Sequence[str] = (),
) -> list[tuple[str, str, str, str, tuple | None]]:
    r"""Rows to report: a list of ``(table, method, setting, variant, run_key)``; equal run keys share runs.

    The rows of :data:`TABLE_ROWS` of each model and table asked for (MF first, then LightGCN;
    tables in the order of :data:`TABLES`), their families expanded by the options.

    Parameters
    ----------
    tables : sequence of str
        Tables among :data:`TABLES` (default: all).
    methods : sequence of str, optional
        Keep only the rows of these methods (case-insensitive, e.g. ``["RNS", "BNS"]``; default
        None: every row).
    bns_sizes : sequence of str
        The :math:`|\mathcal{M}_u|` of Table 4.5's rows (``"1"`` .. ``"500"`` or ``"all"``;
        default 1 to 100).
    bns_variants : sequence of str
        Readings of Table 4.5's oracle prior (keys of :data:`BNS_VARIANTS`; default: all).
    srns_variants : sequence of str
        Extra SRNS rows of Table 4.2 (keys of :data:`SRNS_VARIANTS`; default: none).
    models : sequence of {"mf", "lightgcn"}
        The recommenders (default MF only): ``"lightgcn"`` adds the rows of setting
        ``"LightGCN"`` of Tables 4.2, 5.2 and 6.3.
    lightgcn_variants : sequence of str
        Extra LightGCN rows with other settings (keys of :data:`LIGHTGCN_VARIANTS`; default:
        none), one per reading beside every LightGCN row of the tables asked for (Tables 4.2,
        5.2 and 6.3; a Table 5.2 / 6.3 row's τ⁺ reading is not crossed with them).
    bns2_warm : sequence of int
        The E of Table 4.3's BNS-2 rows (RNS for the first E epochs, then BNS; among
        :data:`BNS2_WARM_EPOCHS`, default 20 only), each row with variant ``"E=<E>"``.
    occupation : bool
        Whether Table 4.3's BNS-4 row (occupation prior) is run: it needs MovieLens' ``u.user``
        (``--user-file``); default False, the row is listed as not run (run key None).
    dataset : str
        The data set whose settings the rows take where the thesis gives one per data set: the
        τ⁺ of Table 5.3's "DPL with Hard Samples" (:data:`DPL_HARD_TAU_PLUS_BY_DATASET`; default
        ``"ml-100k"``).
    bpr_variants : sequence of str
        Extra readings of Table 5.2's BPR row (keys of :data:`BPR_VARIANTS`; default: none).
    tau_variants : sequence of str
        Readings of the class prior τ⁺ of Tables 5.2 / 6.3 (:data:`TAU_VARIANTS`; default: none):
        ``"density"`` adds, beside every DCL, HCL, DPL, BCL and BCL-released row, a row (variant
        ``"tau=density"``) with τ⁺ the data set's density of Table 5.1 (:data:`DATASET_DENSITY`).

    Returns
    -------
    list of tuple
        ``(table, method, setting, variant, run_key)`` per row (the module notes; run key None
        for a row not run: AOBPR and SRNS for LightGCN); ``variant`` is ``"-"`` outside Table 4.5
        and the extra readings, and for the |M_u| = 1 row (RNS in every reading).

    Raises
    ------
    ValueError
        An option outside its choices (the message names it).

    Examples
    --------
    >>> from negtheory.reproduce.thesis_tables import plan
    >>> plan(["4.2"], ["rns", "bns"])
    [('4.2', 'RNS', 'BPR-MF SGD', '-', ('sgd', 'rns', 5, 'popularity')), ('4.2', 'BNS', 'BPR-MF SGD', '-', ('sgd', 'bns', 5, 'popularity'))]
    """
    o = dict(
        bns_sizes=bns_sizes,
        bns_variants=bns_variants,
        srns_variants=srns_variants,
        lightgcn_variants=lightgcn_variants,
        bns2_warm=bns2_warm,
        occupation=occupation,
        dataset=dataset,
        bpr_variants=bpr_variants,
        tau_variants=tau_variants,
    )
    _check_options(tables, models, o)
    rows: list[tuple[str, str, str, str, tuple | None]] = []
    for model in (m for m in MODELS if m in models):
        for table in (t for t in TABLES if t in tables):
            for row in TABLE_ROWS[model].get(table, ()):
                expanded = FAMILIES[row.family](row, o) if row.family else [row]
                if model == "lightgcn":
                    expanded += _lightgcn_variant_rows(row, o)
                for r in expanded:
                    rows.append((table, r.method, r.setting, r.variant, r.key))
    if methods:
        want = {m.lower() for m in methods}
        rows = [r for r in rows if r[1].lower() in want]
    return rows


def method_names(tables: Sequence[str] = TABLES) -> list[str]:
    """The method names ``--methods`` accepts.

    Parameters
    ----------
    tables : sequence of str
        Tables among :data:`TABLES` (default: all).

    Returns
    -------
    list of str
        The methods of their rows (case-insensitive on input), in plan order.
    """
    return list(dict.fromkeys(r[1] for r in plan(tables, None, DEFAULT_BNS_SIZES)))


def _split_key(key: tuple) -> tuple[tuple, dict[str, Any]]:
    """A run key without its ``"name=value"`` items, and those items as keyword arguments.

    Values are read as int, else float, else kept as strings; ``protocol=valid`` names the run's
    own protocol (the early-stopping rows of a validation search).
    """
    base, over = [], {}
    for x in key:
        if isinstance(x, str) and "=" in x:
            name, val = x.split("=", 1)
            for conv in (int, float):
                try:
                    val = conv(val)
                    break
                except ValueError:
                    pass
            over[name] = val
        else:
            base.append(x)
    return tuple(base), over


def _key_protocol(key: tuple, protocol: str) -> str:
    """The protocol of a run key: its ``protocol=...`` item, else the table's."""
    return _split_key(key)[1].get("protocol", protocol)


def _tuned_key(base: tuple, params: Mapping[str, Any]) -> tuple:
    """``base`` extended by ``"name=value"`` items for the keywords that differ from the trainer's default.

    A candidate equal to the default run shares its run key, hence its runs and cached results. The
    defaults are those of the run keys' keywords (:mod:`negtheory.reproduce._run_keys`).
    """
    from ._run_keys import MINIBATCH_KEYWORDS, SGD_KEYWORDS

    defaults = SGD_KEYWORDS if base[0] == "sgd" else MINIBATCH_KEYWORDS
    return base + tuple(
        _key_item(n, v) for n, v in sorted(params.items()) if n not in defaults or defaults[n] != v
    )


def _key_item(name: str, value: Any) -> str:
    """``"name=value"`` for a run key (floats in the shortest form that reads back equal; 1.0 as 1, so 1 and 1.0 share runs)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{name}={value!r}" if isinstance(value, float) else f"{name}={value}"


#: epochs of a run when ``--epochs`` is not given, per trainer (the thesis's: §4.5.1.2, the ch. 5-6 code)
DEFAULT_EPOCHS = {"sgd": 100, "mf": 200, "lightgcn": 100}


def default_epochs(key: tuple) -> int:
    """The thesis's epochs of a run key's trainer (:data:`DEFAULT_EPOCHS`).

    Parameters
    ----------
    key : tuple
        A run key (its first item names the trainer: ``"sgd"``, ``"mf"`` or ``"lightgcn"``).

    Returns
    -------
    int
        100, 200 or 100.

    Examples
    --------
    >>> default_epochs(("mf", "dpl", "sampler=dns"))
    200
    """
    return DEFAULT_EPOCHS[key[0]]


def _cost_hint(task) -> float:
    """Rough minutes of a run on MovieLens-100K, used only to start the longest runs first.

    From ``benchmarks/bench_thesis_tables.py --estimate`` (minutes per run, one idle core): LightGCN
    3-4 (BNS 7), AOBPR / SRNS ~1.8, BNS with the oracle prior growing with |M_u| (``soft`` 0.8 at
    |M_u| = 3 to 2.8 at 100, ``hard`` 0.1-0.7), mini-batch MF ~1.2, RNS / PNS / DNS ~0.1. Longest
    first (LPT) keeps the last worker from finishing alone on a long run; the order changes no
    result (each task carries its seed).
    """
    key, over = _split_key(task[0])
    epochs = task[4]
    if key[0] == "lightgcn":
        base, default = (7.0 if key[2] == "bns" else 4.0), 100
    elif key[0] == "mf":
        base, default = (2.5 if over.get("sampler") == "dns" else 1.2), 200
    else:
        sampler, m, prior = key[1], key[2], key[3]
        variant = key[4] if len(key) > 4 else "soft"
        default = 100
        if sampler in ("aobpr", "srns"):
            base = 1.8
        elif sampler == "bns" and prior == "oracle":
            m = min(m, 2000)
            base = {"hard": 0.1 + m / 170, "soft-Fcand": 0.2 + m / 60}.get(variant, 0.8 + m / 50)
        elif sampler == "bns":
            base = 0.8
        else:
            base = 0.1
    return base * (epochs or default) / default
