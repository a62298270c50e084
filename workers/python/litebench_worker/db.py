"""The two clients (the standard library's sqlite3 and apsw), a connection
pool with database/sql's semantics, and the helpers every workload shares:
error kinds, the ownership check and the content digest."""

import hashlib
import os
import re
import sqlite3
import sys
import threading
import urllib.parse

from . import gen

BENCH_APP_ID = 0x4C420002

# SQLite primary result codes.
BUSY, LOCKED, INTERRUPT, CONSTRAINT = 5, 6, 9, 19


class Client:
    """A Python SQLite module: how it opens a connection and what its errors mean.

    Both modules' cursors share the calls the workloads use: execute(sql,
    args) returning the cursor, fetchall, fetchone and iteration.
    """

    def __init__(self, name):
        self.name = name
        if name == "sqlite3":
            import sqlite3

            self.mod = sqlite3
            self.target = "python-sqlite3"
            self.driver = "sqlite3 (Python %d.%d.%d standard library)" % sys.version_info[:3]
            self.driver_version = "%d.%d.%d" % sys.version_info[:3]
            self.engine_version = sqlite3.sqlite_version
            self.Error = sqlite3.Error
        elif name == "apsw":
            import apsw

            self.mod = apsw
            self.target = "python-apsw"
            self.driver = "apsw"
            self.driver_version = apsw.apsw_version()
            self.engine_version = apsw.sqlite_lib_version()
            self.Error = apsw.Error
        else:
            raise ValueError("unknown client %r (known: sqlite3, apsw)" % name)

    def connect(self, uri, prepared):
        """A connection in autocommit mode (the workloads issue BEGIN and COMMIT).

        prepared=False turns the module's statement cache off, so that every
        statement is prepared when it runs; True leaves the cache on, so that a
        statement run again on a connection reuses its prepared form.
        """
        if self.name == "sqlite3":
            kw = {} if prepared else {"cached_statements": 0}
            return self.mod.connect(uri, uri=True, isolation_level=None, check_same_thread=False, **kw)
        flags = self.mod.SQLITE_OPEN_READWRITE | self.mod.SQLITE_OPEN_CREATE | self.mod.SQLITE_OPEN_URI
        kw = {} if prepared else {"statementcachesize": 0}
        return self.mod.Connection(uri, flags=flags, **kw)

    def variable_limit(self, conn):
        if self.name == "sqlite3":
            return conn.getlimit(self.mod.SQLITE_LIMIT_VARIABLE_NUMBER)
        return conn.limit(self.mod.SQLITE_LIMIT_VARIABLE_NUMBER)

    def code(self, err):
        """The primary SQLite result code of err, or 0."""
        c = getattr(err, "sqlite_errorcode", None)  # sqlite3
        if c is None:
            c = getattr(err, "result", None)  # apsw
        return (c or 0) & 0xFF

    def kind(self, err):
        """The error kind litebench counts: busy, locked, constraint, interrupted or other."""
        return {BUSY: "busy", LOCKED: "locked", CONSTRAINT: "constraint", INTERRUPT: "interrupted"}.get(
            self.code(err), "other"
        )

    def retryable(self, err):
        return self.code(err) in (BUSY, LOCKED)


def uri(path, memory, shared_cache):
    """The SQLite URI filename litebench's Go targets open."""
    q = []
    if memory:
        q.append("mode=memory")
    if shared_cache or memory:
        q.append("cache=shared")
    esc = "".join("%%%02X" % ord(c) if c in "?#%" else c for c in path)
    return "file:" + esc + ("?" + "&".join(q) if q else "")


class Conn:
    """A connection with one reusable cursor."""

    __slots__ = ("raw", "cur")

    def __init__(self, raw):
        self.raw = raw
        self.cur = raw.cursor()

    def run(self, sql, args=()):
        """Runs a statement to completion; returns its rows."""
        return self.cur.execute(sql, args).fetchall()

    def close(self):
        self.cur.close()
        self.raw.close()


