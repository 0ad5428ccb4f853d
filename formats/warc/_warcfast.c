/* Optional compiled kernel of crawlmill's read path and of the WARC writer's verbatim copies
 * (crawlmill.formats.warc._warcfast): each function the exact equivalent of a pure Python
 * function that stays the fallback (CRAWLMILL_PURE=1, or an install without a C compiler) and
 * the reference of tests/formats/test_warcfast.py and tests/formats/test_warcfast_verbatim.py.
 *
 * frame(buf, pos, max_header_bytes, max_record_bytes) does what the pure
 * _FramerRecords._fast + _parse_plain do for a well-formed "WARC/1.x" CRLF record wholly in
 * `buf` (a bytes object): it finds the header end, parses the plain "name: value" lines and the
 * Content-Length digits, and checks the "\r\n\r\n" separator and what follows it. It returns
 *     (raw_header, hend, e, version, headers, fields, at_end)
 * or None whenever the pure fast path could do anything else (refuse, or parse with the general
 * parser); the caller then runs the pure path, so results are the pure ones in every case.
 * `at_end` is true when the record ends exactly at the end of `buf` (the caller checks for the
 * end of the input or of a member there); otherwise the next bytes are "WARC/".
 *
 * member_starts(buf, end) is formats/codecs/gzip_parallel.py's _member_starts: the offsets in
 * buf[:end] (a bytes-like object) of the gzip magic 1f 8b 08 that look like member headers;
 * member_scan(buf, end) gives them and, from the same pass, the offsets of every other magic
 * (_member_scan_pure), so that whether a run of members is split at its real member starts is
 * a look-up (member_vouch.run_is_exact_scanned), not a second scan of its bytes.
 *
 * http_head(block, start, end) is formats/http/head.py's head_end() plus the raw Content-Type value
 * content_type() reads from the head it ends (head_and_content_type()).
 *
 * The writer's verbatim copy (plugins/writers/warc.py): verbatim_ok(raw_header, headers,
 * expected, eol) is the header checks of formats/warc/builder.py's can_copy_verbatim;
 * verbatim_parts(warc, head, payload, framing) its framing comparisons and those checks on a
 * record's extras["warc"] at once, giving the parts of the copy (builder.verbatim_parts);
 * member_copy(buf, pos, length, vouch) and member_take(held, offset, length, vouch) the copy of
 * a member the reader holds, with its trailer's word (formats/codecs/member_source.py).
 *
 * Every read is bounded by the buffer's length; sizes from the data are checked against the
 * caller's limits before use. Nothing here allocates more than the objects returned (and a
 * temporary int). No function releases the GIL: each builds Python objects as it goes, and a
 * member copied from the reader's buffer must not change under the copy (member_take's caller
 * checks that the buffer was not released around it).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* bytes.strip() with no argument: ASCII whitespace */
static inline int
is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c';
}

static inline unsigned char
lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

/* first index of "\r\n\r\n" in s[from:to), or -1 */
static Py_ssize_t
find_blank(const unsigned char *s, Py_ssize_t from, Py_ssize_t to)
{
    Py_ssize_t i = from;
    while (i + 4 <= to) {
        const unsigned char *p = memchr(s + i, '\r', (size_t)(to - 3 - i));
        if (p == NULL)
            return -1;
        i = p - s;
        if (s[i + 1] == '\n' && s[i + 2] == '\r' && s[i + 3] == '\n')
            return i;
        i++;
    }
    return -1;
}

static PyObject *
strip_bytes(const unsigned char *a, const unsigned char *b)
{
    while (a < b && is_ws(*a))
        a++;
    while (b > a && is_ws(b[-1]))
        b--;
    return PyBytes_FromStringAndSize((const char *)a, b - a);
}

static PyObject *VERSIONS[10]; /* "1.0" .. "1.9" */

/* header names as writers spell them: their bytes and lower-case keys are made once */
static const char *KNOWN[] = {
    "WARC-Type", "WARC-Date", "WARC-Record-ID", "WARC-Target-URI", "Content-Type",
    "Content-Length", "WARC-IP-Address", "WARC-Payload-Digest", "WARC-Block-Digest",
    "WARC-Concurrent-To", "WARC-Warcinfo-ID", "WARC-Refers-To", "WARC-Identified-Payload-Type",
    "WARC-Truncated", "WARC-Filename", "WARC-Profile", "WARC-Refers-To-Target-URI",
    "WARC-Refers-To-Date", "WARC-Segment-Number", "WARC-Segment-Origin-ID",
    "WARC-Segment-Total-Length",
};
#define N_KNOWN ((int)(sizeof(KNOWN) / sizeof(KNOWN[0])))
static PyObject *KNOWN_NAME[N_KNOWN];
static PyObject *KNOWN_KEY[N_KNOWN];
static Py_ssize_t KNOWN_LEN[N_KNOWN];

/* index in KNOWN of the name s[:n] (exact case), or -1 */
static int
known_name(const unsigned char *s, Py_ssize_t n)
{
    for (int k = 0; k < N_KNOWN; k++) {
        if (KNOWN_LEN[k] == n && memcmp(KNOWN[k], s, (size_t)n) == 0)
            return k;
    }
    return -1;
}

