"""The program runner against the Go reference: each program of
internal/spec/testdata/program-runs.json (go test ./internal/spec -run TestProgramRunnerCases
-update writes it) set up and run as a job by this worker, with each client,
writes the rows the Go reference evaluator writes: equal content digests
after set-up and after the run, and counts that add up."""

import copy
import json
import pathlib
import threading
import time

import pytest

from litebench_worker import db
from litebench_worker.settings import BadInput
from litebench_worker.worker import Worker

CASES = json.loads((pathlib.Path(__file__).parent / "../../../internal/spec/testdata/program-runs.json").read_text())


def run_case(case, path, client, interval_ns=0):
    """The case's program as a job: (setup_done, final, interval events)."""
    w = Worker(db.Client(client), threading.Event())
    job = {
        "workload": case["name"],
        "program": case["program"],
        "settings": case["settings"],
        "path": path,
        "digest": True,
        "interval_ns": interval_ns,
    }
    events = []
    try:
        setup = w.setup(job)
        fin = w.run(events.append)
    finally:
        w.close()
    return setup, fin, [e for e in events if e["t"] == "interval"]


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_program_digests(case, client, tmp_path):
    setup, fin, _ = run_case(case, str(tmp_path / "p.db"), client)
    assert setup["digest"] == case["setup_digest"]
    assert fin["status"] == "ok", fin.get("error")
    assert fin["digest"] == case["final_digest"]
    p = case["program"]
    ops = {o["name"]: o for o in fin["final_ops"]}
    if p.get("insert"):
        assert fin["done"] == p["insert"]["rows"]
        assert ops["insert"]["count"] == p["insert"]["rows"]
        return
    txns = len(p["transactions"])
    assert fin["done"] == p["load"]["count"]
    assert sum(ops[n].get("count", 0) for n in p["ops"][:txns] if n in ops) == fin["done"]
    # A statement with a result of its own names its transaction, and runs
    # as often as its transaction when nothing failed.
    for k in range(txns, len(p["ops"])):
        name, of = p["ops"][k], p["of"][k]
        if name in ops:
            assert ops[name]["of"] == of
            if not ops[of].get("errors"):
                assert ops[name]["count"] == ops[of]["count"], name
    for o in fin["final_ops"][: len([n for n in p["ops"][:txns] if n in ops])]:
        assert "of" not in o


@pytest.mark.parametrize("case", [c for c in CASES if c["id"] in ("queue", "ledger")], ids=lambda c: c["id"])
def test_program_intervals(case, tmp_path):
    """Intervals carry transactions only, and add up to the final counts."""
    _, fin, ivs = run_case(case, str(tmp_path / "p.db"), "sqlite3", interval_ns=1_000_000)
    assert fin["status"] == "ok", fin.get("error")
    assert ivs
    parts = {n for n, of in zip(case["program"]["ops"], case["program"]["of"]) if of}
    seen = {}
    for ev in ivs:
        for o in ev.get("ops", []):
            assert o["name"] not in parts
            seen[o["name"]] = seen.get(o["name"], 0) + o["n"]
    assert sum(seen.values()) == fin["done"]
    assert ivs[-1]["done"] == fin["done"]


def by_id(cid):
    return copy.deepcopy(next(c for c in CASES if c["id"] == cid))


