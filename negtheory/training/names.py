"""Loss and sampler specs by name: the vocabulary of the command line and of the reproductions' run keys.

``negtheory bridge train --loss dcl --tau-plus ...`` and a run key such as ``("mf", "dpl",
"sampler=dns", "tau_plus=0.3")`` name a loss and its hyper-parameters as flat values;
:func:`loss_spec` and :func:`sampler_spec` turn them into the specs of
:mod:`negtheory.training.specs`, taking only the values each loss or sampler reads.
"""

from __future__ import annotations

from . import specs as S

__all__ = ["loss_spec", "sampler_spec", "LOSS_NAMES", "SAMPLER_NAMES"]

#: the loss names (``bcl_released``: ``BCL(form="released")``)
LOSS_NAMES = ("bpr", "bce", "infonce", "dcl", "hcl", "dpl", "bcl", "bcl_released", "ccl")
#: the sampler names (``shared_uniform``: :class:`~negtheory.training.specs.SharedUniform`, ``catalogue_uniform``:
#: :class:`~negtheory.training.specs.CatalogueUniform`)
SAMPLER_NAMES = ("rns", "pns", "dns", "bns", "aobpr", "srns", "shared_uniform", "catalogue_uniform")


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
    """The spec of the loss ``name`` (:data:`LOSS_NAMES`) with the hyper-parameters it reads.

    Parameters
    ----------
    name : str
        One of :data:`LOSS_NAMES`.
    negatives, extra_positives : int
        N and M (the losses that read them).
    temperature, tau_plus, hcl_beta, alpha, beta, dpl_eps : float
        The hyper-parameters, each read by the losses that have it (``hcl_beta``: HCL's β;
        ``alpha``, ``beta``: BCL's; ``dpl_eps``: DPL's ``eps``).

    Returns
    -------
    Spec
        The loss spec.

    Examples
    --------
    >>> from negtheory.training.names import loss_spec
    >>> loss_spec("dcl", tau_plus=0.1)
    DCL(negatives=5, extra_positives=5, tau_plus=0.1, temperature=1.0)
    """
    t, tp, n, m = temperature, tau_plus, negatives, extra_positives
    if name == "bpr":
        return S.BPR(temperature=t)
    if name == "bce":
        return S.BCE(negatives=n)
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
    if name == "ccl":
        return S.CCL(negatives=n)
    raise ValueError(f"loss must be one of {', '.join(LOSS_NAMES)}, got {name!r}")


def sampler_spec(
    name: str,
    candidates: int = 5,
    lam: float = 5.0,
    f_sample: int | None = None,
    pns_power: float = 0.75,
) -> S.Spec:
    """The spec of the sampler ``name`` (:data:`SAMPLER_NAMES`) with the options it reads.

    Parameters
    ----------
    name : str
        One of :data:`SAMPLER_NAMES`.
    candidates : int
        DNS's and BNS's candidates.
    lam : float
        BNS's λ.
    f_sample : int, optional
        BNS's ``f_sample``.
    pns_power : float
        PNS's exponent.

    Returns
    -------
    Spec
        The sampler spec.

    Examples
    --------
    >>> from negtheory.training.names import sampler_spec
    >>> sampler_spec("bns", candidates=10)
    BNS(candidates=10, lam=5.0, prior='popularity', oracle_levels=(0.64, 0.04), ecdf='negatives', f_sample=None, lam_schedule=None, warm_rns_epochs=0)
    """
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
    if name == "shared_uniform":
        return S.SharedUniform()
    if name == "catalogue_uniform":
        return S.CatalogueUniform()
    raise ValueError(f"sampler must be one of {', '.join(SAMPLER_NAMES)}, got {name!r}")
