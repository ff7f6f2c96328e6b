"""A fingerprint of the torch trainer: every loss x MF / LightGCN x RNS / DNS / BNS, 2 epochs of Adam, as JSON.

Run it on two commits and compare the files: equal files mean the trainer's numbers did not change
(the losses of each epoch and the sum of the final user embeddings, bit for bit). Used to check
that moving the losses into one registry (issue 67) changed no number::

    git worktree add /tmp/before <commit>
    PYTHONPATH=/tmp/before python benchmarks/trainer_fingerprint.py /tmp/before.json
    python benchmarks/trainer_fingerprint.py /tmp/after.json
    cmp /tmp/before.json /tmp/after.json

About a minute on one core (54 runs on a 30 x 50 random split).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from negtheory.recsys import load_split
from negtheory.training import (
    BCL,
    BNS,
    BPR,
    CCL,
    DCL,
    DNS,
    DPL,
    HCL,
    MF,
    RNS,
    Adam,
    Evaluation,
    InfoNCE,
    LightGCN,
    fit,
)


def fingerprint() -> dict[str, list[float]]:
    """The losses per epoch and the final user embeddings' sum of each run, by run name."""
    rng = np.random.default_rng(0)
    pairs = np.unique(rng.integers(0, [30, 50], size=(700, 2)), axis=0)
    data = load_split(pairs[:500], pairs[500:])
    losses = {
        "bpr": BPR(),
        "bpr3": BPR(negatives=3, temperature=0.5),
        "infonce": InfoNCE(temperature=0.3),
        "dcl": DCL(temperature=0.5),
        "hcl": HCL(),
        "dpl": DPL(),
        "bcl": BCL(),
        "bclr": BCL(form="released"),
        "ccl": CCL(negatives=8, negative_weight=5.0),
        "cclh": CCL(negatives=8, positive_hinge=True),
    }
    out = {}
    for name, loss in losses.items():
        models = (
            {"mf": MF(dim=8, similarity="cosine")}
            if name.startswith("ccl")
            else {"mf": MF(dim=8), "lgcn": LightGCN(dim=8)}
        )
        for mn, model in models.items():
            for sn, sampler in {"rns": RNS(), "dns": DNS(), "bns": BNS()}.items():
                r = fit(
                    data,
                    model=model,
                    loss=loss,
                    sampler=sampler,
                    optimizer=Adam(lr=0.01, batch_size=64),
                    epochs=2,
                    rng=3,
                    evaluation=Evaluation(ks=(5,)),
                )
                out[f"{name}-{mn}-{sn}"] = [h["loss"] for h in r.history] + [
                    float(r.user_emb.sum())
                ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the JSON file to write")
    args = parser.parse_args()
    fp = fingerprint()
    with open(args.out, "w") as f:
        json.dump(fp, f, indent=1, sort_keys=True)
    print(f"wrote {len(fp)} runs to {args.out}")


if __name__ == "__main__":
    main()
