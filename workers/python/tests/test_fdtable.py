"""A helper thread's own descriptor table: its copies are closed, the
process's descriptors (and locks) stay."""

import fcntl
import os
import sys
import threading

import pytest

from litebench_worker.fdtable import fileno, own_fd_table


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_own_fd_table(tmp_path):
    keep_r, keep_w = os.pipe()
    db = os.open(tmp_path / "x.db", os.O_RDWR | os.O_CREAT)
    fcntl.lockf(db, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
    seen = {}

    def helper():
        seen["own"] = own_fd_table((keep_w,))
        for name, fd in (("db", db), ("keep_r", keep_r), ("keep_w", keep_w), ("stderr", 2)):
            try:
                os.fstat(fd)
                seen[name] = True
            except OSError:
                seen[name] = False
        os.write(keep_w, b"x")

    t = threading.Thread(target=helper)
    t.start()
    t.join()
    assert seen == {"own": True, "db": False, "keep_r": False, "keep_w": True, "stderr": True}
    # The process's table is untouched, and so is its lock: another process
    # cannot take it.
    assert os.read(keep_r, 1) == b"x"
    os.fstat(db)
    pid = os.fork()
    if pid == 0:
        try:
            fcntl.lockf(os.open(tmp_path / "x.db", os.O_RDWR), fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
            os._exit(1)  # the lock was gone
        except OSError:
            os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0, "the helper's close dropped the process's lock"
    for fd in (keep_r, keep_w, db):
        os.close(fd)


def test_fileno(tmp_path):
    with open(tmp_path / "f", "wb") as f:
        assert fileno(f) == f.fileno()
    assert fileno(object()) is None
