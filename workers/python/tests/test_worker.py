"""Settings, parameters and histograms."""

import base64
import zlib

import pytest
from hdrh.histogram import HdrHistogram

from litebench_worker import db, hist
from litebench_worker.settings import BadInput, Params, Settings, parse_duration


def test_pragmas_in_go_order():
    s = Settings(
        {}, {"journal": "WAL", "sync": "0", "page-size": "8kib", "cache-size": "-64000", "temp-store": "memory"}
    )
    assert s.pragmas() == [
        "PRAGMA page_size = 8192",
        "PRAGMA busy_timeout = 5000",
        "PRAGMA journal_mode = wal",
        "PRAGMA synchronous = off",
        "PRAGMA cache_size = -64000",
        "PRAGMA temp_store = memory",
    ]


@pytest.mark.parametrize(
    "given, problem",
    [
        ({"journal": "fast"}, "want one of default, delete"),
        ({"batch": "0"}, "must be at least 1"),
        ({"page-size": "1000"}, "power of two"),
        ({"busy-retry": "-1"}, "want none, a retry count, or until"),
        ({"colour": "red"}, 'unknown setting "colour"'),
        ({"in-memory": "yes", "journal": "wal"}, "--journal wal needs a file"),
    ],
)
def test_bad_settings(given, problem):
    with pytest.raises(BadInput, match=problem):
        Settings({}, given)


def test_settings_values():
    s = Settings({"batch": "1"}, {"busy-retry": "until", "pool": "2k"})
    assert (s.int("batch"), s.busy_retries(), s.int("pool")) == (1, -1, 2000)
    assert Settings({}, {"busy-retry": "3"}).busy_retries() == 3
    assert Settings({}, {}).busy_retries() == 0


def test_params():
    p = Params("read", {"rows": "10k", "duration": "1m30s"})
    assert p.int("rows", 0) == 10000
    assert p.duration("duration") == 90 * 10**9
    assert p.seed() == 1
    with pytest.raises(BadInput, match='--rows "x": want a whole number of at least 1'):
        Params("insert", {"rows": "x"}).int("rows", 1)
    with pytest.raises(BadInput, match="has no parameter"):
        Params("scan", {"workers": "2"})
    with pytest.raises(BadInput, match="is not supported"):
        Params("http", {})
    with pytest.raises(BadInput, match="want a number from 0 to 1e\\+09"):
        Params("read", {"rate": "-1"}).float("rate", 0, 1e9)


@pytest.mark.parametrize(
    "text, ns",
    [
        ("0", 0),
        ("10s", 10**10),
        ("500ms", 5 * 10**8),
        ("1.5h", 5400 * 10**9),
        ("2m3.5s", 123_500_000_000),
        ("250us", 250_000),
        ("7ns", 7),
        ("-1s", -(10**9)),
    ],
)
def test_parse_duration(text, ns):
    assert parse_duration(text) == ns


@pytest.mark.parametrize("text", ["", "10", "s", "1x", "1s2"])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueError):
        parse_duration(text)


def test_index_matches_hdrhistogram():
    for g in (hist.FULL, hist.INTERVAL):
        ref = HdrHistogram(1, hist.HIGHEST, g.figures)
        assert g.length == ref.counts_len
        for v in [1, 2, 255, 256, 2047, 2048, 2049, 4097, 10**6 + 7, 123_456_789, hist.HIGHEST]:
            assert g.index(v) == ref._counts_index_for(v), (g.figures, v)
            assert g.value_at(g.index(v)) == g.lowest(v)
            assert g.lowest(v) <= v <= g.highest(v)


def test_summary_and_encoding():
    h = hist.FULL.new()
    values = [1500, 1500, 2100, 9999, 123_456, 5_000_000]
    for v in values:
        hist.FULL.record(h, v)
    s = hist.FULL.summary(h)
    assert s["count"] == 6
    assert s["min"] == 1.5 and s["max"] == 5001.215  # 5,000,000 ns lies in the bucket [4,997,120, 5,001,215]
    assert s["p50"] == 2.101  # the highest value of the bucket [2100, 2101]
    ref = HdrHistogram.decode(hist.FULL.encode(h))
    assert ref.get_total_count() == 6
    assert [ref.get_count_at_value(v) for v in values] == [2, 2, 1, 1, 1, 1]
    # V2 compressed: a base64 header with the compressed-encoding cookie.
    raw = base64.b64decode(hist.FULL.encode(h))
    assert int.from_bytes(raw[:4], "big") & ~0xF0 == 0x1C849304
    zlib.decompress(raw[8:])


def test_clamps():
    h = hist.FULL.new()
    h[0] += 1  # a 0 ns reading
    hist.FULL.record(h, 10**13)  # past 10 minutes
    hist.FULL.settle(h)
    s = hist.FULL.summary(h)
    assert s["min"] == 0.001 and s["count"] == 2
    assert h[hist.FULL.index(hist.HIGHEST)] == 1


def test_round3_rounds_halves_away_from_zero():
    assert hist.round3(0.0005) == 0.001
    assert hist.round3(2.0625) == 2.063  # round() would give 2.062
    assert hist.us(1234567) == 1234.567


def test_uri():
    assert db.uri("/tmp/a?b#c%.db", False, False) == "file:/tmp/a%3Fb%23c%25.db"
    assert db.uri("mem", True, False) == "file:mem?mode=memory&cache=shared"
    assert db.uri("/x.db", False, True) == "file:/x.db?cache=shared"


def test_check_owned(tmp_path):
    p = tmp_path / "x.db"
    assert db.check_owned(str(p)) is None
    p.write_bytes(b"")
    assert db.check_owned(str(p)) is None
    p.write_bytes(b"hello")
    assert "not a SQLite database" in db.check_owned(str(p))
    assert "is a directory" in db.check_owned(str(tmp_path))


def test_created_name():
    for q, want in [
        ("CREATE TABLE account(id INTEGER PRIMARY KEY)", "account"),
        ('-- the log\n/* x */ create unique index if not exists "ix_a" ON a(b)', "ix_a"),
        ("CREATE TEMP TABLE [t1](x)", "t1"),
        ("INSERT INTO t VALUES (1)", None),
        ("CREATE VIEW v AS SELECT 1", "v"),
    ]:
        assert db.created_name(q) == want, q


def test_check_owned_refuses_a_users_table(tmp_path):
    import sqlite3

    p = tmp_path / "b.db"
    c = sqlite3.connect(str(p))
    c.execute("PRAGMA application_id = %d" % db.BENCH_APP_ID)
    c.execute(db.gen.SCHEMAS["users"].create[0])
    c.execute(db.gen.SCHEMAS["users"].create[1])
    c.commit()
    assert db.check_owned(str(p)) is None
    c.execute("CREATE TABLE kv(id INTEGER PRIMARY KEY)")
    c.commit()
    assert db.check_owned(str(p), allowed=db.BENCH_OBJECTS | {"kv"}) is None
    c.execute("CREATE TABLE mine(x)")
    c.commit()
    c.close()
    before = sorted(x.name for x in tmp_path.iterdir())
    why = db.check_owned(str(p), allowed=db.BENCH_OBJECTS | {"kv"})
    assert 'holds table "mine" that litebench did not create' in why
    assert sorted(x.name for x in tmp_path.iterdir()) == before
