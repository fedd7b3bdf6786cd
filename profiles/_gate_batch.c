/* Many payloads put through their clean gates in one call (profiles/validator.py, Validator.gate_refused), compiled.

   In Python each payload took three calls around the gate's jsonschema-rs pass (passes_gate, the gate's passes, the
   guard of is_valid), ~0.5 us of the ~5 us a payload costs; this loop calls the pass and the identifier walk
   directly. It is an accelerator only: Validator.gate_refused(compiled=False), a map of passes_gate, is the reference, runs wherever this module was
   not built, and tests/profiles/test_gate_batch.py holds the two to the same answers. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Whether `entry` = (is_valid, holds or None) passes `value`: 1, 0, or -1 with an exception set. A ValueError or
   RecursionError of the pass is a refusal, as in validator._passes: the explanation says what it is. */
static int entry_passes(PyObject *entry, PyObject *value) {
    PyObject *verdict = PyObject_CallOneArg(PyTuple_GET_ITEM(entry, 0), value);
    if (verdict == NULL) {
        if (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_RecursionError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    int passed = PyObject_IsTrue(verdict);
    Py_DECREF(verdict);
    if (passed <= 0) {
        return passed;
    }
    PyObject *holds = PyTuple_GET_ITEM(entry, 1);
    if (holds == Py_None) {
        return 1;
    }
    verdict = PyObject_CallOneArg(holds, value);
    if (verdict == NULL) {
        return -1;
    }
    passed = PyObject_IsTrue(verdict);
    Py_DECREF(verdict);
    return passed;
}

static PyObject *resource_type_key;

PyDoc_STRVAR(refused_doc,
             "refused(values, table, fallback) -> list of int\n\n"
             "The indices of the values the clean gate refuses, in order. table: {resourceType: (is_valid, holds or "
             "None)} for the gates that are nothing more; any other value is asked fallback(value) -> bool.");

static PyObject *refused(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyList_Check(args[0]) || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "refused(values: list, table: dict, fallback)");
        return NULL;
    }
    PyObject *values = args[0], *table = args[1], *fallback = args[2];
    PyObject *result = PyList_New(0);
    if (result == NULL) {
        return NULL;
    }
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(values); index++) {
        PyObject *value = PyList_GET_ITEM(values, index);
        Py_INCREF(value);  /* a gate's call could change the list */
        PyObject *entry = NULL;
        if (PyDict_CheckExact(value)) {
            PyObject *found = PyDict_GetItemWithError(value, resource_type_key);
            if (found != NULL && PyUnicode_CheckExact(found)) {
                entry = PyDict_GetItemWithError(table, found);
            }
            if (entry == NULL && PyErr_Occurred()) {
                goto failed;
            }
        }
        int passed;
        if (entry != NULL && PyTuple_CheckExact(entry) && PyTuple_GET_SIZE(entry) == 2) {
            Py_INCREF(entry);
            passed = entry_passes(entry, value);
            Py_DECREF(entry);
        } else {
            PyObject *verdict = PyObject_CallOneArg(fallback, value);
            if (verdict == NULL) {
                goto failed;
            }
            passed = PyObject_IsTrue(verdict);
            Py_DECREF(verdict);
        }
        if (passed < 0) {
            goto failed;
        }
        if (!passed) {
            PyObject *number = PyLong_FromSsize_t(index);
            if (number == NULL || PyList_Append(result, number) < 0) {
                Py_XDECREF(number);
                goto failed;
            }
            Py_DECREF(number);
        }
        Py_DECREF(value);
        continue;
    failed:
        Py_DECREF(value);
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

static PyMethodDef methods[] = {
    {"refused", (PyCFunction)(void (*)(void))refused, METH_FASTCALL, refused_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "profiles._gate_batch", "Payloads put through their clean gates in one call.", 0,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__gate_batch(void) {
    resource_type_key = PyUnicode_InternFromString("resourceType");
    if (resource_type_key == NULL) {
        return NULL;
    }
    return PyModule_Create(&module);
}
