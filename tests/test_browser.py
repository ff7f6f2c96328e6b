"""Open the built documentation site in a real (headless) browser and check what a reader sees.

The site is the session's build (``docs_site`` in ``tests/conftest.py``, shared with ``tests/test_docs.py``),
served on localhost. Chromium (Debian's ``chromium`` and ``chromium-driver``; ``.ci/run`` installs them) is
driven by selenium through ``/usr/bin/chromedriver``. On the index, an API page with maths, the API page with the
widest equations and a notebook page, the test fails when

* an equation is left untypeset (raw ``\\[``, ``\\(`` or ``$$`` in the rendered text outside code) or MathJax
  reports an error (``mjx-merror``), or a page with maths has no typeset equation at all (MathJax not loaded:
  the site must typeset offline, from its own ``_static/mathjax``);
* a display equation wider than its column is clipped instead of scrolling (on the estimators page, where the
  widest are, every display equation must fit: ``docs/_static/negtheory.js`` typesets them smaller);
* an image is missing (``naturalWidth == 0``);
* the page logged a console error (severity ``SEVERE``);
* a character is drawn as a box (tofu: no font of the page has its glyph; e.g. Liu Bin's name on the references
  page without a CJK font): each character of the visible text is drawn on a canvas in its element's font and
  compared with the box drawn for a code point no font has;
* a code block scrolls sideways (long lines must wrap), or a notebook figure is shown so much smaller than its
  natural size that its labels cannot be read (below 90 % of the smaller of its width and the column's, which
  takes the window's width on notebook pages).

Every internal link of the whole site (``href`` to a page of the site, with its ``#anchor``) must lead to a page
and an element id that exist (:func:`test_no_dead_internal_links`, no browser needed).

Screenshots of the pages go to a temporary folder, or to ``$NEGTHEORY_SCREENSHOTS`` when it is set.

Skipped when Chromium, chromedriver or selenium is missing, except under CI (the environment variable ``CI``
set), where it fails: CI must run it.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
#: page -> what it must show: the index, an API page with maths, the API page of the widest equations
#: (negtheory.bcl_weights, negtheory.bns_risk), a notebook page with plots
PAGES = {
    "index": "index.html",
    "api_infonce": "generated/api/negtheory.infonce.html",
    "api_estimators": "generated/api/negtheory.estimators.html",
    "notebook": "generated/notebooks/01_how_many_negatives.html",
    "notebook06": "generated/notebooks/06_simulation_vs_training.html",
    "references": "references.html",
    "own_data": "guide/own_data.html",
}
MATH_PAGES = {"api_infonce", "api_estimators", "notebook"}

pytestmark = pytest.mark.slow


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser test: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        _unavailable("Chromium is not installed (apt-get install chromium chromium-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _unavailable('selenium is not installed: pip install -e ".[test]"')
    import tempfile

    profile = tempfile.mkdtemp(prefix="negtheory-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(120)
    driver.set_script_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass

    def do_GET(self):  # the browser asks for /favicon.ico on its own; the site has none
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture(scope="module")
def server(docs_site):
    """Serve the built site on an ephemeral localhost port; yield its base URL."""
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(docs_site))
    )
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("NEGTHEORY_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


# Wait for the page's images and for MathJax to finish typesetting; then report what the reader sees.
_INSPECT = r"""
const done = arguments[arguments.length - 1];
// characters drawn as boxes: each distinct (character, font) of the visible text, drawn on a canvas, against the
// box the same font stack draws for a private-use code point that no font has
function tofu() {
  const canvas = document.createElement("canvas");
  canvas.width = 48; canvas.height = 48;
  const ctx = canvas.getContext("2d", {willReadFrequently: true});
  const draw = (ch, font) => {
    ctx.clearRect(0, 0, 48, 48); ctx.font = "32px " + font; ctx.textBaseline = "top"; ctx.fillText(ch, 4, 4);
    return ctx.getImageData(0, 0, 48, 48).data.join(",");
  };
  const boxes = new Map(), seen = new Set(), found = [];
  const walker = document.createTreeWalker(document.querySelector("main") || document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: n => n.parentElement.closest("script, style, mjx-container, mjx-assistive-mml, .MathJax")
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const font = getComputedStyle(node.parentElement).fontFamily;
    for (const ch of node.textContent) {
      if (ch.codePointAt(0) < 128 || /\s|\p{M}|\p{Cf}/u.test(ch) || seen.has(ch + font)) continue;
      seen.add(ch + font);
      if (!boxes.has(font)) boxes.set(font, draw("\uE000", font));
      if (draw(ch, font) === boxes.get(font)) found.push(ch + " U+" + ch.codePointAt(0).toString(16).toUpperCase());
    }
  }
  return found;
}
(async () => {
  // a loaded machine can hand the script a document still being parsed: wait for it to complete
  for (let i = 0; i < 600 && (document.readyState !== "complete" || !document.body); i++) await new Promise(r => setTimeout(r, 50));
  for (const img of document.images) { if (img.loading === "lazy") img.loading = "eager"; }
  await Promise.all(Array.from(document.images, img => img.complete ? null :
    new Promise(ok => { img.addEventListener("load", ok); img.addEventListener("error", ok); })));
  let mathjax = "absent";
  if (window.MathJax) {
    for (let i = 0; i < 600 && !(MathJax.startup && MathJax.startup.promise); i++) await new Promise(r => setTimeout(r, 50));
    try { await MathJax.startup.promise; mathjax = "typeset"; } catch (e) { mathjax = "failed: " + e; }
  }
  const clone = (document.querySelector("main") || document.body || document.documentElement).cloneNode(true);
  clone.querySelectorAll("pre, code, script, style, textarea, mjx-assistive-mml").forEach(n => n.remove());
  const text = clone.textContent;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));  // after negtheory.js's fit
  const wide = Array.from(document.querySelectorAll("div.math")).map(el => {
    const math = el.querySelector("mjx-math");
    if (!math) return null;
    const width = math.getBoundingClientRect().width, box = el.getBoundingClientRect().width;
    if (width <= box + 1) return null;  // fits its column
    const scrolls = [el, el.querySelector("mjx-container")].some(n => n && n.scrollWidth > n.clientWidth
      && ["auto", "scroll"].includes(getComputedStyle(n).overflowX));
    return {text: el.textContent.slice(0, 80), width: Math.round(width), box: Math.round(box), scrolls: scrolls};
  }).filter(Boolean);
  return {
    mathjax: mathjax,
    version: window.MathJax && MathJax.version || null,
    mathjaxSrc: Array.from(document.scripts, s => s.src).filter(s => /mathjax/i.test(s)),
    mathElements: document.querySelectorAll(".math, div.math, span.math").length,
    typeset: document.querySelectorAll("mjx-container").length,
    errors: document.querySelectorAll("mjx-merror, [data-mjx-error]").length,
    raw: ["\\[", "\\(", "$$"].filter(token => text.includes(token)).map(token => {
      const at = text.indexOf(token); return text.slice(Math.max(0, at - 60), at + 60); }),
    wide: wide,
    images: document.images.length,
    brokenImages: Array.from(document.images).filter(img => !img.complete || img.naturalWidth === 0).map(img => img.src),
    tofu: tofu(),
    scrollingCode: Array.from(document.querySelectorAll("div.highlight pre")).filter(pre => pre.scrollWidth > pre.clientWidth + 1)
      .map(pre => pre.textContent.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "").slice(0, 100)),
    notebookImages: Array.from(document.querySelectorAll("div.cell_output img")).map(img => ({
      src: img.src.split("/").pop(), natural: img.naturalWidth, shown: Math.round(img.getBoundingClientRect().width),
      column: Math.round((img.closest("article") || document.body).getBoundingClientRect().width)})),
  };
})().then(done, e => done({failure: String(e)}));
"""


def _screenshot(browser, path: Path) -> None:
    """The whole page (up to 8000 CSS pixels high) as a PNG, through the DevTools protocol."""
    import base64

    size = browser.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}
    shot = browser.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
    )
    path.write_bytes(base64.b64decode(shot["data"]))


@pytest.mark.parametrize("name", list(PAGES))
def test_page_renders(browser, server, shots, name):
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(server + PAGES[name])
    report = browser.execute_async_script(_INSPECT)
    assert "failure" not in report, report
    _screenshot(browser, shots / f"{name}.png")
    severe = [entry for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]

    assert not severe, f"{name}: console errors {severe}"
    assert not report["brokenImages"], f"{name}: images that did not load: {report['brokenImages']}"
    assert not report["raw"], f"{name}: untypeset maths left in the text: {report['raw']}"
    assert report["errors"] == 0, f"{name}: {report['errors']} MathJax error elements"
    clipped = [eq for eq in report["wide"] if not eq["scrolls"]]
    assert not clipped, f"{name}: display equations clipped at the right edge: {clipped}"
    if (
        name == "api_estimators"
    ):  # BCL's weights and BNS's risk are typeset smaller until they fit (negtheory.js)
        assert not report["wide"], (
            f"{name}: display equations wider than the column: {report['wide']}"
        )
    if name in MATH_PAGES:
        assert report["mathElements"] > 0, f"{name}: the page has no maths to check"
        assert report["mathjax"] == "typeset", (
            f"{name}: MathJax {report['mathjax']} ({report['mathjaxSrc']})"
        )
        assert all(src.startswith(server) for src in report["mathjaxSrc"]), (
            f"MathJax not served by the site: {report['mathjaxSrc']}"
        )
        assert report["typeset"] >= report["mathElements"] > 0, report
    if name == "notebook":
        assert report["images"] >= 1 and not report["brokenImages"], report
    assert not report["tofu"], (
        f"{name}: characters drawn as boxes (no font has them): {report['tofu']}"
    )
    assert not report["scrollingCode"], (
        f"{name}: code lines hidden behind a scroll bar: {report['scrollingCode']}"
    )
    for img in report["notebookImages"]:
        readable = 0.9 * min(img["natural"], img["column"])
        assert img["shown"] >= readable, (
            f"{name}: {img['src']} shown {img['shown']} px wide of its {img['natural']} ({img})"
        )


def test_no_dead_internal_links(docs_site):
    """Every link from one page of the site to another (or to itself) reaches a page and an anchor that exist."""
    import html
    import re
    from urllib.parse import unquote, urlsplit

    ids: dict[Path, set[str]] = {}

    def anchors(page: Path) -> set[str]:
        if page not in ids:
            text = page.read_text(encoding="utf-8", errors="replace")
            ids[page] = set(re.findall(r'\bid="([^"]+)"', text)) | set(
                re.findall(r'\bname="([^"]+)"', text)
            )
        return ids[page]

    dead = []
    pages = sorted(Path(docs_site).rglob("*.html"))
    assert len(pages) > 50
    for page in pages:
        for href in re.findall(
            r'<a\b[^>]*\bhref="([^"]+)"', page.read_text(encoding="utf-8", errors="replace")
        ):
            url = urlsplit(html.unescape(href))
            if url.scheme or url.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            target = (page.parent / unquote(url.path)).resolve() if url.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(docs_site)} -> {href}"
            if not target.exists():
                dead.append(f"{where} (no such page)")
            elif (
                url.fragment
                and target.suffix == ".html"
                and unquote(url.fragment) not in anchors(target)
            ):
                dead.append(f"{where} (no such anchor)")
    assert not dead, f"{len(dead)} dead internal links, e.g. " + "; ".join(dead[:10])
