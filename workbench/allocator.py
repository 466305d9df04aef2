"""One process-wide setting of the C allocator, made by the entry points (the CLI, the GUI, lab workers).

glibc's malloc serves blocks over its mmap threshold (128 KiB at first) with fresh
mappings, whose pages fault in on first touch and go back to the kernel on free.
Its dynamic rule raises the threshold as large blocks are freed, but not past
blocks over 32 MiB, and not at all once ``MALLOC_TRIM_THRESHOLD_`` is set in the
environment (a Dask nanny sets it for every worker). The engine allocates and
frees many mid-sized numpy arrays per search, so a pinned threshold costs a page
fault per page of every one of them: static CoP on 1,000 nodes spent 1.5 s of
16 s in the kernel (a million faults), a Dask worker a third of its time.

Setting the two thresholds to the maxima the dynamic rule grows to removes that,
at the cost of up to 64 MiB of freed memory kept for reuse instead of returned.
"""

from __future__ import annotations

import sys

MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what the dynamic rule pairs with it

_settled = False


def settle_allocator() -> bool:
    """Set glibc's mmap and trim thresholds once per process; False where there is no glibc."""
    global _settled
    if _settled:
        return True
    _settled = True
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl or another libc: nothing to settle
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_mmap_threshold, MMAP_THRESHOLD)) and bool(mallopt(m_trim_threshold, TRIM_THRESHOLD))
