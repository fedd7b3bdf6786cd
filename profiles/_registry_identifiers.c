/* The clean gate's walk of registry identifiers (profiles/clean_gate.py, RegistryIdentifiers), compiled.

   The Python walk and its check digits cost ~3 us a payload, as much as half of the gate's jsonschema-rs pass; this
   does the same walk and the NIP, REGON and PESEL arithmetic in ~0.3 us. It is an accelerator only: the Python code
   stays the reference, runs wherever this module was not built, and tests/profiles/test_registry_identifiers.py holds
   the two to the same answers. Every test below is the Python one's, in the same order. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { FORMAT_NIP = 1, FORMAT_REGON = 2, FORMAT_PESEL = 3 };

static const int NIP_WEIGHTS[9] = {6, 5, 7, 2, 3, 4, 5, 6, 7};
static const int REGON9_WEIGHTS[8] = {8, 9, 2, 3, 4, 5, 6, 7};
static const int REGON14_WEIGHTS[13] = {2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8};
static const int PESEL_WEIGHTS[10] = {1, 3, 7, 9, 1, 3, 7, 9, 1, 3};

static int weighted(const char *digits, const int *weights, int count) {
    int sum = 0;
    for (int i = 0; i < count; i++) {
        sum += (digits[i] - '0') * weights[i];
    }
    return sum;
}

static int all_digits(const char *text, Py_ssize_t length) {
    for (Py_ssize_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9') {
            return 0;
        }
    }
    return 1;
}

/* identifier_formats.is_nip: dashes removed, then 10 ASCII digits, the last the check digit (none for checksum 10) */
static int nip_holds(const char *text, Py_ssize_t length) {
    char digits[10];
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        if (text[i] == '-') {
            continue;
        }
        if (count == 10) {
            return 0;
        }
        digits[count++] = text[i];
    }
    if (count != 10 || !all_digits(digits, 10)) {
        return 0;
    }
    int checksum = weighted(digits, NIP_WEIGHTS, 9) % 11;
    return checksum != 10 && checksum == digits[9] - '0';
}

/* identifier_formats.is_regon: 9 or 14 ASCII digits, the last the check digit */
static int regon_holds(const char *text, Py_ssize_t length) {
    if ((length != 9 && length != 14) || !all_digits(text, length)) {
        return 0;
    }
    int sum = length == 9 ? weighted(text, REGON9_WEIGHTS, 8) : weighted(text, REGON14_WEIGHTS, 13);
    return sum % 11 % 10 == text[length - 1] - '0';
}

/* identifier_formats.is_pesel: 11 ASCII digits, the last the check digit */
static int pesel_holds(const char *text, Py_ssize_t length) {
    if (length != 11 || !all_digits(text, length)) {
        return 0;
    }
    return (10 - weighted(text, PESEL_WEIGHTS, 10) % 10) % 10 == text[10] - '0';
}

/* 1 when `value` (a str) passes `check`: a format number above, or a Python callable; 0 when not; -1 on an error */
static int value_holds(PyObject *check, PyObject *value) {
    if (PyLong_CheckExact(check)) {
        long format = PyLong_AsLong(check);
        if (!PyUnicode_IS_ASCII(value)) {
            return 0; /* str.isascii() is false: no format of these takes it */
        }
        const char *text = (const char *)PyUnicode_1BYTE_DATA(value);
        Py_ssize_t length = PyUnicode_GET_LENGTH(value);
        switch (format) {
        case FORMAT_NIP:
            return nip_holds(text, length);
        case FORMAT_REGON:
            return regon_holds(text, length);
        case FORMAT_PESEL:
            return pesel_holds(text, length);
        default:
            PyErr_Format(PyExc_ValueError, "no registry format numbered %ld", format);
            return -1;
        }
    }
    Py_INCREF(value); /* the callable might change the document that holds it */
    PyObject *answer = PyObject_CallOneArg(check, value);
    Py_DECREF(value);
    if (answer == NULL) {
        return -1;
    }
    int truth = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    return truth;
}

/* RegistryIdentifiers._holds: a non-object, a system that is no str or names no format, a value that is no str all
   hold */
static int identifier_holds(PyObject *identifier, PyObject *by_system) {
    if (!PyDict_Check(identifier)) {
        return 1;
    }
    PyObject *system = PyDict_GetItemString(identifier, "system");
    if (system == NULL || !PyUnicode_CheckExact(system)) {
        return 1;
    }
    PyObject *check = PyDict_GetItemWithError(by_system, system);
    if (check == NULL) {
        return PyErr_Occurred() ? -1 : 1;
    }
    PyObject *value = PyDict_GetItemString(identifier, "value");
    if (value == NULL || !PyUnicode_CheckExact(value)) {
        return 1;
    }
    return value_holds(check, value);
}

