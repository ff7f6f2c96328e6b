"""ruff, configured in pyproject.toml: the lint rules pass and the code is formatted.

The same checks run from ``.pre-commit-config.yaml``. To fix what they report:
``python -m ruff check --fix negtheory tests benchmarks`` and
``python -m ruff format negtheory tests benchmarks``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["negtheory", "tests", "benchmarks"]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ruff") is None,
    reason="ruff is not installed (it is in the 'test' extra: pip install -e '.[test]')",
)


def _ruff(*args):
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *PATHS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_ruff_check_is_clean():
    proc = _ruff("check", "--no-cache", "--output-format", "concise")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_leaves_the_code_unchanged():
    proc = _ruff("format", "--check", "--no-cache")
    assert proc.returncode == 0, (
        "run `python -m ruff format negtheory tests benchmarks`:\n" + proc.stdout + proc.stderr
    )
