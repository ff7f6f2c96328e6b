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


def test_ci_runs_both_setup_commands_in_order_in_one_venv():
    setup = re.search(r"<!-- setup-command -->\s*```(?:bash|sh)?\n(.*?)```", README, flags=re.S)
    assert setup, "README must mark its first set-up command with <!-- setup-command -->"
    assert "pip install ." in setup.group(1) and "negtheory figures" in setup.group(1)
    assert README.index("<!-- setup-command -->") < README.index("<!-- test-command -->")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    loop = re.search(r"for name in ([\w -]+); do", ci)
    assert loop and loop.group(1).split() == ["setup-command", "test-command"], (
        "both blocks, in this order"
    )
    assert ci.count("python3 -m venv") == 1  # one venv for both


def test_readme_reads_in_five_minutes():
    lines = README.splitlines()
    assert len(lines) <= 300, f"README has {len(lines)} lines"
    headings = [line for line in lines if line.startswith("## ")]
    for needed in (
        "Set-up",
        "tour",
        "Your own data",
        "Your own PyTorch loop",
        "Results",
        "Does the simulation predict training?",
        "Speed",
    ):
        assert any(needed in h for h in headings), needed
    sim = README.split("## Does the simulation predict training?", 1)[1].split("\n## ", 1)[0]
    # a short section: what it does, one results table (a row per data set and model), the links
    assert len(sim.strip().splitlines()) <= 22
    assert "docs/guide/sim_vs_train.md" in sim


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README):
        if "://" in target:
            continue
        assert (ROOT / target).exists(), f"README links {target}, which does not exist"