static PyObject *
frame(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "frame(buf, pos, max_header_bytes, max_record_bytes)");
        return NULL;
    }
    PyObject *bufobj = args[0];
    if (!PyBytes_CheckExact(bufobj))
        Py_RETURN_NONE; /* a bytearray buffer: the pure path */
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    Py_ssize_t max_header = PyLong_AsSsize_t(args[2]);
    Py_ssize_t max_record = PyLong_AsSsize_t(args[3]);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    const unsigned char *buf = (const unsigned char *)PyBytes_AS_STRING(bufobj);
    Py_ssize_t n = PyBytes_GET_SIZE(bufobj);
    if (start < 0 || max_header < 0 || max_record < 0 || start > n)
        Py_RETURN_NONE;

    /* buf.startswith(b"WARC/1.", start), a digit, then "\r\n": _parse_plain's version line
     * (a non-digit minor version goes to the pure path, which decides) */
    if (n - start < 10 || memcmp(buf + start, "WARC/1.", 7) != 0)
        Py_RETURN_NONE;
    unsigned char minor = buf[start + 7];
    if (minor < '0' || minor > '9' || buf[start + 8] != '\r' || buf[start + 9] != '\n')
        Py_RETURN_NONE;

    /* hend = buf.find(b"\r\n\r\n", start, start + max_header_bytes) */
    Py_ssize_t limit = (max_header > n - start) ? n : start + max_header;
    Py_ssize_t hend = find_blank(buf, start, limit);
    if (hend < 0)
        Py_RETURN_NONE;
    hend += 4;
    const unsigned char *raw = buf + start;
    Py_ssize_t rlen = hend - start;

    /* a case-blind "WARC/" at or after raw[8]: the pure path checks for a cut header */
    for (Py_ssize_t i = 8; i + 5 <= rlen; i++) {
        if ((raw[i] | 0x20) == 'w' && (raw[i + 1] | 0x20) == 'a' && (raw[i + 2] | 0x20) == 'r'
            && (raw[i + 3] | 0x20) == 'c' && raw[i + 4] == '/')
            Py_RETURN_NONE;
    }

    /* _parse_plain: body = raw[10:-4] */
    const unsigned char *body = raw + 10;
    Py_ssize_t blen = rlen - 14;
    if (blen <= 0 || body[0] == ' ' || body[0] == '\t')
        Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < blen; i++) {
        unsigned char c = body[i];
        if (c >= 0x20 && c != 0x7f)
            continue;
        /* a control byte but CR, LF, tab (scan.CONTROL_BYTE): a damaged header */
        if (c != '\n' && c != '\r' && c != '\t')
            Py_RETURN_NONE;
        if (c == '\n') {
            /* a bare LF, or a continuation line ("\n " / "\n\t") */
            if (i == 0 || body[i - 1] != '\r')
                Py_RETURN_NONE;
            if (i + 1 < blen && (body[i + 1] == ' ' || body[i + 1] == '\t'))
                Py_RETURN_NONE;
            if (i + 1 < blen && body[i + 1] == '\r' && i + 2 < blen && body[i + 2] == '\n')
                Py_RETURN_NONE; /* "\r\n\r\n" inside the body */
        }
    }
    /* every line has a colon after a non-empty name (checked before any object is made) */
    {
        Py_ssize_t ls = 0;
        while (ls <= blen) {
            const unsigned char *nl = NULL;
            if (ls < blen)
                nl = memchr(body + ls, '\n', (size_t)(blen - ls));
            Py_ssize_t le = nl ? (nl - body) - 1 : blen; /* the line ends before "\r\n" */
            if (le < ls)
                Py_RETURN_NONE;
            const unsigned char *colon = memchr(body + ls, ':', (size_t)(le - ls));
            if (colon == NULL || colon == body + ls)
                Py_RETURN_NONE;
            if (nl == NULL)
                break;
            ls = (nl - body) + 1;
        }
    }

    PyObject *headers = PyList_New(0);
    PyObject *fields = PyDict_New();
    PyObject *cl_value = NULL; /* borrowed from fields */
    PyObject *raw_header = NULL;
    if (headers == NULL || fields == NULL)
        goto error;
    Py_ssize_t ls = 0;
    while (1) {
        const unsigned char *nl = memchr(body + ls, '\n', (size_t)(blen - ls));
        Py_ssize_t le = nl ? (nl - body) - 1 : blen;
        const unsigned char *line = body + ls;
        const unsigned char *colon = memchr(line, ':', (size_t)(le - ls));
        /* the name, stripped; a usual one (known_name) shares its bytes and its lower-case
         * key (whose hash is cached) */
        const unsigned char *na = line, *nb = colon;
        while (na < nb && is_ws(*na))
            na++;
        while (nb > na && is_ws(nb[-1]))
            nb--;
        PyObject *name = NULL, *key = NULL;
        int known = known_name(na, nb - na);
        if (known >= 0) {
            name = KNOWN_NAME[known];
            key = KNOWN_KEY[known];
            Py_INCREF(name);
            Py_INCREF(key);
        }
        else {
            name = PyBytes_FromStringAndSize((const char *)na, nb - na);
            if (name == NULL)
                goto error;
        }
        PyObject *value = strip_bytes(colon + 1, body + le);
        if (value == NULL) {
            Py_DECREF(name);
            Py_XDECREF(key);
            goto error;
        }
        PyObject *pair = PyTuple_Pack(2, name, value);
        if (pair != NULL)
            PyObject_GC_UnTrack(pair); /* two bytes objects: no cycle (the collector's own rule) */
        if (pair == NULL || PyList_Append(headers, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(name);
            Py_XDECREF(key);
            Py_DECREF(value);
            goto error;
        }
        Py_DECREF(pair);
        /* fields.setdefault(name.lower(), value) */
        Py_ssize_t nlen = PyBytes_GET_SIZE(name);
        if (key == NULL) {
            key = PyBytes_FromStringAndSize(NULL, nlen);
            if (key == NULL) {
                Py_DECREF(name);
                Py_DECREF(value);
                goto error;
            }
            const unsigned char *src = (const unsigned char *)PyBytes_AS_STRING(name);
            unsigned char *dst = (unsigned char *)PyBytes_AS_STRING(key);
            for (Py_ssize_t k = 0; k < nlen; k++)
                dst[k] = lower(src[k]);
        }
        Py_DECREF(name);
        PyObject *got = PyDict_SetDefault(fields, key, value);
        if (got == NULL) {
            Py_DECREF(key);
            Py_DECREF(value);
            goto error;
        }
        if (cl_value == NULL && nlen == 14
            && memcmp(PyBytes_AS_STRING(key), "content-length", 14) == 0)
            cl_value = got;
        Py_DECREF(key);
        Py_DECREF(value);
        if (nl == NULL)
            break;
        ls = (nl - body) + 1;
    }

    /* Content-Length: bytes.isdigit() (ASCII digits, not empty), at most max_record_bytes */
    if (cl_value == NULL)
        goto refuse;
    Py_ssize_t cl = 0;
    {
        const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(cl_value);
        Py_ssize_t dlen = PyBytes_GET_SIZE(cl_value);
        if (dlen == 0)
            goto refuse;
        for (Py_ssize_t k = 0; k < dlen; k++) {
            if (d[k] < '0' || d[k] > '9')
                goto refuse;
            if (cl > (PY_SSIZE_T_MAX - 9) / 10)
                goto refuse;
            cl = cl * 10 + (d[k] - '0');
            if (cl > max_record)
                goto refuse; /* (also keeps cl from overflowing) */
        }
    }
    /* buf.startswith(b"\r\n\r\n", e), then b"WARC/" at r or the end of buf */
    if (cl > n - hend - 4)
        goto refuse;
    Py_ssize_t e = hend + cl;
    Py_ssize_t r = e + 4;
    if (memcmp(buf + e, "\r\n\r\n", 4) != 0)
        goto refuse;
    int at_end = 0;
    if (r == n)
        at_end = 1;
    else if (n - r < 5 || memcmp(buf + r, "WARC/", 5) != 0)
        goto refuse;

    raw_header = PyBytes_FromStringAndSize((const char *)raw, rlen);
    if (raw_header == NULL)
        goto error;
    PyObject *result = PyTuple_New(7);
    PyObject *ohend = PyLong_FromSsize_t(hend);
    PyObject *oe = PyLong_FromSsize_t(e);
    if (result == NULL || ohend == NULL || oe == NULL) {
        Py_XDECREF(result);
        Py_XDECREF(ohend);
        Py_XDECREF(oe);
        Py_DECREF(raw_header);
        goto error;
    }
    PyObject *version = VERSIONS[minor - '0'];
    PyObject *flag = at_end ? Py_True : Py_False;
    Py_INCREF(version);
    Py_INCREF(flag);
    PyTuple_SET_ITEM(result, 0, raw_header);
    PyTuple_SET_ITEM(result, 1, ohend);
    PyTuple_SET_ITEM(result, 2, oe);
    PyTuple_SET_ITEM(result, 3, version);
    PyTuple_SET_ITEM(result, 4, headers);
    PyTuple_SET_ITEM(result, 5, fields);
    PyTuple_SET_ITEM(result, 6, flag);
    return result;

refuse:
    Py_DECREF(headers);
    Py_DECREF(fields);
    Py_RETURN_NONE;
error:
    Py_XDECREF(headers);
    Py_XDECREF(fields);
    return NULL;
}

