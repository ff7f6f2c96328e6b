"""Build the documentation site (``docs/``) and check what it must show.

The build is the command of the README and ``docs/conf.py``:
``python -m sphinx -W --keep-going -b html docs OUT`` (no warning allowed), run once per test session in a
temporary folder (``docs_site`` in ``tests/conftest.py``). The checks: every public name of ``negtheory.__all__`` and of ``negtheory.bridge``,
``negtheory.recsys`` and ``negtheory.reproduce`` has an entry (an HTML anchor) on the API pages; every notebook
page carries at least as many images as its committed notebook has ``image/png`` outputs; the gallery shows
every PNG of ``figures/``. Skipped, with the reason, when the ``docs`` extra is not installed.

The build is shared with ``tests/test_browser.py`` (the session fixture ``docs_site`` of ``tests/conftest.py``),
which opens the pages in headless Chromium.
"""

from __future__ import annotations

import html as html_lib
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

for _module in ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme"):
    pytest.importorskip(
        _module, reason=f'{_module} is not installed: pip install -e ".[docs]" to build the docs'
    )


@pytest.fixture(scope="module")
def site(docs_site):
    """The HTML folder of the session's build (``docs_site`` in ``tests/conftest.py``)."""
    return docs_site


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
            1
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.get("outputs", [])
            if "image/png" in o.get("data", {})
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
        assert re.search(rf'<img[^>]+src="[^"]*{re.escape(png.name)}"', gallery), (
            f"{png.name} is not in the gallery"
        )
    assert "(no description yet)" not in gallery, (
        "a figure has no description (docs/_generate.py EXTRA_DESCRIPTIONS)"
    )


@pytest.mark.slow
def test_errata_page_has_every_item_the_readme_names(site):
    """The README lists the errata in short and links the page; each bold name it gives is on the page."""
    text = _text(site / "errata.html").lower()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Notes on the sources (errata)", 1)[1].split("\n## ", 1)[0]
    assert "docs/errata.md" in section
    names = re.findall(r"\*\*(.+?)\*\*", section)
    assert len(names) >= 8
    for name in names:
        assert name.split()[0].lower() in text, name


def _text(page: Path) -> str:
    """The visible text of a page's article (tags, scripts and styles stripped)."""
    body = page.read_text(encoding="utf-8")
    body = body.split("<main", 1)[-1]
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", body))


@pytest.mark.slow
def test_api_pages_show_no_private_base_or_parameter(site):
    """No "Bases: _PairLoss", no ``_kind=`` / ``_masks=`` in a signature: private names stay off the API pages."""
    for page in (site / "generated" / "api").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "Bases:" not in _text(page), f"{page.name} shows a 'Bases:' line"
        for sig in re.findall(r'<dt class="sig[^"]*"[^>]*>(.*?)</dt>', text, flags=re.S):
            sig_text = html_lib.unescape(re.sub(r"<[^>]+>", "", sig))
            assert not re.search(r"[(,\s]_\w+=", sig_text), (
                f"{page.name}: private parameter in {sig_text.strip()[:200]}"
            )


@pytest.mark.slow
def test_api_index_is_grouped_by_theme(site):
    """The API index lists the themes (tables of modules with summaries); the sidebar shows themes, not ~50 modules."""
    index = (site / "generated" / "api" / "index.html").read_text(encoding="utf-8")
    themes = sorted((site / "generated" / "api").glob("theme-*.html"))
    assert len(themes) >= 8, [t.name for t in themes]
    assert "negtheory-api-summary" in index
    sidebar = index.split('class="bd-docs-nav', 1)[1].split("</nav>", 1)[0]
    assert 8 <= sidebar.count("toctree-l1") <= 15, (
        "the API index's sidebar lists the themes (modules under them)"
    )
    for theme in themes:
        text = theme.read_text(encoding="utf-8")
        assert "negtheory-api-summary" in text, theme.name
    gallery = (site / "generated" / "gallery.html").read_text(encoding="utf-8")
    primary = gallery.split("bd-sidebar-primary", 1)[1].split("bd-sidebar-secondary", 1)[0]
    n_figures = len(list((ROOT / "figures").glob("*.png")))
    assert primary.count("toc-h3") >= n_figures, "the gallery's sidebar lists its figures"


@pytest.mark.slow
def test_sources_are_named_by_their_titles(site):
    """The pages cite the five sources by name (docs/references.md lists them), never as "seed 00N"."""
    refs = _text(site / "references.html")
    for title in (
        "Rethinking InfoNCE: How Many Negative Samples Do You Need?",
        "Relaxed Softmax for learning from Positive and Unlabeled data",
        "Contrastive Learning for Personalized Recommendation",
        "Threshold selection in negative sampling strategy",
    ):
        assert title in refs, title
    pages = [
        site / "index.html",
        site / "references.html",
        site / "errata.html",
        site / "generated" / "gallery.html",
    ]
    pages += sorted((site / "guide").glob("*.html"))
    # (the API pages quote the docstrings' own first lines: those are checked by docs/_validate.py's owners)
    for page in pages:
        found = re.findall(r"[Ss]eeds? 00\d", _text(page))
        assert not found, f"{page.relative_to(site)} still cites {found}"


def _python_blocks(md: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", md.read_text(encoding="utf-8"), flags=re.S | re.M)


@pytest.mark.slow
@pytest.mark.parametrize("page", ["losses.md", "own_data.md", "quickstart.md", "diagnose.md"])
def test_guide_examples_run(page, tmp_path, monkeypatch):
    """Every python block of the loss guide, "Bring your own data" and the quick start runs, in order, in one namespace."""
    pytest.importorskip("torch", reason="the examples train with the torch extra")
    import tempfile

    monkeypatch.setattr(
        tempfile, "tempdir", str(tmp_path)
    )  # the examples' files go to this test's folder
    monkeypatch.chdir(tmp_path)
    blocks = _python_blocks(DOCS / "guide" / page)
    assert len(blocks) >= 5, page
    namespace: dict = {"__name__": "__docs__"}
    for k, block in enumerate(blocks):
        exec(compile(block, f"docs/guide/{page} (python block {k + 1})", "exec"), namespace)  # noqa: S102


def test_every_documented_callable_passes_numpydoc_validation():
    # docs/_validate.py: every function, class and public method on the API pages, checked for a
    # summary, Parameters matching the signature with descriptions, Returns, and Examples for the
    # core package's names; a fixed set of checks and no per-object exception list
    pytest.importorskip("numpydoc")
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "docs" / "_validate.py"
    spec = importlib.util.spec_from_file_location("_negtheory_docs_validate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = module.errors()
    assert not found, f"{len(found)} numpydoc errors, e.g. " + "; ".join(
        f"{p}: {c} {m}" for p, c, m in found[:5]
    )
    assert len(module.targets()) > 250  # the walk really covers the package (methods included)


@pytest.mark.slow
def test_fit_guide_runs(tmp_path, monkeypatch):
    """Every python block of the ``fit`` guide runs, in order, in one namespace (its printed claims hold)."""
    pytest.importorskip("torch", reason="the LightGCN example trains with the torch extra")
    monkeypatch.chdir(tmp_path)
    blocks = _python_blocks(DOCS / "guide" / "fit.md")
    assert len(blocks) >= 3
    namespace: dict = {"__name__": "__docs__"}
    for k, block in enumerate(blocks):
        exec(compile(block, f"docs/guide/fit.md (python block {k + 1})", "exec"), namespace)  # noqa: S102
    assert namespace["r"].engine and 0.0 <= namespace["r"].history[-1]["test_ndcg@10"] <= 1.0
