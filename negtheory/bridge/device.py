"""Torch device selection shared by the bridge's trainers (a leaf module: imports only torch)."""

from __future__ import annotations

import torch

__all__ = ["resolve_device"]


def resolve_device(device: str) -> torch.device:
    """The torch device a trainer runs on: 'auto' is CUDA when available, else the CPU.

    Parameters
    ----------
    device : {"auto", "cpu", "cuda"}
        The requested device; "cuda" without a GPU raises ValueError.

    Returns
    -------
    torch.device
        The resolved device (``cpu`` or ``cuda``).

    Examples
    --------
    >>> from negtheory.bridge.device import resolve_device
    >>> resolve_device("cpu")
    device(type='cpu')
    """
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' but torch.cuda.is_available() is False")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {device!r}")
    return torch.device(device)