/* The gzip magic scan of member_starts and member_scan: appends to `starts` the offsets i of
 * "\x1f\x8b\x08" in s[:n] (non-overlapping: the magic cannot overlap itself) with i + 10 > n, or
 * FLG's reserved bits clear (s[i+3] & 0xE0 == 0) and an OS byte zlib writes (s[i+9] <= 19 or
 * == 255); to `others` (when not NULL) the offsets of every other magic. -1 on a Python error. */
static int
scan_magic(const unsigned char *s, Py_ssize_t n, PyObject *starts, PyObject *others)
{
    Py_ssize_t i = 0;
    while (i + 3 <= n) {
        const unsigned char *p = memchr(s + i, 0x1f, (size_t)(n - 2 - i));
        if (p == NULL)
            break;
        i = p - s;
        if (s[i + 1] != 0x8b || s[i + 2] != 0x08) {
            i++;
            continue;
        }
        PyObject *into = NULL;
        if (i + 10 > n || ((s[i + 3] & 0xE0) == 0 && (s[i + 9] <= 19 || s[i + 9] == 255)))
            into = starts;
        else
            into = others;
        if (into != NULL) {
            PyObject *at = PyLong_FromSsize_t(i);
            if (at == NULL || PyList_Append(into, at) < 0) {
                Py_XDECREF(at);
                return -1;
            }
            Py_DECREF(at);
        }
        i += 3;
    }
    return 0;
}

/* The buffer and end of member_starts(buf, end) / member_scan(buf, end): 1 with `view` held
 * and *n set, 0 when the pure function decides (not a buffer, `end` not in [0, len(buf)]). */
static int
scan_args(PyObject *const *args, Py_buffer *view, Py_ssize_t *n)
{
    if (PyObject_GetBuffer(args[0], view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return 0;
    }
    *n = view->len;
    if (args[1] != Py_None) {
        Py_ssize_t end = PyLong_AsSsize_t(args[1]);
        if (end == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyBuffer_Release(view);
            return 0;
        }
        if (end < 0 || end > view->len) {
            PyBuffer_Release(view);
            return 0;
        }
        *n = end;
    }
    return 1;
}

/* member_starts(buf, end): the offsets in buf[:end] of the gzip magic 1f 8b 08 that look like
 * member headers (scan_magic's rule); the pure _member_starts in
 * formats/codecs/gzip_parallel.py. None when end is not in [0, len(buf)] (the pure function
 * then decides). */
static PyObject *
member_starts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "member_starts(buf, end)");
        return NULL;
    }
    Py_buffer view;
    Py_ssize_t n;
    if (!scan_args(args, &view, &n))
        Py_RETURN_NONE;
    PyObject *out = PyList_New(0);
    if (out == NULL || scan_magic((const unsigned char *)view.buf, n, out, NULL) < 0) {
        Py_XDECREF(out);
        PyBuffer_Release(&view);
        return NULL;
    }
    PyBuffer_Release(&view);
    return out;
}

/* member_scan(buf, end) -> (starts, others) | None: member_starts' list and, in one pass, the
 * offsets of every other gzip magic in buf[:end] (a magic that is no member header: a run of
 * members holding one is not provably split at its real member starts); the pure
 * _member_scan_pure in formats/codecs/gzip_parallel.py. */
static PyObject *
member_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "member_scan(buf, end)");
        return NULL;
    }
    Py_buffer view;
    Py_ssize_t n;
    if (!scan_args(args, &view, &n))
        Py_RETURN_NONE;
    PyObject *starts = PyList_New(0);
    PyObject *others = PyList_New(0);
    if (starts == NULL || others == NULL
        || scan_magic((const unsigned char *)view.buf, n, starts, others) < 0) {
        Py_XDECREF(starts);
        Py_XDECREF(others);
        PyBuffer_Release(&view);
        return NULL;
    }
    PyBuffer_Release(&view);
    PyObject *out = PyTuple_Pack(2, starts, others);
    Py_DECREF(starts);
    Py_DECREF(others);
    return out;
}

/* member_copy(buf, pos, length, vouch) -> (bytes, (crc32, isize) | None) | None: a copy of
 * buf[pos:pos + length] (any buffer) and, when `vouch` is true, the trailer's CRC32 and ISIZE
 * (little-endian) of a member whose header is the plain one (1f 8b 08 00) and that is at least
 * 20 bytes long; formats/codecs/member_source.py's _copy_pure with member_vouch.plain_vouch.
 * None when the span is not inside the buffer, length <= 0, or the arguments are not a buffer
 * and integers (the pure function then decides). */
