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
 * brace after a field without a comma, an '@' anywhere in the body) returns None: the caller then reads the entry
 * with the pattern itself, which also reports what is wrong.  So this module never
 * decides a result the pattern would not give; it only gives the common one sooner.
 *
 * ``entries(text, pos, stop, path, strings)`` goes further: from ``pos`` it reads whole
 * entries ("@type{key," and such a body) one after the other, as the reader's scan loop
 * would, and returns ``(records, pos)``: the records of those entries, laid out as the
 * reader keeps them, and where it stopped.  It stops before the first '@' at or after
 * ``stop`` and before anything it leaves to the reader: another kind of block, an entry
 * that is not the common case, a field name twice, an undefined macro, an ``ids`` field,
 * an '@' inside an entry, a field right after its closing brace.
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

/* Set once by configure(): the reader's caches and the functions that fill them. */
static PyObject *lower_cache;  /* entry type as written -> lower-case, shared */
static PyObject *lower_fn;     /* fills lower_cache */
static PyObject *names_cache;  /* field names as written -> lower-case tuple, or None */
static PyObject *names_fn;     /* fills names_cache */
static PyObject *months;       /* the month macros every style defines */
static Py_ssize_t max_expansion; /* the longest text a macro may bring (MAX_EXPANSION) */
static PyObject *ids_name;     /* "ids" */

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
        for (; pos < lim && CH(t, pos) != '\n'; pos++) {
            if (CH(t, pos) == '@')
                return lim; /* left to the reader, which decides whether it starts a block */
        }
    }
}

/* Offset of the ``closer`` that ends a value opened before ``pos``: the '}' of a braced
 * value (_BR_IN) or the '"' of a quoted one (_QU_IN, where a '}' outside braces ends the
 * match); braces nest at most two deep inside.  -1 if there is none. */
INLINE Py_ssize_t
close_value(const Text *t, Py_ssize_t pos, Py_ssize_t lim, Py_UCS4 closer)
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
                return closer == '}' ? pos : -1;
            depth--;
        }
        else if (c == '@')
            return -1; /* left to the reader, which decides whether it starts a block */
        else if (c == closer && depth == 0)
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
            value_end = c == '{' ? close_value(&t, value_start, lim, '}')
                                 : close_value(&t, value_start, lim, '"');
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

/* The two offsets ``args[0]`` and ``args[1]``; -1 with an error set if either is not one. */
static int
two_offsets(PyObject *const *args, Py_ssize_t *a, Py_ssize_t *b)
{
    *a = PyLong_AsSsize_t(args[0]);
    if (*a == -1 && PyErr_Occurred())
        return -1;
    *b = PyLong_AsSsize_t(args[1]);
    if (*b == -1 && PyErr_Occurred())
        return -1;
    return 0;
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
    Py_ssize_t body, lim;
    if (two_offsets(args + 1, &body, &lim) < 0)
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

/* \w of a str pattern. */
INLINE int
is_word(Py_UCS4 c)
{
    return c == '_' || Py_UNICODE_ISALNUM(c);
}

/* _FIELD_AFTER_CLOSE: [ \t]*[,;]?[ \t]*ID+[ \t]*= at ``pos``. */
INLINE int
field_follows(const Text *t, Py_ssize_t pos, Py_ssize_t n)
{
    while (pos < n && (CH(t, pos) == ' ' || CH(t, pos) == '\t'))
        pos++;
    if (pos < n && (CH(t, pos) == ',' || CH(t, pos) == ';'))
        pos++;
    while (pos < n && (CH(t, pos) == ' ' || CH(t, pos) == '\t'))
        pos++;
    Py_ssize_t start = pos;
    while (pos < n && is_id(CH(t, pos)))
        pos++;
    if (pos == start)
        return 0;
    while (pos < n && (CH(t, pos) == ' ' || CH(t, pos) == '\t'))
        pos++;
    return pos < n && CH(t, pos) == '=';
}

/* _HEAD at ``at``: @[ \t]*([A-Za-z_][\w\-.:+]*)\s*\{\s*([^\s,{}=]+)\s*, ; 0 if no match. */
INLINE int
read_head(const Text *t, Py_ssize_t at, Py_ssize_t n, Py_ssize_t *ts, Py_ssize_t *te,
          Py_ssize_t *ks, Py_ssize_t *ke, Py_ssize_t *body)
{
    Py_ssize_t pos = at + 1;
    while (pos < n && (CH(t, pos) == ' ' || CH(t, pos) == '\t'))
        pos++;
    if (pos >= n)
        return 0;
    Py_UCS4 c = CH(t, pos);
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')))
        return 0;
    *ts = pos++;
    while (pos < n) {
        c = CH(t, pos);
        if (!(is_word(c) || c == '-' || c == '.' || c == ':' || c == '+'))
            break;
        pos++;
    }
    *te = pos;
    pos = skip_space(t, pos, n);
    if (pos >= n || CH(t, pos) != '{')
        return 0;
    pos = skip_space(t, pos + 1, n);
    *ks = pos;
    while (pos < n) {
        c = CH(t, pos);
        if (Py_UNICODE_ISSPACE(c) || c == ',' || c == '{' || c == '}' || c == '=')
            break;
        pos++;
    }
    if (pos == *ks)
        return 0;
    *ke = pos;
    pos = skip_space(t, pos, n);
    if (pos >= n || CH(t, pos) != ',')
        return 0;
    *body = pos + 1;
    return 1;
}

/* New reference to cache[key], filled by fn(key) when missing; NULL with an error set. */
static PyObject *
cached(PyObject *cache, PyObject *fn, PyObject *key)
{
    PyObject *v = PyDict_GetItemWithError(cache, key);
    if (v != NULL)
        return Py_NewRef(v);
    if (PyErr_Occurred())
        return NULL;
    return PyObject_CallOneArg(fn, key);
}

/* Expansion of each macro (None where there is none, or where it expands to its own
 * name), as the reader's _macro_values; Py_None (new reference) when one is undefined
 * or longer than max_expansion (the reader reports it). */
static PyObject *
expansions(PyObject *macros, PyObject *strings)
{
    Py_ssize_t n = PyTuple_GET_SIZE(macros);
    PyObject *out = PyTuple_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name = PyTuple_GET_ITEM(macros, i);
        PyObject *exp = Py_None;
        if (PyUnicode_GET_LENGTH(name)) {
            PyObject *lname = PyObject_CallMethod(name, "lower", NULL);
            if (lname == NULL) {
                Py_DECREF(out);
                return NULL;
            }
            exp = PyDict_GetItemWithError(strings, lname);
            if (exp == NULL && !PyErr_Occurred())
                exp = PyDict_GetItemWithError(months, lname);
            Py_DECREF(lname);
            if (exp == NULL) {
                Py_DECREF(out);
                return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
            }
            if (PyUnicode_GET_LENGTH(exp) > max_expansion) {
                Py_DECREF(out);
                return Py_NewRef(Py_None);
            }
            int same = PyUnicode_Compare(exp, name);
            if (same == -1 && PyErr_Occurred()) {
                Py_DECREF(out);
                return NULL;
            }
            if (same == 0)
                exp = Py_None;
        }
        PyTuple_SET_ITEM(out, i, Py_NewRef(exp));
    }
    return out;
}

