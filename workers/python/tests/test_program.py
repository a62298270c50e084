"""The program's expressions and column generators against the Go side's
reference values: internal/spec/testdata/program-vectors.json (written by
go test ./internal/spec -run TestProgramVectors -update) and the generators'
internal/gen/testdata/vectors.json."""

import json
import pathlib

from litebench_worker import columns, exprs, fmath

ROOT = pathlib.Path(__file__).resolve().parents[3]
V = json.loads((ROOT / "internal/spec/testdata/program-vectors.json").read_text())
G = json.loads((ROOT / "internal/gen/testdata/vectors.json").read_text())


def typed(v):
    if v is None:
        return {"null": True}
    if type(v) is bool:
        return {"bool": v}
    if type(v) is int:
        return {"int": str(v)}
    if type(v) is float:
        return {"float": "%016x" % fmath.bits(v)}
    return {"text": v}


def worker_ctx(p, worker):
    seed = int(p["seed"])
    tables = [columns.Table(t, seed) for t in p["tables"]]
    c = exprs.Ctx(len(p["vars"]), columns.draw(seed, 0x6B6579, worker + 1), tables)
    for k, v in enumerate(p["vars"]):
        if "value" in v:
            c.vars[k], c.set[k] = exprs.literal(v["value"]), True
    c.vars[p["client_id"]], c.set[p["client_id"]] = worker, True
    if p["scale"] >= 0:
        c.vars[p["scale"]], c.set[p["scale"]] = 1, True
    return c


def test_expressions():
    bad = []
    for case in V["cases"]:
        c = worker_ctx(V["program"], case["worker"])
        got, err = [], None
        for _ in range(5):
            try:
                got.append(typed(exprs.evaluate(case["expr"], c)))
            except exprs.EvalError as e:
                err = str(e)
                break
        if got != case.get("values", []) or (err is None) != ("error" not in case):
            bad.append((case["src"], case["worker"], got, err, case.get("values"), case.get("error")))
    assert not bad, "\n".join(map(str, bad))


def test_columns():
    cols = G["columns"]
    t = columns.Table({"name": "every", "create": [], "columns": cols}, 0)
    for s in G["seeds"]:
        seed = int(s["seed"])
        for i in range(100):
            row = t.row(seed, i)
            for k, c in enumerate(cols):
                assert str(row[k]) == s["columns"][c["name"]][i], (c["name"], seed, i)


def test_go_float():
    for f, want in [
        (1.5, "1.5"),
        (1e21, "1e+21"),
        (123456789.0, "1.23456789e+08"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (100.0, "100"),
        (-2.5, "-2.5"),
        (0.0, "0"),
        (1e20, "1e+20"),
        (1234567.0, "1.234567e+06"),
        (123456.0, "123456"),
    ]:
        assert exprs.go_float(f) == want, (f, exprs.go_float(f), want)


def test_zipf_constants():
    # The prepared zipfians, exact sums and the expansion above 2^20 items
    # alike, bit for bit.
    from litebench_worker import gen

    for z in G["zipf"]:
        g = gen.Zipf(z["n"], z["theta"])
        for k in ("zetan", "half", "alpha", "eta"):
            assert "%016x" % fmath.bits(getattr(g, k)) == z[k], (z["n"], z["theta"], k)