static PyObject *
member_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "member_copy(buf, pos, length, vouch)");
        return NULL;
    }
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    Py_ssize_t length = PyLong_AsSsize_t(args[2]);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int vouch = PyObject_IsTrue(args[3]);
    if (vouch < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (pos < 0 || length <= 0 || pos > view.len || length > view.len - pos) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    const unsigned char *m = (const unsigned char *)view.buf + pos;
    PyObject *data = PyBytes_FromStringAndSize((const char *)m, length);
    PyObject *word = NULL;
    if (data != NULL && vouch && length >= 20 && m[0] == 0x1f && m[1] == 0x8b && m[2] == 0x08
        && m[3] == 0x00) {
        const unsigned char *t = m + length - 8;
        unsigned long crc = (unsigned long)t[0] | ((unsigned long)t[1] << 8)
                            | ((unsigned long)t[2] << 16) | ((unsigned long)t[3] << 24);
        unsigned long isize = (unsigned long)t[4] | ((unsigned long)t[5] << 8)
                              | ((unsigned long)t[6] << 16) | ((unsigned long)t[7] << 24);
        word = Py_BuildValue("(kk)", crc, isize);
        if (word == NULL)
            Py_CLEAR(data);
    }
    PyBuffer_Release(&view);
    if (data == NULL)
        return NULL;
    if (word == NULL) {
        word = Py_None;
        Py_INCREF(word);
    }
    PyObject *out = PyTuple_Pack(2, data, word);
    Py_DECREF(data);
    Py_DECREF(word);
    return out;
}

/* member_take(held, offset, length, vouch) -> (bytes, (crc32, isize) | None) | None:
 * formats/codecs/member_source.py's _take_pure, what HeldMembers lends of the file's bytes
 * [offset, offset + length): `held` is its (buf, base, end, verified) tuple (buf holds the file's
 * bytes [base, end) from buf[0] on; verified maps a member's file offset to its length, or to
 * (length, run) whose run.exact() says whether the word holds). With `vouch`, the member's
 * trailer word when `verified` gives it exactly this length and its header is the plain one.
 * None when the span is not held, and whenever a value is not of the types HeldMembers gives
 * (the caller then runs the pure function). An error of run.exact() is raised. */
static PyObject *
member_take(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "member_take(held, offset, length, vouch)");
        return NULL;
    }
    PyObject *held = args[0];
    if (!PyTuple_CheckExact(held) || PyTuple_GET_SIZE(held) != 4 || !PyLong_CheckExact(args[1])
        || !PyLong_CheckExact(args[2]))
        Py_RETURN_NONE;
    PyObject *buf = PyTuple_GET_ITEM(held, 0), *verified = PyTuple_GET_ITEM(held, 3);
    Py_ssize_t offset = PyLong_AsSsize_t(args[1]);
    Py_ssize_t length = PyLong_AsSsize_t(args[2]);
    Py_ssize_t base = PyLong_AsSsize_t(PyTuple_GET_ITEM(held, 1));
    Py_ssize_t end = PyLong_AsSsize_t(PyTuple_GET_ITEM(held, 2));
    if (PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int vouch = PyObject_IsTrue(args[3]);
    if (vouch < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (length <= 0 || offset < base || offset > end || length > end - offset)
        Py_RETURN_NONE;
    int vouched = 0;
    if (vouch && verified != Py_None) {
        if (!PyDict_CheckExact(verified))
            Py_RETURN_NONE;
        PyObject *entry = PyDict_GetItemWithError(verified, args[1]); /* borrowed */
        if (entry == NULL && PyErr_Occurred())
            return NULL;
        PyObject *size = entry;
        if (entry != NULL && PyTuple_CheckExact(entry)) {
            if (PyTuple_GET_SIZE(entry) != 2)
                Py_RETURN_NONE;
            Py_INCREF(entry); /* (run.exact() runs Python code: keep the entry alive) */
            PyObject *exact = PyObject_CallMethod(PyTuple_GET_ITEM(entry, 1), "exact", NULL);
            if (exact == NULL) {
                Py_DECREF(entry);
                return NULL;
            }
            int yes = PyObject_IsTrue(exact);
            Py_DECREF(exact);
            if (yes < 0) {
                Py_DECREF(entry);
                return NULL;
            }
            size = yes ? PyTuple_GET_ITEM(entry, 0) : NULL;
            if (size != NULL && !PyLong_CheckExact(size)) {
                Py_DECREF(entry);
                Py_RETURN_NONE;
            }
            if (size != NULL) {
                Py_ssize_t n = PyLong_AsSsize_t(size);
                if (n == -1 && PyErr_Occurred())
                    PyErr_Clear();
                else
                    vouched = n == length;
            }
            Py_DECREF(entry);
        }
        else if (entry != NULL) {
            if (!PyLong_CheckExact(entry))
                Py_RETURN_NONE;
            Py_ssize_t n = PyLong_AsSsize_t(entry);
            if (n == -1 && PyErr_Occurred())
                PyErr_Clear();
            else
                vouched = n == length;
        }
    }
    PyObject *cargs[4];
    cargs[0] = buf;
    cargs[1] = PyLong_FromSsize_t(offset - base);
    cargs[2] = args[2];
    cargs[3] = vouched ? Py_True : Py_False;
    if (cargs[1] == NULL)
        return NULL;
    PyObject *out = member_copy(self, cargs, 4);
    Py_DECREF(cargs[1]);
    return out;
}

/* first index of needle[:k] (k >= 1) in s[0:n), or -1 (bytes.find) */
static Py_ssize_t
find_bytes(const unsigned char *s, Py_ssize_t n, const unsigned char *needle, Py_ssize_t k)
{
    Py_ssize_t i = 0;
    while (i + k <= n) {
        const unsigned char *p = memchr(s + i, needle[0], (size_t)(n - k + 1 - i));
        if (p == NULL)
            return -1;
        i = p - s;
        if (memcmp(s + i, needle, (size_t)k) == 0)
            return i;
        i++;
    }
    return -1;
}

/* whether key[:n] is `name` (lower case, n bytes) under bytes.lower() (ASCII) */
static int
is_name(const unsigned char *key, Py_ssize_t n, const char *name)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (lower(key[i]) != (unsigned char)name[i])
            return 0;
    }
    return 1;
}

/* the bytes of `value` with ASCII whitespace stripped from both ends (bytes.strip()) */
static void
stripped(PyObject *value, const unsigned char **a, Py_ssize_t *len)
{
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(value);
    const unsigned char *q = p + PyBytes_GET_SIZE(value);
    while (p < q && is_ws(*p))
        p++;
    while (q > p && is_ws(q[-1]))
        q--;
    *a = p;
    *len = q - p;
}

/* The checks of formats/warc/builder.py's can_copy_verbatim after its framing comparisons
 * (_verbatim_ok_pure): "eol eol" first found at the end of raw_header; with eol "\r\n" no bare
 * LF; the first Content-Length value (non-None, of the (name, value) pairs in `headers`, name
 * case-blind), stripped, spells `expected` in decimal; the first WARC-Record-ID value is not
 * blank; a WARC-Date is there. 1 (true), 0 (false), or -1 whenever the pure function could see
 * anything these checks do not judge (a pair that is not a 2-tuple with a bytes name, a chosen
 * value that is not bytes, headers that are not a list or tuple, an eol of 0 or over 8 bytes):
 * the caller then runs the pure function; with `strict`, also any value that is neither None nor
 * bytes. No Python error is left set. */
