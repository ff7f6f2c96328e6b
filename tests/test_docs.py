"""Build the documentation site (``docs/``) and check what it must show.

The build is the command of the README and ``docs/conf.py``:
``python -m sphinx -W --keep-going -b html docs OUT`` (no warning allowed), run once per test session in a
temporary folder. The checks: every public name of ``negtheory.__all__`` and of ``negtheory.bridge``,
``negtheory.recsys`` and ``negtheory.reproduce`` has an entry (an HTML anchor) on the API pages; every notebook
page carries at least as many images as its committed notebook has ``image/png`` outputs; the gallery shows
every PNG of ``figures/``. Skipped, with the reason, when the ``docs`` extra is not installed.

A headless-browser smoke test (opening the pages and failing on console errors) is not part of the suite:
Chromium cannot be installed from the Python package registry alone (playwright downloads its browsers from
its own servers at ``playwright install``), and CI installs only from the registry.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

for _module in ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme"):
    pytest.importorskip(_module, reason=f'{_module} is not installed: pip install -e ".[docs]" to build the docs')


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Build the site once; return the HTML folder."""
    out = tmp_path_factory.mktemp("docs")
    html, doctrees = out / "html", out / "doctrees"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(doctrees), str(DOCS), str(html)]
    proc = subprocess.run(cmd, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"sphinx failed ({proc.returncode}):\n{log[-6000:]}"
    assert "WARNING" not in log and "ERROR" not in log, log[-6000:]
    return html


def _anchors(html: Path) -> set[str]:
    ids: set[str] = set()
    for page in (html / "generated" / "api").glob("*.html"):
        ids.update(re.findall(r'id="([^"]+)"', page.read_text(encoding="utf-8")))
    return ids


def _public_names() -> list[str]:
    import negtheory

    names = [f"negtheory.{n}" for n in negtheory.__all__]
    for pkg in ("negtheory.bridge", "negtheory.recsys", "negtheory.reproduce"):
        module = importlib.import_module(pkg)
        names += [f"{pkg}.{n}" for n in module.__all__]
    return names


@pytest.mark.slow
def test_docs_build_without_warning(site):
    assert (site / "index.html").exists()
    pages = list(site.rglob("*.html"))
    assert len(pages) > 40, len(pages)


@pytest.mark.slow
def test_every_public_name_has_an_api_entry(site):
    pytest.importorskip("torch", reason="negtheory.bridge needs the torch extra")
    anchors = _anchors(site)
    missing = [n for n in _public_names() if n not in anchors and f"module-{n}" not in anchors]
    assert not missing, f"public names without an entry in the API pages: {missing}"


@pytest.mark.slow
def test_notebook_pages_show_their_images(site):
    nbformat = pytest.importorskip("nbformat")
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        n_png = sum(
            1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if "image/png" in o.get("data", {})
        )
        page = site / "generated" / "notebooks" / f"{path.stem}.html"
        assert page.exists(), f"no page for {path.name}"
        n_img = page.read_text(encoding="utf-8").count("<img")
        assert n_png >= 1, f"{path.name} has no image output: run python notebooks/sync.py"
        assert n_img >= n_png, f"{page.name}: {n_img} <img> for {n_png} image outputs"


@pytest.mark.slow
def test_gallery_shows_every_figure(site):
    gallery = (site / "generated" / "gallery.html").read_text(encoding="utf-8")
    for png in sorted((ROOT / "figures").glob("*.png")):
        assert re.search(rf'<img[^>]+src="[^"]*{re.escape(png.name)}"', gallery), f"{png.name} is not in the gallery"
    assert "(no description yet)" not in gallery, "a figure has no description (docs/_generate.py EXTRA_DESCRIPTIONS)"


@pytest.mark.slow
def test_errata_page_has_the_readme_section(site):
    text = (site / "errata.html").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Notes on the sources (errata)", 1)[1].split("\n## ", 1)[0]
    first = re.search(r"\*\*(.+?)\*\*", section).group(1)
    assert first in text
