"""The protocol loop, through a worker process."""

import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent.parent


def converse(*lines, client="sqlite3"):
    p = subprocess.run(
        [sys.executable, "-m", "litebench_worker", "--client", client],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=HERE,
        timeout=60,
    )
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()]


def test_hello_and_close():
    rc, out = converse('{"t":"hello","protocol":1}', '{"t":"close"}', client="apsw")
    assert rc == 0
    assert out[0]["t"] == "hello" and out[0]["protocol"] == 1 and out[0]["client"] == "python-apsw"
    assert "open_loop" in out[0]["caps"] and "program" in out[0]["caps"] and out[0]["engine_version"]


def test_wrong_protocol():
    rc, out = converse('{"t":"hello","protocol":2}')
    assert rc == 1
    assert out == [{"t": "error", "error": "worker protocol 2 asked, this worker speaks 1"}]


def test_bad_message():
    rc, out = converse("{not json")
    assert out[0]["t"] == "error" and out[0]["error"].startswith("worker protocol: bad message")


def test_run_before_setup():
    rc, out = converse('{"t":"hello","protocol":1}', '{"t":"run"}')
    assert rc == 1 and out[-1] == {"t": "error", "error": "worker: run before setup"}


def test_whole_run(tmp_path):
    job = {
        "workload": "insert",
        "path": str(tmp_path / "w.db"),
        "params": {"rows": "1000", "seed": "1"},
        "settings": {"batch": "100"},
        "digest": True,
        "acks": True,
    }
    rc, out = converse(
        '{"t":"hello","protocol":1}', json.dumps({"t": "setup", "job": job}), '{"t":"run"}', '{"t":"close"}'
    )
    assert rc == 0
    kinds = [e["t"] for e in out]
    assert kinds == ["hello", "setup_done"] + ["ack"] * 10 + ["final"]
    assert [e["seqs"] for e in out[2:12]] == [[i * 100] for i in range(10)]
    fin = out[-1]
    assert fin["status"] == "ok" and fin["done"] == 1000
    # The transcript the Go worker produced for this job (internal/worker/testdata).
    assert out[1]["digest"] == "sha256:6986ad6772a87254302737deb97dfac4f13e7fcafae1794c6c094e7ba94bdb7c"
    assert fin["digest"] == "sha256:01280d2f142b570b616b67c72a99d9248611ed5b7bdac8cc318593ec458a28d3"
    assert [(o["name"], o["count"]) for o in fin["final_ops"]] == [("insert", 1000), ("begin", 10), ("commit", 10)]
