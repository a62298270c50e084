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

/* The statuses reads() returns in its two low bits. */
enum { CROSSED = 0, MISSING = 1, FULL = 2 };

/*
 * reads(execute, sql, next_key, arg, out, k, stop_at): point reads,
 * execute(sql, (next_key(arg),)).fetchall() each, the clock's reading after
 * each in out[k], out[k+1], ... (an array('q')), until a reading reaches
 * stop_at (CROSSED), a read finds no row (MISSING) or out has room for one
 * more reading only (FULL). Returns (reads << 2) | status; the last reading
 * is the read that ended the loop. An exception from a call ends the loop
 * and propagates, with a 0 written after the readings of the reads that
 * returned rows.
 */
static PyObject *reads(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "reads(execute, sql, next_key, arg, out, k, stop_at) takes 7 arguments");
        return NULL;
    }
    PyObject *execute = args[0], *sql = args[1], *next_key = args[2], *arg = args[3];
    Py_ssize_t k = PyLong_AsSsize_t(args[5]);
    if (k == -1 && PyErr_Occurred()) {
        return NULL;
    }
    long long stop_at = PyLong_AsLongLong(args[6]);
    if (stop_at == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_buffer buf;
    if (PyObject_GetBuffer(args[4], &buf, PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
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
        PyObject *key = PyObject_CallOneArg(next_key, arg);
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
    if (str_fetchall == NULL) {
        return NULL;
    }
    return PyModule_Create(&module);
}
