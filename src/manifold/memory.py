"""How the process gives memory back: large buffers (a multi-megabyte result, a streamed
answer) are allocated by glibc with mmap and returned to the system when freed.

glibc's default threshold for that is dynamic: after a large block is freed, the threshold rises
to its size, so the next large buffers come from the heap and stay in the process's resident
set after they are freed (measured: a session streaming 40 answers of 5.5 MB kept about 20 MiB
more than the replay it holds). A fixed threshold of 1 MiB keeps smaller allocations on the
fast heap path and returns every large one. A `MALLOC_MMAP_THRESHOLD_` in the environment (the
user's own tuning) wins; elsewhere than glibc this does nothing.

It has a price: every large buffer is fresh memory the kernel must map (a 5 MiB result relayed
over stdio took about 40 ms instead of 33). `manifold serve`, a shared service whose footprint
must stay flat under many sessions, pays it; `manifold run`, one developer's process, keeps
glibc's default and its speed.

`trim` gives back, once the gateway has started, the heap pages its start left free (the
config's validators being built, imports, the first lists parsed): glibc keeps freed memory
below the top of its heap in the process unless asked (`malloc_trim`), about 2 to 3 MiB here.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
LARGE_BUFFER_BYTES = 1024 * 1024

log = logging.getLogger("manifold.memory")


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        # The process's own symbols, libc's among them: `ctypes.util.find_library` would run
        # `ldconfig` and import shutil, tempfile, bz2 and lzma to do it (about 0.9 MiB held).
        return ctypes.CDLL(None)
    except OSError:
        return None


def trim() -> bool:
    """Return the free pages of the heap to the system (glibc's `malloc_trim`); True when
    glibc did (False elsewhere, or when there was nothing to give back)."""
    libc = _libc()
    fn = getattr(libc, "malloc_trim", None)
    if fn is None:
        return False  # not glibc
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return bool(fn(0))


def return_large_buffers(threshold: int = LARGE_BUFFER_BYTES) -> bool:
    """Fix glibc's mmap threshold; True when it was set."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is None:
        return False  # not Linux, or not glibc (musl has no mallopt)
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    ok = bool(mallopt(M_MMAP_THRESHOLD, threshold))
    if not ok:
        log.debug("mallopt(M_MMAP_THRESHOLD) refused")
    return ok
