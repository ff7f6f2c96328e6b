"""The committed MovieLens-100K MF rows of Tables 4.2-4.4, rerun through ``fit``, give the committed numbers (issue 67).

The reproductions call :func:`negtheory.training.fit` now (the old trainers are gone); this test
reruns the batch-1 SGD rows of Tables 4.2 (samplers), 4.3 (BNS variants) and 4.4 (losses) at the
committed 3 seeds from the thesis's split and compares every metric's mean over the seeds with
``notebooks/data/thesis_tables/thesis_tables.csv`` to 1e-12 (the runs are deterministic, so any
difference is a change of the numbers). It needs the data: set ``NEGTHEORY_DATA`` to a folder
holding ``ml-100k/100k_train.csv``, ``ml-100k/100k_test.csv`` and ``ml-100k/u.user`` (unpacked) and select it
with ``-m data``
(about 30 minutes on one core; ``NEGTHEORY_RERUN_OUT`` reuses a finished output folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

ROOT = os.environ.get("NEGTHEORY_DATA")
pytestmark = [
    pytest.mark.data,
    pytest.mark.skipif(
        not ROOT,
        reason="NEGTHEORY_DATA (a folder with ml-100k/100k_train.csv, 100k_test.csv) not set",
    ),
]

COMMITTED = (
    Path(__file__).resolve().parents[1]
    / "notebooks"
    / "data"
    / "thesis_tables"
    / "thesis_tables.csv"
)
KEY = ["table", "method", "setting", "variant", "metric", "k", "convention"]


def compare_rows(new: pd.DataFrame, committed: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``new`` beside the committed ones, with the difference of their means (a row each)."""
    both = new.merge(
        committed, on=KEY, suffixes=("", "_committed"), how="left", validate="one_to_one"
    )
    both["difference"] = both["mean"] - both["mean_committed"]
    return both


def test_committed_ml100k_mf_rows_rerun_through_fit(tmp_path):
    from negtheory import cli

    out = Path(os.environ.get("NEGTHEORY_RERUN_OUT") or tmp_path / "tt")
    if not (out / "thesis_tables.csv").exists():
        data = Path(ROOT) / "ml-100k"
        argv = [
            "reproduce",
            "thesis-tables",
            "--train",
            str(data / "100k_train.csv"),
            "--test",
            str(data / "100k_test.csv"),
            "--user-file",
            str(data / "u.user"),
            "--user-id-offset",
            "-1",  # BNS-4's occupations (Table 4.3)
            "--models",
            "mf",
            "--tables",
            "4.2",
            "4.3",
            "4.4",
            "--seeds",
            "3",
            "--jobs",
            "2",
            "--quiet",
            "--out",
            str(out),
        ]
        assert cli.main(argv) == 0
    new = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    committed = pd.read_csv(COMMITTED, dtype={"table": str})
    both = compare_rows(new, committed)
    assert len(both) > 100 and both["mean_committed"].notna().all(), both[
        both["mean_committed"].isna()
    ][KEY]
    assert (both["n_seeds"] == both["n_seeds_committed"]).all()
    worst = both.loc[both["difference"].abs().idxmax()]
    assert both["difference"].abs().max() < 1e-12, worst.to_dict()
