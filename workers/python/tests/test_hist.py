"""The interval taker: what live recorders saw since the last take."""

from litebench_worker import hist


def test_interval_taker_takes_what_changed():
    # Op 0 records latencies, op 1 only errors (its histogram never made),
    # and a recorder that is not live is skipped: each take returns what
    # changed since the last, the latencies in INTERVAL's buckets.
    live, quiet = hist.Recorder(2, live=True), hist.Recorder(2)
    taker = hist.IntervalTaker()
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
