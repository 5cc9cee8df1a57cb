/* The fields of a well-formed BibTeX entry, read in one pass.
 *
 * ``fields(text, body, limit)`` reads from ``body`` (just after "@type{key,") up to
 * ``limit`` (the next line that starts with '@') exactly what the reader's row pattern
 * (``bibtex._ROWS``) reads there, in the common case only: every field is
 * ``name = value`` with one braced, quoted, numeric or macro value, fields are separated
 * by commas, and a '}' closes the entry.  It returns
 * ``(end, names, values, macros)``: the offset after the closing brace, the field names
 * as written, their values (the text inside the braces or quotes, the digits, or the
 * macro name) and, when some value is a macro, one macro name per field ("" for the
 * others), else None.
 *
 * Anything else (a '#' concatenation, a missing comma, braces nested deeper than the
 * pattern allows, an unclosed value, a stray character, a comment before the closing
 * brace after a field without a comma) returns None: the caller then reads the entry
 * with the pattern itself, which also reports what is wrong.  So this module never
 * decides a result the pattern would not give; it only gives the common one sooner.
 *
 * Character classes are those of the pattern: '\s' is Py_UNICODE_ISSPACE, '\d' is
 * Py_UNICODE_ISDECIMAL, as in CPython's regular expressions on str.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    int kind;
    const void *data;
} Text;

#define CH(t, i) PyUnicode_READ((t)->kind, (t)->data, (i))

static PyObject *empty; /* "" */

#if defined(__GNUC__) || defined(__clang__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

/* A name or macro character: _ID = [^\s"#%'(),={}@\\]. */
INLINE int
is_id(Py_UCS4 c)
{
    switch (c) {
    case '"': case '#': case '%': case '\'': case '(': case ')':
    case ',': case '=': case '{': case '}': case '@': case '\\':
        return 0;
    default:
        return !Py_UNICODE_ISSPACE(c);
    }
}

INLINE Py_ssize_t
skip_space(const Text *t, Py_ssize_t pos, Py_ssize_t lim)
{
    while (pos < lim && Py_UNICODE_ISSPACE(CH(t, pos)))
        pos++;
    return pos;
}

/* _GAP: white space and %-comment lines; *comment is set when one was skipped. */
INLINE Py_ssize_t
skip_gap(const Text *t, Py_ssize_t pos, Py_ssize_t lim, int *comment)
{
    for (;;) {
        pos = skip_space(t, pos, lim);
        if (pos >= lim || CH(t, pos) != '%')
            return pos;
        *comment = 1;
        while (pos < lim && CH(t, pos) != '\n')
            pos++;
    }
}

/* Offset of the '}' closing the '{' before ``pos`` (braces nested at most two deep
 * inside it, as _BR_IN allows), or -1. */
INLINE Py_ssize_t
close_brace(const Text *t, Py_ssize_t pos, Py_ssize_t lim)
{
    int depth = 0;
    for (; pos < lim; pos++) {
        Py_UCS4 c = CH(t, pos);
        if (c == '{') {
            if (++depth > 2)
                return -1;
        }
        else if (c == '}') {
            if (depth == 0)
                return pos;
            depth--;
        }
    }
    return -1;
}

/* Offset of the '"' closing the one before ``pos`` (_QU_IN: a '}' outside braces ends
 * the match, braces nest at most two deep), or -1. */
INLINE Py_ssize_t
close_quote(const Text *t, Py_ssize_t pos, Py_ssize_t lim)
{
    int depth = 0;
    for (; pos < lim; pos++) {
        Py_UCS4 c = CH(t, pos);
        if (c == '{') {
            if (++depth > 2)
                return -1;
        }
        else if (c == '}') {
            if (depth == 0)
                return -1;
            depth--;
        }
        else if (c == '"' && depth == 0)
            return pos;
    }
    return -1;
}

static int
append_slice(PyObject *list, PyObject *text, Py_ssize_t a, Py_ssize_t b)
{
    PyObject *s = PyUnicode_Substring(text, a, b);
    if (s == NULL)
        return -1;
    int rc = PyList_Append(list, s);
    Py_DECREF(s);
    return rc;
}

/* 1: read, *end set; 0: not the common case; -1: error.  Inlined once per storage
 * width (``kind``), so that reading a character needs no test of the width. */
