r"""Strict verdicts on the thesis tables: distinct printed rows, every printed metric, one reading per table.

The verdicts of :func:`negtheory.reproduce.thesis_tables.verdicts` judge NDCG@10 alone, count a row
printed in several tables once per table, and accept a row when *any* of its variants lands within
0.015 of the printed test value (issue 29). :func:`strict_verdicts` applies these rules instead:

* **Distinct rows.** A printed row is a (model block, printed numbers) pair: the RNS row of Table 4.2
  repeated in Tables 4.3, 4.4, 4.5 (|M_u| = 1), 5.2 (BPR) and 5.3 (BPR) is one row. It is
  reproduced when every occurrence that was run is reproduced, "not run" when none was run.
* **Every printed metric.** Reproduced only if :math:`|\Delta|` on NDCG@10 is at most
  :data:`NDCG10_TOLERANCE` (0.015) *and* :math:`|\Delta|` on every printed P / R / NDCG @ 5, 10,
  20 is at most :data:`METRIC_TOLERANCE` (0.02).
* **One reading per table.** ``reading`` maps a *table* to one variant, fixed in advance
  (``"as written"``: the command's defaults :data:`DEFAULT_VARIANTS`, one per row) or chosen on
  validation data (``"validation"``: the variant with the best mean validation score over the
  table's rows, from a ``validation`` frame). A variant chosen per row is refused
  (:class:`ValueError`); a row without a run of its table's variant is "not run" under that
  reading, never judged on another variant.
* **One protocol per table.** ``protocol`` (``"final epoch"`` or ``"best validation epoch"``) is
  the reported convention for every row of a table; the released code's max over test epochs
  selects on test and is never a protocol here.
* **Reasons.** A miss's reason names a committed ablation (a file and what it shows) or says
  ``"conjecture"``; a miss with no stated reason is ``"conjecture: no reason recorded"``.

:func:`strict_tally` counts the distinct rows (and per table, per metric); :func:`strict_markdown`
writes the report; :data:`MISS_REASONS` holds the stated reasons for the committed MovieLens-100K
misses with the ablation each rests on, :data:`MISS_REASONS_BY_DATASET` those of every data set.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    import pandas as pd

__all__ = [
    "NDCG10_TOLERANCE",
    "METRIC_TOLERANCE",
    "DEFAULT_VARIANTS",
    "PROTOCOLS",
    "MISS_REASONS",
    "MISS_REASONS_BY_DATASET",
    "strict_verdicts",
    "distinct_verdicts",
    "strict_tally",
    "strict_markdown",
    "ALTERNATIVE_READINGS",
    "alternatives_markdown",
]

#: largest |Δ| on NDCG@10 of a reproduced row
NDCG10_TOLERANCE = 0.015
#: largest |Δ| on any other printed metric (P / R / NDCG at 5, 10, 20) of a reproduced row
METRIC_TOLERANCE = 0.02
#: the variant each row runs by default, fixed before any result: the thesis's text (``-``; ``soft``
#: in Table 4.5) or, where the thesis leaves a number open, the command's default (BNS-2's ``E=20``)
DEFAULT_VARIANTS = ("-", "soft", "E=20")
#: the reported conventions a table's protocol may name
PROTOCOLS = ("final epoch", "best validation epoch")
_METRICS = tuple((m, k) for k in (5, 10, 20) for m in ("precision", "recall", "ndcg"))
_SHORT = {"precision": "P", "recall": "R", "ndcg": "NDCG"}
_FILE = re.compile(r"[\w./-]+\.(?:csv|md|py|ipynb|png|txt|json)\b")
_EPS = 1e-12

_TT = "notebooks/data/thesis_tables/thesis_tables.csv"
#: MovieLens-100K Table 5.2 LightGCN rows under the release's penalty (variant batch-l2, seed 0, 2026-11-30) and as
#: written (mean of 3 seeds): NDCG@10 at the last epoch
_ML_L2 = {"DPL": (0.3823, 0.4119), "BPR": (0.3178, 0.4286), "DCL": (0.3268, 0.4118)}
_TU = "notebooks/data/thesis_tables/tuning.csv"
#: stated reasons for the committed MovieLens-100K misses, (table, method, setting) -> reason; each
#: names the committed file that supports it and what it shows, or says "conjecture"
MISS_REASONS: dict[tuple[str, str, str], str] = {
    (
        "4.2",
        "PNS",
        "BPR-MF SGD",
    ): f"{_TT} (4.2 PNS, variant pns_power=1) and {_TU} (PNS): pop^0.75 is +0.023, "
    "pop^1 -0.039 on NDCG@10, validation picks pns_power=0; the printed value lies between two exponents",
    (
        "4.2",
        "AOBPR",
        "BPR-MF SGD",
    ): f"{_TU} (AOBPR) and {_TT} (4.2 AOBPR, variant valid-tuned): the thesis "
    "gives no lambda; the validation choice rank_scale=320 lands on the printed row, the default 0.05 |I| does not",
    (
        "4.2",
        "SRNS",
        "BPR-MF SGD",
    ): f"{_TT} (4.2 SRNS, variant valid-split, best validation epoch): early stopping "
    "on validation lands within 0.015 on NDCG@10 (the last epoch is past the peak); Table 4.2's protocol is the final epoch",
    (
        "4.4",
        "RNS",
        "BCE",
    ): "notebooks/data/thesis_tables/rns_loss_curves.csv (BCE, mean of 3 seeds every 5 epochs): "
    "BCE peaks at epoch 50 (NDCG@10 0.3886, P@5 0.383: -0.004 / -0.009) and declines to the final 0.3735, so it "
    "overfits in the stated 100 epochs; the printed row matches the peak, not the last epoch; a test-selected epoch, so "
    f"a diagnosis: the epoch a validation split picks ({_TT}, 4.4 early stopping, best validation epoch, 3 seeds, "
    "trained on 90 % of train) lands at -0.018",
    (
        "4.4",
        "BNS",
        "InfoNCE",
    ): f"{_TT} (4.4 BNS InfoNCE, final epoch, 3 seeds): the one failing metric, P@5, is -0.021 "
    "against a tolerance of 0.02, and its 95 % interval over the seeds (-0.031, -0.011) straddles the tolerance, so the "
    "miss is within the seeds' noise; early stopping on validation for the whole table (4.4 early stopping, best "
    "validation epoch, 3 seeds) is no reading: -0.015 on NDCG@10, and 4 of the table's 6 rows miss against 2",
    (
        "4.5",
        "BNS-oracle",
        "|M_u|=3",
    ): f"{_TT} (4.5 soft / soft-Fcand / hard): as written (soft) the curve is flat "
    "(0.431-0.445); the oracle-bound readings bracket the printed values",
    (
        "4.5",
        "BNS-oracle",
        "|M_u|=5",
    ): f"{_TT} (4.5 soft / hard): as written (soft) the curve is flat; see |M_u|=3",
    (
        "4.5",
        "BNS-oracle",
        "|M_u|=10",
    ): f"{_TT} (4.5 soft / soft-Fcand / hard): flat as written; the readings "
    "overshoot (soft-Fcand +0.019, hard +0.021)",
    (
        "4.5",
        "BNS-oracle",
        "|M_u|=20",
    ): f"{_TT} (4.5 soft / soft-Fcand / soft-tn0.001 / hard): flat as written",
    (
        "4.5",
        "BNS-oracle",
        "|M_u|=50",
    ): f"{_TT} (4.5 soft / hard): flat as written; hard overshoots (+0.022)",
    (
        "4.5",
        "BNS-oracle",
        "|M_u|=100",
    ): "notebooks/data/thesis_tables/bns_oracle_hard_long.csv (hard reading, 300 "
    "epochs, 1 seed): at epoch 100 the curve still climbs 0.012 per 5 epochs (0.598 at 95, 0.612 at 100), crosses the "
    "printed 0.6346 at epoch 110 and peaks at 0.694 (epoch 200): the hard reading is not converged in the stated 100 "
    "epochs; as written (soft) is flat at 0.44 whatever the epochs",
    (
        "4.5",
        "BNS-oracle",
        "|M_u|=500",
    ): "notebooks/data/thesis_tables/bns_oracle_hard_long.csv (the hard "
    "reading at 500 candidates, 300 epochs, 1 seed): at epoch 100 the curve still climbs 0.025 per 5 epochs (0.487 "
    "at 95, 0.512 at 100), crosses the printed 0.6487 at epoch 175 and reaches 0.709 at 300 (+0.006 over the last 50 "
    "epochs): the hard reading is not converged in the stated 100 epochs, as at 100 candidates; as written (soft) is "
    "0.445 after them",
    (
        "4.5",
        "BNS-oracle",
        "|M_u|=all",
    ): "notebooks/data/thesis_tables/bns_oracle_hard_long.csv (the hard "
    "reading over all items, 300 epochs, 1 seed): at epoch 100 the curve still climbs 0.024 per 5 epochs (0.462 at 95, "
    "0.486 at 100), crosses the printed 0.6495 at epoch 180 and peaks at 0.706 (epoch 270; 0.703 at 300): the hard "
    "reading is not converged in the stated 100 epochs, as at 100 and 500 candidates; as written (soft) is 0.445 after "
    "them",
    (
        "5.3",
        "DPL-hard",
        "MF",
    ): f"{_TT} (5.3 DPL-hard, convention max_test_over_epochs): the best test epoch is "
    "+0.002, so it peaks early and declines; the final epoch misses",
    (
        "6.3",
        "BCL",
        "MF",
    ): f"{_TU} (BCL, BCL-released) and {_TT} (6.3 BCL variants valid-tuned, valid-tuned-es, "
    "BCL-released): the validation surface over tau+ x alpha x beta is flat (within 0.005) and no reading reaches the row",
    (
        "4.2",
        "RNS",
        "LightGCN",
    ): f"{_TT} (4.2 LightGCN, variants batch1024, batch-l2, layers3, no-decay, 1 seed each): "
    "no reading of the stated settings tested explains the block: batch 1024 +0.023, the release's batch L2 -0.084, 3 "
    "layers -0.024; a constant lr (no-decay) lands on this row (+0.002, every metric within 0.011) but lowers every "
    "sampler by 0.016-0.040 at seed 0 and takes the PNS and BNS rows, reproduced as written, out of tolerance (-0.034, "
    "-0.024), so it is no reading of the table; why our LightGCN-RNS is stronger than the printed one is a conjecture",
    ("5.2", "BPR", "LightGCN"): f"{_TT}: as 4.2 RNS LightGCN (the same printed row and runs)",
    (
        "4.2",
        "AOBPR",
        "LightGCN",
    ): "notebooks/data/thesis_tables/lightgcn_ablations.csv (AOBPR(rank_scale=320.0), 1 seed): "
    "the thesis gives no lambda; with 0.05 |I| (84 items) LightGCN-AOBPR is -0.035, with the lambda validation chose for "
    "the MF row (320) +0.021 (0.4218): the printed row lies between the two",
    (
        "4.2",
        "SRNS",
        "LightGCN",
    ): "notebooks/data/thesis_tables/lightgcn_ablations.csv (1 seed each): neither the "
    "variance term nor the memory settings explain the row: without the variance term (SRNS(alpha=0.0)) 0.4012, as "
    "with alpha = 5 (the run script's settings, 0.4027); with the released SRNS_main.py's argparse defaults (S1 = S2 = "
    "20, alpha 1, warm-up 1, tau 1) 0.2874, far below, as on MF (0.2801): the printed 0.4275 lies above every SRNS "
    "setting tried on LightGCN, and the thesis states none",
    (
        "4.2",
        "DNS",
        "LightGCN",
    ): "notebooks/data/thesis_tables/lightgcn_ablations.csv (DNS(candidates=2, 3, 10, 20), 1 "
    "seed each): the thesis gives no candidate count; NDCG@10 falls with it (C = 1, i.e. RNS, 0.429; 2: 0.430; 3: 0.425; "
    "5: 0.416; 10: 0.407; 20: 0.353), so the printed row fits a count of 1-2; picking C by the test value would be a "
    "per-row fit, and no validation choice was run",
    (
        "5.2",
        "InfoNCE",
        "LightGCN",
    ): f"{_TT} (5.2 InfoNCE LightGCN, final epoch, 3 seeds): the one failing metric, "
    "R@20, is +0.021 against a tolerance of 0.02, and its 95 % interval over the seeds (+0.015, +0.028) straddles the "
    "tolerance, so the miss is within the seeds' noise; with early stopping on validation (best validation epoch, 3 "
    "seeds) the row is within every tolerance (-0.014 on NDCG@10, largest |delta| 0.019), but that protocol for the "
    "whole of Tables 5.2 / 6.3 reproduces fewer rows (14 of 39 distinct rows against 16), so it is not the tables' "
    "protocol",
    (
        "6.3",
        "InfoNCE",
        "LightGCN",
    ): f"{_TT}: as 5.2 InfoNCE LightGCN (the same printed row and runs)",
    (
        "5.2",
        "DPL",
        "LightGCN",
    ): f"conjecture; {_TT} (5.2 DPL LightGCN, best validation epoch and max_test_over_epochs) "
    "shows that no reporting convention reaches the row; nor the LightGCN release's penalty, the one reading that lifts "
    f"DPL on Gowalla: {_TT} (5.2 BPR, DCL, DPL LightGCN, variant batch-l2, seed 0) lowers "
    + ", ".join(f"{m} to {v:.4f} ({w:.4f} as written)" for m, (v, w) in _ML_L2.items())
    + ", so it is no reading of this table",
    (
        "6.3",
        "BCL",
        "LightGCN",
    ): f"{_TU} (BCL-LightGCN) and {_TT} (6.3 BCL LightGCN, variants valid-tuned, "
    "valid-tuned-wide-beta, valid-tuned-es): validation is flat over tau+ x alpha (0.1710-0.1725 at the last epoch) but "
    "not over beta: it rises as beta falls (0.6, the thesis: 0.1725; 0.2: 0.1798; 0: 0.1836); the default grid picks "
    "beta=0.2, its lower edge (test NDCG@10 -0.022), the grid widened to beta=0 picks beta=0, the end of beta's range "
    "(-0.016, NDCG@5 -0.020): the closer to the row the less hardness weighting, and no legal beta is left to try; "
    "with early stopping the search lands at -0.044",
    (
        "5.2",
        "InfoNCE",
        "MF",
    ): f"{_TT} (5.2 InfoNCE MF, best validation epoch, 3 seeds; the released code's early "
    "stopping on 10 % of train held out): within every tolerance (-0.009 on NDCG@10, largest |delta| 0.013, P@5 0.395 "
    "against 0.384 at the last epoch and the printed 0.408): the last of the 200 epochs is past the peak; the tables' "
    "protocol is the final epoch",
    ("6.3", "InfoNCE", "MF"): f"{_TT}: as 5.2 InfoNCE MF (the same printed row and runs)",
}

_Y = "notebooks/data/thesis_tables_yahoo"
#: the 5.2 / 6.3 early-stopping runs (3 seeds; the released code's early stopping on 10 % of train held out)
_YES = f"{_Y}/thesis_tables.csv (best validation epoch, 3 seeds; early stopping on 10 % of train): "
_M = "notebooks/data/thesis_tables_ml1m"
_G = "notebooks/data/thesis_tables_gowalla"
#: the stated reason shared by every Gowalla row: the printed rows imply test sets of another shape
_GS = (
    f"{_G}/implied_test_items.md (benchmarks/implied_test_items.py): k P@k / R@k, a hit-weighted mean of the test "
    "items per user, is 4.9-5.3 for every printed Gowalla row and 5.5-6.2 for every run here (ours / printed "
    "1.13-1.20 at every k, against 0.98-1.03 on average on MovieLens-100K, MovieLens-1M and Yahoo!-R3), so the "
    "printed rows were evaluated on test sets of another shape than any 80/20 split of these files gives; neither "
    "the normalised recall hits / min(k, |T_u|) (3.96 / 5.19 / 5.79 at k = 5 / 10 / 20 against the printed "
    "4.87 / 4.97 / 5.10) nor the release's own split (release_split/: k P/R 6.1-6.5; there BPR and InfoNCE are "
    "within 0.01 of the printed NDCG@10 and P@10 but R@20 is -0.037 / -0.046) gives it; and precision's growth from "
    "k = 5 to 20 (P@20 / P@5, same file; untouched by the recall's definition) matches the printed rows on the pooled "
    "80/20 split (ours / printed 0.98) and not on the release split (0.89; 0.997-1.007 on average on the other three "
    "data sets), so the release split is the less likely of the two; nor a better model: k P/R falls as NDCG@10 rises "
    "over our runs, but that trend read at the printed NDCG@10 gives 5.46-5.54 at k = 5 against the printed "
    "4.85-4.94 (same file); which split or recall the thesis used is open"
)
#: the tau+ = density reading of the rows with a class prior
#: the stated reason of the Gowalla LightGCN rows run as written (Adam's weight decay on the whole tables)
_GL = (
    f"{_G}/lightgcn_regularisation.csv (BPR, seed 0, 2 epochs each, benchmarks/lightgcn_gowalla_regularisation.py): "
    "the thesis's 'reg 1e-5' read as Adam's weight decay on the whole embedding tables (the reading that reproduces "
    "MovieLens-100K's LightGCN rows) holds the embeddings near their initial scale on Gowalla, where a step touches "
    "2 % of the nodes (item RMS 0.08-0.30 against 0.83-0.90 without it; training loss 0.45 against 0.07) and NDCG@10 "
    "at 0.042 after 2 epochs, against 0.073 with no penalty or with the LightGCN release's L2 of the batch's rows "
    "(variant batch-l2); but the release's penalty does not close the gap either: batch-l2 run for all 100 epochs "
    "(5.2 BPR LightGCN, "
    f"variant batch-l2, seed 0, {_G}/thesis_tables.csv and runs/*.json) falls from 0.073 after epoch 1 to 0.058 at epoch 20 "
    "(training loss 0.07 to 0.18 at lr 0.01) and ends at 0.060, 0.047 below the printed row (no penalty at all was "
    "run for 2 epochs only, where it tracks batch-l2); why the printed LightGCN rows sit at the printed MF rows' "
    "level (0.106-0.109) is a conjecture"
)
_GT = (
    "tau+ = the data set's density (0.00084, --tau-variants density, rows tau=density) is no reading: it lowers "
    "DCL (0.0698) and HCL (0.0750), leaves BCL (0.0839) and DPL (0.0466) where they were"
)


#: stated reasons for the committed misses of each data set, as :data:`MISS_REASONS`
def _gl_flat(method: str, curve: str, wd: float, none: float, rms: str, gap: float) -> str:
    """A Gowalla LightGCN miss of a loss other than BPR: the loss's own rows of the penalty ablation, its flat curve."""
    evals, below = _GL_L2[method]
    last = evals[-1][0]
    if last >= 100:
        run, files = (
            f"run for all {last} epochs",
            f"{_G}/thesis_tables.csv and lightgcn_batch_l2_curves.csv",
        )
    else:  # stopped at a checkpoint: say so, and how far the runs taken to epoch 100 moved after that epoch
        done = [ev for ev, _ in _GL_L2.values() if ev[-1][0] >= 100]
        # the quoted values are rounded to 4 decimals, so the true change is within 0.0001 of theirs
        moved = max(abs(ev[-1][1] - dict(ev)[last]) for ev in done) + 1e-4
        run = (
            f"run to epoch {last} of 100 (stopped at its epoch-{last} checkpoint; the {len(done)} runs taken to "
            f"epoch 100 moved by at most {moved:.4f} after epoch {last})"
        )
        files = f"{_G}/lightgcn_batch_l2_curves.csv"
    l2 = (
        f"with the release's penalty {run} ({_GL_TABLES[method][0]} {method} LightGCN, variant batch-l2, "
        f"seed 0, {files}) NDCG@10 is "
        + ", ".join(f"{v:.4f} at epoch {e}" for e, v in evals)
        + f", {below:.3f} below the printed row"
    )
    return (
        f"{_G}/lightgcn_regularisation.csv ({method} rows, seed 0, 2 epochs each, "
        "benchmarks/lightgcn_gowalla_regularisation.py): as for BPR, 'reg 1e-5' read as Adam's weight decay on the whole "
        f"tables holds the embeddings small (item RMS {rms}) and NDCG@10 at {wd:.3f} after 2 epochs against "
        f"{none:.3f} with no penalty; this run is flat from epoch {curve}; but no penalty is still {gap:.3f} below the "
        f"printed row after 2 epochs, and {l2}, so whether any reading of the penalty reaches the printed row is a "
        "conjecture"
    )


