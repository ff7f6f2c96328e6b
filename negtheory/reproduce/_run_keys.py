"""The trainer keywords of the reproductions' run keys as :func:`negtheory.training.fit` arguments (private).

The run keys of ``negtheory reproduce thesis-tables`` (:mod:`negtheory.reproduce.thesis_plan`) name a
run's settings with flat keywords — the variants' dicts (``oracle_levels``, ``srns_alpha``,
``lam_schedule``, ``batch_size``, ``reg``, ...) and the ``"name=value"`` items of a key
(``"sampler=dns"``, ``"tau_plus=0.3"``, a ``--tune-grid`` candidate's ``pns_power``). The keys name
the cached and committed results, so their vocabulary stays; :func:`sgd_fit_args` (BPR-MF by batch-1
SGD, thesis ch. 4) and :func:`minibatch_fit_args` (mini-batch MF / LightGCN, ch. 5-6) turn a
keyword set into the specs of :mod:`negtheory.training.specs`, each keyword to the spec field the
old flat-keyword trainers gave it, so a run key trains to the numbers it always had, bit for bit.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from ..training import specs as S
from ..training.names import loss_spec, sampler_spec

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "SGD_KEYWORDS",
    "MINIBATCH_KEYWORDS",
    "LIGHTGCN_KEYWORDS",
    "sgd_fit_args",
    "minibatch_fit_args",
]

#: the keywords of a batch-1 SGD run key and their defaults (the thesis's BPR-MF of ch. 4, §4.5.1.2; ``init_std``
#: None is the engine's N(0, 0.1²), the released code's)
SGD_KEYWORDS: Mapping[str, Any] = MappingProxyType(
    dict(
        sampler="rns",
        dim=32,
        lr=0.01,
        reg=0.01,
        epochs=100,
        candidates=5,
        lam=5.0,
        lam_schedule=None,
        warm_rns_epochs=0,
        prior="popularity",
        loss="bpr",
        n_negatives=1,
        oracle_levels=(0.64, 0.04),
        ecdf="negatives",
        bns_f_sample=None,
        rank_scale=None,
        pns_power=0.75,
        srns_memory=8,
        srns_candidates=64,
        srns_alpha=5.0,
        srns_warmup=50.0,
        srns_tau=10.0,
        srns_window=5,
        init_std=None,
        shuffle="epoch",
        eval_every=1,
        topk=(5, 10, 20),
        eval_on="test",
    )
)
#: the keywords of a mini-batch run key and their defaults (the released code of ch. 5-6, Tables 5.2 and 6.3)
MINIBATCH_KEYWORDS: Mapping[str, Any] = MappingProxyType(
    dict(
        loss="infonce",
        model="mf",
        n_layers=1,
        propagation="full",
        dim=32,
        epochs=200,
        batch_size=1024,
        optimizer="adam",
        lr=1e-3,
        weight_decay=1e-5,
        reg="weight_decay",
        lr_milestones=(100,),
        lr_gamma=0.1,
        negatives=5,
        extra_positives=5,
        sampler="rns",
        bns_candidates=5,
        bns_lam=5.0,
        bns_f_sample=None,
        pns_power=0.75,
        temperature=1.0,
        tau_plus=0.06,
        hcl_beta=0.5,
        alpha=0.55,
        beta=0.6,
        dpl_eps=1e-2,
        eval_every=1,
        topk=(5, 10, 20),
        patience=None,
        monitor=None,
    )
)
#: the thesis's LightGCN settings (§4.5.1.2) over :data:`MINIBATCH_KEYWORDS`: d = 32, one layer, Adam lr 0.01 times 0.1
#: every 20 epochs, weight decay 1e-5, 100 epochs, batch 128 (the specs of :data:`negtheory.training.THESIS_LIGHTGCN`)
LIGHTGCN_KEYWORDS: Mapping[str, Any] = MappingProxyType(
    dict(
        model="lightgcn",
        n_layers=1,
        dim=32,
        optimizer="adam",
        lr=0.01,
        lr_milestones=(20, 40, 60, 80),
        lr_gamma=0.1,
        weight_decay=1e-5,
        reg="weight_decay",
        epochs=100,
        batch_size=128,
    )
)


def _merged(defaults: Mapping[str, Any], given: Mapping[str, Any], what: str) -> dict[str, Any]:
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise TypeError(
            f"{what} run key: unknown keyword(s) {', '.join(unknown)} (known: {', '.join(sorted(defaults))})"
        )
    return {**defaults, **given}


def sgd_fit_args(**keywords: Any) -> dict[str, Any]:
    """:func:`negtheory.training.fit`'s arguments (specs, epochs, engine) of a batch-1 SGD run key's keywords.

    Parameters
    ----------
    **keywords
        Keywords of :data:`SGD_KEYWORDS` (the others keep their defaults). ``lam_schedule`` may be
        a callable of the 0-based epoch or one λ per epoch; it and ``warm_rns_epochs`` are BNS's.

    Returns
    -------
    dict
        ``model``, ``loss``, ``sampler``, ``optimizer``, ``epochs``, ``evaluation`` and ``engine="sgd"``.

    Raises
    ------
    TypeError
        An unknown keyword.
    ValueError
        A choice outside its values, or a combination the batch-1 engine does not train.

    Examples
    --------
    >>> from negtheory.reproduce._run_keys import sgd_fit_args
    >>> sgd_fit_args(sampler="dns", candidates=3, epochs=2)["sampler"]
    DNS(candidates=3)
    """
    k = _merged(SGD_KEYWORDS, keywords, "batch-1 SGD")
    sampler, loss, n = k["sampler"], k["loss"], k["n_negatives"]
    epochs = int(k["epochs"])
    lams = k["lam_schedule"]
    if callable(lams):
        lams = tuple(float(lams(t)) for t in range(epochs))
    if sampler != "bns" and (lams is not None or k["warm_rns_epochs"]):
        raise ValueError(
            f"lam_schedule and warm_rns_epochs are BNS's (BNS-1, BNS-2), got sampler={sampler!r}"
        )
    if k["bns_f_sample"] is not None and sampler != "bns":
        raise ValueError(f"bns_f_sample needs sampler='bns', got {sampler!r}")
    samplers = {
        "rns": lambda: S.RNS(),
        "pns": lambda: S.PNS(power=k["pns_power"]),
        "dns": lambda: S.DNS(candidates=k["candidates"]),
        "aobpr": lambda: S.AOBPR(rank_scale=k["rank_scale"]),
        "bns": lambda: S.BNS(
            candidates=k["candidates"],
            lam=k["lam"],
            prior=k["prior"],
            oracle_levels=k["oracle_levels"],
            ecdf=k["ecdf"],
            f_sample=k["bns_f_sample"],
            lam_schedule=lams,
            warm_rns_epochs=k["warm_rns_epochs"],
        ),
        "srns": lambda: S.SRNS(
            memory=k["srns_memory"],
            candidates=k["srns_candidates"],
            alpha=k["srns_alpha"],
            warmup=k["srns_warmup"],
            tau=k["srns_tau"],
            window=k["srns_window"],
        ),
    }
    if sampler not in samplers:
        raise ValueError(f"sampler must be one of {tuple(samplers)}, got {sampler!r}")
    if loss == "bpr" and n != 1:
        raise ValueError(f"n_negatives must be 1 with loss 'bpr', got {n}")
    losses = {
        "bpr": lambda: S.BPR(),
        "bce": lambda: S.BCE(negatives=n),
        "infonce": lambda: S.InfoNCE(negatives=n),
    }
    if loss not in losses:
        raise ValueError(f"loss must be one of {tuple(losses)}, got {loss!r}")
    return dict(
        model=S.MF(dim=k["dim"], init_std=k["init_std"]),
        loss=losses[loss](),
        sampler=samplers[sampler](),
        optimizer=S.SGD(lr=k["lr"], weight_decay=k["reg"], shuffle=k["shuffle"]),
        epochs=epochs,
        evaluation=S.Evaluation(every=k["eval_every"], ks=tuple(k["topk"]), on=k["eval_on"]),
        engine="sgd",
    )


def minibatch_fit_args(**keywords: Any) -> dict[str, Any]:
    """:func:`negtheory.training.fit`'s arguments (specs, epochs, engine) of a mini-batch run key's keywords.

    Parameters
    ----------
    **keywords
        Keywords of :data:`MINIBATCH_KEYWORDS` (the others keep their defaults; the thesis's
        LightGCN is ``**LIGHTGCN_KEYWORDS``). The loss reads its own hyper-parameters only
        (``alpha`` and ``beta`` BCL's, ``hcl_beta`` HCL's, ...).

    Returns
    -------
    dict
        ``model``, ``loss``, ``sampler``, ``optimizer``, ``epochs``, ``evaluation`` and ``engine="torch"``.

    Raises
    ------
    TypeError
        An unknown keyword.
    ValueError
        A choice outside its values.

    Examples
    --------
    >>> from negtheory.reproduce._run_keys import LIGHTGCN_KEYWORDS, minibatch_fit_args
    >>> a = minibatch_fit_args(loss="dpl", sampler="dns", tau_plus=0.3)
    >>> a["loss"].tau_plus, a["sampler"], a["optimizer"].batch_size
    (0.3, DNS(candidates=5), 1024)
    >>> minibatch_fit_args(loss="bpr", **LIGHTGCN_KEYWORDS)["model"]
    LightGCN(dim=32, layers=1, propagation='full')
    """
    k = _merged(MINIBATCH_KEYWORDS, keywords, "mini-batch")
    if k["optimizer"] not in ("adam", "sgd"):
        raise ValueError(f"optimizer must be 'adam' or 'sgd', got {k['optimizer']!r}")
    if k["model"] not in ("mf", "lightgcn"):
        raise ValueError(f"model must be 'mf' or 'lightgcn', got {k['model']!r}")
    if k["model"] == "mf" and k["propagation"] != "full":
        raise ValueError(f"propagation={k['propagation']!r} needs model='lightgcn'")
    if k["bns_f_sample"] is not None and k["sampler"] != "bns":
        raise ValueError(f"bns_f_sample needs sampler='bns', got {k['sampler']!r}")
    loss = loss_spec(
        k["loss"],
        k["negatives"],
        k["extra_positives"],
        k["temperature"],
        k["tau_plus"],
        k["hcl_beta"],
        k["alpha"],
        k["beta"],
        k["dpl_eps"],
    )
    sampler = sampler_spec(
        k["sampler"], k["bns_candidates"], k["bns_lam"], k["bns_f_sample"], k["pns_power"]
    )
    opt_cls = S.Adam if k["optimizer"] == "adam" else S.SGD
    optimizer = opt_cls(
        lr=k["lr"],
        weight_decay=k["weight_decay"],
        batch_size=k["batch_size"],
        milestones=tuple(sorted(k["lr_milestones"])),
        gamma=k["lr_gamma"],
        penalty=k["reg"],
    )
    if k["model"] == "lightgcn":
        model: S.Spec = S.LightGCN(dim=k["dim"], layers=k["n_layers"], propagation=k["propagation"])
    else:
        model = S.MF(dim=k["dim"])
    evaluation = S.Evaluation(
        every=k["eval_every"], ks=tuple(k["topk"]), monitor=k["monitor"], patience=k["patience"]
    )
    return dict(
        model=model,
        loss=loss,
        sampler=sampler,
        optimizer=optimizer,
        epochs=int(k["epochs"]),
        evaluation=evaluation,
        engine="torch",
    )
