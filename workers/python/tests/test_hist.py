"""The interval taker: what live recorders saw since the last take."""

import os
import random

import pytest

from litebench_worker import hist


@pytest.fixture(params=["C", "Python"])
def delta(request):
    """The taker's comparison: the C one (setup.sh builds it) or Python's."""
    if request.param == "C":
        if hist.DELTA is None:
            if os.environ.get("LITEBENCH_REQUIRE_WORKERS") == "1":
                pytest.fail("the C comparison (litebench_worker/_timed) is not built: run setup.sh")
            pytest.skip("the C comparison is not built")
        return hist.DELTA
    return None


def test_interval_taker_takes_what_changed(delta):
    # Op 0 records latencies, op 1 only errors (its histogram never made),
    # and a recorder that is not live is skipped: each take returns what
    # changed since the last, the latencies in INTERVAL's buckets.
    live, quiet = hist.Recorder(2, live=True), hist.Recorder(2)
    taker = hist.IntervalTaker(delta)
    assert taker.take([live, quiet], 0) == (0, 0, None)
    assert taker.take([live, quiet], 1) == (0, 0, None)
    for d in (1500, 1500, 250_000):
        live.observe(0, d)
    quiet.observe(0, 9)
    live.error(1, "busy")
    n, errs, counts = taker.take([live, quiet], 0)
    want = hist.INTERVAL.new()
    for d in (1500, 1500, 250_000):
        want[hist.INTERVAL.index(d)] += 1
    assert (n, errs, counts) == (3, 0, want)
    assert taker.take([live, quiet], 1) == (0, 1, None)
    live.observe(0, 1500)
    live.error(1, "busy")
    live.error(1, "locked")
    want = hist.INTERVAL.new()
    want[hist.INTERVAL.index(1500)] = 1
    assert taker.take([live, quiet], 0) == (1, 0, want)
    assert taker.take([live, quiet], 1) == (0, 2, None)
    assert taker.take([live, quiet], 0) == (0, 0, None)


def test_interval_taker_c_and_python_agree():
    # Counts changed anywhere in FULL's range, the clamped ends included
    # (index 0 counts as 1 ns, the indexes past HIGHEST's as HIGHEST), some
    # recorders live and some not, over several takes: the C comparison
    # finds what the Python one finds.
    if hist.DELTA is None:
        if os.environ.get("LITEBENCH_REQUIRE_WORKERS") == "1":
            pytest.fail("the C comparison (litebench_worker/_timed) is not built: run setup.sh")
        pytest.skip("the C comparison is not built")
    rnd = random.Random(7)
    recs = [hist.Recorder(3, live=live) for live in (True, True, False)]
    in_c, in_py = hist.IntervalTaker(hist.DELTA), hist.IntervalTaker(None)
    for _ in range(6):
        for r in recs:
            for op in rnd.sample(range(3), 2):
                h = r.hist(op)
                ends = [0, hist.FULL.top, hist.FULL.length - 1]
                for i in ends + [rnd.randrange(hist.FULL.length) for _ in range(40)]:
                    h[i] += rnd.choice((0, 1, 3, 1000, 10**12))
            r.error(rnd.randrange(3), "busy")
        for op in range(3):
            got, want = in_c.take(recs, op), in_py.take(recs, op)
            assert got == want
    assert all(in_c.take(recs, op) == (0, 0, None) for op in range(3))


def test_delta_refuses_what_is_not_counts():
    if hist.DELTA is None:
        pytest.skip("the C comparison is not built")
    with pytest.raises(TypeError):
        hist.DELTA(tuple(hist.FULL.new()), hist.FULL.new(), hist.INTERVAL.new())
    with pytest.raises(ValueError):
        hist.DELTA(hist.FULL.new(), [0] * 10, hist.INTERVAL.new())
    h = hist.FULL.new()
    h[hist.FULL.length - 1] = 1
    with pytest.raises(ValueError):
        hist.DELTA(h, hist.FULL.new(), [0] * 10)