static int
verbatim_check(PyObject *rawobj, PyObject *headers, Py_ssize_t expected, PyObject *eolobj,
               int strict)
{
    if (!PyList_CheckExact(headers) && !PyTuple_CheckExact(headers))
        return -1;
    const unsigned char *raw = (const unsigned char *)PyBytes_AS_STRING(rawobj);
    Py_ssize_t n = PyBytes_GET_SIZE(rawobj);
    const unsigned char *eol = (const unsigned char *)PyBytes_AS_STRING(eolobj);
    Py_ssize_t k = PyBytes_GET_SIZE(eolobj);
    if (k < 1 || k > 8)
        return -1;
    /* raw_header.find(eol + eol) != len(raw_header) - 2 * len(eol): False */
    unsigned char twice[16];
    memcpy(twice, eol, (size_t)k);
    memcpy(twice + k, eol, (size_t)k);
    if (find_bytes(raw, n, twice, 2 * k) != n - 2 * k)
        return 0;
    /* eol == b"\r\n" and raw_header.count(b"\n") != raw_header.count(b"\r\n"): False */
    if (k == 2 && eol[0] == '\r' && eol[1] == '\n') {
        for (Py_ssize_t i = 0; i < n; i++) {
            if (raw[i] == '\n' && (i == 0 || raw[i - 1] != '\r'))
                return 0;
        }
    }
    PyObject *declared = NULL, *record_id = NULL, *date = NULL; /* borrowed */
    Py_ssize_t count = PySequence_Fast_GET_SIZE(headers);
    PyObject **items = PySequence_Fast_ITEMS(headers);
    for (Py_ssize_t j = 0; j < count; j++) {
        PyObject *pair = items[j];
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2)
            return -1;
        PyObject *key = PyTuple_GET_ITEM(pair, 0), *value = PyTuple_GET_ITEM(pair, 1);
        if (!PyBytes_CheckExact(key))
            return -1;
        const unsigned char *name = (const unsigned char *)PyBytes_AS_STRING(key);
        Py_ssize_t len = PyBytes_GET_SIZE(key);
        if (value == Py_None)
            continue; /* (the pure loop keeps looking: `value if declared is None else ...`) */
        if (strict && !PyBytes_CheckExact(value))
            return -1;
        if (len == 14) {
            if (declared == NULL && is_name(name, 14, "content-length"))
                declared = value;
            else if (record_id == NULL && is_name(name, 14, "warc-record-id"))
                record_id = value;
        }
        else if (len == 9 && date == NULL && is_name(name, 9, "warc-date"))
            date = value;
    }
    if (declared == NULL)
        return 0;
    if (!PyBytes_CheckExact(declared))
        return -1;
    {
        char digits[32];
        int dlen = snprintf(digits, sizeof(digits), "%zd", expected);
        const unsigned char *v;
        Py_ssize_t vlen;
        stripped(declared, &v, &vlen);
        if (dlen <= 0 || vlen != dlen || memcmp(v, digits, (size_t)dlen) != 0)
            return 0;
    }
    if (record_id == NULL)
        return 0;
    if (!PyBytes_CheckExact(record_id))
        return -1;
    {
        const unsigned char *v;
        Py_ssize_t vlen;
        stripped(record_id, &v, &vlen);
        if (vlen == 0)
            return 0;
    }
    return date != NULL;
}

/* verbatim_ok(raw_header, headers, expected, eol) -> bool | None: verbatim_check (None for -1,
 * and for arguments of other types: the pure function decides). */
static PyObject *
verbatim_ok(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "verbatim_ok(raw_header, headers, expected, eol)");
        return NULL;
    }
    if (!PyBytes_CheckExact(args[0]) || !PyBytes_CheckExact(args[3])
        || !PyLong_CheckExact(args[2]))
        Py_RETURN_NONE;
    Py_ssize_t expected = PyLong_AsSsize_t(args[2]);
    if (expected == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int ok = verbatim_check(args[0], args[1], expected, args[3], 0);
    if (ok < 0)
        Py_RETURN_NONE;
    return PyBool_FromLong(ok);
}

static PyObject *KEY_RAW_HEADER, *KEY_HEADERS, *KEY_VERSION, *KEY_LINE_ENDING, *KEY_CL_SEP,
    *KEY_SEPARATOR;

/* a value of the reader's extras["warc"] that _as_bytes() leaves as it is: absent or None
 * (NULL), or bytes; 0 for anything else (or a lookup error, cleared) */
