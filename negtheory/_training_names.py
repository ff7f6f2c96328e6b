"""The public spec names of :mod:`negtheory.training`, in one place (no imports: ``negtheory`` re-exports them lazily)."""

#: the spec classes of :mod:`negtheory.training.specs`: models, losses, samplers, optimizers, evaluation
SPEC_NAMES = (
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
)