#: the batch-l2 reading's evaluations quoted ((epoch, NDCG@10), ...; the last is the run's last evaluation) and its
#: distance below the printed row, for every loss of :data:`_GL_FLAT`
_GL_L2 = {
    "BPR": (((20, 0.0578), (40, 0.0595), (100, 0.0597)), 0.047),
    "InfoNCE": (((20, 0.0637), (40, 0.0662), (100, 0.0660)), 0.042),
    "DPL": (((20, 0.0873), (40, 0.0943), (100, 0.0947)), 0.029),
    # stopped at their epoch-40 checkpoints (2026-11-30): the three above moved by at most 0.0005 after epoch 40
    "DCL": (((20, 0.0497), (40, 0.0523)), 0.057),
    "HCL": (((20, 0.0541), (40, 0.0591)), 0.056),
    "BCL": (((20, 0.0632), (40, 0.0665)), 0.058),
}


#: (method, curve of the committed runs as written (seed 0; DCL seeds 0-1), the ablation's NDCG@10 at epoch 2 with / without the decay, item RMS, printed gap)
_GL_FLAT = {
    "InfoNCE": (
        "40 (0.0665 at 40 and at 100, runs/*.json)",
        0.065,
        0.081,
        "0.12-0.43 against 0.82-0.86",
        0.027,
    ),
    "DCL": (
        "20 (seed 0: 0.0629 at 20, 0.0635 at 100; seed 1: 0.0621 at 20, 0.0641 at 40, 0.0635 at 100; runs/*.json)",
        0.062,
        0.071,
        "0.12-0.54 against 0.87-0.94",
        0.038,
    ),
    "HCL": (
        "20 (0.0684 at 20, 0.0693 at 100, runs/*.json)",
        0.067,
        0.076,
        "0.12-0.56 against 0.90-0.99",
        0.039,
    ),
    "DPL": (
        "20 (0.0409 at 20, 0.0405 at 100, runs/*.json), the lowest LightGCN loss here as DPL is the lowest MF loss "
        "(0.0479); without the decay it is level with InfoNCE and BCL",
        0.040,
        0.083,
        "0.08-0.31 against 0.88-1.12",
        0.041,
    ),
    "BCL": (
        "40 (0.0674 at 20, 0.0689 from 40 to 100, runs/*.json)",
        0.067,
        0.082,
        "0.12-0.44 against 0.83-0.87",
        0.043,
    ),
}
#: the tables that print each loss's LightGCN row (5.2 and 6.3 share InfoNCE's, DCL's and HCL's)
_GL_TABLES = {
    "InfoNCE": ("5.2", "6.3"),
    "DCL": ("5.2", "6.3"),
    "HCL": ("5.2", "6.3"),
    "DPL": ("5.2",),
    "BCL": ("6.3",),
}


