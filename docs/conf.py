"""Sphinx configuration of the negtheory documentation.

Build (from the repository root)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Nothing is hard-coded about the package's layout: the API pages are generated at build time from
``negtheory.__all__`` (grouped by the module that defines each name) and from the ``__all__`` of
``negtheory.bridge``, ``negtheory.recsys`` and ``negtheory.reproduce`` and their public submodules;
the notebooks are copied from ``notebooks/`` (with their committed outputs, never re-executed) and
the gallery lists every PNG in ``figures/``. Generated sources go to ``docs/generated/`` (ignored by
git, rewritten on every build).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document this checkout, not an installed copy
sys.path.insert(0, str(DOCS))

import _generate  # noqa: E402  (docs/_generate.py)

import negtheory  # noqa: E402

project = "negtheory"
author = "negtheory developers"
copyright = "2026, negtheory developers"
release = version = negtheory.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    # MathJax 3 served from the built site (``_static/mathjax/``), not from a CDN: the pages typeset their
    # equations offline. The package sets ``mathjax_path`` and copies its MathJax copy at the end of the build.
    "sphinx-mathjax-offline",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
]

_generate.generate_all(ROOT, DOCS / "generated")

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_generate.py"]
templates_path: list[str] = []

# -- autodoc / numpydoc -----------------------------------------------------------------------
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"
# no "Bases:" line: autodoc reads any value of "show-inheritance" (False included) as "on", and the bases
# are private (``_PairLoss``) or torch's ``nn.Module``
autodoc_default_options: dict[str, object] = {}
numpydoc_show_class_members = False  # members are documented by autodoc's :members:
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()
numpydoc_attributes_as_param_list = True
# Our own docstrings mention the type ``torch.Tensor`` etc.; keep references unchecked.
nitpicky = False

# -- notebooks (myst-nb) ------------------------------------------------------------------------
nb_execution_mode = "off"  # the committed notebooks carry their outputs; see notebooks/sync.py
nb_output_stderr = "remove"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
nb_render_image_options = {"width": "100%"}

# -- HTML -----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"negtheory {release}"
html_static_path = ["_static"]
html_css_files = ["negtheory.css"]  # wide display equations scroll instead of being clipped
html_js_files = ["negtheory.js"]  # ... after being typeset smaller, down to 70 %, to fit the column
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": {"**": ["page-toc"], "generated/gallery": []},
}
html_sidebars = {
    "**": ["sidebar-nav-bs"],
    # a top-level page without sub-pages has an empty section navigation: the gallery lists its own figures,
    # the single pages give the room to their text
    "generated/gallery": ["page-toc"],
    "references": [],
    "errata": [],
    "benchmarks": [],
}
html_show_sourcelink = False
# the theme's colour mode when the reader has chosen none; without it the theme's script logs a console error
# ("Got invalid theme mode") on every first visit
html_context = {"default_mode": "auto"}

suppress_warnings = [
    # myst-nb's notebook pages carry the kernel's mime bundles; unknown ones are not an error here
    "mystnb.unknown_mime_type",
]


# -- docstring notation ---------------------------------------------------------------------------
# The docstrings write absolute values and set sizes as |x|, |M_u|, |I| (plain-text maths, readable in
# help()). reStructuredText reads |...| as a substitution reference and fails the -W build, so the
# bars are escaped before the docstring is parsed: outside inline literals and doctest lines only.
# (A hook rather than edits, because the same notation is used across modules owned by others.)
def _escape_bars(app, what, name, obj, options, lines):
    math_indent = None  # indentation of the ``.. math::`` directive whose body we are in
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if math_indent is not None and (not stripped or indent > math_indent):
            continue  # LaTeX: |x| is an absolute value there, \| would be a norm
        math_indent = None
        if stripped.startswith(".. math::"):
            math_indent = indent
            continue
        if stripped.startswith((">>>", "...")) or "|" not in line:
            continue
        lines[i] = _generate.escape_bars(line)


def _data_without_own_doc(app, what, name, obj, options, lines):
    """A module constant without a ``#:`` comment would show its type's docstring: show its value instead."""
    if what != "data" or obj is None:
        return
    own = "\n".join(lines).strip()
    inherited = type(obj).__doc__
    inherited = inherited.strip() if isinstance(inherited, str) else ""
    if own and own.split()[:5] != inherited.split()[:5]:
        return
    value = repr(obj)
    if len(value) > 300:
        value = value[:300] + " ..."
    lines[:] = [f"A ``{type(obj).__name__}``: ``{value}``", ""]


def _hide_private_parameters(app, what, name, obj, options, signature, return_annotation):
    """Leave keyword parameters reserved for internal use (``_kind=1``, ``_masks=None``) out of the signatures."""
    if not signature or "_" not in signature or not callable(obj):
        return None
    import inspect

    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if not any(p.name.startswith("_") for p in params):
        return None
    empty = inspect.Parameter.empty
    kept = [p.replace(annotation=empty) for p in params if not p.name.startswith("_")]
    return str(sig.replace(parameters=kept, return_annotation=empty)), return_annotation


