"""The generators against reference values the Go generators produced
(tests/vectors.json, kept current by vectors_test.go)."""

import json
import pathlib

import pytest

from litebench_worker import gen

V = json.loads((pathlib.Path(__file__).parent / "vectors.json").read_text())


def test_mix():
    for seed, i, want in V["mix"]:
        assert gen.mix(seed, i) == want


@pytest.mark.parametrize("name", sorted(V["rows"]))
def test_rows_and_keys(name):
    sc = gen.SCHEMAS[name]
    assert sorted(gen.SCHEMAS) == sorted(V["rows"])
    for v in V["rows"][name]:
        assert list(sc.row(v["seed"], v["i"])) == v["row"], (name, v["seed"], v["i"])
        assert sc.key(v["seed"], v["i"]) == v["key"]


def test_text():
    for v in V["text"]:
        assert gen.text(v["seed"], 12345, v["n"]) == v["text"]


def test_keygen():
    for v in V["keygen"]:
        z = gen.Zipf(v["rows"], v["theta"]) if v["kind"] != "uniform" else None
        g = gen.KeyGen(v["kind"], z, v["seed"], v["worker"])
        assert [g.next(n) for n in v["n"]] == v["keys"], (v["kind"], v["theta"], v["rows"], v["worker"])


def test_choose():
    for v in V["choose"]:
        choose = gen.chooser(v["seed"], v["ratio"])
        assert [choose(seq) for seq in range(len(v["writes"]))] == v["writes"]


def test_schedule():
    for v in V["schedule"]:
        prev, got = 0, []
        for seq in range(len(v["due"])):
            prev = gen.schedule(v["arrivals"], v["rate"], seq, prev, gen.uniform01(gen.splitmix64(v["seed"] ^ seq)))
            got.append(prev)
        assert got == v["due"], (v["arrivals"], v["rate"])


def test_check_bench():
    r, h = gen.bench_values(1, 5)
    assert gen.check_bench(r, h)
    assert not gen.check_bench(r, h[:-1] + ("0" if h[-1] != "0" else "1"))
    assert not gen.check_bench("zz", h)
