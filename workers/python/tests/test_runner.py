"""The program runner against the Go reference: each program of
internal/spec/testdata/program-runs.json (go test ./internal/spec -run TestProgramRunnerCases
-update writes it) set up and run as a job by this worker writes the rows the
Go reference evaluator writes: equal content digests after set-up and after
the run."""

import json
import pathlib
import threading

import pytest

from litebench_worker import db
from litebench_worker.worker import Worker

CASES = json.loads((pathlib.Path(__file__).parent / "../../../internal/spec/testdata/program-runs.json").read_text())


# The cases this runner does not run yet: expected to fail (strict, so that
# a case that starts passing must be moved out of this set).
NOT_YET = {"ledger", "pagination", "insert", "read", "write", "write-2", "mixed"}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, raises=Exception)) if c["id"] in NOT_YET else c
        for c in CASES
    ],
    ids=[c["id"] for c in CASES],
)
def test_program_digests(case, tmp_path):
    w = Worker(db.Client("sqlite3"), threading.Event())
    job = {
        "workload": case["name"],
        "program": case["program"],
        "settings": case["settings"],
        "path": str(tmp_path / "p.db"),
        "digest": True,
    }
    try:
        setup = w.setup(job)
        assert setup["digest"] == case["setup_digest"]
        fin = w.run(lambda ev: None)
    finally:
        w.close()
    assert fin["status"] == "ok", fin.get("error")
    assert fin["digest"] == case["final_digest"]
    txns = len(case["program"]["transactions"])
    assert fin["done"] == case["program"]["load"]["count"]
    ops = {o["name"]: o for o in fin["final_ops"]}
    assert sum(ops[n].get("count", 0) for n in case["program"]["ops"][:txns]) == fin["done"]
