"""Execute the notebooks in place so that the committed copies carry their outputs (and plots).

Usage (from the repository root)::

    python notebooks/sync.py                 # every notebooks/*.ipynb
    python notebooks/sync.py 01 06           # only the notebooks whose names start with 01 or 06
    python notebooks/sync.py --check         # execute into memory; exit 1 if a figure cell shows no image

Each notebook runs with its own folder as the working directory, on the ``python3`` kernel of the
current environment. Volatile metadata (execution timestamps, the kernel's Python patch version) is
removed so that a re-run without code changes gives a small diff: only what the code prints changes
(``%time`` lines, for instance). Figures are embedded as PNG images at the dpi set in each
notebook's first cell (120 dpi, sharp at full width: about 20-90 kB per figure).

Needs the ``notebooks`` extra (``nbclient``, ``nbformat``, ``ipykernel``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: a code cell whose source matches this draws a figure and must display it as an image/png output
FIGURE_CELL = re.compile(r"(?:\bfig_\w+\(|\bplot_\w+\(|\bnew_figure\(|display\(fig\))")


def figure_cells_without_image(nb) -> list[int]:
    """Indices of code cells that draw a figure (by their source, or a ``<Figure ...>`` text output)
    but have no ``image/png`` output."""
    bad = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        has_png = any("image/png" in o.get("data", {}) for o in outputs)
        shows_figure_text = any(
            str(o.get("data", {}).get("text/plain", "")).startswith("<Figure size")
            and "image/png" not in o.get("data", {})
            for o in outputs
        )
        draws = bool(FIGURE_CELL.search(cell.source))
        if shows_figure_text or (draws and not has_png):
            bad.append(i)
    return bad


def count_images(nb) -> int:
    """Number of ``image/png`` outputs in a notebook."""
    return sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    )


def strip_volatile(nb) -> None:
    """Remove execution timestamps and version details that change between runs or machines, and merge
    consecutive stream outputs (how the kernel splits printed text into messages depends on timing)."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("ExecuteTime", None)
        if cell.cell_type != "code":
            continue
        merged = []
        for out in cell.get("outputs", []):
            prev = merged[-1] if merged else None
            if (
                prev is not None
                and out.get("output_type") == "stream"
                and prev.get("output_type") == "stream"
                and prev.get("name") == out.get("name")
            ):
                prev["text"] = "".join(prev["text"]) + "".join(out["text"])
            else:
                merged.append(out)
        cell.outputs = merged
    info = nb.metadata.get("language_info")
    if info is not None:
        nb.metadata["language_info"] = {
            k: v for k, v in info.items() if k in ("name", "file_extension", "mimetype")
        }
    nb.metadata.pop("widgets", None)


def execute(path: Path, timeout: int = 900):
    """Execute one notebook (in its own folder) and return the executed notebook node."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    strip_volatile(nb)
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "prefixes", nargs="*", help="run only notebooks whose file names start with one of these"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="execute without writing; fail if a figure cell has no image",
    )
    parser.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    args = parser.parse_args(argv)
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    import nbformat

    paths = sorted(HERE.glob("*.ipynb"))
    if args.prefixes:
        paths = [p for p in paths if p.name.startswith(tuple(args.prefixes))]
    if not paths:
        print("no notebook matches", args.prefixes, file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        t0 = time.perf_counter()
        nb = execute(path, timeout=args.timeout)
        bad = figure_cells_without_image(nb)
        if bad:
            status = 1
            print(f"{path.name}: figure cell(s) {bad} show no image/png", file=sys.stderr)
        if not args.check:
            nbformat.write(nb, path)
        size = path.stat().st_size / 1024
        print(
            f"{path.name}: {count_images(nb)} images, {size:.0f} kB, {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