MISS_REASONS_BY_DATASET: dict[str, dict[tuple[str, str, str], str]] = {
    "ml-100k": MISS_REASONS,
    "yahoo-r3": {
        (
            "4.2",
            "PNS",
            "BPR-MF SGD",
        ): f"{_Y}/pns_valid_tuned/tuning.csv and thesis_tables.csv (4.2 PNS valid-tuned, 3 "
        "seeds): the thesis gives no popularity exponent; validation ranks the exponents 0 > 0.25 > 0.5 > 0.75 > 1 and "
        "its choice, 0 (uniform sampling), is within every tolerance (NDCG@10 +0.002, largest |delta| 0.005); the "
        "written pop^0.75 is -0.066",
        (
            "4.2",
            "AOBPR",
            "BPR-MF SGD",
        ): f"{_Y}/aobpr_valid_tuned/tuning.csv and thesis_tables.csv (4.2 AOBPR "
        "valid-tuned, 3 seeds): the thesis gives no lambda; the default 0.05 |I| (50 items) is -0.044 on NDCG@10 and "
        "validation's choice (rank_scale=300) +0.042, so the printed row lies between the two; which lambda the thesis "
        "used is a conjecture",
        (
            "4.2",
            "SRNS",
            "BPR-MF SGD",
        ): f"conjecture: the run peaks before its last epoch ({_Y}/thesis_tables.csv, "
        "convention max_test_over_epochs: -0.012 on NDCG@10 at the best test epoch against -0.027 at the last; a "
        "test-selected epoch, so a diagnosis, not a reading), but R@20 stays -0.026 even there",
        (
            "5.2",
            "BPR",
            "MF",
        ): f"{_Y}/thesis_tables.csv (5.2 BPR, variant minibatch, 3 seeds): on this data set the "
        "printed 5.2 BPR row differs from Table 4.2's RNS row, so it is not the SGD run; the chapter 5-6 code's "
        "mini-batch BPR is within every tolerance (-0.013 on NDCG@10, largest |delta| 0.015)",
        ("5.2", "InfoNCE", "MF"): _YES
        + "InfoNCE is within every tolerance (-0.005 on NDCG@10, largest |delta| "
        "0.007): the last of the 200 epochs is past the peak; the tables' protocol is the final epoch",
        ("6.3", "InfoNCE", "MF"): _YES + "as 5.2 InfoNCE (the same printed row and runs)",
        ("6.3", "BCL", "MF"): _YES
        + "BCL is within every tolerance (-0.011 on NDCG@10, largest |delta| 0.016): the "
        "last of the 200 epochs is past the peak; the tables' protocol is the final epoch",
    },
    "ml-1m": {
        (
            "4.2",
            "PNS",
            "BPR-MF SGD",
        ): f"{_M}/pns_valid_tuned/tuning.csv and thesis_tables.csv (4.2 PNS valid-tuned, 3 "
        "seeds): the thesis's pop^0.75 is -0.032 on NDCG@10; validation ranks the exponents 0 (0.153) ~ 0.25 (0.153) > "
        "0.5 (0.144) > 0.75 (0.127) > 1 (0.097) and its choice, 0 (uniform sampling), overshoots (+0.034, the RNS "
        "run): the printed row lies between pop^0 and pop^0.75; which exponent the thesis used is a conjecture",
        (
            "4.2",
            "SRNS",
            "BPR-MF SGD",
        ): f"conjecture: the thesis's settings as written overshoot (+0.013 on NDCG@10, "
        f"P@5 +0.031; still rising at the last epoch) and the released run script's settings ({_M}/"
        "srns_code_defaults.csv, 1 seed) fall short (0.293 against the printed 0.404): the printed row lies between "
        "two settings the thesis does not pin down",
        (
            "5.2",
            "DPL",
            "MF",
        ): f"conjecture: not the class prior; {_M}/dpl_tau_plus_ablation.csv (the 5.2 DPL run with "
        "tau+ = 0.045, the data set's density, and 0.25, Table 5.3's value for hard samples; 1 seed each) gives 0.317 "
        "and 0.326 against 0.318 at the default 0.06, all about -0.085; only DPL with DNS negatives (5.3 DPL-hard, "
        "0.409) reaches the printed level, so the printed DPL row may have been run with hard negatives",
        ("5.3", "DPL", "MF"): "conjecture: as 5.2 DPL (the same printed row and runs)",
        (
            "5.2",
            "InfoNCE",
            "MF",
        ): f"conjecture; {_M}/infonce_negatives_ablation.csv (the 5.2 InfoNCE run with N = 1 "
        "negative, whose loss is BPR's, 2 seeds) lands -0.010 on NDCG@10 but -0.034 on R@20, while N = 5, the setting "
        "of every mini-batch row, lands +0.031: the printed row lies between one and five negatives; and not the "
        f"number of epochs ({_M}/epoch_reading.csv: InfoNCE stays above its printed row at every epoch from 25 to 200, "
        "while at 25 epochs DCL and HCL fall 0.05 below theirs)",
        ("6.3", "InfoNCE", "MF"): "conjecture: as 5.2 InfoNCE (the same printed row and runs)",
        (
            "4.2",
            "AOBPR",
            "BPR-MF SGD",
        ): f"{_M}/aobpr_valid_tuned/tuning.csv and thesis_tables.csv (4.2 AOBPR "
        "valid-tuned, 3 seeds): the thesis gives no lambda; the default 0.05 |I| (185 items) is -0.039 on NDCG@10, short "
        "on every metric, and validation's choice (rank_scale=300 of 100 / 300 / 1000; validation NDCG@10 0.098 / 0.173 "
        "/ 0.167) +0.034, above on every metric (NDCG@5 +0.037, P@5 +0.033), so the printed row lies between the two, as on "
        "Yahoo!-R3; which lambda the thesis used is a conjecture",
    },
    "gowalla": {
        (
            "5.2",
            "BPR",
            "MF",
        ): f"conjecture: {_GS}; the 3 seeds are still rising at the last epoch (runs/*.json: NDCG@10 "
        "+0.001 over epochs 90-100 in each seed), too slowly to close -0.017; the ch. 5-6 code's mini-batch BPR "
        "(variant minibatch, seed 0) is far lower (0.0519), so the printed row is not that code's BPR either",
        (
            "5.2",
            "InfoNCE",
            "MF",
        ): f"conjecture: {_GS}; not under-training (runs/*.json, mean of 3 seeds: NDCG@10 0.0813 "
        "at epoch 100, 0.0818 at 200)",
        ("6.3", "InfoNCE", "MF"): "conjecture: as 5.2 InfoNCE (the same printed row and runs)",
        (
            "5.2",
            "DCL",
            "MF",
        ): f"conjecture: {_GS}; not under-training (3 seeds: 0.0782 at epoch 100, 0.0787 at 200); {_GT}",
        ("6.3", "DCL", "MF"): "conjecture: as 5.2 DCL (the same printed row and runs)",
        (
            "5.2",
            "HCL",
            "MF",
        ): f"conjecture: {_GS}; not under-training (3 seeds: 0.0830 at epoch 100, 0.0835 at 200); {_GT}",
        ("6.3", "HCL", "MF"): "conjecture: as 5.2 HCL (the same printed row and runs)",
        (
            "5.2",
            "DPL",
            "MF",
        ): f"conjecture: {_GS}; besides, DPL collapses early here (runs/*.json, mean of 3 seeds: "
        f"0.0462 at epoch 20, 0.0479 at 200), far below every other loss; {_GT}",
        (
            "6.3",
            "BCL",
            "MF",
        ): f"conjecture: {_GS}; not under-training (3 seeds: 0.0830 at epoch 100, 0.0835 at 200); {_GT}",
        (
            "5.2",
            "BPR",
            "LightGCN",
        ): f"{_GL}; this run stays at 0.042-0.043 from epoch 20 to 100 (runs/*.json), "
        "training loss 0.44",
        **{(t, m, "LightGCN"): _gl_flat(m, *v) for m, v in _GL_FLAT.items() for t in _GL_TABLES[m]},
    },
}


