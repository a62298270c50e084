/*
 * The Python worker's timing loop in C: runs a statement once per item of a
 * sequence and writes the clock's reading after each call into an array of
 * 64-bit integers, so that the harness adds to each statement only the
 * clock: no bytecode, no iterator chain and no Python integer between two
 * calls (the readings become integers later, off the clock). Built by
 * setup.sh; without it the worker runs the same loop in Python.
 *
 * The clock is CLOCK_MONOTONIC in nanoseconds, time.perf_counter_ns's on
 * Linux, so that readings from both can be subtracted.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/*
 * With LITEBENCH_TIMED_STEP_NS=N in the environment when the module loads,
 * the loops' clock is a counter that starts at the real clock's reading and
 * moves N ns a reading: bench/instr.py counts instructions under callgrind,
 * which runs the loops some 250 times slower, with the paths they take at
 * full speed. Nothing else sets it.
 */
static int64_t fake_step, fake_now;

static inline int64_t clock_ns(void) {
    struct timespec ts;
    if (fake_step) {
        return fake_now += fake_step;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * calls(fn, first, items, out, k): for each item x of items (a list or
 * tuple), fn(first, x), its result dropped, then the clock's reading in
 * out[k], out[k+1], ... (out: a writable buffer of int64, an array('q'),
 * with room for them and one more). An exception from fn ends the loop and
 * propagates, with a 0 written after the readings of the calls that
 * returned, so the caller can count them.
 */
static PyObject *calls(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "calls(fn, first, items, out, k) takes 5 arguments");
        return NULL;
    }
    PyObject *fn = args[0], *first = args[1];
    Py_ssize_t k = PyLong_AsSsize_t(args[4]);
    if (k == -1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *items = PySequence_Fast(args[2], "calls: items must be a list or a tuple");
    if (items == NULL) {
        return NULL;
    }
    Py_buffer buf;
    if (PyObject_GetBuffer(args[3], &buf, PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        Py_DECREF(items);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    Py_ssize_t room = buf.len / (Py_ssize_t)sizeof(int64_t);
    if (buf.itemsize != (Py_ssize_t)sizeof(int64_t) || buf.format == NULL || strcmp(buf.format, "q") != 0 ||
        k < 0 || k + n + 1 > room) {
        PyErr_SetString(PyExc_ValueError, "calls: out must be an array('q') with room for k + len(items) + 1 readings");
        PyBuffer_Release(&buf);
        Py_DECREF(items);
        return NULL;
    }
    int64_t *out = (int64_t *)buf.buf + k;
    PyObject *argv[2] = {first, NULL};
    PyObject *ret = Py_None;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* fn may change a list under us: take each item anew, and hold it */
        if (i >= PySequence_Fast_GET_SIZE(items)) {
            PyErr_SetString(PyExc_RuntimeError, "calls: items changed during the loop");
            out[i] = 0;
            ret = NULL;
            break;
        }
        PyObject *x = PySequence_Fast_GET_ITEM(items, i);
        Py_INCREF(x);
        argv[1] = x;
        PyObject *r = PyObject_Vectorcall(fn, argv, 2, NULL);
        Py_DECREF(x);
        if (r == NULL) {
            out[i] = 0;
            ret = NULL;
            break;
        }
        Py_DECREF(r);
        out[i] = clock_ns();
    }
    PyBuffer_Release(&buf);
    Py_DECREF(items);
    Py_XINCREF(ret);
    return ret;
}

static PyObject *str_fetchall;

/*
 * Where a point read's key comes from: next_key(arg), a Python call, or, for
 * uniform keys, gen.KeyGen.uniform(n) worked out here (its state taken from
 * the KeyGen and given back), plus off. A Python function called from C
 * costs a frame of the interpreter's own each time, and the generator's
 * 64-bit arithmetic is many big-integer operations in Python: in C the key
 * costs nanoseconds, the harness's part of a read being what it measures.
 */
typedef struct {
    PyObject *next_key, *arg; /* next_key(arg) when next_key is set */
    uint64_t state;           /* else KeyGen.uniform(n) + off */
    long long n, off;
} keysrc;

#define GOLDEN 0x9E3779B97F4A7C15ULL
#define MIX1 0xBF58476D1CE4E5B9ULL
#define MIX2 0x94D049BB133111EBULL

/* gen.KeyGen.uniform(n), exactly: the same state, the same float steps. */
static inline long long uniform(uint64_t *state, long long n) {
    if (n <= 1) {
        return 0;
    }
    uint64_t z = *state += GOLDEN;
    z = (z ^ (z >> 30)) * MIX1;
    z = (z ^ (z >> 27)) * MIX2;
    return (long long)((double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0 * (double)n);
}

static inline PyObject *next_key(keysrc *ks) {
    if (ks->next_key != NULL) {
        return PyObject_CallOneArg(ks->next_key, ks->arg);
    }
    return PyLong_FromLongLong(uniform(&ks->state, ks->n) + ks->off);
}

/* The statuses the read loops return in their two low bits. */
enum { CROSSED = 0, MISSING = 1, FULL = 2 };

/*
 * The point-read loop: execute(sql, (key,)).fetchall() per read, the key
 * from ks, the clock's reading after each in out[k], out[k+1], ... (an
 * array('q')), until a reading reaches stop_at (CROSSED), a read finds no
 * row (MISSING) or out has room for one more reading only (FULL). Returns
 * (reads << 2) | status; the last reading is the read that ended the loop.
 * An exception from a call ends the loop and propagates, with a 0 written
 * after the readings of the reads that returned rows.
 */
static PyObject *read_loop(PyObject *execute, PyObject *sql, keysrc *ks, PyObject *outobj, Py_ssize_t k,
                           long long stop_at) {
    Py_buffer buf;
    if (PyObject_GetBuffer(outobj, &buf, PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        return NULL;
    }
    Py_ssize_t room = buf.len / (Py_ssize_t)sizeof(int64_t);
    if (buf.itemsize != (Py_ssize_t)sizeof(int64_t) || buf.format == NULL || strcmp(buf.format, "q") != 0 ||
        k < 0 || k + 2 > room) {
        PyErr_SetString(PyExc_ValueError, "reads: out must be an array('q') with room for k + 2 readings");
        PyBuffer_Release(&buf);
        return NULL;
    }
    int64_t *out = (int64_t *)buf.buf;
    Py_ssize_t i = k;
    int status = FULL;
    for (; i + 1 < room; i++) {
        PyObject *key = next_key(ks);
        if (key == NULL) {
            goto fail;
        }
        PyObject *tup = PyTuple_Pack(1, key);
        Py_DECREF(key);
        if (tup == NULL) {
            goto fail;
        }
        PyObject *argv[2] = {sql, tup};
        PyObject *cur = PyObject_Vectorcall(execute, argv, 2, NULL);
        Py_DECREF(tup);
        if (cur == NULL) {
            goto fail;
        }
        PyObject *rows = PyObject_VectorcallMethod(str_fetchall, &cur, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(cur);
        if (rows == NULL) {
            goto fail;
        }
        int found = PyList_CheckExact(rows) ? PyList_GET_SIZE(rows) > 0 : PyObject_IsTrue(rows);
        Py_DECREF(rows);
        if (found < 0) {
            goto fail;
        }
        int64_t now = clock_ns();
        out[i] = now;
        if (!found) {
            status = MISSING;
            i++;
            break;
        }
        if (now >= stop_at) {
            status = CROSSED;
            i++;
            break;
        }
    }
    PyBuffer_Release(&buf);
    return PyLong_FromSsize_t(((i - k) << 2) | status);
fail:
    out[i] = 0;
    PyBuffer_Release(&buf);
    return NULL;
}

/*
 * reads(execute, sql, next_key, arg, out, k, stop_at): read_loop with the
 * keys next_key(arg).
 */
static PyObject *reads(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "reads(execute, sql, next_key, arg, out, k, stop_at) takes 7 arguments");
        return NULL;
    }
    Py_ssize_t k = PyLong_AsSsize_t(args[5]);
    if (k == -1 && PyErr_Occurred()) {
        return NULL;
    }
    long long stop_at = PyLong_AsLongLong(args[6]);
    if (stop_at == -1 && PyErr_Occurred()) {
        return NULL;
    }
    keysrc ks = {.next_key = args[2], .arg = args[3]};
    return read_loop(args[0], args[1], &ks, args[4], k, stop_at);
}

static PyObject *str_state;

/*
 * reads_uniform(execute, sql, keygen, n, off, out, k, stop_at): read_loop
 * with the keys keygen.uniform(n) + off, keygen's state advanced by every
 * key drawn, as the Python calls would have advanced it.
 */
static PyObject *reads_uniform(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "reads_uniform(execute, sql, keygen, n, off, out, k, stop_at) takes 8 arguments");
        return NULL;
    }
    keysrc ks = {0};
    ks.n = PyLong_AsLongLong(args[3]);
    if (ks.n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    ks.off = PyLong_AsLongLong(args[4]);
    if (ks.off == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t k = PyLong_AsSsize_t(args[6]);
    if (k == -1 && PyErr_Occurred()) {
        return NULL;
    }
    long long stop_at = PyLong_AsLongLong(args[7]);
    if (stop_at == -1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *st = PyObject_GetAttr(args[2], str_state);
    if (st == NULL) {
        return NULL;
    }
    ks.state = PyLong_AsUnsignedLongLong(st);
    Py_DECREF(st);
    if (ks.state == (uint64_t)-1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *ret = read_loop(args[0], args[1], &ks, args[5], k, stop_at);
    /* The state goes back even when the loop failed: the keys it drew are
       drawn, as the Python calls' would be. */
    PyObject *exc_type, *exc_value, *exc_tb;
    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    st = PyLong_FromUnsignedLongLong(ks.state);
    if (st == NULL || PyObject_SetAttr(args[2], str_state, st) < 0) {
        Py_XDECREF(st);
        Py_XDECREF(ret);
        Py_XDECREF(exc_type);
        Py_XDECREF(exc_value);
        Py_XDECREF(exc_tb);
        return NULL;
    }
    Py_DECREF(st);
    PyErr_Restore(exc_type, exc_value, exc_tb);
    return ret;
}

/*
 * hist.Geometry.index of a value v in [1, HIGHEST], for the geometry whose
 * half_mag is given: hist.FULL's (3 significant figures) or
 * hist.INTERVAL's (2).
 */
#define FULL_HALF_MAG 10
#define INTERVAL_HALF_MAG 7
#define HIGHEST 600000000000LL

static inline Py_ssize_t index_of(int64_t v, int half_mag) {
    int b = (64 - __builtin_clzll((uint64_t)v)) - half_mag - 1;
    return b > 0 ? ((Py_ssize_t)b << half_mag) + (Py_ssize_t)(v >> b) : (Py_ssize_t)v;
}

static inline int64_t clamp(int64_t v) { return v < 1 ? 1 : v > HIGHEST ? HIGHEST : v; }

/*
 * list_add(counts, idx, d): counts[idx] += d for a list of int counts (a new
 * int object in the slot, as Python's += stores one). -1 with an exception
 * set when idx is past the list's end or the slot holds no int.
 */
static int list_add(PyObject *counts, Py_ssize_t idx, long long d) {
    if (idx >= PyList_GET_SIZE(counts)) {
        PyErr_SetString(PyExc_ValueError, "counts shorter than the histogram's");
        return -1;
    }
    PyObject *old = PyList_GET_ITEM(counts, idx);
    long long c = PyLong_AsLongLong(old);
    if (c == -1 && PyErr_Occurred()) {
        return -1;
    }
    PyObject *next = PyLong_FromLongLong(c + d);
    if (next == NULL) {
        return -1;
    }
    PyList_SET_ITEM(counts, idx, next);
    Py_DECREF(old);
    return 0;
}

/*
 * record(h, ends, n): hist.record_ends(h, ends[:n]) for an array('q') of
 * readings, without copying it: each latency ends[i] - ends[i-1] (clamped
 * into [1, HIGHEST]) counted in h, a list of hist.FULL's counts. In Python
 * each latency costs a few hundred nanoseconds, and its look-ups in the
 * index table and the counts scatter over a megabyte, which the reads then
 * find gone from the caches.
 */
static PyObject *record(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "record(h, ends, n) takes 3 arguments");
        return NULL;
    }
    PyObject *h = args[0];
    if (!PyList_CheckExact(h)) {
        PyErr_SetString(PyExc_TypeError, "record: h must be a list");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_buffer buf;
    if (PyObject_GetBuffer(args[1], &buf, PyBUF_FORMAT) < 0) {
        return NULL;
    }
    if (buf.itemsize != (Py_ssize_t)sizeof(int64_t) || buf.format == NULL || strcmp(buf.format, "q") != 0 || n < 0 ||
        n > buf.len / (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "record: ends must be an array('q') of at least n readings");
        PyBuffer_Release(&buf);
        return NULL;
    }
    const int64_t *ends = (const int64_t *)buf.buf;
    for (Py_ssize_t i = 1; i < n; i++) {
        if (list_add(h, index_of(clamp(ends[i] - ends[i - 1]), FULL_HALF_MAG), 1) < 0) {
            PyBuffer_Release(&buf);
            return NULL;
        }
    }
    PyBuffer_Release(&buf);
    Py_RETURN_NONE;
}

/*
 * hist.FULL's lowest value at flat index i, clamped into [1, HIGHEST], as
 * hist.Geometry.value_at computes it.
 */
static inline int64_t full_value_at(Py_ssize_t i) {
    int b = (int)(i >> FULL_HALF_MAG) - 1;
    int64_t sub = (int64_t)(i & ((1 << FULL_HALF_MAG) - 1)) + (1 << FULL_HALF_MAG);
    if (b < 0) {
        sub -= 1 << FULL_HALF_MAG;
        b = 0;
    }
    return clamp(sub << b);
}

/*
 * delta(h, prev, out): what hist.IntervalTaker.take finds between a live
 * list of hist.FULL's counts h and prev, the counts it had at the last
 * take. Each count that changed adds its increase to out, a list of
 * hist.INTERVAL's counts, at the bucket holding the FULL bucket's lowest
 * value; prev then holds h's counts. Returns the sum of the increases.
 *
 * A count that did not change is the same int object in both lists (a
 * recording stores a new object), so most of the 31,744 counts are passed
 * over by comparing pointers; prev keeps its references, so no address is
 * reused meanwhile. It runs under the GIL from start to end, as the hot
 * loops record under it: the counts taken are one moment's. In Python,
 * the snapshot and comparison cost about 5 ms a take.
 */
static PyObject *delta(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "delta(h, prev, out) takes 3 arguments");
        return NULL;
    }
    PyObject *h = args[0], *prev = args[1], *out = args[2];
    if (!PyList_CheckExact(h) || !PyList_CheckExact(prev) || !PyList_CheckExact(out)) {
        PyErr_SetString(PyExc_TypeError, "delta: h, prev and out must be lists");
        return NULL;
    }
    Py_ssize_t len = PyList_GET_SIZE(h);
    if (PyList_GET_SIZE(prev) != len || len > ((Py_ssize_t)40 << FULL_HALF_MAG)) {
        PyErr_SetString(PyExc_ValueError, "delta: h and prev must be hist.FULL's counts");
        return NULL;
    }
    long long n = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *cur = PyList_GET_ITEM(h, i), *was = PyList_GET_ITEM(prev, i);
        if (cur == was) {
            continue;
        }
        long long c = PyLong_AsLongLong(cur), p = PyLong_AsLongLong(was);
        if ((c == -1 || p == -1) && PyErr_Occurred()) {
            return NULL;
        }
        if (c != p) {
            if (list_add(out, index_of(full_value_at(i), INTERVAL_HALF_MAG), c - p) < 0) {
                return NULL;
            }
            n += c - p;
        }
        Py_INCREF(cur);
        PyList_SET_ITEM(prev, i, cur);
        Py_DECREF(was);
    }
    return PyLong_FromLongLong(n);
}

/* now(): the loops' clock, a reading (time.perf_counter_ns's clock). */
static PyObject *now(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromLongLong(clock_ns());
}

static PyMethodDef methods[] = {
    {"now", now, METH_NOARGS, "now(): the loops' clock's reading, in ns."},
    {"reads", (PyCFunction)(void (*)(void))reads, METH_FASTCALL,
     "reads(execute, sql, next_key, arg, out, k, stop_at): point reads until the clock reaches stop_at, "
     "a read finds no row, or out is full; returns (reads << 2) | status (0 crossed, 1 missing, 2 full)."},
    {"reads_uniform", (PyCFunction)(void (*)(void))reads_uniform, METH_FASTCALL,
     "reads_uniform(execute, sql, keygen, n, off, out, k, stop_at): reads with the keys "
     "keygen.uniform(n) + off, drawn in C; keygen's state advanced as the calls would advance it."},
    {"record", (PyCFunction)(void (*)(void))record, METH_FASTCALL,
     "record(h, ends, n): hist.record_ends(h, ends[:n]) for an array('q') ends, in C."},
    {"delta", (PyCFunction)(void (*)(void))delta, METH_FASTCALL,
     "delta(h, prev, out): the increases of the FULL counts h over prev, added to out (INTERVAL's counts) "
     "and summed; prev set to h's counts."},
    {"calls", (PyCFunction)(void (*)(void))calls, METH_FASTCALL,
     "calls(fn, first, items, out, k): fn(first, x) for each x of items, the clock's reading "
     "(CLOCK_MONOTONIC, ns) after each written to out[k], out[k+1], ... (an array('q')); "
     "on an exception, 0 follows the readings taken."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_timed", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__timed(void) {
    const char *step = getenv("LITEBENCH_TIMED_STEP_NS");
    if (step != NULL && atoll(step) > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        fake_now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        fake_step = atoll(step);
    }
    str_fetchall = PyUnicode_InternFromString("fetchall");
    str_state = PyUnicode_InternFromString("state");
    if (str_fetchall == NULL || str_state == NULL) {
        return NULL;
    }
    return PyModule_Create(&module);
}