/* the identifiers of one node at the path's second step (or the node itself without one), as values_at expands them */
static int node_holds(PyObject *node, PyObject *second, PyObject *by_system) {
    if (second == Py_None) {
        return identifier_holds(node, by_system);
    }
    if (!PyDict_Check(node)) {
        return 1;
    }
    PyObject *identifiers = PyDict_GetItemWithError(node, second);
    if (identifiers == NULL && PyErr_Occurred()) {
        return -1;
    }
    if (identifiers != NULL && PyList_Check(identifiers)) {
        int holds = 1;
        Py_INCREF(identifiers);
        for (Py_ssize_t i = 0; holds == 1 && i < PyList_GET_SIZE(identifiers); i++) {
            holds = identifier_holds(PyList_GET_ITEM(identifiers, i), by_system);
        }
        Py_DECREF(identifiers);
        return holds;
    }
    return identifier_holds(identifiers == NULL ? Py_None : identifiers, by_system);
}

PyDoc_STRVAR(registry_identifiers_hold_doc,
             "registry_identifiers_hold(paths, by_system, document, /)\n--\n\n"
             "Whether the identifier of each path of `paths` ((first, second or None) pairs) that is an object whose "
             "system names a format in `by_system` (system -> 1 NIP, 2 REGON, 3 PESEL, or a callable) has a value "
             "passing it; arrays expanded one level at each step.");

static PyObject *registry_identifiers_hold(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3 || !PyTuple_Check(args[0]) || !PyDict_Check(args[1]) || !PyDict_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "registry_identifiers_hold(tuple, dict, dict)");
        return NULL;
    }
    PyObject *paths = args[0], *by_system = args[1], *document = args[2]; /* the document last: a partial binds the rest */
    for (Py_ssize_t p = 0; p < PyTuple_GET_SIZE(paths); p++) {
        PyObject *path = PyTuple_GET_ITEM(paths, p);
        if (!PyTuple_Check(path) || PyTuple_GET_SIZE(path) != 2) {
            PyErr_SetString(PyExc_TypeError, "each path is a (first, second or None) pair");
            return NULL;
        }
        PyObject *child = PyDict_GetItemWithError(document, PyTuple_GET_ITEM(path, 0));
        if (child == NULL && PyErr_Occurred()) {
            return NULL;
        }
        PyObject *second = PyTuple_GET_ITEM(path, 1);
        int holds = 1;
        if (child != NULL && PyList_Check(child)) {
            Py_INCREF(child); /* a callable check could change the document */
            for (Py_ssize_t i = 0; holds == 1 && i < PyList_GET_SIZE(child); i++) {
                holds = node_holds(PyList_GET_ITEM(child, i), second, by_system);
            }
            Py_DECREF(child);
        } else {
            holds = node_holds(child == NULL ? Py_None : child, second, by_system);
        }
        if (holds < 0) {
            return NULL;
        }
        if (holds == 0) {
            Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

PyDoc_STRVAR(value_holds_doc, "value_holds(format, value, /)\n--\n\nWhether the str `value` passes the registry "
                              "format numbered `format` (1 NIP, 2 REGON, 3 PESEL).");

static PyObject *value_holds_py(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyLong_CheckExact(args[0]) || !PyUnicode_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "value_holds(int, str)");
        return NULL;
    }
    int holds = value_holds(args[0], args[1]);
    if (holds < 0) {
        return NULL;
    }
    return PyBool_FromLong(holds);
}

static PyMethodDef methods[] = {
    {"registry_identifiers_hold", (PyCFunction)(void (*)(void))registry_identifiers_hold, METH_FASTCALL,
     registry_identifiers_hold_doc},
    {"value_holds", (PyCFunction)(void (*)(void))value_holds_py, METH_FASTCALL, value_holds_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "profiles._registry_identifiers", "The clean gate's registry identifier walk, compiled.", 0,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__registry_identifiers(void) {
    PyObject *created = PyModule_Create(&module);
    if (created == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(created, "NIP", FORMAT_NIP) < 0 ||
        PyModule_AddIntConstant(created, "REGON", FORMAT_REGON) < 0 ||
        PyModule_AddIntConstant(created, "PESEL", FORMAT_PESEL) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