def _block(setting: str) -> str:
    return "LightGCN" if setting == "LightGCN" else "MF"


def _label(metric: str, k: int) -> str:
    return f"{_SHORT[metric]}@{k}"


def _printed_rows(df, printed) -> dict[tuple[str, str, str], dict[tuple[str, int], float]]:
    """(table, method, setting) -> {(metric, k): printed value} for the tables in ``df``."""
    tables = set(df.table.astype(str))
    if printed is not None:
        if not isinstance(printed, Mapping):
            raise ValueError(
                f"printed must map (table, method, setting) to {{(metric, k): value}}, got {type(printed).__name__}"
            )
        given: dict[tuple[str, str, str], dict[tuple[str, int], float]] = {}
        for key, cells in printed.items():
            if not (isinstance(key, tuple) and len(key) == 3) or not isinstance(cells, Mapping):
                raise ValueError(
                    f"printed must map (table, method, setting) to {{(metric, k): value}}, got key {key!r}"
                )
            if str(key[0]) in tables:
                given[(str(key[0]), str(key[1]), str(key[2]))] = {
                    (m, int(k)): float(v) for (m, k), v in cells.items()
                }
        return given
    out: dict[tuple[str, str, str], dict[tuple[str, int], float]] = {}
    sub = df[df.thesis.notna() & ~df.method.str.endswith("-released")]
    for r in (
        sub[["table", "method", "setting", "metric", "k", "thesis"]]
        .drop_duplicates()
        .itertuples(index=False)
    ):
        out.setdefault((str(r.table), r.method, r.setting), {})[(r.metric, int(r.k))] = float(
            r.thesis
        )
    return out