/* The record of the entry at ``at`` (a new reference), Py_None when it is left to the
 * reader (a new reference too), NULL on error; *next: the offset after the entry. */
INLINE PyObject *
read_entry(int kind, PyObject *text, Py_ssize_t at, Py_ssize_t n, PyObject *path,
           PyObject *strings, Py_ssize_t *next)
{
    Text t = {kind, PyUnicode_DATA(text)};
    Py_ssize_t ts, te, ks, ke, body, end;
    if (!read_head(&t, at, n, &ts, &te, &ks, &ke, &body))
        return Py_NewRef(Py_None);
    PyObject *names = NULL, *values = NULL, *macros = NULL, *record = NULL;
    PyObject *etype = NULL, *key = NULL, *raw = NULL, *lnames = NULL, *exps = NULL;
    PyObject *tmp = NULL;
    int any_macro = 0;
    names = PyList_New(0);
    values = PyList_New(0);
    macros = PyList_New(0);
    if (names == NULL || values == NULL || macros == NULL)
        goto error;
    /* Read up to the end of the text rather than to the next line that starts with '@',
     * as the reader does: reading declines at any '@', so when it succeeds no such line
     * starts before the entry's end, and the reader's limit would have changed nothing. */
    int rc = read_fields_of(kind, text, body, n, names, values, macros, &any_macro, &end);
    if (rc < 0)
        goto error;
    if (rc == 0)
        goto leave;
    if (end < n && CH(&t, end) != '\n' && field_follows(&t, end, n))
        goto leave; /* the reader reports a field after the closing brace */
    tmp = PyUnicode_Substring(text, ts, te);
    if (tmp == NULL)
        goto error;
    etype = cached(lower_cache, lower_fn, tmp);
    Py_CLEAR(tmp);
    if (etype == NULL)
        goto error;
    if (PyUnicode_CompareWithASCIIString(etype, "comment") == 0 ||
        PyUnicode_CompareWithASCIIString(etype, "preamble") == 0 ||
        PyUnicode_CompareWithASCIIString(etype, "string") == 0)
        goto leave;
    tmp = PyList_AsTuple(names);
    if (tmp == NULL)
        goto error;
    lnames = cached(names_cache, names_fn, tmp);
    Py_CLEAR(tmp);
    if (lnames == NULL)
        goto error;
    if (lnames == Py_None)
        goto leave; /* a field name twice */
    int has_ids = PySequence_Contains(lnames, ids_name);
    if (has_ids < 0)
        goto error;
    if (has_ids)
        goto leave; /* aliases are read by the reader */
    if (any_macro) {
        while (PyList_GET_SIZE(macros) < PyList_GET_SIZE(names)) {
            if (PyList_Append(macros, empty) < 0)
                goto error;
        }
        tmp = PyList_AsTuple(macros);
        if (tmp == NULL)
            goto error;
        exps = expansions(tmp, strings);
        Py_CLEAR(tmp);
        if (exps == NULL)
            goto error;
        if (exps == Py_None)
            goto leave; /* an undefined macro */
    }
    key = PyUnicode_Substring(text, ks, ke);
    raw = PyUnicode_Substring(text, at, end);
    tmp = PyList_AsTuple(values);
    if (key == NULL || raw == NULL || tmp == NULL)
        goto error;
    /* (etype, key, at, end, ks, ke, path, aliases, names, values, exps, raw, positions) */
    record = Py_BuildValue("(OOnnnnO()OOOON)", etype, key, at, end, ks - at, ke - at, path,
                           lnames, tmp, exps ? exps : Py_None, raw, Py_NewRef(Py_None));
    Py_CLEAR(tmp);
    if (record == NULL)
        goto error;
    *next = end;
    goto done;
leave:
    record = Py_NewRef(Py_None);
    goto done;
error:
    record = NULL;
done:
    Py_XDECREF(names);
    Py_XDECREF(values);
    Py_XDECREF(macros);
    Py_XDECREF(etype);
    Py_XDECREF(key);
    Py_XDECREF(raw);
    Py_XDECREF(lnames);
    Py_XDECREF(exps);
    Py_XDECREF(tmp);
    return record;
}

