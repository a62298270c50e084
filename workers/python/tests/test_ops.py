"""The point-read loop and the insert loop as the runner sees them: every
operation counted once, as a success in the histogram or as an error."""

import itertools
import os
import sqlite3
import threading
from array import array

import pytest

from litebench_worker import db, gen, hist, workloads
from litebench_worker import ops as ops_mod
from litebench_worker.worker import Worker


def run(client, path, workload, params, settings=None, tamper=None):
    w = Worker(db.Client(client), threading.Event())
    job = {"workload": workload, "path": path, "params": params, "settings": settings or {}}
    try:
        w.setup(job)
        if tamper:
            w.pool.run(tamper)
        fin = w.run(lambda ev: None)
    finally:
        w.close()
    assert fin["status"] == "ok", fin.get("error")
    return fin, {o["name"]: o for o in fin["final_ops"]}


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_reads_by_count(client, tmp_path):
    fin, ops = run(client, str(tmp_path / "r.db"), "read", {"rows": "1000", "count": "2500"})
    assert fin["done"] == ops["read"]["count"] == ops["read"]["service"]["count"] == 2500
    assert "errors" not in ops["read"]


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_reads_of_missing_rows_are_errors(client, tmp_path):
    fin, ops = run(
        client,
        str(tmp_path / "r.db"),
        "read",
        {"rows": "1000", "count": "2000"},
        tamper="DELETE FROM bench WHERE ID % 2 = 0",
    )
    missing = ops["read"]["errors"]["missing"]
    assert 600 < missing < 1400  # about half the keys, drawn uniformly
    assert fin["done"] == ops["read"]["service"]["count"] == 2000 - missing


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_reads_by_duration(client, tmp_path):
    fin, ops = run(client, str(tmp_path / "r.db"), "read", {"rows": "1000", "duration": "300ms", "warmup": "50ms"})
    n = ops["read"]["count"]
    # A read that ended after the window is an overrun: its latency is in
    # the histogram, it is not counted.
    assert n > 0 and fin["done"] == n == ops["read"]["service"]["count"] - ops["read"].get("overrun", 0)
    # One worker: the elapsed time leaves out the recording at the checks.
    record = sum(m["value"] for m in fin["metrics"] if m["name"] == "record")
    assert fin["elapsed_s"] + record == pytest.approx(0.3, abs=0.05)


