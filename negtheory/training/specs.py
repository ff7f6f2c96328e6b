r"""What a training run is made of, as small frozen specs: model, loss, sampler, optimizer, evaluation.

Each spec is a frozen dataclass validated on construction (a ``ValueError`` or ``TypeError`` that
names the spec and the parameter, e.g. ``BNS.candidates``), compared by value, and serialised
with ``to_dict()`` / ``to_json()`` (a ``"kind"`` tag holds the class name) and read back by
:func:`spec_from_dict` / :func:`spec_from_json` (or ``Cls.from_dict``). One vocabulary serves
both engines of :func:`negtheory.training.fit` — the numba batch-1 SGD engine of thesis ch. 4 and
the torch mini-batch engine of ch. 5-6 — so ``candidates`` is ``candidates`` and the negatives of
a loss are its ``negatives`` whichever engine runs them.

Models: :class:`MF`, :class:`LightGCN`. Losses: :class:`BPR`, :class:`BCE`, :class:`InfoNCE`,
:class:`DCL`, :class:`HCL`, :class:`DPL`, :class:`BCL` (and :class:`CCL`, SimpleX's, the Gowalla
ladder's reference). Samplers: :class:`RNS`, :class:`PNS`,
:class:`DNS`, :class:`BNS`, :class:`AOBPR`, :class:`SRNS` (thesis §4.5.1.2; the stateless ones draw
for a user's own loop through ``sample``), :class:`SharedUniform` (one set of catalogue-uniform
negatives per mini-batch, shared by its rows) and :class:`CatalogueUniform` (catalogue-uniform
negatives per row, MF-CCL's released sampler). Optimizers: :class:`SGD`, :class:`Adam`. Evaluation:
:class:`Evaluation`.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from dataclasses import fields as _dc_fields
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._validation import int_scalar, real_scalar
from .negatives import BoundSampler, Sampler, _BoundBNS, _BoundOnDevice, _BoundSRNS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._typing import RNGLike
    from ..recsys.interactions import Interactions

__all__ = [
    "MF",
    "LightGCN",
    "BPR",
    "BCE",
    "InfoNCE",
    "DCL",
    "HCL",
    "DPL",
    "BCL",
    "CCL",
    "RNS",
    "PNS",
    "DNS",
    "BNS",
    "AOBPR",
    "SRNS",
    "SharedUniform",
    "CatalogueUniform",
    "SGD",
    "Adam",
    "Evaluation",
    "Sampler",
    "BoundSampler",
    "spec_from_dict",
    "spec_from_json",
]

#: kind tag -> spec class (filled by Spec.__init_subclass__)
_REGISTRY: dict[str, type[Spec]] = {}


def fields(spec: Any) -> tuple[dataclasses.Field, ...]:
    """The dataclass fields of a spec (instance or class)."""
    return _dc_fields(spec)


def _plain(value: Any) -> Any:
    """A JSON-ready form of a field value: tuples and arrays become lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


