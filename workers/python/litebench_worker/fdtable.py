"""A descriptor table of its own for a helper thread (Linux).

On a descriptor table that threads share, the kernel takes and drops a
reference to the file on every read, write and lock (fdget), which a
single-threaded program with the same driver does not pay: about 1.5 % of a
point read's CPU time. The worker's helper threads (the protocol's reader, the
interval reporter) touch only the protocol's input and output, so each takes a
copy of the table and closes the other copies; the thread that runs the load
is then alone on the process's table. Closing a copy drops no lock:
a POSIX lock belongs to the table it was taken on."""

import ctypes
import sys

CLONE_FILES = 0x400

_libc = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.unshare.argtypes = [ctypes.c_int]
        _libc.close_range.argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.c_int]
    except (OSError, AttributeError):
        _libc = None


def own_fd_table(keep=()):
    """Gives the calling thread a table of its own holding 0, 1, 2 and the
    descriptors in keep only; returns whether it did (elsewhere than Linux,
    or refused: nothing changes)."""
    if _libc is None or _libc.unshare(CLONE_FILES) != 0:
        return False
    lo = 3
    for fd in sorted(set(fd for fd in keep if fd >= 3)):
        if fd > lo:
            _libc.close_range(lo, fd - 1, 0)
        lo = fd + 1
    _libc.close_range(lo, 0xFFFFFFFF, 0)
    return True


def fileno(stream):
    """stream's descriptor, or None when it has none (a test's buffer)."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
