"""numba's caches of negtheory's kernels stay out of the package folder (issue: the README's two set-up commands).

A regular install followed by ``pip install -e .`` left ``site-packages/negtheory/__pycache__`` full of numba
caches (files pip never recorded, so never removed); Python then imported that folder as an empty namespace
package. ``.ci/run`` runs both README commands in sequence in one venv; these tests pin the cause's fix in
process: where the kernels' caches are written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import negtheory

PACKAGE = Path(negtheory.__file__).resolve().parent

# compiles and caches one kernel of the package (a fresh interpreter, so that the locator is chosen anew)
SNIPPET = "import negtheory as nt; nt.optimal_k_from_auc(0.75, steps=100)"


def _run(env_extra: dict[str, str], tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(env_extra)
    subprocess.run([sys.executable, "-c", SNIPPET], env=env, check=True, cwd=tmp_path, timeout=600)


def _numba_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc")]


def test_kernels_cache_into_the_user_cache_folder_not_the_package(tmp_path):
    before = set(_numba_files(PACKAGE))
    cache_home = tmp_path / "xdg"
    _run({"XDG_CACHE_HOME": str(cache_home)}, tmp_path)
    written = _numba_files(cache_home / "negtheory" / "numba")
    assert any(p.name.startswith("infonce.") for p in written), written
    assert set(_numba_files(PACKAGE)) <= before, "numba wrote cache files into the package folder"


def test_numba_cache_dir_keeps_precedence(tmp_path):
    chosen = tmp_path / "numba_cache_dir"
    cache_home = tmp_path / "xdg"
    _run({"NUMBA_CACHE_DIR": str(chosen), "XDG_CACHE_HOME": str(cache_home)}, tmp_path)
    assert any(p.name.startswith("infonce.") for p in _numba_files(chosen))
    assert not (cache_home / "negtheory").exists()


def test_locator_leaves_other_packages_alone():
    from numba.core import caching

    from negtheory import _numba_cache

    locator = caching.CacheImpl._locator_classes[0]
    assert getattr(locator, "_negtheory_locator", False)
    assert _numba_cache.install() is True  # idempotent: still one negtheory locator
    assert (
        sum(getattr(c, "_negtheory_locator", False) for c in caching.CacheImpl._locator_classes)
        == 1
    )

    def f():  # a function outside the package: numba's own locators decide
        return 1

    assert locator.from_function(f, __file__) is None
    assert _numba_cache.cache_dir().endswith(os.path.join("negtheory", "numba"))


def test_ci_runs_both_readme_commands_in_one_venv():
    ci = (PACKAGE.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "for name in setup-command test-command; do" in ci  # both README blocks, in this order
    assert ci.count("python3 -m venv") == 1  # in one venv
