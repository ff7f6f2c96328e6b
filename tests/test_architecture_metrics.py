"""benchmarks/architecture_metrics.py: its counts on a synthetic package written to tmp_path.

The package has one deferred package import (``core_b.scaled``), one import edge to a higher
layer (``core_b`` -> ``training.loop``), one import under ``if TYPE_CHECKING:`` (neither), one
line of 125 characters and one ``# fmt: skip`` comment (and the same words in a string, which do
not count); the expected values below are read off those files.
"""

from __future__ import annotations

import json
import textwrap

import pytest

LONG = "    # " + "x" * 119  # 125 characters

FILES = {
    "negtheory/__init__.py": '"""Synthetic package."""\n',
    "negtheory/core_a.py": """\
        \"\"\"Core helpers.\"\"\"

        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from negtheory.training import loop


        def twice(x):
            import math

            return 2 * x + math.floor(0.5)
        """,
    "negtheory/core_b.py": """\
        \"\"\"Calls core_a lazily and the trainer at import time.\"\"\"

        from negtheory.training.loop import run  # arrow up: core -> training

        NOTE = "# fmt: skip"


        def scaled(x):
            from .core_a import twice  # deferred, same layer

            return twice(x) + run(x)
        """,
    "negtheory/training/__init__.py": """\
        \"\"\"Training.\"\"\"

        from .loop import run
        """,
    "negtheory/training/loop.py": """\
        \"\"\"The loop.\"\"\"

        from negtheory import core_a


        class LoopRunner:
            def run_epoch(self):
                return core_a.twice(1)


        def _fit_one(x):
            return x


        def run(x):
            values = [x,  x]  # fmt: skip
        LONG
            return _fit_one(values)
        """,
}


@pytest.fixture(scope="module")
def mod(load_script):
    return load_script("benchmarks/architecture_metrics.py")


@pytest.fixture
def root(tmp_path):
    for rel, text in FILES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).replace("LONG\n", LONG + "\n"), encoding="utf-8")
    return tmp_path


def test_deferred_imports_and_arrows_up(mod, root):
    modules = mod.load_package(root)
    assert sorted(modules) == [
        "negtheory",
        "negtheory.core_a",
        "negtheory.core_b",
        "negtheory.training",
        "negtheory.training.loop",
    ]
    assert mod.deferred_imports(modules) == {"negtheory/core_b.py": 1}
    assert mod.arrows_up(modules, mod.LAYERS) == [
        ("negtheory.core_b", "core", "negtheory.training.loop", "training", False)
    ]


def test_layers(mod):
    assert mod.layer_of("negtheory/__init__.py", mod.LAYERS) is None
    assert mod.layer_of("negtheory/dists.py", mod.LAYERS) == "core"
    assert mod.layer_of("negtheory/_cli_common.py", mod.LAYERS) == "cli"
    assert mod.layer_of("negtheory/bridge/_commands.py", mod.LAYERS) == "cli"
    assert mod.layer_of("negtheory/bridge/train.py", mod.LAYERS) == "bridge"
    assert mod.layer_of("negtheory/recsys/sub/x.py", mod.LAYERS) == "recsys"


def test_sizes_lines_and_engines(mod, root):
    modules = mod.load_package(root)
    assert mod.code_lines('"""Doc\n\nmore."""\n# comment\n\nx = 1  # c\n') == 3
    assert mod.long_modules(modules, limit=6) == [
        (10, "negtheory/training/loop.py"),
        (7, "negtheory/core_a.py"),
    ]
    assert mod.long_functions(modules, limit=3) == [
        (4, "negtheory.core_a.twice"),
        (4, "negtheory.core_b.scaled"),
        (4, "negtheory.training.loop.run"),
    ]
    stats = mod.line_stats(root)
    assert stats == {
        "files": 5,
        "fmt_skip": 1,
        "over_100": 1,
        "over_120": 1,
        "max_len": 125,
        "max_at": "negtheory/training/loop.py:17",
    }
    assert mod.engines(modules) == {
        "runners": ["negtheory.training.loop.LoopRunner"],
        "fit_functions": ["negtheory.training.loop._fit_one"],
    }


def test_main_with_layers_file(mod, root, tmp_path, capsys):
    layers = tmp_path / "layers.json"
    layers.write_text(
        json.dumps({"training": ["negtheory/training/*.py"], "core": ["negtheory/core_*.py"]})
    )
    out = tmp_path / "m.json"
    assert (
        mod.main(
            ["--root", str(root), "--layers", str(layers), "--duplicates", "3", "--json", str(out)]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "| arrows back up (distinct import edges to a higher layer) | 1 |" in printed
    m = json.loads(out.read_text())
    assert (m["deferred_imports"], m["arrows_up"], m["duplicates"]) == (1, 1, 3)
    assert m["arrows_up_edges"] == [
        {
            "from": "negtheory.training.loop",
            "from_layer": "training",
            "to": "negtheory.core_a",
            "to_layer": "core",
            "deferred": False,
        }
    ]