def _per_table(value, name: str, tables: set[str], allowed=None) -> dict[str, str]:
    """A per-table mapping (or one value for every table); a per-row choice is a ValueError naming ``name``."""
    if isinstance(value, str):
        out = {t: value for t in tables}
    elif isinstance(value, Mapping):
        out = {}
        for t, v in value.items():
            if not isinstance(t, str) or isinstance(v, (Mapping, list, tuple, set)):
                raise ValueError(
                    f"{name} must map a table (e.g. '4.5') to one {name} for all its rows; a per-row choice "
                    f"({t!r} -> {v!r}) is refused: choosing a variant per row by closeness to the printed test "
                    "value is not a reading"
                )
            if t not in tables:
                raise ValueError(
                    f"{name}: {t!r} is not a printed table here (tables: {', '.join(sorted(tables))})"
                )
            if not isinstance(v, str):
                raise ValueError(f"{name}: the value for table {t!r} must be a str, got {v!r}")
            out[t] = v
        default = "as written" if name == "reading" else "final epoch"
        out = {t: out.get(t, default) for t in tables}
    else:
        raise ValueError(
            f"{name} must be a str or a mapping table -> str, got {type(value).__name__}"
        )
    if allowed is not None:
        bad = {v for v in out.values() if v not in allowed}
        if bad:
            raise ValueError(f"{name} must be one of {allowed}, got {sorted(bad)}")
    return out


def _validation_choice(validation, table: str, rows) -> str:
    """The variant with the best mean validation score over the table's rows (scored on all of them)."""
    if validation is None:
        raise ValueError(
            "validation: reading 'validation' needs a validation frame (table, method, setting, variant, score)"
        )
    missing = {"table", "method", "setting", "variant", "score"} - set(validation)
    if missing:
        raise ValueError(f"validation lacks columns {sorted(missing)}")
    v = validation[validation.table.astype(str) == table]
    if not len(v):
        raise ValueError(f"validation has no scores for table {table!r}")
    keys = {(m, s) for (_, m, s) in rows}
    v = v[[(m, s) in keys for m, s in zip(v.method, v.setting)]]
    cover = v.drop_duplicates(["variant", "method", "setting"]).groupby("variant").size()
    full = cover[cover == cover.max()].index
    means = v[v.variant.isin(full)].groupby("variant").score.mean()
    return str(means.idxmax())


