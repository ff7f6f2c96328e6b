"""The old trainers' loss and sampler names as specs (private; ``fit_mf``, ``fit_bpr_sgd`` and the CLI share it).

``fit_mf(loss="dcl", tau_plus=...)`` and ``negtheory bridge train --loss dcl --tau-plus ...`` name
a loss and its hyper-parameters as flat values; :func:`loss_spec` and :func:`minibatch_sampler_spec`
turn them into the specs of :mod:`negtheory.training.specs`, taking only the values each loss or
sampler reads.
"""

from __future__ import annotations

from . import specs as S

__all__ = ["loss_spec", "minibatch_sampler_spec"]


def loss_spec(
    name: str,
    negatives: int = 5,
    extra_positives: int = 5,
    temperature: float = 1.0,
    tau_plus: float = 0.06,
    hcl_beta: float = 0.5,
    alpha: float = 0.55,
    beta: float = 0.6,
    dpl_eps: float = 1e-2,
) -> S.Spec:
    """The spec of the mini-batch loss ``name`` (``fit_mf``'s :data:`~negtheory.bridge.recommend.LOSSES`)."""
    t, tp, n, m = temperature, tau_plus, negatives, extra_positives
    if name == "bpr":
        return S.BPR(temperature=t)
    if name == "infonce":
        return S.InfoNCE(negatives=n, temperature=t)
    if name == "dcl":
        return S.DCL(negatives=n, extra_positives=m, tau_plus=tp, temperature=t)
    if name == "hcl":
        return S.HCL(negatives=n, extra_positives=m, tau_plus=tp, beta=hcl_beta, temperature=t)
    if name == "dpl":
        return S.DPL(negatives=n, extra_positives=m, tau_plus=tp, eps=dpl_eps, temperature=t)
    if name in ("bcl", "bcl_released"):
        form = "thesis" if name == "bcl" else "released"
        return S.BCL(negatives=n, alpha=alpha, beta=beta, tau_plus=tp, temperature=t, form=form)
    raise ValueError(f"loss must be one of bpr, infonce, dcl, hcl, dpl, bcl, bcl_released, got {name!r}")


def minibatch_sampler_spec(
    name: str, candidates: int = 5, lam: float = 5.0, f_sample: int | None = None, pns_power: float = 0.75
) -> S.Spec:
    """The spec of the mini-batch sampler ``name`` (``fit_mf``'s ``rns``, ``pns``, ``dns``, ``bns``, ``aobpr``, ``srns``)."""
    if name == "rns":
        return S.RNS()
    if name == "pns":
        return S.PNS(power=pns_power)
    if name == "dns":
        return S.DNS(candidates=candidates)
    if name == "bns":
        return S.BNS(candidates=candidates, lam=lam, f_sample=f_sample)
    if name == "aobpr":
        return S.AOBPR()
    if name == "srns":
        return S.SRNS()
    raise ValueError(f"sampler must be one of rns, pns, dns, bns, aobpr, srns, got {name!r}")
