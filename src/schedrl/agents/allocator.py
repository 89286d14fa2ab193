"""The C allocator's handling of large tensors during training.

glibc serves every block above its mmap threshold (128 KiB, raised dynamically up to 32 MiB) with a
fresh ``mmap`` and returns it on free. The paper-sized DFP network's first-layer gradient and
Adam's temporaries are ~180 MB each, so every update mapped them anew and the kernel zeroed ~45,000
pages: on one core of the slower machine kind an update took 0.37 s, a third of it system time, and
0.22 s with freed blocks kept for reuse (benchmarks/bench_dfp.py). Keeping them costs at most the
memory of one update's temporaries. Numbers are unchanged: only where the bytes live.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
_KEEP = 1 << 30  # blocks up to 1 GiB come from the heap, and up to 1 GiB of freed heap is kept


def keep_freed_blocks() -> bool:
    """Let glibc reuse freed large blocks instead of unmapping them; True where it took effect
    (glibc only: elsewhere, and where ``MALLOC_MMAP_THRESHOLD_`` is set by the user, nothing changes)."""
    import os

    if platform.libc_ver()[0] != "glibc" or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, _KEEP)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, _KEEP))
    except (OSError, AttributeError):
        return False
