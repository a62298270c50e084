"""The worker protocol (docs/worker-protocol.md): JSON lines on standard input
and output. Messages are read on a thread of their own, so that a cancel is
seen while a set-up or a run is in progress."""

import json
import os
import queue
import signal
import sys
import threading
import traceback

from .db import Client
from .fdtable import fileno, own_fd_table
from .settings import BadInput
from .worker import Worker
from .workloads import Failed

PROTOCOL = 1
GONE = object()  # the conversation is over: input ended or cancelled


class Out:
    """Protocol lines on a binary stream, one event at a time."""

    def __init__(self, stream):
        self.stream = stream
        self.fd = fileno(stream)  # None: no descriptor, helper threads keep the shared table
        self.lock = threading.Lock()

    def send(self, ev):
        line = json.dumps(ev, separators=(",", ":")).encode() + b"\n"
        with self.lock:
            try:
                self.stream.write(line)
                self.stream.flush()
            except (BrokenPipeError, ValueError):
                pass  # the controller is gone; the input's end will stop us


def lines(fd):
    """The lines of a file descriptor, read without Python's buffered-reader
    lock, so that a thread blocked here does not stop the interpreter from
    exiting."""
    buf = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        buf += chunk
        *done, buf = buf.split(b"\n")
        yield from done
    if buf:
        yield buf


def read(fd, msgs, taken, cancel, out):
    """Hands messages over one at a time, each once the main loop has taken
    the previous one, so that the input's end cancels only what follows."""
    if out.fd is not None:
        own_fd_table((fd, out.fd))
    for raw in lines(fd):
        line = raw.strip()
        if not line:
            continue
        try:
            ev = json.loads(line)
            if not isinstance(ev, dict) or not ev.get("t"):
                raise ValueError('message without "t"')
        except ValueError as e:
            text = json.dumps(line.decode("utf-8", "replace"))[:80]
            out.send({"t": "error", "error": "worker protocol: bad message %s: %s" % (text, e)})
            break
        if ev["t"] == "cancel":
            cancel.set()
            msgs.put(GONE)
            continue
        msgs.put(ev)
        taken.get()
    cancel.set()  # input gone: the controller is gone
    msgs.put(GONE)


def serve(client_name, stdin_fd, stdout):
    """Serves one conversation; returns the process exit code."""
    out = Out(stdout)
    msgs, taken = queue.SimpleQueue(), queue.SimpleQueue()
    cancel = threading.Event()

    def on_signal(signum, frame):
        cancel.set()
        msgs.put(GONE)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    threading.Thread(target=read, args=(stdin_fd, msgs, taken, cancel, out), daemon=True).start()
    w = Worker(Client(client_name), cancel)
    if out.fd is not None:
        w.keep_fds = (out.fd,)

    def fail(msg):
        out.send({"t": "error", "error": msg})
        return 1

    try:
        while True:
            ev = msgs.get()
            if ev is GONE or cancel.is_set():
                return 0
            taken.put(None)
            t = ev["t"]
            try:
                if t == "hello":
                    if ev.get("protocol") != PROTOCOL:
                        return fail("worker protocol %s asked, this worker speaks %d" % (ev.get("protocol"), PROTOCOL))
                    out.send(w.hello())
                elif t == "setup":
                    if not isinstance(ev.get("job"), dict):
                        return fail("setup without a job")
                    out.send(w.setup(ev["job"]))
                elif t == "run":
                    out.send(w.run(out.send))
                elif t == "close":
                    return 0
                else:
                    return fail("unexpected message %s" % json.dumps(t))
            except (BadInput, Failed) as e:
                return fail(str(e))
            except w.client.Error as e:
                return fail("%s: %s" % (t, e))
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                return fail("%s: %s: %s" % (t, type(e).__name__, e))
    finally:
        w.close()