class Spec:
    """Base of the specs: dict / JSON round trip and value equality.

    Each spec is a ``dataclass(frozen=True, eq=False)``: equality and hashing go through
    :meth:`to_dict`, which also covers a BNS prior given as an array (a dataclass's own ``==`` on
    an ndarray field is ambiguous). Public subclasses are registered under their class name, the
    ``"kind"`` tag of :func:`spec_from_dict`.
    """

    #: the role of the spec ("model", "loss", "sampler", "optimizer", "evaluation")
    role: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__name__.startswith("_"):
            _REGISTRY[cls.__name__] = cls

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(
            self, name, value
        )  # frozen: normalised values are written once, in __post_init__

    def _int(self, name: str, lo: int | None = None) -> None:
        self._set(name, int_scalar(f"{type(self).__name__}.{name}", getattr(self, name), lo))

    def _real(self, name: str, lo=None, hi=None, **kw) -> None:
        self._set(
            name, real_scalar(f"{type(self).__name__}.{name}", getattr(self, name), lo, hi, **kw)
        )

    def _bool(self, name: str) -> None:
        value = getattr(self, name)
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{type(self).__name__}.{name} must be True or False, got {value!r}")
        self._set(name, bool(value))

    def _choice(self, name: str, options: Sequence[str]) -> None:
        if getattr(self, name) not in options:
            raise ValueError(
                f"{type(self).__name__}.{name} must be one of {tuple(options)}, got {getattr(self, name)!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The spec as a JSON-ready dict.

        Returns
        -------
        dict
            ``{"kind": class name, field: value, ...}`` (tuples and arrays as lists).
        """
        return {
            "kind": type(self).__name__,
            **{f.name: _plain(getattr(self, f.name)) for f in fields(self)},
        }

    def to_json(self) -> str:
        """The spec as a JSON string.

        Returns
        -------
        str
            ``json.dumps(self.to_dict())``.
        """
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Spec:
        """The spec written by :meth:`to_dict`.

        Parameters
        ----------
        d : dict
            ``{"kind": name, field: value, ...}``; the kind must be this class.

        Returns
        -------
        Spec
            The validated spec.
        """
        out = spec_from_dict(d)
        if not isinstance(out, cls):
            raise ValueError(f"kind {d.get('kind')!r} is not a {cls.__name__}")
        return out

    def replace(self, **changes: Any) -> Spec:
        """A copy with some fields changed (validated again).

        Parameters
        ----------
        **changes
            New values of fields, by name.

        Returns
        -------
        Spec
            The new spec.
        """
        spec: Any = self  # every Spec subclass is a dataclass
        return dataclasses.replace(spec, **changes)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Spec)
            and type(other) is type(self)
            and self.to_dict() == other.to_dict()
        )

    def __hash__(self) -> int:
        return hash(self.to_json())

    def __repr__(self) -> str:
        parts = []
        for f in fields(self):
            v = getattr(self, f.name)
            parts.append(
                f"{f.name}=array{v.shape}" if isinstance(v, np.ndarray) else f"{f.name}={v!r}"
            )
        return f"{type(self).__name__}({', '.join(parts)})"


def spec_from_dict(d: dict[str, Any]) -> Spec:
    """The spec of a ``to_dict()`` dict (or of a dict written by hand with a ``"kind"``).

    Parameters
    ----------
    d : dict
        ``{"kind": name, field: value, ...}``; absent fields take their defaults, unknown ones
        are an error.

    Returns
    -------
    Spec
        The validated spec.

    Examples
    --------
    >>> from negtheory.training import BNS, spec_from_dict
    >>> spec_from_dict({"kind": "BNS", "candidates": 10}) == BNS(candidates=10)
    True
    """
    if not isinstance(d, dict) or "kind" not in d:
        raise ValueError(f"a spec dict needs a 'kind' (one of {sorted(_REGISTRY)}), got {d!r}")
    kind = d["kind"]
    if kind not in _REGISTRY:
        raise ValueError(f"kind must be one of {sorted(_REGISTRY)}, got {kind!r}")
    cls = _REGISTRY[kind]
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(d) - names - {"kind"})
    if unknown:
        raise ValueError(
            f"{kind} has no parameter {', '.join(unknown)} (its parameters: {', '.join(sorted(names))})"
        )
    kw = {
        k: tuple(v) if isinstance(v, list) and k != "prior" else v
        for k, v in d.items()
        if k != "kind"
    }
    return cls(**kw)


def spec_from_json(text: str) -> Spec:
    """The spec of a ``to_json()`` string (:func:`spec_from_dict`).

    Parameters
    ----------
    text : str
        The JSON text.

    Returns
    -------
    Spec
        The validated spec.

    Examples
    --------
    >>> from negtheory.training import Adam, spec_from_json
    >>> spec_from_json(Adam(lr=0.01, milestones=(20, 40)).to_json())
    Adam(lr=0.01, weight_decay=1e-05, batch_size=1024, milestones=(20, 40), gamma=0.1, penalty='weight_decay', max_grad_norm=None)
    """
    return spec_from_dict(json.loads(text))


# ------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MF(Spec):
    r"""Matrix factorisation x_ui = <w_u, h_i> (thesis §4.5.1.2, d = 32).

    Parameters
    ----------
    dim : int
        Embedding dimension d, at least 1 (default 32, the thesis's).
    init_std : float, optional
        Initial embeddings N(0, init_std²). None: each engine's default, the batch-1 SGD engine's
        0.1 (the released code's √reg) and the mini-batch engine's Xavier normal N(0, 2 / (d + n))
        (released code of ch. 5-6). MF-CCL's released code starts from N(0, 1e-4²).
    similarity : {"dot", "cosine"}
        The score: the inner product (default, the thesis's) or the cosine
        :math:`x_{ui} = \langle w_u, h_i\rangle / (\lVert w_u\rVert \lVert h_i\rVert)`, in [-1, 1]
        (mini-batch engine; with a loss temperature t the logits are x_ui / t, as in MF-CCL /
        SimpleX and most contrastive recommenders).
    dropout : float
        Dropout rate p in [0, 1) on the scored user vector during training (mini-batch engine,
        negatives drawn per row): each coordinate of :math:`w_u` (of :math:`w_u / \lVert w_u\rVert`
        for the cosine) is kept with probability 1 - p and scaled by 1 / (1 - p), as MF-CCL's
        released code does (its ``embedding_dropout``, 0.1). Evaluation scores without it. Default 0.

    Examples
    --------
    >>> from negtheory.training import MF
    >>> MF(dim=16).to_dict()
    {'kind': 'MF', 'dim': 16, 'init_std': None, 'similarity': 'dot', 'dropout': 0.0}
    """

    role: ClassVar[str] = "model"
    dim: int = 32
    init_std: float | None = None
    similarity: str = "dot"
    dropout: float = 0.0

    def __post_init__(self):
        self._int("dim", 1)
        if self.init_std is not None:
            self._real("init_std", 0.0, lo_open=True)
        self._choice("similarity", ("dot", "cosine"))
        self._real("dropout", 0.0, 1.0, hi_open=True)


@dataclass(frozen=True, eq=False)
class LightGCN(Spec):
    """LightGCN (He et al., SIGIR 2020) as the thesis trains it (§4.5.1.2: d = 32, one layer).

    Parameters
    ----------
    dim : int
        Embedding dimension, at least 1 (default 32).
    layers : int
        Propagation layers K >= 0 (default 1, the thesis's).
    propagation : {"full", "batch"}
        ``"full"`` (default) propagates the whole graph at each step, as the LightGCN release does;
        ``"batch"`` computes the last layer only for the step's users and items: the same scores and
        gradients to float32 rounding, 5-8x faster per step on Gowalla at batch 128 with one layer
        (:class:`negtheory.bridge.recommend.LightGCN`, :mod:`negtheory.bridge.graph_rows`).

    Examples
    --------
    >>> from negtheory.training import LightGCN
    >>> LightGCN(layers=2)
    LightGCN(dim=32, layers=2, propagation='full')
    """

    role: ClassVar[str] = "model"
    dim: int = 32
    layers: int = 1
    propagation: str = "full"

    def __post_init__(self):
        self._int("dim", 1)
        self._int("layers", 0)
        self._choice("propagation", ("full", "batch"))


# ------------------------------------------------------------------------------------------
# losses: N negatives per pair (``negatives``), M extra positives, temperature t
# ------------------------------------------------------------------------------------------
class _Loss(Spec):
    role: ClassVar[str] = "loss"
    #: the negatives per pair the loss reads (BPR: one)
    negatives: int

    def _common(self) -> None:
        names = {f.name for f in fields(self)}
        if "negatives" in names:
            self._int("negatives", 1)
        if "extra_positives" in names:
            self._int("extra_positives", 1)
        if "temperature" in names:
            self._real("temperature", 0.0, lo_open=True)
        if "tau_plus" in names:
            self._real("tau_plus", 0.0, 1.0, lo_open=True, hi_open=True)


@dataclass(frozen=True, eq=False)
class BPR(_Loss):
    r"""BPR, :math:`-\ln\sigma(x_{ui} - x_{uj})` (thesis eq. 4.1), averaged over N negatives.

    Parameters
    ----------
    negatives : int
        N negatives per pair, at least 1 (default 1, the thesis's; the loss is
        :math:`\frac1N\sum_j -\ln\sigma(x_{ui} - x_{uj})`, e.g. N = 300 in the BARS benchmark's
        MF-BPR; N > 1 on the mini-batch engine only).
    temperature : float
        Scores divided by t > 0 (mini-batch engine; default 1).

    Examples
    --------
    >>> from negtheory.training import BPR
    >>> BPR().negatives, BPR(negatives=300).negatives
    (1, 300)
    """

    negatives: int = 1
    temperature: float = 1.0

    def __post_init__(self):
        self._common()


@dataclass(frozen=True, eq=False)
class BCE(_Loss):
    r"""Binary cross-entropy :math:`-\ln\sigma(x_{ui}) - \sum_k \ln(1 - \sigma(x_{uj_k}))` (thesis Table 4.4).

    Parameters
    ----------
    negatives : int
        N negatives per pair, at least 1 (default 1, Table 4.4's).

    Examples
    --------
    >>> from negtheory.training import BCE
    >>> BCE(negatives=2).to_dict()
    {'kind': 'BCE', 'negatives': 2}
    """

    negatives: int = 1

    def __post_init__(self):
        self._common()


@dataclass(frozen=True, eq=False)
class InfoNCE(_Loss):
    """InfoNCE over N negatives (thesis eq. 6.46; Table 4.4 with N = 2 on batch-1 SGD).

    Parameters
    ----------
    negatives : int
        N, at least 1 (default 5, the released code of ch. 5-6).
    temperature : float
        t > 0 (default 1; the batch-1 SGD engine takes t = 1 only).

    Examples
    --------
    >>> from negtheory.training import InfoNCE
    >>> InfoNCE(negatives=2)
    InfoNCE(negatives=2, temperature=1.0)
    """

    negatives: int = 5
    temperature: float = 1.0

    def __post_init__(self):
        self._common()


@dataclass(frozen=True, eq=False)
class DCL(_Loss):
    """Debiased contrastive loss (thesis eq. 6.47) with M extra positives (released code).

    Parameters
    ----------
    negatives, extra_positives : int
        N and M, at least 1 (default 5 each).
    tau_plus : float
        Class prior τ⁺ in (0, 1) (default 0.06).
    temperature : float
        t > 0 (default 1).

    Examples
    --------
    >>> from negtheory.training import DCL
    >>> DCL(tau_plus=0.1).tau_plus
    0.1
    """

    negatives: int = 5
    extra_positives: int = 5
    tau_plus: float = 0.06
    temperature: float = 1.0

    def __post_init__(self):
        self._common()


@dataclass(frozen=True, eq=False)
class HCL(_Loss):
    """Hard contrastive loss (Robinson et al.'s reweighting of DCL, thesis §6.5) with M extra positives.

    Parameters
    ----------
    negatives, extra_positives : int
        N and M, at least 1 (default 5 each).
    tau_plus : float
        τ⁺ in (0, 1) (default 0.06).
    beta : float
        Hardness β >= 0 (default 0.5).
    temperature : float
        t > 0 (default 1).

    Examples
    --------
    >>> from negtheory.training import HCL
    >>> HCL(beta=1.0).beta
    1.0
    """

    negatives: int = 5
    extra_positives: int = 5
    tau_plus: float = 0.06
    beta: float = 0.5
    temperature: float = 1.0

    def __post_init__(self):
        self._common()
        self._real("beta", 0.0)


@dataclass(frozen=True, eq=False)
class DPL(_Loss):
    """Debiased pairwise loss (thesis eq. 5.17-5.18) with M extra positives.

    Parameters
    ----------
    negatives, extra_positives : int
        N and M, at least 1 (default 5 each).
    tau_plus : float
        τ⁺ in (0, 1) (default 0.06; 0.3 for "DPL with Hard Samples", Table 5.3).
    eps : float
        Clamp of P̂_PN in (0, 1] (default 0.01).
    temperature : float
        t > 0 (default 1).

    Examples
    --------
    >>> from negtheory.training import DPL
    >>> DPL(tau_plus=0.3).eps
    0.01
    """

    negatives: int = 5
    extra_positives: int = 5
    tau_plus: float = 0.06
    eps: float = 1e-2
    temperature: float = 1.0

    def __post_init__(self):
        self._common()
        self._real("eps", 0.0, 1.0, lo_open=True)


@dataclass(frozen=True, eq=False)
class BCL(_Loss):
    """Bayesian contrastive loss (thesis eq. 6.31 with the estimator of eq. 6.48).

    Parameters
    ----------
    negatives : int
        N, at least 1 (default 5).
    alpha : float
        α in [0.5, 1] (default 0.55).
    beta : float
        β in [0, 1] (default 0.6).
    tau_plus : float
        τ⁺ in (0, 1) (default 0.06).
    temperature : float
        t > 0 (default 1).
    form : {"thesis", "released"}
        Eq. 6.31 (N θ̂ inside InfoNCE), or the released recommendation code's
        −ln σ(s⁺ − Σ ω_i e^{s_i}) (the run keys' ``"bcl_released"``).

    Examples
    --------
    >>> from negtheory.training import BCL
    >>> BCL(alpha=0.6, beta=0.5).form
    'thesis'
    """

    negatives: int = 5
    alpha: float = 0.55
    beta: float = 0.6
    tau_plus: float = 0.06
    temperature: float = 1.0
    form: str = "thesis"

    def __post_init__(self):
        self._common()
        self._real("alpha", 0.5, 1.0)
        self._real("beta", 0.0, 1.0)
        self._choice("form", ("thesis", "released"))


@dataclass(frozen=True, eq=False)
class CCL(_Loss):
    r"""Cosine contrastive loss (Mao et al., SimpleX, CIKM 2021): the MF-CCL reference, not a thesis loss.

    :math:`(1 - \hat y_{ui}) + \frac{w}{N}\sum_j \max(0, \hat y_{uj} - m)` on cosine scores
    (:func:`negtheory.bridge.functional.ccl`); it needs ``MF(similarity="cosine")`` and the
    mini-batch engine, and has no temperature.

    Parameters
    ----------
    negatives : int
        N, at least 1 (default 800, the released Gowalla run's).
    margin : float
        m in [-1, 1] (default 0.9, the released configuration's).
    negative_weight : float
        w > 0 (default 150, the released configuration's).
    positive_hinge : bool
        The positive term as :math:`\max(0, 1 - \hat y_{ui})`, as the released code computes it
        (default False: the paper's :math:`1 - \hat y_{ui}`). They differ only where a score exceeds
        1, which ``MF(dropout=...)`` allows (:func:`negtheory.bridge.functional.ccl`).

    Examples
    --------
    >>> from negtheory.training import CCL
    >>> CCL(negatives=16).margin
    0.9
    """

    negatives: int = 800
    margin: float = 0.9
    negative_weight: float = 150.0
    positive_hinge: bool = False

    def __post_init__(self):
        self._common()
        self._real("margin", -1.0, 1.0)
        self._real("negative_weight", 0.0, lo_open=True)
        self._bool("positive_hinge")


# ------------------------------------------------------------------------------------------
# samplers
# ------------------------------------------------------------------------------------------
class _Sampler(Spec, Sampler):
    """The sampler specs: a frozen, serialisable :class:`~negtheory.training.Sampler`."""

    role: ClassVar[str] = "sampler"


def _block(scores: Any, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Scores of ``items[b, :]`` for ``users[b]`` from a ScoreMatrix or a dense array."""
    if scores is None:
        raise ValueError(
            "scores is required by a score-aware sampler (the current scores: a ScoreMatrix, an array or a callable)"
        )
    if hasattr(scores, "block"):
        return np.take_along_axis(scores.block(users), items, axis=1)
    return np.asarray(scores)[users[:, None], items]


@dataclass(frozen=True, eq=False)
class RNS(_Sampler):
    """Uniform negatives among the user's non-interacted items (RNS, thesis §4.5.1.2).

    Parameters
    ----------
    on_device : bool
        The mini-batch engine draws on the model's device (default False: on the host with numpy,
        through :meth:`bind` / ``draw``). True draws with torch's generator by an exact inverse
        CDF over each user's non-interacted items (:class:`negtheory.bridge.device_sampling.UniformFreeSampler`):
        the same law, another random stream, and no host work per step — what keeps a GPU busy
        with hundreds of negatives per pair on Gowalla-sized data.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.training import RNS
    >>> d = load_split(np.array([[0, 0], [0, 1], [1, 2]]), np.array([[0, 2]]))
    >>> sorted(RNS().sample(d, [0], 1, rng=0)[0].tolist())
    [2]
    """

    on_device: bool = False

    catalogue: ClassVar[bool] = False

    def __post_init__(self):
        self._bool("on_device")

    def bind(self, data: Interactions) -> BoundSampler:
        return _BoundOnDevice(self, data) if self.on_device else BoundSampler(self, data)

    def negatives(
        self,
        bound: BoundSampler,
        users: np.ndarray,
        n: int,
        rng: RNGLike,
        *,
        scores: Any = None,
        positives: np.ndarray | None = None,
        epoch: int = 0,
    ) -> np.ndarray:
        from ..recsys.samplers import sample_uninteracted

        return sample_uninteracted(users, n, bound.csr, rng, n_items=bound.n_items)


@dataclass(frozen=True, eq=False)
class PNS(_Sampler):
    """Negatives ∝ pop_j^power among the user's non-interacted items (PNS, thesis §4.5.1.2).

    Parameters
    ----------
    power : float
        Exponent p >= 0 (default 0.75, the thesis's).

    Examples
    --------
    >>> from negtheory.training import PNS
    >>> PNS(power=1.0).power
    1.0
    """

    power: float = 0.75

    def __post_init__(self):
        self._real("power", 0.0)

    def negatives(
        self,
        bound: BoundSampler,
        users: np.ndarray,
        n: int,
        rng: RNGLike,
        *,
        scores: Any = None,
        positives: np.ndarray | None = None,
        epoch: int = 0,
    ) -> np.ndarray:
        from ..recsys.samplers import sample_popular

        return sample_popular(
            users, n, bound.csr, bound.counts, rng, self.power, n_items=bound.n_items
        )


@dataclass(frozen=True, eq=False)
class DNS(_Sampler):
    """Each negative the highest-scored of ``candidates`` uniform non-interacted items (DNS, Zhang et al. 2013; thesis §4.5.1.2).

    Parameters
    ----------
    candidates : int
        Candidates per negative, at least 1 (default 5; 1 is RNS). A row's N C candidates are
        distinct when every user of the batch has N C non-interacted items, else each negative's
        C are (a user with few items left).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.training import DNS
    >>> d = load_split(np.array([[0, 0], [1, 2]]), np.array([[0, 1]]))
    >>> DNS(candidates=2).sample(d, [0], 1, rng=0, scores=np.array([[0.0, 1.0, 3.0], [0.0, 0.0, 0.0]])).tolist()
    [[2]]
    """

    candidates: int = 5
    score_aware: ClassVar[bool] = True

    def __post_init__(self):
        self._int("candidates", 1)

    def negatives(
        self,
        bound: BoundSampler,
        users: np.ndarray,
        n: int,
        rng: RNGLike,
        *,
        scores: Any = None,
        positives: np.ndarray | None = None,
        epoch: int = 0,
    ) -> np.ndarray:
        from ..recsys.samplers import sample_uninteracted

        # the n C candidates of a row are distinct where the batch's users have n C non-interacted
        # items, else each slot's C are (drawn per slot); the first of equal highest scores wins (argmax)
        c = self.candidates
        indptr = bound.csr[0]
        if n > 1 and n * c > bound.n_items - np.max(indptr[users + 1] - indptr[users], initial=0):
            cand = sample_uninteracted(
                np.repeat(users, n), c, bound.csr, rng, n_items=bound.n_items
            )
            cand = cand.reshape(len(users), n, c)
        else:
            cand = sample_uninteracted(users, n * c, bound.csr, rng, n_items=bound.n_items).reshape(
                len(users), n, c
            )
        if callable(scores):  # the engine's model scores of the candidates (no dense score matrix)
            sc = np.asarray(scores(users, cand))
        else:
            sc = _block(scores, users, cand.reshape(len(users), n * c)).reshape(cand.shape)
        return np.take_along_axis(cand, sc.argmax(axis=-1)[..., None], axis=-1)[..., 0]


_PRIORS = ("popularity", "oracle", "uniform")


@dataclass(frozen=True, eq=False)
class BNS(_Sampler):
    r"""Bayesian negative sampling: the candidate of least risk (thesis eq. 4.26, 4.14-4.16).

    Parameters
    ----------
    candidates : int
        :math:`|\mathcal{M}_u|`, at least 1 (default 5).
    lam : float
        λ >= 0 of the risk (default 5).
    prior : {"popularity", "oracle", "uniform"} or array_like
        P_fn: pop_l / N (eq. 4.16), the oracle of Table 4.5, 1 / |I| (BNS-3), or an array of shape
        (n_items,) or (n_users, n_items) in [0, 1] (BNS-4).
    oracle_levels : (float, float)
        The oracle's P_fn of the test items and of the others (default (0.64, 0.04), §4.5.2.5).
    ecdf : {"negatives", "candidates"}
        F of eq. 4.15 over all non-interacted items or over M_u only.
    f_sample : int, optional
        Estimate F from this many uniform non-interacted items (a scalable option; default None:
        exact).
    lam_schedule : sequence of float, optional
        One λ per epoch (BNS-1, :func:`negtheory.recsys.bns_lam_warm_start`).
    warm_rns_epochs : int
        RNS during the first this many epochs (BNS-2).

    Notes
    -----
    With a loss of N negatives per pair each negative is the least-risk candidate of its own
    set of ``candidates`` uniform non-interacted items (N independent BNS draws), the pairing of
    BNS with the contrastive losses; N = 1 is the thesis's BPR + BNS.

    Examples
    --------
    >>> from negtheory.training import BNS, spec_from_json
    >>> s = BNS(candidates=10, lam_schedule=(10.0, 9.9))
    >>> spec_from_json(s.to_json()) == s
    True
    """

    candidates: int = 5
    lam: float = 5.0
    prior: Any = "popularity"
    oracle_levels: Sequence[float] = (0.64, 0.04)
    ecdf: str = "negatives"
    f_sample: int | None = None
    lam_schedule: Sequence[float] | None = None
    warm_rns_epochs: int = 0

    def __post_init__(self):
        self._int("candidates", 1)
        self._real("lam", 0.0)
        if isinstance(self.prior, str):
            self._choice("prior", _PRIORS)
        else:
            arr = np.array(self.prior, dtype=np.float64)
            if arr.ndim not in (1, 2) or not np.all((arr >= 0) & (arr <= 1)):
                raise ValueError(
                    "BNS.prior must be 'popularity', 'oracle', 'uniform' or a 1-d / 2-d array of probabilities in [0, 1]"
                )
            arr.setflags(write=False)
            self._set("prior", arr)
        try:
            levels = tuple(float(x) for x in self.oracle_levels)
        except (TypeError, ValueError):
            raise ValueError(
                f"BNS.oracle_levels must be two probabilities, got {self.oracle_levels!r}"
            ) from None
        if len(levels) != 2:
            raise ValueError(
                f"BNS.oracle_levels must be two probabilities, got {self.oracle_levels!r}"
            )
        self._set(
            "oracle_levels", tuple(real_scalar("BNS.oracle_levels", x, 0.0, 1.0) for x in levels)
        )
        self._choice("ecdf", ("negatives", "candidates"))
        if self.f_sample is not None:
            self._int("f_sample", 1)
            if self.ecdf != "negatives":
                raise ValueError(f"BNS.f_sample needs BNS.ecdf='negatives', got {self.ecdf!r}")
        if self.lam_schedule is not None:
            lams = np.asarray(self.lam_schedule, dtype=np.float64)
            if lams.ndim != 1 or not np.all(np.isfinite(lams) & (lams >= 0)):
                raise ValueError(
                    "BNS.lam_schedule must be a sequence of finite lambdas >= 0 (one per epoch)"
                )
            self._set("lam_schedule", tuple(float(x) for x in lams))
        self._int("warm_rns_epochs", 0)

    score_aware: ClassVar[bool] = True

    def bind(self, data: Interactions) -> BoundSampler:
        return _BoundBNS(self, data)

    def negatives(
        self,
        bound: BoundSampler,
        users: np.ndarray,
        n: int,
        rng: RNGLike,
        *,
        scores: Any = None,
        positives: np.ndarray | None = None,
        epoch: int = 0,
    ) -> np.ndarray:
        # each of a pair's n negatives is the least-risk candidate of its own C uniform
        # non-interacted candidates (eq. 4.26): the rows repeated n times, one candidate set per slot
        from ..recsys.samplers import sample_uninteracted

        if epoch < self.warm_rns_epochs:  # BNS-2: RNS first
            return sample_uninteracted(users, n, bound.csr, rng, n_items=bound.n_items)
        if positives is None or scores is None:
            raise ValueError(
                "BNS draws per (user, positive) pair from the current scores: positives and scores are required"
            )
        lam = (
            self.lam
            if self.lam_schedule is None
            else self.lam_schedule[min(epoch, len(self.lam_schedule) - 1)]
        )
        u, pos = (users, positives) if n == 1 else (np.repeat(users, n), np.repeat(positives, n))
        c = self.candidates
        cand = sample_uninteracted(
            u, c, bound.csr, rng, n_items=bound.n_items
        )  # distinct within a slot's set
        if not isinstance(bound, _BoundBNS):
            raise TypeError("BNS draws through its own bound sampler: BNS(...).bind(data)")
        pick = bound.choose(u, pos, cand, scores, lam, rng)
        return cand[np.arange(len(u)), pick].reshape(len(users), n)


@dataclass(frozen=True, eq=False)
class AOBPR(_Sampler):
    """AOBPR (Rendle & Freudenthaler 2014; thesis §4.5.1.2): the negative of a geometric rank, exact ranks.

    Each negative is the user's non-interacted item of rank r by descending current score, with
    P(r) ∝ exp(−r / λ) (:func:`negtheory.recsys.sample_by_rank`). Both engines: the batch-1 SGD
    kernel (MF, scores after every pair) and the mini-batch engine (MF or LightGCN with BPR, the
    scores of each step's start).

    Parameters
    ----------
    rank_scale : float, optional
        λ of the rank law in items (default None: 0.05 |I|).

    Examples
    --------
    >>> from negtheory.training import AOBPR
    >>> AOBPR(rank_scale=50.0).rank_scale
    50.0
    """

    rank_scale: float | None = None
    score_aware: ClassVar[bool] = True

    def __post_init__(self):
        if self.rank_scale is not None:
            self._real("rank_scale", 0.0, lo_open=True)

    def negatives(
        self,
        bound: BoundSampler,
        users: np.ndarray,
        n: int,
        rng: RNGLike,
        *,
        scores: Any = None,
        positives: np.ndarray | None = None,
        epoch: int = 0,
    ) -> np.ndarray:
        # each negative the non-interacted item of a geometric rank by the current scores (exact ranks)
        from ..recsys.adaptive_samplers import sample_by_rank

        if scores is None or (callable(scores) and not hasattr(scores, "block")):
            raise ValueError(
                "AOBPR needs scores: a ScoreMatrix, an (n_users, n_items) array or an object with block(users)"
            )
        full = scores.block(users) if hasattr(scores, "block") else np.asarray(scores)[users]
        lam = self.rank_scale if self.rank_scale is not None else 0.05 * bound.n_items
        return sample_by_rank(
            users, n, np.asarray(full), bound.csr, rng, rank_scale=lam, n_items=bound.n_items
        )


@dataclass(frozen=True, eq=False)
class SRNS(_Sampler):
    """SRNS (Ding et al., NeurIPS 2020; thesis §4.5.1.2), the released run script's settings as defaults.

    Both engines take the same step (:class:`negtheory.recsys.SRNSMemory`): the batch-1 SGD kernel
    (MF) and the mini-batch engine (MF or LightGCN with BPR, one negative per pair, the scores of
    each step's start; the embeddings recorded after each epoch).

    Parameters
    ----------
    memory : int
        S1, the memory per user (default 8).
    candidates : int
        S2, uniform items added before each memory update (default 64).
    alpha : float
        Weight α of the std (default 5).
    warmup : float
        T_0 in epochs (default 50).
    tau : float
        τ of the memory update (default 10).
    window : int
        Epochs of recorded scores for the std (default 5).

    Examples
    --------
    >>> from negtheory.training import SRNS
    >>> SRNS(alpha=0.0).memory
    8
    """

    memory: int = 8
    candidates: int = 64
    alpha: float = 5.0
    warmup: float = 50.0
    tau: float = 10.0
    window: int = 5

    def __post_init__(self):
        self._int("memory", 1)
        self._int("candidates", 0)
        self._real("alpha", 0.0)
        self._real("warmup", 0.0, lo_open=True)
        self._real("tau", 0.0, lo_open=True)
        self._int("window", 1)

    score_aware: ClassVar[bool] = True

    def bind(self, data: Interactions) -> BoundSampler:
        # the memories need the initial model: made by start() (negtheory.training.negatives)
        return _BoundSRNS(self, data)


@dataclass(frozen=True, eq=False)
class SharedUniform(_Sampler):
    r"""N negatives drawn uniformly from the whole catalogue once per mini-batch and shared by its rows.

    The sampled-softmax practice at scale: every row b of a batch of B pairs is scored against the
    same items :math:`j_1, \dots, j_N \overset{iid}{\sim} \mathrm{U}\{0, \dots, |I| - 1\}`, so
    the negatives cost one [B, d] x [d, N] product instead of gathering B N item rows (on
    Gowalla-sized tables with B = 2 048 a CPU step is 7x cheaper at N = 256 and 23x at N = 1 024,
    ``benchmarks/bench_shared_negatives.py``), which makes thousands of negatives per pair affordable.

    Each row's negatives are i.i.d. uniform over the catalogue, the *unlabeled* draws of the
    contrastive estimators (DCL/HCL's :math:`p(x)` with class prior :math:`\tau^+`, Chuang et al.
    2020, eq. 2): a row's own training item is drawn with probability :math:`|I_u| / |I|` per draw
    (about 27 / 40 981 on Gowalla) and is not removed. That is the difference from :class:`RNS`,
    whose draws exclude the user's training items; rows are also no longer independent of each
    other within a batch. The mini-batch engine's batch L2 counts each shared negative B times, the
    number of rows it serves, so the penalty equals the per-row one in expectation.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.training import SharedUniform
    >>> d = load_split(np.array([[0, 0], [1, 1], [1, 2]]), np.array([[0, 2]]))
    >>> x = SharedUniform().sample(d, [0, 1, 1], 4, rng=0)
    >>> x.shape, bool((x == x[0]).all())
    ((3, 4), True)
    """

    shared: ClassVar[bool] = True

    def negatives(
        self,
        bound: BoundSampler,
        users: np.ndarray,
        n: int,
        rng: RNGLike,
        *,
        scores: Any = None,
        positives: np.ndarray | None = None,
        epoch: int = 0,
    ) -> np.ndarray:
        from .._validation import as_generator

        row = as_generator(rng).integers(bound.n_items, size=n)
        return np.broadcast_to(row, (len(users), n)).copy()


@dataclass(frozen=True, eq=False)
class CatalogueUniform(_Sampler):
    r"""N negatives per row drawn i.i.d. uniformly from the whole catalogue (training items not removed).

    Each row b of a batch draws its own :math:`j_{b1}, \dots, j_{bN} \overset{iid}{\sim}
    \mathrm{U}\{0, \dots, |I| - 1\}`: the *unlabeled* draws :math:`p(x)` of the contrastive
    estimators (Chuang et al. 2020, eq. 2), per row. It differs from :class:`RNS` only in not removing
    the user's training items (on Gowalla a draw hits one with probability about 27 / 40 981, the
    row's own positive among them) and from :class:`SharedUniform` only in drawing per row.

    It is the sampler of MF-CCL's released run: the RecBox/DEEM data generator draws a row's
    negatives with ``np.random.choice(num_items, size=(rows, num_negs), replace=True)`` unless its
    ``ignore_pos_items`` option is set, and the released configuration leaves it unset.

    Parameters
    ----------
    on_device : bool
        The mini-batch engine draws on the model's device with torch's generator (``torch.randint``;
        the same law, another random stream; default False: on the host with numpy).

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.training import CatalogueUniform
    >>> d = load_split(np.array([[0, 0], [1, 1], [1, 2]]), np.array([[0, 2]]))
    >>> x = CatalogueUniform().sample(d, [0, 1, 1], 4, rng=0)
    >>> x.shape, bool((x == x[0]).all())
    ((3, 4), False)
    """

    on_device: bool = False

    catalogue: ClassVar[bool] = True

    def __post_init__(self):
        self._bool("on_device")

    def bind(self, data: Interactions) -> BoundSampler:
        return _BoundOnDevice(self, data) if self.on_device else BoundSampler(self, data)

    def negatives(
        self,
        bound: BoundSampler,
        users: np.ndarray,
        n: int,
        rng: RNGLike,
        *,
        scores: Any = None,
        positives: np.ndarray | None = None,
        epoch: int = 0,
    ) -> np.ndarray:
        from .._validation import as_generator

        return as_generator(rng).integers(bound.n_items, size=(len(users), n))


# ------------------------------------------------------------------------------------------
# optimizers
# ------------------------------------------------------------------------------------------
class _Optimizer(Spec):
    role: ClassVar[str] = "optimizer"
    milestones: Sequence[int]
    max_grad_norm: float | None

    def _common(self) -> None:
        self._real("lr", 0.0, lo_open=True)
        self._real("weight_decay", 0.0)
        self._int("batch_size", 1)
        name = f"{type(self).__name__}.milestones"
        if isinstance(self.milestones, (str, bytes)) or not hasattr(self.milestones, "__iter__"):
            raise TypeError(f"{name} must be a sequence of epochs, got {self.milestones!r}")
        self._set("milestones", tuple(sorted(int_scalar(name, m, 1) for m in self.milestones)))
        self._real("gamma", 0.0, 1.0, lo_open=True)  # a decay (the thesis divides lr by 10)
        self._choice("penalty", ("weight_decay", "batch"))
        if self.max_grad_norm is not None:
            self._real("max_grad_norm", 0.0, lo_open=True)


@dataclass(frozen=True, eq=False)
class SGD(_Optimizer):
    r"""Stochastic gradient descent; batch 1 with MF is the thesis's BPR-MF of ch. 4 (§4.5.1.2).

    Parameters
    ----------
    lr : float
        η > 0 (default 0.01, the thesis's).
    weight_decay : float
        L2 constant r >= 0 (default 0.01, the thesis's "reg"): with ``penalty="batch"`` the update
        θ -= η(∇L + r θ) of the rows the step touches, as the thesis's ch. 4 code does.
    batch_size : int
        Pairs per step (default 1, the thesis's ch. 4; with MF the numba backend runs it).
    milestones : sequence of int
        Epochs after which lr is multiplied by ``gamma`` (mini-batch engine).
    gamma : float in (0, 1]
        The factor at each milestone (default 0.1).
    penalty : {"batch", "weight_decay"}
        Where the L2 goes: ``"batch"`` (default) the penalty r/2 ‖θ‖² of the rows a step touches
        (the user, positive and negative rows of its pairs, layer-0 embeddings for LightGCN),
        averaged over the batch like the loss: at batch 1 the thesis's ch. 4 update, and the
        LightGCN release's; ``"weight_decay"`` torch's weight decay of every parameter at every
        step (an L2 on all rows, also those the step does not touch).
    shuffle : {"epoch", "once"}
        Reshuffle the pairs every epoch, or once (the released ch. 4 code; batch-1 engine).
    max_grad_norm : float, optional
        Clip the total gradient norm to this before each step (mini-batch engine; default: none).

    Examples
    --------
    >>> from negtheory.training import SGD
    >>> SGD().batch_size
    1
    """

    lr: float = 0.01
    weight_decay: float = 0.01
    batch_size: int = 1
    milestones: Sequence[int] = ()
    gamma: float = 0.1
    penalty: str = "batch"
    shuffle: str = "epoch"
    max_grad_norm: float | None = None

    def __post_init__(self):
        self._common()
        self._choice("shuffle", ("epoch", "once"))


@dataclass(frozen=True, eq=False)
class Adam(_Optimizer):
    r"""Adam on mini-batches (the released code of thesis ch. 5-6: lr 1e-3, weight decay 1e-5, batch 1024).

    Parameters
    ----------
    lr : float
        Learning rate > 0 (default 1e-3).
    weight_decay : float
        L2 coefficient >= 0 (default 1e-5; see ``penalty``).
    batch_size : int
        Pairs per mini-batch (default 1024).
    milestones : sequence of int
        Epochs after which lr is multiplied by ``gamma`` (MultiStepLR; default none).
    gamma : float in (0, 1]
        The factor at each milestone (default 0.1).
    penalty : {"weight_decay", "batch"}
        Adam's weight decay (the released code of ch. 5-6) or the batch L2 of the LightGCN release.
    max_grad_norm : float, optional
        Before each step, scale the gradient of all parameters together by
        :math:`\min(1, c / \lVert g \rVert_2)` so that its total norm is at most :math:`c`
        (``torch.nn.utils.clip_grad_norm_``; default: no clipping). MF-CCL's released code clips at 10.

    Examples
    --------
    >>> from negtheory.training import Adam
    >>> Adam(lr=0.01, milestones=(40, 20)).milestones
    (20, 40)
    """

    lr: float = 1e-3
    weight_decay: float = 1e-5
    batch_size: int = 1024
    milestones: Sequence[int] = ()
    gamma: float = 0.1
    penalty: str = "weight_decay"
    max_grad_norm: float | None = None

    def __post_init__(self):
        self._common()


# ------------------------------------------------------------------------------------------
# evaluation
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Evaluation(Spec):
    """When and how a run is ranked (Precision / Recall / NDCG@k, thesis §4.5.1.1).

    Parameters
    ----------
    every : int
        Rank every this many epochs and after the last (default 1).
    ks : sequence of int
        List lengths k (default 5, 10, 20).
    on : {"test", "valid", "both"}, optional
        The held-out splits ranked (default None: the engine's own, test for batch-1 SGD,
        validation and test for mini-batches; a split without pairs is skipped).
    monitor : str, optional
        Validation metric of model selection (default None: ndcg@10, or NDCG at the first k).
    patience : int, optional
        Stop after this many evaluations without improvement (needs a validation split).

    Examples
    --------
    >>> from negtheory.training import Evaluation
    >>> Evaluation(ks=(10,)).resolved_monitor
    'ndcg@10'
    """

    role: ClassVar[str] = "evaluation"
    every: int = 1
    ks: Sequence[int] = (5, 10, 20)
    on: str | None = None
    monitor: str | None = None
    patience: int | None = None

    def __post_init__(self):
        self._int("every", 1)
        ks = (self.ks,) if isinstance(self.ks, (int, np.integer)) else self.ks
        if isinstance(ks, (str, bytes)) or not hasattr(ks, "__iter__") or not len(ks):
            raise ValueError(
                f"Evaluation.ks must be a non-empty sequence of list lengths, got {self.ks!r}"
            )
        self._set("ks", tuple(int_scalar("Evaluation.ks", k, 1) for k in ks))
        if self.on is not None:
            self._choice("on", ("test", "valid", "both"))
        if self.monitor is not None and not isinstance(self.monitor, str):
            raise TypeError(
                f"Evaluation.monitor must be a metric name such as 'ndcg@10', got {self.monitor!r}"
            )
        if self.patience is not None:
            self._int("patience", 1)

    @property
    def resolved_monitor(self) -> str:
        """``monitor``, or NDCG@10 when 10 is a list length, else NDCG at the first."""
        return self.monitor or f"ndcg@{10 if 10 in self.ks else self.ks[0]}"


# the samplers' hooks are documented once, on the protocol (negtheory.training.negatives.Sampler)
for _cls in (RNS, PNS, DNS, BNS, AOBPR, SRNS, SharedUniform, CatalogueUniform):
    for _hook in ("negatives", "bind"):
        if _hook in vars(_cls):
            vars(_cls)[_hook].__doc__ = getattr(Sampler, _hook).__doc__
del _cls, _hook

#: the roles of :func:`negtheory.training.fit`'s arguments -> their spec classes
ROLES: dict[str, tuple[type[Spec], ...]] = {
    "model": (MF, LightGCN),
    "loss": (BPR, BCE, InfoNCE, DCL, HCL, DPL, BCL, CCL),
    "sampler": (RNS, PNS, DNS, BNS, AOBPR, SRNS, SharedUniform, CatalogueUniform),
    "optimizer": (SGD, Adam),
    "evaluation": (Evaluation,),
}