@pytest.fixture(params=["C", "Python"])
def timing(request, monkeypatch):
    """The insert's timing loop: the C one (setup.sh builds it) or Python's."""
    if request.param == "C":
        if workloads.CALLS is None:
            if os.environ.get("LITEBENCH_REQUIRE_WORKERS") == "1":
                pytest.fail("the C timing loop (litebench_worker/_timed) is not built: run setup.sh")
            pytest.skip("the C timing loop is not built")
    else:
        monkeypatch.setattr(workloads, "CALLS", None)
    return request.param


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_insert_statements_each_recorded(client, timing, tmp_path):
    # 2,345 rows, 100 per transaction, 7 per statement: the last statement
    # of each transaction is shorter, and so is the last transaction.
    fin, ops = run(client, str(tmp_path / "i.db"), "insert", {"rows": "2345"}, {"batch": "100", "rows-per-stmt": "7"})
    assert fin["done"] == ops["insert"]["count"] == 2345
    # 23 transactions of 14 statements of 7 rows and one of 2, then one of 6
    # statements of 7 rows and one of 3
    assert ops["insert"]["service"]["count"] == 23 * 15 + 7
    assert ops["begin"]["count"] == ops["commit"]["count"] == 24


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
@pytest.mark.parametrize("rps", [1, 7])
def test_insert_transactions_longer_than_a_chunk(client, rps, timing, tmp_path):
    # 10,000 rows per transaction: generated and recorded in chunks of
    # about 4,096 rows in the middle of each transaction.
    fin, ops = run(
        client, str(tmp_path / "i.db"), "insert", {"rows": "12345"}, {"batch": "10000", "rows-per-stmt": str(rps)}
    )
    assert fin["done"] == ops["insert"]["count"] == 12345
    stmts = sum(-(-n // rps) for n in (10000, 2345))
    assert ops["insert"]["service"]["count"] == stmts
    assert ops["begin"]["count"] == ops["commit"]["count"] == 2


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_insert_statement_failing_mid_transaction(client, timing, tmp_path):
    # Row 150 is there already: the second transaction fails at its 51st
    # statement, is rolled back and counted as one error; its 50 statements
    # that returned keep their latencies and rows in the op's count (as the
    # Go engine's do), done counts the rows committed, the run goes on.
    fin, ops = run(
        client,
        str(tmp_path / "i.db"),
        "insert",
        {"rows": "300"},
        {"batch": "100"},
        tamper="INSERT INTO bench(ID, rand, hash) VALUES (150, 'x', 'y')",
    )
    assert ops["insert"]["errors"] == {"constraint": 1}
    assert fin["done"] == 200
    assert ops["insert"]["count"] == ops["insert"]["service"]["count"] == 250
    assert ops["begin"]["count"] == 3 and ops["commit"]["count"] == 2


def test_timed_calls():
    if workloads.CALLS is None:
        pytest.skip("the C timing loop is not built")
    calls, seen = workloads.CALLS, []

    def fn(first, x):
        if x == "boom":
            raise KeyError(x)
        seen.append((first, x))

    out = array("q", bytes(8 * 8))
    calls(fn, "f", ["a", "b", "c"], out, 2)
    assert seen == [("f", "a"), ("f", "b"), ("f", "c")]
    assert out[0] == out[1] == 0 and 0 < out[2] <= out[3] <= out[4] and out[5] == 0
    # the same clock as time.perf_counter_ns
    assert abs(out[4] - workloads.pc()) < 10**9
    out = array("q", [-1] * 8)
    with pytest.raises(KeyError):
        calls(fn, "f", ("a", "boom", "c"), out, 1)
    assert out[1] > 0 and out[2] == 0 and out[3] == -1  # one returned, then the mark
    with pytest.raises(ValueError):
        calls(fn, "f", ["a"] * 7, out, 1)  # no room for the mark
    with pytest.raises(ValueError):
        calls(fn, "f", ["a"], array("i", [0] * 8), 0)


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_reads_by_count_shared_by_workers(client, tmp_path):
    # The workers share the count: together they run it exactly.
    fin, ops = run(client, str(tmp_path / "r.db"), "read", {"rows": "1000", "count": "2345", "workers": "3"})
    assert fin["done"] == ops["read"]["count"] == ops["read"]["service"]["count"] == 2345


def counting_executor(wl, client, reads):
    """A reader's executor; with sqlite3, its SELECTs are counted in reads[0]
    as they run, so that a test can check each read's outcome is recorded
    once."""
    ex = ops_mod.Executor(wl, 0, ops_mod.READ, 1, 0)
    if client == "sqlite3":

        class Counting(sqlite3.Cursor):
            def execute(self, sql, args=()):
                reads[0] += 1
                return super().execute(sql, args)

        ex.rconn.cur = ex.rconn.raw.cursor(factory=Counting)
    return ex


def read_loop(client, path, monkeypatch, step, count=0, duration=0, delete=None, spans=None):
    """Engine.read_loop of one worker over 1,000 rows, reading a clock that
    moves `step` ns a reading: every latency it records is `step`. spans, a
    list, gets the time the loop left out of the elapsed time and the span
    of its clock readings. The loop is Python's (the C loop reads the real
    clock)."""
    w = Worker(db.Client(client), threading.Event())
    job = {"workload": "read", "path": path, "params": {"rows": "1000", "count": "1"}, "settings": {}}
    try:
        w.setup(job)
        if delete:
            w.pool.run(delete)
        wl, env = w.wl, w.env
        wl.read_sql, wl.wpool, wl.env = "SELECT ID,rand,hash FROM bench WHERE ID = ?", env.pool, env
        wl.count, wl.duration = count, duration
        monkeypatch.setattr(ops_mod, "pc", itertools.count(10**9, step).__next__)
        monkeypatch.setattr(ops_mod, "READS", None)
        eng = ops_mod.Engine(env, wl)
        eng.claimed = itertools.count(1)
        reads = [0]
        ex = counting_executor(wl, client, reads)
        eng.workers = 1
        first = ops_mod.pc() + step  # the loop's first reading
        eng.begin(first - step)
        lane = ops_mod.Lane(eng, ops_mod.READ)
        try:
            eng.read_loop(lane, ex)
        finally:
            ex.close()
        if spans is not None:
            spans += [env.recorded, ops_mod.pc() - step - first]
        return lane.rec, reads[0]
    finally:
        w.close()


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_read_loop_records_every_read_once(client, tmp_path, monkeypatch):
    # 5,000 reads by count, the limits checked every 1 ms (200 readings):
    # each read's latency, one clock step, recorded once.
    rec, reads = read_loop(client, str(tmp_path / "r.db"), monkeypatch, 5000, count=5000)
    h = rec.hist(ops_mod.READ)
    assert rec.count[ops_mod.READ] == sum(h) == h[hist.FULL.index(5000)] == 5000
    assert reads in (0, 5000)
    assert not rec.err_total[ops_mod.READ]


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_read_loop_counts_missing_rows_once(client, tmp_path, monkeypatch):
    # A missing row is an error, not a latency; the reads around it are
    # recorded, and it uses up one read of the count.
    rec, reads = read_loop(
        client, str(tmp_path / "r.db"), monkeypatch, 5000, count=3000, delete="DELETE FROM bench WHERE ID % 3 = 0"
    )
    assert reads in (0, 3000)
    h, missing = rec.hist(ops_mod.READ), rec.errs[ops_mod.READ][hist.ERROR_KINDS.index("missing")]
    assert 700 < missing < 1300
    assert sum(h) == h[hist.FULL.index(5000)] == 3000 - missing == rec.count[ops_mod.READ]


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_read_loop_stops_at_the_deadline(client, tmp_path, monkeypatch):
    # A duration of 10.0025 ms, a reading every 7 µs: the reads that end
    # inside it count, the one that ends past it is an overrun, and none
    # starts after it.
    rec, reads = read_loop(client, str(tmp_path / "r.db"), monkeypatch, 7000, duration=10_002_500)
    h = rec.hist(ops_mod.READ)
    assert rec.overrun[ops_mod.READ] == 1
    assert sum(rec.overruns[ops_mod.READ]) == 1
    assert sum(h) == h[hist.FULL.index(7000)] == rec.count[ops_mod.READ]
    # Up to 10,003 µs, 1,430 readings: each a read's end, or the start of
    # the run, of a check or of a chunk of reads (a chunk of one read in the
    # last 2 ms).
    assert 1200 < sum(h) < 1430
    if reads:
        assert reads == sum(h) + 1


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_read_loop_leaves_out_its_recording(client, tmp_path, monkeypatch):
    # Every reading after the first ends a read (one step of latency) or
    # the harness's work at a check (one step left out of the elapsed time),
    # so the two add up to the loop's span; a check every 1 ms: 25 of them.
    spans = []
    rec, _ = read_loop(client, str(tmp_path / "r.db"), monkeypatch, 5000, count=5000, spans=spans)
    recorded, span = spans
    assert span == 5000 * 5000 + recorded
    assert recorded == 5000 * 25


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_read_loop_c_records_each_read_once(client, tmp_path):
    # The C read loop, by duration on the real clock, with a third of the
    # rows missing: every SELECT it ran is a latency, an overrun or a
    # missing row, once.
    if ops_mod.READS is None:
        pytest.skip("the C timing loops are not built")
    w = Worker(db.Client(client), threading.Event())
    job = {"workload": "read", "path": str(tmp_path / "r.db"), "params": {"rows": "1000"}, "settings": {}}
    reads = [0]
    try:
        w.setup(job)
        w.pool.run("DELETE FROM bench WHERE ID % 3 = 0")
        wl, env = w.wl, w.env
        wl.read_sql, wl.wpool, wl.env = "SELECT ID,rand,hash FROM bench WHERE ID = ?", env.pool, env
        wl.count, wl.duration = 0, 30_000_000
        eng = ops_mod.Engine(env, wl)
        ex = counting_executor(wl, client, reads)
        eng.workers = 1
        eng.begin(ops_mod.pc())
        lane = ops_mod.Lane(eng, ops_mod.READ)
        try:
            eng.read_loop(lane, ex)
        finally:
            ex.close()
    finally:
        w.close()
    rec = lane.rec
    h = rec.hist(ops_mod.READ)
    missing = rec.errs[ops_mod.READ][hist.ERROR_KINDS.index("missing")]
    ok = sum(h)
    assert ok == rec.count[ops_mod.READ] and ok > 100 and missing > 30
    assert 0.2 < missing / (ok + missing) < 0.45
    assert rec.overrun[ops_mod.READ] <= 1
    if reads[0]:
        assert reads[0] == ok + missing + rec.overrun[ops_mod.READ]


def test_timed_record_is_record_ends():
    # The C recording counts what hist.record_ends counts, once settled (a
    # zero latency is 1 ns, as settle makes it), clamps included.
    if ops_mod.RECORD is None:
        pytest.skip("the C timing loops are not built")
    import random

    rng = random.Random(5)
    for trial in range(20):
        ends = [10**12]
        for _ in range(rng.randrange(0, 300)):
            d = rng.choice(
                [0, 1, 2, rng.randrange(3, 2048), rng.randrange(2048, 1 << 17), rng.randrange(1 << 17, 10**10)]
            )
            if trial == 0:
                d = hist.HIGHEST + rng.randrange(1, 10**6)
            ends.append(ends[-1] + d)
        raw = array("q", ends + [7, 7])  # readings past n are not used
        a, b = hist.FULL.new(), hist.FULL.new()
        hist.record_ends(a, list(ends))
        ops_mod.RECORD(b, raw, len(ends))
        assert hist.FULL.settle(a) == hist.FULL.settle(b)
    with pytest.raises(ValueError):
        ops_mod.RECORD(hist.FULL.new(), array("q", [1, 2]), 3)
    with pytest.raises(TypeError):
        ops_mod.RECORD((0,) * 10, array("q", [1, 2]), 2)


def test_timed_reads_uniform():
    # The C loop's uniform keys are gen.KeyGen.uniform's, offset, drawn from
    # the generator's state, which it leaves where the Python draws would
    # have, an exception included.
    if ops_mod.READS_UNIFORM is None:
        pytest.skip("the C timing loops are not built")
    seen = []

    class Cur:
        def fetchall(self):
            return [(1,)]

    def execute(sql, args):
        seen.append(args[0])
        if len(seen) == boom[0]:
            raise ValueError("boom")
        return Cur()

    far = 1 << 62
    for n, off in ((1000, 0), (7, 100), (1, 5), (0, 0), (1 << 40, 3)):
        for worker in (0, 1, 5):
            seen.clear()
            boom = [0]
            mine, ref = gen.KeyGen("uniform", None, 7, worker), gen.KeyGen("uniform", None, 7, worker)
            out = array("q", bytes(8 * 40))
            got = ops_mod.READS_UNIFORM(execute, "q", mine, n, off, out, 1, far)
            assert got == (38 << 2) | 2
            assert seen == [ref.next(n) + off for _ in range(38)]
            assert mine.state == ref.state
            seen.clear()
            boom = [5]
            with pytest.raises(ValueError):
                ops_mod.READS_UNIFORM(execute, "q", mine, n, off, out, 1, far)
            assert seen == [ref.next(n) + off for _ in range(5)] and mine.state == ref.state
            assert out[5] == 0


def test_timed_reads():
    if ops_mod.READS is None:
        pytest.skip("the C timing loops are not built")
    reads = ops_mod.READS

    class Cur:
        def __init__(self, rows):
            self.rows = rows

        def fetchall(self):
            return self.rows

    table = {1: [(1,)], 2: [(2,)], 3: []}
    keys = itertools.cycle([1, 2, 3]).__next__

    def execute(sql, args):
        if args[0] == 9:
            raise ValueError("boom")
        return Cur(table[args[0]])

    out = array("q", bytes(8 * 16))
    far = 1 << 62
    # a missing row (key 3) ends the loop after its reading
    got = reads(execute, "q", lambda n: keys(), 0, out, 1, far)
    assert got == (3 << 2) | 1 and 0 < out[1] <= out[2] <= out[3] and out[4] == 0
    # a reading at or past stop_at ends it
    got = reads(execute, "q", lambda n: 1, 0, out, 1, 0)
    assert got == (1 << 2) | 0
    # a full array: room for one reading more than the reads
    got = reads(execute, "q", lambda n: 2, 0, out, 1, far)
    assert got == (14 << 2) | 2 and out[14] > 0
    # next_key gets its argument; an exception propagates after a 0 mark
    out = array("q", [-1] * 16)
    seen = []

    def nk(n):
        seen.append(n)
        return 9 if len(seen) == 3 else 1

    with pytest.raises(ValueError):
        reads(execute, "q", nk, 1000, out, 1, far)
    assert seen == [1000] * 3 and out[1] > 0 and out[2] > 0 and out[3] == 0 and out[4] == -1
    with pytest.raises(ValueError):
        reads(execute, "q", nk, 0, array("q", [0]), 0, far)