def test_program_checks(tmp_path):
    """Checks after the run: each adds a note, failed ones fail the run with
    their messages joined."""
    case = by_id("ledger")
    case["program"]["checks"] = [
        {"name": "null", "sql": "SELECT count(*) FROM account WHERE balance IS NULL", "expect": "eq", "want": "0"},
        {"name": "more", "sql": "SELECT count(*) FROM entry", "expect": "cmp", "cmp": ">", "want": "5"},
        {"name": "accounts", "sql": "SELECT count(*) FROM account", "expect": "unchanged"},
        {"name": "entries", "sql": "SELECT count(*) FROM entry", "expect": "unchanged", "at": "f.toml:3:1"},
        {"name": "none", "sql": "SELECT 1 FROM account WHERE id < 0", "expect": "empty"},
        {"name": "text", "sql": "SELECT 'abc'", "expect": "cmp", "cmp": "!=", "want": "abd"},
        {"name": "wrong", "sql": "SELECT count(*) FROM account", "expect": "eq", "want": "199", "at": "f.toml:9:1"},
    ]
    _, fin, _ = run_case(case, str(tmp_path / "p.db"), "sqlite3")
    assert fin["status"] == "failed"
    assert fin["error"] == (
        'check "entries" failed: got 216, want 0 (unchanged) (f.toml:3:1); '
        'check "wrong" failed: got 200, want 199 (f.toml:9:1)'
    )
    assert fin["notes"][:3] == ['check "null" passed: 0', 'check "more" passed: 216', 'check "accounts" passed: 200']
    assert 'check "none" passed: ' in fin["notes"] and 'check "text" passed: abc' in fin["notes"]


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_program_open_loop(client, tmp_path):
    """Under a rate, each transaction's response time runs from its scheduled
    start: never below its service time; the counts add up."""
    case = by_id("ledger")
    case["program"]["load"].update(rate=2000, count=200, max_inflight=2, warmup_ns=20_000_000)
    _, fin, ivs = run_case(case, str(tmp_path / "p.db"), client, interval_ns=20_000_000)
    assert fin["status"] == "ok", fin.get("error")
    txns = case["program"]["ops"][: len(case["program"]["transactions"])]
    ops = [o for o in fin["final_ops"] if o["name"] in txns]
    assert sum(o["count"] for o in ops) == fin["done"] == 200
    for o in ops:
        for q in ("p50", "p99", "max"):
            assert o["response"][q] >= o["service"][q], (o["name"], q)
    m = {x["name"]: x["value"] for x in fin["metrics"]}
    assert m["wanted_rate"] == 2000 and m["executors"] <= 2 and m["issued_rate"] > 0
    assert sum(o["n"] for ev in ivs for o in ev.get("ops", [])) == 200


@pytest.mark.parametrize(
    "settings",
    [{"write-mutex": "true"}, {"writer": "single"}, {"pool": "1"}, {"conn-per-op": "true"}, {"tx": "immediate"}],
    ids=lambda s: ",".join("%s=%s" % kv for kv in s.items()),
)
def test_program_settings(settings, tmp_path):
    """One worker writes the reference's rows whatever the writer, pool and
    transaction settings."""
    for cid in ("ledger", "queue", "write-2"):
        case = by_id(cid)
        case["settings"].update(settings)
        setup, fin, _ = run_case(case, str(tmp_path / (cid + ".db")), "sqlite3")
        assert fin["status"] == "ok", fin.get("error")
        assert setup["digest"] == case["setup_digest"]
        assert fin["digest"] == case["final_digest"], cid
        assert fin["done"] == case["program"]["load"]["count"]


def test_program_refused(tmp_path):
    """A program this worker cannot run is refused before anything is created."""
    case = by_id("kv")
    case["program"]["version"] = 2
    with pytest.raises(BadInput, match="program version 2"):
        run_case(case, str(tmp_path / "p.db"), "sqlite3")
    case = by_id("kv")
    case["program"]["tables"][0]["columns"][1]["kind"] = "lorem"
    with pytest.raises(BadInput, match="unknown generator lorem"):
        run_case(case, str(tmp_path / "p.db"), "sqlite3")
    case = by_id("kv")
    case["program"]["transactions"][0]["steps"][0]["kind"] = "teleport"
    with pytest.raises(BadInput, match="unknown step teleport"):
        run_case(case, str(tmp_path / "p.db"), "sqlite3")
    assert not (tmp_path / "p.db").exists()


@pytest.mark.parametrize("conn_per_op", ["false", "true"])
def test_program_cancel_sleep(conn_per_op, tmp_path, monkeypatch):
    """A cancel cuts a sleep step short, inside a transaction too: the run
    ends interrupted, at once, and the transaction is rolled back."""
    case = by_id("kv")
    case["settings"]["conn-per-op"] = conn_per_op
    sleep = {"kind": "sleep", "part": -1, "expr": {"op": "int", "v": "60"}, "unit_ns": 1_000_000_000}
    for t in case["program"]["transactions"]:
        t["steps"][:0] = [{"kind": "begin", "part": -1}, sleep]
        t["steps"].append({"kind": "commit", "part": -1})
    crashed = []
    monkeypatch.setattr(threading, "excepthook", crashed.append)
    cancel = threading.Event()
    w = Worker(db.Client("sqlite3"), cancel)
    job = {"workload": "kv", "program": case["program"], "settings": case["settings"], "path": str(tmp_path / "p.db")}
    try:
        w.setup(job)
        threading.Timer(0.2, cancel.set).start()
        t0 = time.monotonic()
        fin = w.run(lambda ev: None)
        assert w.pool.run("SELECT count(*) FROM kv")[0][0] == 1000  # no transaction left open
    finally:
        w.close()
    assert fin["status"] == "interrupted"
    assert time.monotonic() - t0 < 30
    assert not crashed