static int
bytes_or_none(PyObject *warc, PyObject *key, PyObject **out)
{
    PyObject *v = PyDict_GetItemWithError(warc, key);
    if (v == NULL && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (v == Py_None)
        v = NULL;
    if (v != NULL && !PyBytes_CheckExact(v))
        return 0;
    *out = v;
    return 1;
}

/* verbatim_parts(warc, head, payload, framing) -> (raw_header, head, payload, separator) | None:
 * formats/warc/builder.py's _verbatim_parts_pure. `warc` is a record's extras["warc"] (a dict),
 * `framing` the tuple (version, version_line, line_ending, separator, cl_includes_separator) of
 * the target framing. The parts whose concatenation is the record's input bytes when
 * can_copy_verbatim says they can be written as they are; None when it says no and whenever a
 * value is not of the types the reader gives (header pairs: a list or tuple of 2-tuples of bytes
 * and bytes or None), where the caller takes its general path. */
static PyObject *
verbatim_parts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "verbatim_parts(warc, head, payload, framing)");
        return NULL;
    }
    PyObject *warc = args[0], *head = args[1], *payload = args[2], *framing = args[3];
    if (!PyDict_CheckExact(warc) || !PyBytes_CheckExact(payload))
        Py_RETURN_NONE;
    if (head == Py_None)
        head = NULL;
    else if (!PyBytes_CheckExact(head))
        Py_RETURN_NONE;
    if (!PyTuple_CheckExact(framing) || PyTuple_GET_SIZE(framing) != 5)
        Py_RETURN_NONE;
    PyObject *f_version = PyTuple_GET_ITEM(framing, 0), *f_line = PyTuple_GET_ITEM(framing, 1),
             *f_eol = PyTuple_GET_ITEM(framing, 2), *f_sep = PyTuple_GET_ITEM(framing, 3),
             *f_cl_sep = PyTuple_GET_ITEM(framing, 4);
    if (!PyUnicode_CheckExact(f_version) || !PyBytes_CheckExact(f_line)
        || !PyBytes_CheckExact(f_eol) || !PyBytes_CheckExact(f_sep) || !PyBool_Check(f_cl_sep))
        Py_RETURN_NONE;
    PyObject *raw = PyDict_GetItemWithError(warc, KEY_RAW_HEADER);
    PyObject *headers = raw ? PyDict_GetItemWithError(warc, KEY_HEADERS) : NULL;
    PyObject *version = headers ? PyDict_GetItemWithError(warc, KEY_VERSION) : NULL;
    if (version == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!PyBytes_CheckExact(raw) || PyBytes_GET_SIZE(raw) == 0 || headers == Py_None
        || !PyUnicode_CheckExact(version))
        Py_RETURN_NONE;
    PyObject *line_ending = NULL, *separator = NULL;
    if (!bytes_or_none(warc, KEY_LINE_ENDING, &line_ending)
        || !bytes_or_none(warc, KEY_SEPARATOR, &separator))
        Py_RETURN_NONE;
    int cl_sep = 0;
    PyObject *cl_obj = PyDict_GetItemWithError(warc, KEY_CL_SEP);
    if (cl_obj == NULL && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (cl_obj != NULL) {
        if (!PyBool_Check(cl_obj))
            Py_RETURN_NONE; /* (bool() of another object: the pure path) */
        cl_sep = cl_obj == Py_True;
    }
    int framing_cl_sep = f_cl_sep == Py_True;
    /* can_copy_verbatim's framing comparisons */
    int same = PyUnicode_Compare(version, f_version);
    if (same == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (same != 0)
        Py_RETURN_NONE;
    Py_ssize_t rlen = PyBytes_GET_SIZE(raw), llen = PyBytes_GET_SIZE(f_line);
    if (rlen < llen || memcmp(PyBytes_AS_STRING(raw), PyBytes_AS_STRING(f_line), (size_t)llen) != 0)
        Py_RETURN_NONE;
    if (line_ending != NULL
        && (PyBytes_GET_SIZE(line_ending) != PyBytes_GET_SIZE(f_eol)
            || memcmp(PyBytes_AS_STRING(line_ending), PyBytes_AS_STRING(f_eol),
                      (size_t)PyBytes_GET_SIZE(f_eol))
                   != 0))
        Py_RETURN_NONE;
    if (cl_sep != framing_cl_sep)
        Py_RETURN_NONE;
    if (!framing_cl_sep && separator != NULL
        && (PyBytes_GET_SIZE(separator) != PyBytes_GET_SIZE(f_sep)
            || memcmp(PyBytes_AS_STRING(separator), PyBytes_AS_STRING(f_sep),
                      (size_t)PyBytes_GET_SIZE(f_sep))
                   != 0))
        Py_RETURN_NONE;
    Py_ssize_t hlen = head ? PyBytes_GET_SIZE(head) : 0;
    Py_ssize_t expected = hlen + PyBytes_GET_SIZE(payload);
    if (framing_cl_sep)
        expected += PyBytes_GET_SIZE(f_sep);
    if (verbatim_check(raw, headers, expected, f_eol, 1) != 1)
        Py_RETURN_NONE;
    PyObject *empty = NULL;
    if (head == NULL) {
        empty = PyBytes_FromStringAndSize(NULL, 0);
        if (empty == NULL)
            return NULL;
        head = empty;
    }
    PyObject *out = PyTuple_Pack(4, raw, head, payload, f_sep);
    Py_XDECREF(empty);
    return out;
}

static PyObject *A_MODIFIED, *A_CHANGED, *A_DOC_ID, *A_TEXT, *A_OUTLINKS, *A_EXTRAS,
    *A_HTTP_HEAD, *A_PAYLOAD, *A_SOURCE, *A_FORMAT, *A_OFFSET, *A_LENGTH, *KEY_WARC, *KEY_MEMBER,
    *STR_WARC;

/* truth of getattr(obj, name): 1, 0, or -1 with an error set */
static int
attr_true(PyObject *obj, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    return t;
}

/* getattr(obj, name) is not None: 1, 0, or -1 with an error set */
static int
attr_set(PyObject *obj, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    int t = v != Py_None;
    Py_DECREF(v);
    return t;
}

/* verbatim_copy(record, framings, reuse) -> (parts, size, source | None) | None | NotImplemented:
 * plugins/writers/warc_encode.py's verbatim_copy_pure, the WARC writer's per-record checks of a
 * plain verbatim copy in one call: plain_copy's (record not modified, nothing changed, no doc
 * id, text or outlinks, extras["warc"] a dict whose version `framings` maps to a framing, and
 * verbatim_parts of it), the parts' total length, and the record's source when `reuse` and its
 * input member may be copied (extras["warc"]["member"] is True, a source of format "warc" with
 * an offset and a length of at most 2 * size + 1024). None where plain_copy gives None;
 * NotImplemented whenever a value is not of the types the reader gives (the caller then runs the
 * pure function, which decides). */
static PyObject *
verbatim_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "verbatim_copy(record, framings, reuse)");
        return NULL;
    }
    PyObject *record = args[0], *framings = args[1];
    int reuse = PyObject_IsTrue(args[2]);
    if (reuse < 0)
        return NULL;
    if (!PyDict_CheckExact(framings))
        Py_RETURN_NOTIMPLEMENTED;
    int t = attr_true(record, A_MODIFIED);
    if (t != 0)
        return t < 0 ? NULL : Py_NewRef(Py_None);
    if ((t = attr_true(record, A_CHANGED)) != 0)
        return t < 0 ? NULL : Py_NewRef(Py_None);
    if ((t = attr_set(record, A_DOC_ID)) != 0)
        return t < 0 ? NULL : Py_NewRef(Py_None);
    if ((t = attr_set(record, A_TEXT)) != 0)
        return t < 0 ? NULL : Py_NewRef(Py_None);
    if ((t = attr_true(record, A_OUTLINKS)) != 0)
        return t < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *extras = PyObject_GetAttr(record, A_EXTRAS);
    if (extras == NULL)
        return NULL;
    if (!PyDict_CheckExact(extras)) {
        Py_DECREF(extras);
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *warc = PyDict_GetItemWithError(extras, KEY_WARC); /* borrowed from extras */
    if (warc == NULL && PyErr_Occurred()) {
        Py_DECREF(extras);
        return NULL;
    }
    if (warc == NULL || !PyDict_CheckExact(warc)) {
        Py_DECREF(extras);
        Py_RETURN_NONE;
    }
    Py_INCREF(warc);
    Py_DECREF(extras);
    PyObject *result = NULL, *head = NULL, *payload = NULL, *parts = NULL, *src = NULL;
    PyObject *version = PyDict_GetItemWithError(warc, KEY_VERSION);
    if (version == NULL && PyErr_Occurred())
        goto done;
    if (version == NULL)
        version = Py_None;
    if (!PyUnicode_CheckExact(version) && version != Py_None) {
        result = Py_NewRef(Py_NotImplemented); /* (a key framings.get() may refuse) */
        goto done;
    }
    PyObject *framing = PyDict_GetItemWithError(framings, version);
    if (framing == NULL) {
        if (!PyErr_Occurred())
            result = Py_NewRef(Py_None);
        goto done;
    }
    head = PyObject_GetAttr(record, A_HTTP_HEAD);
    if (head == NULL)
        goto done;
    payload = PyObject_GetAttr(record, A_PAYLOAD);
    if (payload == NULL)
        goto done;
    PyObject *cargs[4] = {warc, head, payload, framing};
    parts = verbatim_parts(self, cargs, 4);
    if (parts == NULL)
        goto done;
    if (parts == Py_None) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    Py_ssize_t size = 0;
    for (Py_ssize_t i = 0; i < 4; i++)
        size += PyBytes_GET_SIZE(PyTuple_GET_ITEM(parts, i));
    src = Py_NewRef(Py_None);
    if (reuse) {
        PyObject *member = PyDict_GetItemWithError(warc, KEY_MEMBER);
        if (member == NULL && PyErr_Occurred())
            goto done;
        PyObject *source = member == Py_True ? PyObject_GetAttr(record, A_SOURCE) : NULL;
        if (member == Py_True && source == NULL)
            goto done;
        if (source != NULL && source != Py_None) {
            PyObject *fmt = PyObject_GetAttr(source, A_FORMAT);
            PyObject *offset = fmt ? PyObject_GetAttr(source, A_OFFSET) : NULL;
            PyObject *length = offset ? PyObject_GetAttr(source, A_LENGTH) : NULL;
            int ok = length != NULL;
            int other = 0; /* a value of another type than the reader's: the pure path */
            if (ok) {
                if (!PyUnicode_CheckExact(fmt))
                    other = fmt != Py_None;
                else if (PyUnicode_Compare(fmt, STR_WARC) != 0)
                    ok = 0;
                if (offset == Py_None)
                    ok = 0;
                if (length == Py_None)
                    ok = 0;
                else if (!PyLong_CheckExact(length))
                    other = 1;
                else {
                    Py_ssize_t n = PyLong_AsSsize_t(length);
                    if (n == -1 && PyErr_Occurred()) {
                        PyErr_Clear();
                        other = 1;
                    }
                    else if (n == 0 || n > 2 * size + 1024)
                        ok = 0;
                }
                if (fmt == Py_None)
                    ok = 0;
            }
            Py_XDECREF(fmt);
            Py_XDECREF(offset);
            Py_XDECREF(length);
            if (!ok && length == NULL) {
                Py_DECREF(source);
                goto done;
            }
            if (other) {
                Py_DECREF(source);
                result = Py_NewRef(Py_NotImplemented);
                goto done;
            }
            if (ok)
                Py_SETREF(src, Py_NewRef(source));
        }
        Py_XDECREF(source);
    }
    PyObject *n = PyLong_FromSsize_t(size);
    if (n == NULL)
        goto done;
    result = PyTuple_Pack(3, parts, n, src);
    Py_DECREF(n);
done:
    Py_XDECREF(src);
    Py_XDECREF(parts);
    Py_XDECREF(payload);
    Py_XDECREF(head);
    Py_DECREF(warc);
    return result;
}

