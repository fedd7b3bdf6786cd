/* What orjson cannot tell profiles/fast_json.py, in one pass over the text: which JSON texts need strict_json.

   orjson parses a payload several times faster than strict_json, but keeps the last of two members of the same name,
   reads integers past 64 bits as floats, takes numbers of any length and nests to 1024 levels. fast_json takes orjson's
   value only for a text where none of this can have happened, and found those texts by several passes over the text
   in Python (a re-serialisation and a count of colons for duplicates, translations for digits and brackets), which
   cost as much as orjson's parse. This scanner walks each text once: a text is doubtful when it holds a \u escape, a
   nesting deeper than MAX_DEPTH, a run of LONG_DIGITS digits outside a string, or a member name twice in one object
   (or an escape in a member name, which could hide one). strict_json reads a doubtful text, as before; every other
   text orjson reads as strict_json would. The Python checks stay where this module was not built, and
   tests/profiles/test_fast_json.py holds both to strict_json's outcomes. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_DEPTH 64     /* strict_json.MAX_DEPTH */
#define LONG_DIGITS 16   /* a number strict_json may refuse has such a run (fast_json._LONG_DIGITS) */
#define KEYS_IN_LINE 512 /* member names remembered at once; a text with more open at once is doubtful */

typedef struct {
    int is_object;
    int expects_name;
    int first_name; /* its names are names[first_name .. name_count) */
} Frame;

typedef struct {
    const char *at;
    Py_ssize_t length;
} Name;

typedef struct {
    Frame frames[MAX_DEPTH];
    Name names[KEYS_IN_LINE];
} Scan;

/* 1 when the text from `p` to `end` is doubtful, 0 when orjson's value of it (if any) is strict_json's */
static int doubtful(Scan *scan, const char *p, const char *end) {
    int depth = 0, name_count = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            const char *start = ++p;
            int escaped = 0;
            /* most strings hold no backslash: their end is the next quote, found by memchr */
            const char *quote = memchr(p, '"', (size_t)(end - p));
            if (quote != NULL && memchr(p, '\\', (size_t)(quote - p)) == NULL) {
                p = quote;
            } else {
                while (p < end && *p != '"') {
                    if (*p == '\\') {
                        if (p + 1 < end && p[1] == 'u') {
                            return 1;
                        }
                        escaped = 1;
                        p += 2;
                        continue;
                    }
                    p++;
                }
            }
            if (p >= end) {
                return 0; /* no closing quote: not JSON, orjson refuses it and strict_json explains */
            }
            if (depth > 0 && scan->frames[depth - 1].expects_name) {
                Frame *frame = &scan->frames[depth - 1];
                Py_ssize_t length = p - start;
                if (escaped || name_count == KEYS_IN_LINE) {
                    return 1;
                }
                for (int i = frame->first_name; i < name_count; i++) {
                    if (scan->names[i].length == length && memcmp(scan->names[i].at, start, (size_t)length) == 0) {
                        return 1;
                    }
                }
                scan->names[name_count].at = start;
                scan->names[name_count].length = length;
                name_count++;
                frame->expects_name = 0;
            }
            p++;
            continue;
        }
        if (c >= '0' && c <= '9') {
            const char *run = p;
            while (p < end && *p >= '0' && *p <= '9') {
                p++;
            }
            if (p - run >= LONG_DIGITS) {
                return 1;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH) {
                return 1;
            }
            Frame *frame = &scan->frames[depth++];
            frame->is_object = c == '{';
            frame->expects_name = c == '{';
            frame->first_name = name_count;
        } else if (c == '}' || c == ']') {
            if (depth > 0) {
                name_count = scan->frames[--depth].first_name;
            }
        } else if (c == ',') {
            if (depth > 0 && scan->frames[depth - 1].is_object) {
                scan->frames[depth - 1].expects_name = 1;
            }
        }
        p++;
    }
    return 0;
}

PyDoc_STRVAR(doubtful_lines_doc,
             "doubtful_lines(text, by_line, /)\n--\n\n"
             "The indices of the doubtful texts of `text` (bytes): each line when `by_line` is true (the lines split "
             "at b'\\n'), else the whole text as one (index 0).");

static PyObject *doubtful_lines(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "doubtful_lines(bytes, bool)");
        return NULL;
    }
    int by_line = PyObject_IsTrue(args[1]);
    if (by_line < 0) {
        return NULL;
    }
    const char *text = PyBytes_AS_STRING(args[0]);
    const char *end = text + PyBytes_GET_SIZE(args[0]);
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        return NULL;
    }
    Scan *scan = PyMem_Malloc(sizeof(Scan));
    if (scan == NULL) {
        Py_DECREF(found);
        return PyErr_NoMemory();
    }
    Py_ssize_t index = 0;
    for (;;) {
        const char *line_end = by_line ? memchr(text, '\n', (size_t)(end - text)) : NULL;
        if (line_end == NULL) {
            line_end = end;
        }
        if (doubtful(scan, text, line_end)) {
            PyObject *number = PyLong_FromSsize_t(index);
            if (number == NULL || PyList_Append(found, number) < 0) {
                Py_XDECREF(number);
                Py_DECREF(found);
                PyMem_Free(scan);
                return NULL;
            }
            Py_DECREF(number);
        }
        index++;
        if (line_end == end) {
            break;
        }
        text = line_end + 1;
    }
    PyMem_Free(scan);
    return found;
}

static PyMethodDef methods[] = {
    {"doubtful_lines", (PyCFunction)(void (*)(void))doubtful_lines, METH_FASTCALL, doubtful_lines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "profiles._strict_scan", "The texts fast_json gives to strict_json, found in one pass.", 0,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__strict_scan(void) {
    PyObject *created = PyModule_Create(&module);
    if (created == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(created, "MAX_DEPTH", MAX_DEPTH) < 0 ||
        PyModule_AddIntConstant(created, "LONG_DIGITS", LONG_DIGITS) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
