"""The program runner against the Go reference: each program of
internal/spec/testdata/program-runs.json (go test ./internal/spec -run TestProgramRunnerCases
-update writes it) set up and run as a job by this worker, with each client,
writes the rows the Go reference evaluator writes: equal content digests
after set-up and after the run, and counts that add up."""

import json
import pathlib
import threading

import pytest

from litebench_worker import db
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