def _lookup(path: str):
    """The object at a dotted path (module prefix imported), or None."""
    try:
        return _generate.resolve(path)
    except (ImportError, AttributeError):
        return None


def _resolve_public_alias(app, env, node, contnode):
    """Resolve a Python reference to an object documented under another (public) path: docstrings
    write ``:func:`reliability``` inside ``negtheory.infonce`` or ``negtheory.bridge.losses.X``,
    while the API pages document ``negtheory.reliability`` and ``negtheory.bridge.X``."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    modname = node.get("py:module") or ""
    clsname = node.get("py:class") or ""
    paths = [f"{modname}.{clsname}.{target}"] if modname and clsname else []
    paths += ([f"{modname}.{target}"] if modname else []) + [target]
    for path in paths:
        obj = _lookup(path)
        if obj is None:
            continue
        public = _generate.PUBLIC_BY_ID.get(id(obj))
        if public and public != target:
            return env.get_domain("py").resolve_xref(
                env, node["refdoc"], app.builder, "obj", public, node, contnode
            )
        return None
    return None


def _viewcode_backlinks(app):
    """Point the "[docs]" links of the source pages (sphinx.ext.viewcode) at anchors that exist.

    viewcode keeps one reference module per source module (the module under which one of its objects was first
    documented) and, per object, the last page that documented it; its back-link is that page with the anchor
    ``<reference module>.<name>``. An object documented both as a re-export (``negtheory.UserQuantiles``) and on
    its module's page (``negtheory.calibration.UserQuantiles``) then got a link to the module page with the
    re-export's anchor, which does not exist there. Here the reference module becomes the source module itself
    when every object of it is documented under its own name (the module pages of the API reference), and each
    back-link goes to the page that documents ``<reference module>.<name>``. Every object stays in viewcode's
    list, so the "[source]" anchors of the API pages are kept. Runs before viewcode's page collection.
    """
    env = app.builder.env
    entries = getattr(env, "_viewcode_modules", None) or {}
    objects = env.get_domain("py").objects
    for modname, entry in list(entries.items()):
        if not entry:
            continue
        code, tags, used, refname = entry
        if used and all(f"{modname}.{name}" in objects for name in used):
            refname = modname
        fixed = {}
        for name, docname in used.items():
            own = objects.get(f"{refname}.{name}")
            fixed[name] = own.docname if own is not None else docname
        entries[modname] = (code, tags, fixed, refname)
    return []


def _fix_dead_backlinks(app, exception):
    """After the build: a "[docs]" link of a source page whose anchor is still missing goes to the object's entry.

    The object is looked up by its name (the anchor's last dotted parts) among the documented objects of the
    linked page, then anywhere; a link that finds none is left as it is (``tests/test_browser.py`` reports it).
    """
    if exception is not None or app.builder.format != "html":
        return
    import html as html_lib
    import os
    import re
    from pathlib import Path

    out = Path(app.outdir)
    objects = app.builder.env.get_domain("py").objects
    by_name: dict[str, list[tuple[str, str]]] = {}
    for full, entry in objects.items():
        parts = full.split(".")
        for i in range(1, len(parts)):
            by_name.setdefault(".".join(parts[i:]), []).append((entry.docname, entry.node_id))
    ids: dict[Path, set[str]] = {}

    def anchors(page: Path) -> set[str]:
        if page not in ids:
            ids[page] = (
                set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))
                if page.exists()
                else set()
            )
        return ids[page]

    link = re.compile(r'(<a class="viewcode-back" href=")([^"#]*)#([^"]+)(")')
    for page in (out / "_modules").rglob("*.html"):
        text = page.read_text(encoding="utf-8")

        def repair(m, page=page):
            target = (page.parent / m.group(2)).resolve()
            anchor = html_lib.unescape(m.group(3))
            if anchor in anchors(target):
                return m.group(0)
            parts = anchor.split(".")
            for i in range(1, len(parts)):
                found = by_name.get(".".join(parts[i:]), [])
                same_page = [f for f in found if (out / f"{f[0]}.html").resolve() == target]
                for docname, node_id in same_page or found:
                    dest = out / f"{docname}.html"
                    rel = os.path.relpath(dest, page.parent).replace(os.sep, "/")
                    return f"{m.group(1)}{rel}#{node_id}{m.group(4)}"
            return m.group(0)

        fixed = link.sub(repair, text)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


def setup(app):
    app.connect("html-collect-pages", _viewcode_backlinks, priority=400)
    app.connect("build-finished", _fix_dead_backlinks)
    app.connect("missing-reference", _resolve_public_alias)
    app.connect("autodoc-process-signature", _hide_private_parameters)
    app.connect("autodoc-process-docstring", _data_without_own_doc, priority=300)
    app.connect("autodoc-process-docstring", _escape_bars, priority=400)
