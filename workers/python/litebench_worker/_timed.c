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
#include <time.h>

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
    struct timespec ts;
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
        clock_gettime(CLOCK_MONOTONIC, &ts);
        out[i] = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    }
    PyBuffer_Release(&buf);
    Py_DECREF(items);
    Py_XINCREF(ret);
    return ret;
}

static PyMethodDef methods[] = {
    {"calls", (PyCFunction)(void (*)(void))calls, METH_FASTCALL,
     "calls(fn, first, items, out, k): fn(first, x) for each x of items, the clock's reading "
     "(CLOCK_MONOTONIC, ns) after each written to out[k], out[k+1], ... (an array('q')); "
     "on an exception, 0 follows the readings taken."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_timed", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__timed(void) { return PyModule_Create(&module); }
