"""The thesis's training settings as specs: ``fit(data, **THESIS_LIGHTGCN, loss=BPR(), sampler=BNS())``.

Each preset is a read-only mapping of :func:`~negtheory.training.fit` arguments (model, optimizer,
epochs); the loss and the sampler are the experiment's own.

``THESIS_BPR_MF``
    Thesis §4.5.1.2, Tables 4.2-4.5: MF with d = 32 by batch-1 SGD, lr 0.01, reg 0.01, 100 epochs.
``THESIS_LIGHTGCN``
    Thesis §4.5.1.2, LightGCN rows: d = 32, one layer, Adam lr 0.01 times 0.1 every 20 epochs,
    weight decay 1e-5, batch 128, 100 epochs (batch 1024 on MovieLens-1M).
``RELEASED_MINIBATCH_MF``
    The released code of ch. 5-6, Tables 5.2 and 6.3: MF with d = 32, Adam lr 1e-3, weight decay
    1e-5, batch 1024, 200 epochs with lr divided by 10 after epoch 100.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from .specs import MF, SGD, Adam, LightGCN

__all__ = ["THESIS_BPR_MF", "THESIS_LIGHTGCN", "RELEASED_MINIBATCH_MF"]

THESIS_BPR_MF: MappingProxyType[str, Any] = MappingProxyType(
    dict(model=MF(dim=32), optimizer=SGD(lr=0.01, weight_decay=0.01), epochs=100)
)
THESIS_LIGHTGCN: MappingProxyType[str, Any] = MappingProxyType(
    dict(
        model=LightGCN(dim=32, layers=1),
        optimizer=Adam(
            lr=0.01, weight_decay=1e-5, batch_size=128, milestones=(20, 40, 60, 80), gamma=0.1
        ),
        epochs=100,
    )
)
RELEASED_MINIBATCH_MF: MappingProxyType[str, Any] = MappingProxyType(
    dict(
        model=MF(dim=32),
        optimizer=Adam(lr=1e-3, weight_decay=1e-5, batch_size=1024, milestones=(100,)),
        epochs=200,
    )
)
