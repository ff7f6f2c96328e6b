"""The README's Python snippets run, and its two set-up commands are what CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_python_snippets():
    assert len(python_blocks()) >= 3


@pytest.mark.parametrize("i", range(len(python_blocks())))
def test_readme_snippet_runs(i, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = python_blocks()[i]
    exec(compile(code, f"README.md python block {i}", "exec"), {"__name__": "__readme__"})


def test_ci_runs_the_readme_test_command():
    block = re.search(r"<!-- test-command -->\s*```(?:bash|sh)?\n(.*?)```", README, flags=re.S)
    assert block, "README must mark its test command with <!-- test-command -->"
    assert "pytest" in block.group(1)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "test-command" in ci  # .ci/run extracts and runs exactly that block
