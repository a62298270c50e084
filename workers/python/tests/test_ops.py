"""The point-read loop and the insert loop as the runner sees them: every
operation counted once, as a success in the histogram or as an error."""

import threading

import pytest

from litebench_worker import db
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
    assert fin["elapsed_s"] == pytest.approx(0.3, abs=0.05)


@pytest.mark.parametrize("client", ["sqlite3", "apsw"])
def test_insert_statements_each_recorded(client, tmp_path):
    # 2,345 rows, 100 per transaction, 7 per statement: the last statement
    # of each transaction is shorter, and so is the last transaction.
    fin, ops = run(client, str(tmp_path / "i.db"), "insert", {"rows": "2345"}, {"batch": "100", "rows-per-stmt": "7"})
    assert fin["done"] == ops["insert"]["count"] == 2345
    # 23 transactions of 14 statements of 7 rows and one of 2, then one of 6
    # statements of 7 rows and one of 3
    assert ops["insert"]["service"]["count"] == 23 * 15 + 7
    assert ops["begin"]["count"] == ops["commit"]["count"] == 24