/* first index of the 2- or 3-byte needle in s[from:to), or -1 (bytes.find) */
static Py_ssize_t
find_small(const unsigned char *s, Py_ssize_t from, Py_ssize_t to, const char *needle,
           Py_ssize_t k)
{
    Py_ssize_t i = from;
    while (i + k <= to) {
        const unsigned char *p = memchr(s + i, needle[0], (size_t)(to - k + 1 - i));
        if (p == NULL)
            return -1;
        i = p - s;
        if (memcmp(s + i, needle, (size_t)k) == 0)
            return i;
        i++;
    }
    return -1;
}

/* formats/http/head.py's head_end(block, start, end): just after the first blank line (CRLF, LF or
 * mixed) of block[start:end], or -1 */
static Py_ssize_t
http_head_end(const unsigned char *b, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t crlf = find_small(b, start, end, "\r\n\r\n", 4);
    Py_ssize_t stop = crlf >= 0 ? crlf : end;
    Py_ssize_t best = crlf >= 0 ? crlf + 4 : -1;
    Py_ssize_t lf = find_small(b, start, stop, "\n\n", 2);
    if (lf >= 0 && (best < 0 || lf + 2 <= best))
        best = lf + 2;
    Py_ssize_t mixed = find_small(b, start, stop, "\n\r\n", 3);
    if (mixed >= 0 && (best < 0 || mixed + 3 < best))
        best = mixed + 3;
    if (best < 0) { /* _BLANK_LINE: \n\r*\n, leftmost */
        for (Py_ssize_t i = start; i < end; i++) {
            if (b[i] != '\n')
                continue;
            Py_ssize_t j = i + 1;
            while (j < end && b[j] == '\r')
                j++;
            if (j < end && b[j] == '\n')
                return j + 1;
        }
    }
    return best;
}

/* http_head(block, start, end) -> (cut, content_type_value | None) | None: head_end() of
 * block[start:end] and, in the head (block[start:cut], or block[start:end] without a blank
 * line), the raw value of the first "\ncontent-type[ \t]*:" line (case-blind name; the value
 * after [ \t]* up to CR or LF), as formats/http/head.py's content_type() finds it. None when the
 * range is not inside a bytes object (the pure path decides). */