INLINE int
read_fields_of(int kind, PyObject *text, Py_ssize_t pos, Py_ssize_t lim, PyObject *names,
               PyObject *values, PyObject *macros, int *any_macro, Py_ssize_t *end)
{
    Text t = {kind, PyUnicode_DATA(text)};
    Py_ssize_t count = 0;
    int comma = 1; /* whether the previous field ended with a comma */
    for (;;) {
        int comment = 0;
        pos = skip_gap(&t, pos, lim, &comment);
        if (pos >= lim)
            return 0; /* not closed before the next entry */
        Py_UCS4 c = CH(&t, pos);
        if (c == '}') {
            if (count && !comma && comment)
                return 0; /* a comment between a value and the closing brace */
            *end = pos + 1;
            return 1;
        }
        if (!comma || !is_id(c))
            return 0; /* a missing comma, or not a field */
        Py_ssize_t name_start = pos;
        while (pos < lim && is_id(CH(&t, pos)))
            pos++;
        Py_ssize_t name_end = pos;
        pos = skip_space(&t, pos, lim);
        if (pos >= lim || CH(&t, pos) != '=')
            return 0;
        pos = skip_space(&t, pos + 1, lim);
        if (pos >= lim)
            return 0;
        c = CH(&t, pos);
        Py_ssize_t value_start, value_end;
        int macro = 0;
        if (c == '{' || c == '"') {
            value_start = pos + 1;
            value_end = c == '{' ? close_brace(&t, value_start, lim)
                                 : close_quote(&t, value_start, lim);
            if (value_end < 0)
                return 0;
            pos = value_end + 1;
        }
        else if (Py_UNICODE_ISDECIMAL(c)) {
            value_start = pos;
            while (pos < lim && Py_UNICODE_ISDECIMAL(CH(&t, pos)))
                pos++;
            value_end = pos;
        }
        else if (is_id(c)) {
            value_start = pos;
            while (pos < lim && is_id(CH(&t, pos)))
                pos++;
            value_end = pos;
            macro = 1;
        }
        else
            return 0;
        pos = skip_space(&t, pos, lim);
        if (pos < lim && CH(&t, pos) == '#')
            return 0; /* a concatenation */
        comma = pos < lim && CH(&t, pos) == ',';
        if (comma)
            pos++;
        if (append_slice(names, text, name_start, name_end) < 0 ||
            append_slice(values, text, value_start, value_end) < 0)
            return -1;
        if (macro) {
            /* macro names so far: "" for each earlier field */
            while (PyList_GET_SIZE(macros) < count) {
                if (PyList_Append(macros, empty) < 0)
                    return -1;
            }
            if (append_slice(macros, text, value_start, value_end) < 0)
                return -1;
            *any_macro = 1;
        }
        count++;
    }
}

static int
read_fields(PyObject *text, Py_ssize_t pos, Py_ssize_t lim, PyObject *names,
            PyObject *values, PyObject *macros, int *any_macro, Py_ssize_t *end)
{
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return read_fields_of(PyUnicode_1BYTE_KIND, text, pos, lim, names, values, macros,
                              any_macro, end);
    case PyUnicode_2BYTE_KIND:
        return read_fields_of(PyUnicode_2BYTE_KIND, text, pos, lim, names, values, macros,
                              any_macro, end);
    default:
        return read_fields_of(PyUnicode_4BYTE_KIND, text, pos, lim, names, values, macros,
                              any_macro, end);
    }
}

static PyObject *
fields(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "fields(text, body, limit) takes 3 arguments");
        return NULL;
    }
    PyObject *text = args[0];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "fields: text must be str");
        return NULL;
    }
    Py_ssize_t body = PyLong_AsSsize_t(args[1]);
    if (body == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t lim = PyLong_AsSsize_t(args[2]);
    if (lim == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (lim > n)
        lim = n;
    if (body < 0 || body > lim) {
        PyErr_SetString(PyExc_ValueError, "fields: need 0 <= body <= limit");
        return NULL;
    }
    PyObject *names = PyList_New(0), *values = PyList_New(0), *macros = PyList_New(0);
    PyObject *result = NULL;
    if (names == NULL || values == NULL || macros == NULL)
        goto done;
    int any_macro = 0;
    Py_ssize_t end = 0;
    int rc = read_fields(text, body, lim, names, values, macros, &any_macro, &end);
    if (rc < 0)
        goto done;
    if (rc == 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (any_macro) {
        while (PyList_GET_SIZE(macros) < PyList_GET_SIZE(names)) {
            if (PyList_Append(macros, empty) < 0)
                goto done;
        }
    }
    PyObject *tnames = PyList_AsTuple(names);
    PyObject *tvalues = PyList_AsTuple(values);
    PyObject *tmacros = any_macro ? PyList_AsTuple(macros) : Py_NewRef(Py_None);
    if (tnames != NULL && tvalues != NULL && tmacros != NULL)
        result = Py_BuildValue("(nNNN)", end, tnames, tvalues, tmacros);
    else {
        Py_XDECREF(tnames);
        Py_XDECREF(tvalues);
        Py_XDECREF(tmacros);
    }
done:
    Py_XDECREF(names);
    Py_XDECREF(values);
    Py_XDECREF(macros);
    return result;
}

static PyMethodDef methods[] = {
    {"fields", (PyCFunction)(void (*)(void))fields, METH_FASTCALL,
     "fields(text, body, limit) -> (end, names, values, macros) | None\n\n"
     "The fields of a well-formed entry body, or None when it is not the common case."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_bibscan",
    "One-pass reading of well-formed BibTeX entry bodies.", 0, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__bibscan(void)
{
    empty = PyUnicode_FromString("");
    if (empty == NULL)
        return NULL;
    return PyModule_Create(&module);
}