def _check_reason(key, reason: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError(f"reasons: the reason for {key!r} must be a non-empty str")
    low = reason.lower()
    if "conjecture" in low or low.startswith("not run") or _FILE.search(reason):
        return reason
    raise ValueError(
        f"reasons: the reason for {key!r} neither names a committed ablation (a file such as "
        f"'{_TT}') nor says 'conjecture': {reason!r}"
    )


def strict_verdicts(
    df: pd.DataFrame,
    printed: Mapping[tuple[str, str, str], Mapping[tuple[str, int], float]] | None = None,
    reading: str | Mapping[str, str] = "as written",
    protocol: str | Mapping[str, str] = "final epoch",
    reasons: Mapping[tuple[str, str, str], str] | None = None,
    validation: pd.DataFrame | None = None,
    ndcg10_tol: float = NDCG10_TOLERANCE,
    metric_tol: float = METRIC_TOLERANCE,
) -> pd.DataFrame:
    r"""One strict verdict per printed row occurrence (a row of one table), with its distinct-row id.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy table of :func:`negtheory.reproduce.thesis_tables.summarize` (columns ``table,
        method, setting, variant, metric, k, thesis, mean, n_seeds, convention``). A method
        ``X-released`` is the variant ``X-released`` (or ``X-released <variant>``) of the printed row X.
    printed : mapping, optional
        (table, method, setting) -> {(metric, k): printed value}, e.g.
        ``THESIS_BY_DATASET["ml-100k"]`` (only the tables present in ``df`` are judged; a printed
        row with no line in ``df`` is "not run"). Default: the ``thesis`` column of ``df``.
    reading : str or mapping
        Per table, the variant judged for every row of that table: ``"as written"`` (each row's
        default of :data:`DEFAULT_VARIANTS`), a variant name (e.g. ``"hard"``), or ``"validation"``
        (chosen from ``validation``). One str applies to every table; tables missing from a
        mapping are ``"as written"``. Default ``"as written"``.
    protocol : str or mapping
        Per table, the reported convention of :data:`PROTOCOLS` for every row of that table
        (default ``"final epoch"``).
    reasons : mapping, optional
        (table, method, setting) -> the stated reason for a miss; each must name a committed file
        (an ablation) or say ``"conjecture"`` (or ``"not run: ..."`` for a row not run). Default:
        none (a miss gets ``"conjecture: no reason recorded"``).
    validation : pandas.DataFrame, optional
        Validation scores (``table, method, setting, variant, score``, higher is better) for
        ``reading="validation"``: per table, the variant scored on the most rows with the best
        mean score.
    ndcg10_tol : float
        Largest :math:`|\Delta|` on NDCG@10 (default :data:`NDCG10_TOLERANCE`).
    metric_tol : float
        Largest :math:`|\Delta|` on every printed metric (default :data:`METRIC_TOLERANCE`).

    Returns
    -------
    pandas.DataFrame
        One line per printed (table, method, setting): ``row_id`` (the distinct row: model block
        and the first occurrence), ``block``, ``reading`` (the table's reading), ``variant`` and
        ``convention`` judged, ``n_seeds``, ``delta_ndcg@10``, ``max_abs_delta`` (over the printed
        metrics), ``n_metrics`` (printed metrics judged), ``outcome`` (``reproduced``, ``not
        reproduced``, ``not run``), ``failing`` (the metrics off their tolerance, with Δ) and
        ``reason`` (misses and rows not run).

    Raises
    ------
    ValueError
        ``reading`` or ``protocol`` is a per-row choice (a key that is not a printed table, or a
        value that is not one str), a protocol is not in :data:`PROTOCOLS`, a reason names
        neither a file nor "conjecture", a tolerance is negative, or ``df`` lacks a column.

    Examples
    --------
    >>> import pandas as pd
    >>> from negtheory.reproduce.verdicts import strict_verdicts
    >>> cells = [(m, k) for k in (5, 10, 20) for m in ("precision", "recall", "ndcg")]
    >>> df = pd.DataFrame([dict(table="4.2", method="RNS", setting="S", variant="-", metric=m, k=k,
    ...                         thesis=0.3, mean=0.3 + (0.025 if (m, k) == ("precision", 5) else 0.01),
    ...                         n_seeds=3, convention="final epoch") for m, k in cells])
    >>> v = strict_verdicts(df)
    >>> v.outcome.tolist(), v.failing.tolist()
    (['not reproduced'], ['P@5 +0.025'])
    >>> strict_verdicts(df, reading={("4.2", "RNS", "S"): "-"})
    Traceback (most recent call last):
    ...
    ValueError: reading must map a table (e.g. '4.5') to one reading for all its rows; a per-row choice (('4.2', 'RNS', 'S') -> '-') is refused: choosing a variant per row by closeness to the printed test value is not a reading
    """
    import pandas as pd

    missing = {
        "table",
        "method",
        "setting",
        "variant",
        "metric",
        "k",
        "thesis",
        "mean",
        "n_seeds",
        "convention",
    } - set(df)
    if missing:
        raise ValueError(
            f"df must be the tidy table of summarize(); missing columns {sorted(missing)}"
        )
    for name, tol in (("ndcg10_tol", ndcg10_tol), ("metric_tol", metric_tol)):
        if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {tol!r}")
    df = df.assign(table=df.table.astype(str))
    rows = _printed_rows(df, printed)
    tables = {t for t, _, _ in rows} | set(df.table)
    readings = _per_table(reading, "reading", tables)
    protocols = _per_table(protocol, "protocol", tables, allowed=PROTOCOLS)
    checked = (
        {} if reasons is None else {key: _check_reason(key, r) for key, r in dict(reasons).items()}
    )
    for t in tables:
        if readings[t] == "validation":
            readings[t] = _validation_choice(validation, t, [k for k in rows if k[0] == t])

    # the variant name of each line: X-released rows are variants of the printed row X
    rel = df.method.str.endswith("-released")
    df = df.assign(
        base=df.method.str.replace("-released", "", regex=False),
        var=df.variant.where(
            ~rel, df.method.where(df.variant == "-", df.method + " " + df.variant)
        ),
    )
    ids: dict[tuple, str] = {}
    out: list[dict[str, Any]] = []
    for (table, method, setting), cells in rows.items():
        block = _block(setting)
        ident = (block, tuple(sorted(cells.items())))
        row_id = ids.setdefault(ident, f"{block} {method} ({table}, {setting})")
        g = df[
            (df.table == table)
            & (df.base == method)
            & (df.setting == setting)
            & (df.convention == protocols[table])
        ]
        want = readings[table]
        use = g[g["var"].isin(DEFAULT_VARIANTS)] if want == "as written" else g[g["var"] == want]
        use = use[use.n_seeds > 0]
        variant = "" if not len(use) else str(use["var"].iloc[0])
        if variant:
            use = use[use["var"] == variant]
        means = {(r.metric, int(r.k)): float(r["mean"]) for _, r in use.iterrows()}
        deltas = {
            mk: means[mk] - v
            for mk, v in cells.items()
            if mk in means and not math.isnan(means[mk])
        }
        rec: dict[str, Any] = dict(
            row_id=row_id,
            table=table,
            method=method,
            setting=setting,
            block=block,
            reading=want,
            variant=variant,
            convention=protocols[table],
            n_seeds=int(use.n_seeds.iloc[0]) if len(use) else 0,
            thesis_ndcg10=cells.get(("ndcg", 10), float("nan")),
            **{"delta_ndcg@10": deltas.get(("ndcg", 10), float("nan"))},
            max_abs_delta=max((abs(d) for d in deltas.values()), default=float("nan")),
            n_metrics=len(deltas),
        )
        for mk in _METRICS:
            rec[f"delta_{_label(*mk)}"] = deltas.get(mk, float("nan"))
        if ("ndcg", 10) not in deltas or len(deltas) < len(cells):
            rec.update(outcome="not run", failing="")
        else:
            fail = [
                f"{_label(*mk)} {d:+.3f}"
                for mk, d in ((mk, deltas[mk]) for mk in _METRICS if mk in deltas)
                if abs(d) > (ndcg10_tol if mk == ("ndcg", 10) else metric_tol) + _EPS
            ]
            rec.update(outcome="not reproduced" if fail else "reproduced", failing="; ".join(fail))
        if rec["outcome"] == "reproduced":
            rec["reason"] = ""
        else:
            default = (
                "conjecture: no reason recorded"
                if rec["outcome"] == "not reproduced"
                else f"not run under reading {want!r}"
            )
            rec["reason"] = checked.get((table, method, setting), default)
        out.append(rec)
    return pd.DataFrame(out)


def distinct_verdicts(v: pd.DataFrame) -> pd.DataFrame:
    """The verdicts of :func:`strict_verdicts` merged over the occurrences of each distinct printed row.

    Parameters
    ----------
    v : pandas.DataFrame
        The output of :func:`strict_verdicts`.

    Returns
    -------
    pandas.DataFrame
        One line per ``row_id``: ``block``, ``occurrences`` (the tables and methods printing it),
        ``outcome`` (``reproduced`` when every occurrence that was run is reproduced, ``not run``
        when none was run, else ``not reproduced``), ``failing`` and ``reason`` (of the
        occurrences that miss), ``delta_ndcg@10`` and ``max_abs_delta`` (the worst occurrence).
    """
    import pandas as pd

    recs = []
    for row_id, g in v.groupby("row_id", sort=False):
        ran = g[g.outcome != "not run"]
        if not len(ran):
            outcome = "not run"
        elif (ran.outcome == "reproduced").all():
            outcome = "reproduced"
        else:
            outcome = "not reproduced"
        worst = ran.loc[ran.max_abs_delta.idxmax()] if len(ran) else g.iloc[0]
        bad = g[g.outcome != "reproduced"] if outcome != "reproduced" else g.iloc[:0]
        recs.append(
            dict(
                row_id=row_id,
                block=g.block.iloc[0],
                occurrences=", ".join(f"{r.table} {r.method} {r.setting}" for r in g.itertuples()),
                outcome=outcome,
                **{"delta_ndcg@10": worst["delta_ndcg@10"]},
                max_abs_delta=worst.max_abs_delta,
                failing=" | ".join(dict.fromkeys(f for f in bad.failing if f)),
                reason=" | ".join(dict.fromkeys(r for r in bad.reason if r)),
            )
        )
    return pd.DataFrame(recs)


def strict_tally(v: pd.DataFrame, by: str = "block") -> pd.DataFrame:
    """Counts of distinct printed rows by outcome.

    Parameters
    ----------
    v : pandas.DataFrame
        The output of :func:`strict_verdicts`.
    by : {"block", "table", "metric"}
        ``"block"``: distinct rows per model block (MF, LightGCN) and ``all``; ``"table"``: the
        rows of each table (a table prints each row once); ``"metric"``: per printed metric, the
        distinct rows run on it and those within its tolerance (every occurrence).

    Returns
    -------
    pandas.DataFrame
        ``by`` column, then ``reproduced, not reproduced, not run, total`` (``"block"`` /
        ``"table"``) or ``metric, run, within`` (``"metric"``).

    Raises
    ------
    ValueError
        ``by`` is not one of the three.
    """
    import pandas as pd

    outcomes = ["reproduced", "not reproduced", "not run"]
    if by == "metric":
        recs = []
        for m, k in _METRICS:
            col = f"delta_{_label(m, k)}"
            tol = NDCG10_TOLERANCE if (m, k) == ("ndcg", 10) else METRIC_TOLERANCE
            ran = v[v.outcome != "not run"]
            per = ran.groupby("row_id")[col].apply(
                lambda s, tol=tol: bool((s.abs() <= tol + _EPS).all())
            )
            recs.append(
                dict(metric=_label(m, k), tolerance=f"{tol:g}", run=len(per), within=int(per.sum()))
            )
        return pd.DataFrame(recs)
    if by == "block":
        d = distinct_verdicts(v)
        groups = [*((b, d[d.block == b]) for b in dict.fromkeys(d.block)), ("all", d)]
    elif by == "table":
        groups = [(t, v[v.table == t]) for t in dict.fromkeys(v.table)]
    else:
        raise ValueError(f"by must be 'block', 'table' or 'metric', got {by!r}")
    recs = []
    for name, g in groups:
        c = g.outcome.value_counts()
        recs.append({by: name, **{o: int(c.get(o, 0)) for o in outcomes}, "total": len(g)})
    return pd.DataFrame(recs)


def _md_table(frame: pd.DataFrame) -> list[str]:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in frame.itertuples(index=False):
        cells = []
        for x in r:
            cells.append(
                f"{x:+.4f}"
                if isinstance(x, float) and not math.isnan(x)
                else ("" if isinstance(x, float) else str(x))
            )
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


def strict_markdown(
    v: pd.DataFrame, lenient: pd.DataFrame | None = None, title: str = "Strict verdicts"
) -> str:
    """The strict verdicts as markdown: tallies (distinct rows, per table, per metric) and every row.

    Parameters
    ----------
    v : pandas.DataFrame
        The output of :func:`strict_verdicts`.
    lenient : pandas.DataFrame, optional
        The output of :func:`negtheory.reproduce.thesis_tables.verdicts` on the same table: adds the
        lenient counts (per occurrence, and per distinct row taking each row's first occurrence)
        and the rows the strict rules stop counting as reproduced.
    title : str
        The section's title (default ``"Strict verdicts"``).

    Returns
    -------
    str
        The markdown section.
    """
    readings = v.groupby("table", sort=False)[["reading", "convention"]].first().reset_index()
    md = [
        f"## {title}",
        "",
        f"Reproduced: |Δ NDCG@10| ≤ {NDCG10_TOLERANCE} and |Δ| ≤ {METRIC_TOLERANCE} on every printed P / R / NDCG "
        "@ 5, 10, 20; a row printed in several tables counts once (it is reproduced when every occurrence "
        "run is); one reading and one protocol per table.",
        "",
        "Reading and protocol per table:",
        "",
        *_md_table(readings),
        "",
        "### Distinct printed rows",
        "",
        *_md_table(strict_tally(v, "block")),
        "",
        "### Per table (each table's rows)",
        "",
        *_md_table(strict_tally(v, "table")),
        "",
        "### Per metric (distinct rows run; within tolerance on that metric)",
        "",
        *_md_table(strict_tally(v, "metric")),
        "",
    ]
    d = distinct_verdicts(v)
    if lenient is not None and len(lenient):
        lv = (
            lenient.assign(table=lenient.table.astype(str))
            .set_index(["table", "method", "setting"])
            .verdict
        )
        first = v.drop_duplicates("row_id")
        keyed = [lv.get((r.table, r.method, r.setting), "") for r in first.itertuples()]

        def kind(s: str) -> str:
            return (
                "as written"
                if s.startswith("reproduced (") or s == "reproduced"
                else (
                    "by a variant"
                    if s.startswith("reproduced by")
                    else ("not run" if s.startswith("not run") else "not reproduced")
                )
            )

        per_occ = lenient.verdict.map(kind).value_counts()
        per_row = _counts([kind(s) for s in keyed])
        md += [
            "### Before (lenient verdicts.csv) and after",
            "",
            "| count | reproduced as written | reproduced by a variant | not reproduced | not run | total |",
            "|---|---|---|---|---|---|",
            "| lenient, per occurrence | "
            + " | ".join(
                str(int(per_occ.get(k, 0)))
                for k in ("as written", "by a variant", "not reproduced", "not run")
            )
            + f" | {len(lenient)} |",
            "| lenient, distinct rows (first occurrence) | "
            + " | ".join(
                str(per_row.get(k, 0))
                for k in ("as written", "by a variant", "not reproduced", "not run")
            )
            + f" | {len(first)} |",
            "| strict, distinct rows | "
            + f"{int((d.outcome == 'reproduced').sum())} | — | {int((d.outcome == 'not reproduced').sum())} | "
            + f"{int((d.outcome == 'not run').sum())} | {len(d)} |",
            "",
            "Rows the lenient verdicts count as reproduced (as written or by a variant) that the strict rules do not:",
            "",
        ]
        changed = []
        for r in v.itertuples():
            old = lv.get((r.table, r.method, r.setting), "")
            if old.startswith("reproduced") and r.outcome != "reproduced":
                why = r.failing or r.reason
                changed.append(
                    f"* {r.table} {r.method} {r.setting}: lenient `{old}`; strict {r.outcome} ({why})"
                )
        md += (changed or ["* none"]) + [""]
    md += ["### Every printed row", ""]
    show = v[
        [
            "table",
            "method",
            "setting",
            "variant",
            "convention",
            "n_seeds",
            "delta_ndcg@10",
            "max_abs_delta",
            "outcome",
            "failing",
            "reason",
        ]
    ]
    md += _md_table(show) + [""]
    return "\n".join(md)


#: other readings / protocols, each fixed for a whole table before looking at the test values:
#: (name, reading, protocol, why); each is judged under the strict rules beside the default
ALTERNATIVE_READINGS: tuple[tuple[str, dict[str, str], str | dict[str, str], str], ...] = (
    (
        "4.5 hard",
        {"4.5": "hard"},
        {},
        "the label as prior: eq. 4.26 with the exact posterior, the oracle bound the "
        "table's |M_u| = all row stands for (eq. 4.19); fixed for every |M_u| of Table 4.5",
    ),
    (
        "4.5 soft-Fcand",
        {"4.5": "soft-Fcand"},
        {},
        "F over the candidate set M_u (run at |M_u| = 10, 20 only)",
    ),
    (
        "5.2 / 6.3 early stopping",
        {},
        {"5.2": "best validation epoch", "6.3": "best validation epoch"},
        "the released code's early stopping, on a validation split instead of test, for every row of both tables",
    ),
    (
        "4.2 valid-tuned",
        {"4.2": "valid-tuned"},
        {},
        "hyper-parameters chosen on validation (rows not searched are not run under it)",
    ),
    (
        "6.3 valid-tuned",
        {"6.3": "valid-tuned"},
        {},
        "BCL's tau+, alpha, beta chosen on validation (the last epoch's NDCG@10), for MF and LightGCN alike; "
        "the rows without a search are not run under it",
    ),
    (
        "6.3 valid-tuned, early stopping",
        {"6.3": "valid-tuned-es"},
        {"6.3": "best validation epoch"},
        "BCL's tau+, alpha, beta chosen on validation (the best epoch's NDCG@10), reported at the best validation "
        "epoch; the rows without a search are not run under it",
    ),
    (
        "4.4 early stopping",
        {},
        {"4.4": "best validation epoch"},
        "the released code's early stopping (10 % of train held out, the epoch of best validation NDCG@10) for every "
        "row of Table 4.4, whose BCE row peaks before its last epoch",
    ),
    (
        "4.2 early stopping (valid-split)",
        {"4.2": "valid-split"},
        {"4.2": "best validation epoch"},
        "SRNS's released protocol applied to the whole table (only SRNS was run so)",
    ),
)


def alternatives_markdown(
    df: pd.DataFrame, printed=None, alternatives=ALTERNATIVE_READINGS, reasons=None
) -> str:
    """Markdown: each alternative per-table reading judged under the strict rules, and the rows it changes.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy table of :func:`negtheory.reproduce.thesis_tables.summarize`.
    printed : mapping, optional
        As in :func:`strict_verdicts`.
    alternatives : sequence of tuple
        ``(name, reading, protocol, why)``; default :data:`ALTERNATIVE_READINGS`.
    reasons : mapping, optional
        As in :func:`strict_verdicts`.

    Returns
    -------
    str
        One subsection per alternative: why, the distinct-row tally, and the rows of its tables.
    """
    base = strict_verdicts(df, printed, reasons=reasons)
    md = ["## Alternative readings, each fixed per table (strict rules)", ""]
    for name, reading, protocol, why in alternatives:
        v = strict_verdicts(df, printed, reading=reading, protocol=protocol, reasons=reasons)
        tabs = set(reading) | set(protocol)
        t = strict_tally(v)
        allrow = t[t.block == "all"].iloc[0]
        md += [
            f"### {name}",
            "",
            f"{why}. Distinct rows: {allrow['reproduced']} reproduced, {allrow['not reproduced']} not, "
            f"{allrow['not run']} not run (default reading: "
            + ", ".join(
                f"{int((distinct_verdicts(base).outcome == o).sum())} {o}"
                for o in ("reproduced", "not reproduced", "not run")
            )
            + ").",
            "",
        ]
        show = v[v.table.isin(tabs)][
            [
                "table",
                "method",
                "setting",
                "variant",
                "n_seeds",
                "delta_ndcg@10",
                "max_abs_delta",
                "outcome",
                "failing",
            ]
        ]
        md += _md_table(show) + [""]
    return "\n".join(md)


def _counts(items) -> dict[str, int]:
    """Counts of each item (a plain dict; no pandas needed)."""
    out: dict[str, int] = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out
