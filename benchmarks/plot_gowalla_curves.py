"""Test recall@20 against the epoch on Gowalla: the MF-CCL runs of this package beside the released MF-CCL log.

Reads ``notebooks/data/gowalla_benchmark/curves.csv`` (every stored run of ``negtheory reproduce gowalla-benchmark``:
validation and test recall@20 every 5 epochs) and ``released_mfccl_curve.csv`` (the released MF-CCL run's test
recall@20 at each epoch, transcribed from its public BARS log; that run monitors the test split and cuts its learning
rate tenfold when the metric stalls, from epoch 19), and draws the runs that take MF-CCL's training protocol (800
negatives per row, Adam lr 1e-4, batch 256, the cut after epoch 20; then the released model, clipping, schedule,
sampler and positive term, one at a time; the thesis's InfoNCE under the first and the whole protocol, and its DCL,
HCL and BCL under the whole protocol) into ``mfccl_protocol_curves.png`` beside them.

Usage: python benchmarks/plot_gowalla_curves.py [--data notebooks/data/gowalla_benchmark] [--out PNG]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

#: (run, rung) -> label, drawn in this order; runs absent from curves.csv are skipped
RUNS = {
    (
        "cpu_per_row_decay20",
        "ccl-n800-simplex-adam-decay20",
    ): "CCL (MF-CCL's loss), Xavier init, no dropout",
    (
        "cpu_released_model",
        "ccl-n800-simplex-adam-decay20-released-model",
    ): "CCL, released model (init 1e-4, dropout 0.1)",
    (
        "cpu_refit",
        "ccl-n800-simplex-adam-decay20-released-model",
    ): "CCL, released model, refit on all of train (30 epochs)",
    (
        "cpu_clip",
        "ccl-n800-simplex-adam-decay20-released-model-clip10",
    ): "CCL, released model, refit, gradient clipped at 10",
    (
        "cpu_clip",
        "ccl-n800-simplex-adam-cut19-30-released-model-clip10",
    ): "... and the released run's cuts (after 19, 30)",
    (
        "cpu_released_sampler",
        "ccl-n800-simplex-adam-cut19-30-released-model-clip10-released-sampler",
    ): "... and the released sampler (negatives from all items)",
    (
        "cpu_released_sampler_40",
        "ccl-n800-simplex-adam-cut19-30-released-model-clip10-released-sampler-hinge",
    ): "... and the released positive term relu(1 - s), 40 epochs",
    (
        "cpu_per_row_decay20",
        "infonce-n800-simplex-adam-decay20",
    ): "InfoNCE t = 0.1, Xavier init, no dropout",
    (
        "cpu_released_model",
        "infonce-n800-simplex-adam-decay20-released-model",
    ): "InfoNCE, released model",
    (
        "cpu_infonce_released_protocol",
        "infonce-n800-simplex-adam-cut19-30-released-model-clip10-released-sampler",
    ): "InfoNCE under the whole released protocol (as the CCL run above it)",
    **{
        (
            "h200_thesis_losses_released_protocol",
            f"{b}-n800-simplex-adam-cut19-30-released-model-clip10-released-sampler",
        ): (f"{name} under the whole released protocol (H200, 30 epochs)")
        for b, name in (
            ("dcl-tau0.001", "DCL (τ⁺ = 0.001)"),
            ("hcl-tau0.001", "HCL (τ⁺ = 0.001)"),
            ("bcl", "BCL"),
        )
    },
}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path("notebooks/data/gowalla_benchmark"))
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args(argv)
    curves = pd.read_csv(a.data / "curves.csv")
    released = pd.read_csv(a.data / "released_mfccl_curve.csv")
    fig, ax = plt.subplots(figsize=(8, 7))
    ax.plot(
        released.epoch,
        released.test_recall20,
        color="k",
        lw=1.5,
        label="MF-CCL's released run (BARS log, test-monitored cut)",
    )
    ax.axhline(0.1837, color="k", ls=":", lw=1, label="published MF-CCL 0.1837")
    styles = [
        "C0-o",
        "C0--s",
        "C2-.^",
        "C1-D",
        "C4:v",
        "C5-P",
        "C6--X",
        "C3-o",
        "C3--s",
        "C3-.X",
        "C8-.*",
        "C9-.h",
        "C7-.p",
    ]
    for (run, rung), style in zip(RUNS, styles):
        c = curves[(curves.run == run) & (curves.rung == rung)].sort_values("epoch")
        if len(c):
            ax.plot(c.epoch, c.test_recall20, style, ms=4, label=RUNS[(run, rung)])
    ax.axvline(20, color="grey", lw=0.8, ls="--")
    ax.text(20.3, 0.1865, "lr 1e-4 → 1e-5 (the -decay20 runs)", color="grey", fontsize=8)
    ax.set(
        xlabel="epoch",
        ylabel="test recall@20",
        ylim=(0.13, 0.19),
        xlim=(0, 41),
        title="MF on Gowalla with MF-CCL's protocol (800 negatives per row, seed 0)",
    )
    # below the axes: inside, it hides the curves between epochs 10 and 20
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    ax.grid(alpha=0.3)
    out = a.out or a.data / "mfccl_protocol_curves.png"
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