class Pool:
    """Connections to one database, as database/sql's pool: at most max_open
    (0 = unlimited), pragmas run on every new connection, none kept idle with
    conn_per_op."""

    def __init__(self, client, uri, pragmas, prepared, max_open=0, conn_per_op=False):
        self.client, self.uri, self.pragmas, self.prepared = client, uri, pragmas, prepared
        self.max_open, self.conn_per_op = max_open, conn_per_op
        self.idle = []
        self.open = 0
        self.opened = 0
        self.cond = threading.Condition()
        self.closed = False
        self.held = None

    def get(self):
        with self.cond:
            while True:
                if self.idle:
                    return self.idle.pop()
                if not self.max_open or self.open < self.max_open:
                    self.open += 1
                    break
                self.cond.wait()
        try:
            return self.connect()
        except BaseException:
            with self.cond:
                self.open -= 1
                self.cond.notify()
            raise

    def connect(self):
        """A new connection with the pragmas run."""
        c = Conn(self.client.connect(self.uri, self.prepared))
        try:
            for p in self.pragmas:
                c.run(p)
        except BaseException:
            c.close()
            raise
        with self.cond:
            self.opened += 1
        return c

    def hold(self):
        """Keeps one more connection open until close, so that an in-memory
        database lives for the whole run whatever the pool does."""
        self.held = self.connect()

    def put(self, c):
        with self.cond:
            if self.conn_per_op or self.closed:
                self.open -= 1
                c.close()
            else:
                self.idle.append(c)
            self.cond.notify()

    def pinnable(self, users):
        """Whether each of `users` threads may keep one connection for its whole run."""
        return not self.conn_per_op and (not self.max_open or self.max_open >= users)

    def run(self, sql, args=()):
        c = self.get()
        try:
            return c.run(sql, args)
        finally:
            self.put(c)

    def close(self):
        with self.cond:
            self.closed = True
            for c in self.idle + [self.held] * (self.held is not None):
                c.close()
            self.idle.clear()
            self.held = None


_CREATED = re.compile(
    r"""\s*(?:(?:--[^\n]*(?:\n|$)|/\*.*?\*/)\s*)*create\s+(?:(?:temp|temporary|unique|virtual)\s+)*"""
    r"""(?:table|index|view|trigger)\s+(?:if\s+not\s+exists\s+)?["`\[]?([A-Za-z_][A-Za-z0-9_]*)""",
    re.IGNORECASE | re.DOTALL,
)


def created_name(q):
    """The name of the table, index, view or trigger statement q creates, or None."""
    m = _CREATED.match(q)
    return m.group(1) if m else None


def own_objects(statements):
    """The lower-cased names a workload's CREATE statements make."""
    return {n.lower() for n in map(created_name, statements) if n}


BENCH_OBJECTS = own_objects(q for sc in gen.SCHEMAS.values() for q in sc.create)


def foreign_object(path, allowed):
    """The first table or index (or any view or trigger) in path's schema
    that is neither SQLite's nor in allowed, as 'table "x"'; None if none.
    The main file is read as it is (immutable: no lock, no journal, no
    companion file created)."""
    uri = "file:%s?mode=ro&immutable=1" % urllib.parse.quote(os.path.abspath(path))
    conn = sqlite3.connect(uri, uri=True)
    try:
        rows = conn.execute("SELECT type, name FROM sqlite_master ORDER BY rowid").fetchall()
    finally:
        conn.close()
    for typ, name in rows:
        ours = typ in ("table", "index") and (name.lower().startswith("sqlite_") or name.lower() in allowed)
        if not ours:
            return '%s "%s"' % (typ, name)
    return None


def check_owned(path, app_id=BENCH_APP_ID, allowed=BENCH_OBJECTS):
    """None when path may be used: absent, empty, or a SQLite file carrying
    app_id whose tables and indexes are all in allowed (lower-cased names)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if os.path.isdir(path):
        return "%s is a directory" % path
    if st.st_size == 0:
        return None
    with open(path, "rb") as f:
        hdr = f.read(100)
    if len(hdr) < 100 or hdr[:16] != b"SQLite format 3\x00":
        return "%s: not created by litebench (not a SQLite database)" % path
    got = int.from_bytes(hdr[68:72], "big")
    if got != app_id:
        return "%s: not created by litebench (application_id %#x)" % (path, got)
    other = foreign_object(path, allowed)
    if other:
        fix = "litebench leaves it alone: name a new file, or remove it yourself"
        return "%s: holds %s that litebench did not create; %s" % (path, other, fix)
    return None


def quote_ident(s):
    return '"' + s.replace('"', '""') + '"'


TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"


def digest(conn):
    """The content digest of every user table (docs/worker-protocol.md)."""
    h = hashlib.sha256()
    for (t,) in conn.run(TABLES):
        cols = [
            "quote(%s)" % quote_ident(r[0])
            for r in conn.run("SELECT name FROM pragma_table_info(?) ORDER BY cid", (t,))
        ]
        h.update(("table %s\n" % t).encode())
        if not cols:
            continue
        cur = conn.cur.execute("SELECT %s FROM %s ORDER BY 1" % ("||','||".join(cols), quote_ident(t)))
        for (line,) in cur:
            h.update(line.encode())
            h.update(b"\n")
    return "sha256:" + h.hexdigest()