static PyObject *
http_head(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "http_head(block, start, end)");
        return NULL;
    }
    if (!PyBytes_CheckExact(args[0]))
        Py_RETURN_NONE;
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
    if (start < 0 || end < start || end > n)
        Py_RETURN_NONE;
    Py_ssize_t cut = http_head_end(b, start, end);
    Py_ssize_t hend = cut >= 0 ? cut : end;
    static const char name[] = "content-type";
    PyObject *value = NULL;
    for (Py_ssize_t i = start; i + 13 <= hend; i++) {
        const unsigned char *p = memchr(b + i, '\n', (size_t)(hend - 13 + 1 - i));
        if (p == NULL)
            break;
        i = p - b;
        Py_ssize_t k = 0;
        while (k < 12 && lower(b[i + 1 + k]) == (unsigned char)name[k])
            k++;
        if (k < 12)
            continue;
        Py_ssize_t j = i + 13;
        while (j < hend && (b[j] == ' ' || b[j] == '\t'))
            j++;
        if (j >= hend || b[j] != ':')
            continue;
        j++;
        while (j < hend && (b[j] == ' ' || b[j] == '\t'))
            j++;
        Py_ssize_t v = j;
        while (j < hend && b[j] != '\r' && b[j] != '\n')
            j++;
        value = PyBytes_FromStringAndSize((const char *)b + v, j - v);
        if (value == NULL)
            return NULL;
        break;
    }
    PyObject *ocut = PyLong_FromSsize_t(cut);
    if (ocut == NULL) {
        Py_XDECREF(value);
        return NULL;
    }
    if (value == NULL) {
        value = Py_None;
        Py_INCREF(value);
    }
    PyObject *out = PyTuple_Pack(2, ocut, value);
    Py_DECREF(ocut);
    Py_DECREF(value);
    return out;
}

static PyMethodDef methods[] = {
    {"frame", (PyCFunction)(void (*)(void))frame, METH_FASTCALL,
     "frame(buf, pos, max_header_bytes, max_record_bytes) -> (raw_header, hend, e, version, "
     "headers, fields, at_end) | None: the WARC framer's fast path (see formats/warc/framer.py)."},
    {"member_starts", (PyCFunction)(void (*)(void))member_starts, METH_FASTCALL,
     "member_starts(buf, end) -> list[int] | None: offsets of gzip member headers in buf[:end] "
     "(see formats/codecs/gzip_parallel.py)."},
    {"member_scan", (PyCFunction)(void (*)(void))member_scan, METH_FASTCALL,
     "member_scan(buf, end) -> (starts, others) | None: member_starts' list and the offsets of "
     "every other gzip magic in buf[:end] (see formats/codecs/gzip_parallel.py)."},
    {"member_copy", (PyCFunction)(void (*)(void))member_copy, METH_FASTCALL,
     "member_copy(buf, pos, length, vouch) -> (bytes, (crc32, isize) | None) | None: a held "
     "member's bytes and its plain trailer (see formats/codecs/member_source.py)."},
    {"member_take", (PyCFunction)(void (*)(void))member_take, METH_FASTCALL,
     "member_take(held, offset, length, vouch) -> (bytes, (crc32, isize) | None) | None: what "
     "HeldMembers lends of a span, with the reader's word (see formats/codecs/member_source.py)."},
    {"verbatim_ok", (PyCFunction)(void (*)(void))verbatim_ok, METH_FASTCALL,
     "verbatim_ok(raw_header, headers, expected, eol) -> bool | None: the header checks of a "
     "verbatim copy (see formats/warc/builder.py's can_copy_verbatim)."},
    {"verbatim_parts", (PyCFunction)(void (*)(void))verbatim_parts, METH_FASTCALL,
     "verbatim_parts(warc, head, payload, framing) -> (raw_header, head, payload, separator) | "
     "None: a verbatim copy's parts (see formats/warc/builder.py's verbatim_parts)."},
    {"verbatim_copy", (PyCFunction)(void (*)(void))verbatim_copy, METH_FASTCALL,
     "verbatim_copy(record, framings, reuse) -> (parts, size, source | None) | None | "
     "NotImplemented: a plain verbatim copy's checks at once (see "
     "plugins/writers/warc_encode.py's verbatim_copy_pure)."},
    {"http_head", (PyCFunction)(void (*)(void))http_head, METH_FASTCALL,
     "http_head(block, start, end) -> (cut, content_type_value | None) | None: where an HTTP "
     "head ends and its Content-Type value (see formats/http/head.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_warcfast",
    "Optional compiled fast path of crawlmill's WARC framer (pure fallback in formats/warc/framer.py).",
    -1, methods,
};

PyMODINIT_FUNC
PyInit__warcfast(void)
{
    for (int i = 0; i < 10; i++) {
        char v[4] = {'1', '.', (char)('0' + i), 0};
        if (VERSIONS[i] == NULL) {
            VERSIONS[i] = PyUnicode_InternFromString(v);
            if (VERSIONS[i] == NULL)
                return NULL;
        }
    }
    for (int k = 0; k < N_KNOWN; k++) {
        if (KNOWN_NAME[k] != NULL)
            continue;
        Py_ssize_t n = (Py_ssize_t)strlen(KNOWN[k]);
        char low[64];
        for (Py_ssize_t i = 0; i < n; i++)
            low[i] = (char)lower((unsigned char)KNOWN[k][i]);
        KNOWN_LEN[k] = n;
        KNOWN_NAME[k] = PyBytes_FromStringAndSize(KNOWN[k], n);
        KNOWN_KEY[k] = PyBytes_FromStringAndSize(low, n);
        if (KNOWN_NAME[k] == NULL || KNOWN_KEY[k] == NULL)
            return NULL;
        (void)PyObject_Hash(KNOWN_KEY[k]); /* cached in the object */
    }
    const char *names[] = {"raw_header", "headers", "version", "line_ending",
                           "cl_includes_separator", "separator"};
    PyObject **keys[] = {&KEY_RAW_HEADER, &KEY_HEADERS, &KEY_VERSION, &KEY_LINE_ENDING,
                         &KEY_CL_SEP, &KEY_SEPARATOR};
    for (int i = 0; i < 6; i++) {
        if (*keys[i] == NULL) {
            *keys[i] = PyUnicode_InternFromString(names[i]);
            if (*keys[i] == NULL)
                return NULL;
        }
    }
    const char *attr_names[] = {"modified", "changed", "doc_id",  "text",   "outlinks",
                                "extras",   "http_head", "payload", "source", "format",
                                "offset",   "length",  "warc",    "member", "warc"};
    PyObject **attrs[] = {&A_MODIFIED, &A_CHANGED, &A_DOC_ID,  &A_TEXT,   &A_OUTLINKS,
                          &A_EXTRAS,   &A_HTTP_HEAD, &A_PAYLOAD, &A_SOURCE, &A_FORMAT,
                          &A_OFFSET,   &A_LENGTH,  &KEY_WARC,  &KEY_MEMBER, &STR_WARC};
    for (int i = 0; i < 15; i++) {
        if (*attrs[i] == NULL) {
            *attrs[i] = PyUnicode_InternFromString(attr_names[i]);
            if (*attrs[i] == NULL)
                return NULL;
        }
    }
    return PyModule_Create(&module);
}