/* One storage width of entries(); 0 or -1 (error). */
INLINE int
read_entries(int kind, PyObject *text, Py_ssize_t *pos, Py_ssize_t stop, PyObject *path,
             PyObject *strings, PyObject *out)
{
    Text t = {kind, PyUnicode_DATA(text)};
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t p = *pos;
    for (;;) {
        while (p < n && CH(&t, p) != '@')
            p++;
        if (p >= n || p >= stop)
            break;
        Py_ssize_t next = p;
        PyObject *record = read_entry(kind, text, p, n, path, strings, &next);
        if (record == NULL)
            return -1;
        if (record == Py_None) {
            Py_DECREF(record);
            break;
        }
        int rc = PyList_Append(out, record);
        Py_DECREF(record);
        if (rc < 0)
            return -1;
        p = next;
    }
    *pos = p;
    return 0;
}

static PyObject *
entries(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "entries(text, pos, stop, path, strings) takes 5 arguments");
        return NULL;
    }
    if (lower_cache == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "entries: configure() was not called");
        return NULL;
    }
    PyObject *text = args[0], *path = args[3], *strings = args[4];
    if (!PyUnicode_Check(text) || !PyDict_Check(strings)) {
        PyErr_SetString(PyExc_TypeError, "entries: text must be str and strings a dict");
        return NULL;
    }
    Py_ssize_t pos, stop;
    if (two_offsets(args + 1, &pos, &stop) < 0)
        return NULL;
    if (pos < 0) {
        PyErr_SetString(PyExc_ValueError, "entries: pos must be >= 0");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int rc;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        rc = read_entries(PyUnicode_1BYTE_KIND, text, &pos, stop, path, strings, out);
        break;
    case PyUnicode_2BYTE_KIND:
        rc = read_entries(PyUnicode_2BYTE_KIND, text, &pos, stop, path, strings, out);
        break;
    default:
        rc = read_entries(PyUnicode_4BYTE_KIND, text, &pos, stop, path, strings, out);
        break;
    }
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return Py_BuildValue("(Nn)", out, pos);
}

static PyObject *
configure(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyDict_Check(args[0]) || !PyCallable_Check(args[1]) ||
        !PyDict_Check(args[2]) || !PyCallable_Check(args[3]) || !PyDict_Check(args[4]) ||
        !PyLong_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError,
                        "configure(lower_cache: dict, lower: callable, names_cache: dict, "
                        "names: callable, months: dict, max_expansion: int)");
        return NULL;
    }
    Py_ssize_t limit = PyLong_AsSsize_t(args[5]);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "configure: max_expansion must be >= 0");
        return NULL;
    }
    max_expansion = limit;
    Py_XSETREF(lower_cache, Py_NewRef(args[0]));
    Py_XSETREF(lower_fn, Py_NewRef(args[1]));
    Py_XSETREF(names_cache, Py_NewRef(args[2]));
    Py_XSETREF(names_fn, Py_NewRef(args[3]));
    Py_XSETREF(months, Py_NewRef(args[4]));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fields", (PyCFunction)(void (*)(void))fields, METH_FASTCALL,
     "fields(text, body, limit) -> (end, names, values, macros) | None\n\n"
     "The fields of a well-formed entry body, or None when it is not the common case."},
    {"entries", (PyCFunction)(void (*)(void))entries, METH_FASTCALL,
     "entries(text, pos, stop, path, strings) -> (records, pos)\n\n"
     "Records of the common entries from pos on, and where reading stopped."},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "configure(lower_cache, lower, names_cache, names, months, max_expansion) -> None\n\n"
     "The reader's caches of entry types and field names, the month macros, and the\n"
     "longest expansion a macro may bring into a value."},
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
    ids_name = PyUnicode_InternFromString("ids");
    if (empty == NULL || ids_name == NULL)
        return NULL;
    return PyModule_Create(&module);
}
