"""Torch devices for the trainers: ``cpu``, ``cuda``, ``cuda:N`` or ``auto`` (CUDA where torch sees
one). The CPU stays every trainer's default: results on a GPU are not bitwise those of the CPU
(other kernels, other summation orders), so the pipeline's files are the same only on one device."""

from __future__ import annotations

import re

from schedrl.errors import ConfigError


def check_device(device: str, name: str = "--device") -> None:
    """ConfigError naming ``name`` unless ``device`` is cpu, auto, cuda or cuda:N, and CUDA only
    where there is such a device (no silent fallback to the CPU)."""
    if device in ("cpu", "auto"):
        return
    if not isinstance(device, str) or not re.fullmatch(r"cuda(:\d+)?", device):
        raise ConfigError(f"{name} {device}: use cpu, cuda, cuda:N or auto")
    import torch

    if not torch.cuda.is_available():
        raise ConfigError(f"{name} {device}: this machine has no CUDA device (use cpu or auto)")
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        raise ConfigError(f"{name} {device}: only {torch.cuda.device_count()} CUDA device(s) here")


def resolve_device(device: str) -> str:
    """``auto``: ``cuda`` where torch sees a CUDA device, else ``cpu``; other names unchanged."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
