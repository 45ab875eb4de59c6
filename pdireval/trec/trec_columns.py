"""trec_eval's input files read as numpy columns: the fast path of :mod:`~.trec_files`.

:mod:`~.trec_files` reads a file into Python lists (one ``bytes`` object per field);
for the common case, a file whose every line has exactly the expected number of fields and
no byte that would make trec_eval read it differently, this module reads the same values
without creating a Python object per field, so that one ``pdireval trec_eval`` call on a
100,000-line run stays close to the C program's time (issue 30):

* fields are found with numpy (C's ``isspace``: bytes 9-13 and 32);
* a text field becomes big-endian ``uint64`` words of its bytes, zero-padded: two fields
  are equal exactly when their words are, and the words compare as ``strcmp`` compares the
  fields (a zero byte ends a C string, so a file holding one takes the slow path);
* integers (qrels labels) are read digit by digit, as ``atol`` reads them;
* decimal scores ``[+-]digits[.digits]`` with at most 19 digits are read as
  ``M / 10**k``: one correctly rounded division when ``M <= 2**53`` and ``k <= 22``
  (Clinger, 1990); for 9.0.8, which keeps scores as C floats, other values are accepted
  when no float32 rounding boundary lies within a few double ulps of the quotient (then
  the float32 is the one of the exactly rounded double); everything else (exponents,
  ``inf``, 17-digit values for 10.0, anything odd) is read by the slow path's ``atof``,
  one token at a time.

Every function returns ``None`` when the file is not of that common shape; the caller then
reads it with :mod:`~.trec_files`, whose messages and quirks are trec_eval's.

Reference: Clinger, W. D. (1990). How to read floating point numbers accurately. PLDI '90.
"""

from __future__ import annotations

import numpy as np

from pdireval.trec.trec_files import atof

__all__ = ["Table", "table"]

_ALL = 2**64 - 1
# masks keeping the first r bytes of a big-endian word, the last r of a little-endian one
_MASKS = np.array([0] + [(_ALL << (8 * (8 - r))) & _ALL for r in range(1, 9)], np.uint64)
_KEEP_HIGH = _MASKS
_POW10 = 10.0 ** np.arange(23)
_POW10_INT = np.array([10**k for k in range(20)], dtype=np.uint64)
_ZEROS, _SIXES = np.uint64(0x3030303030303030), np.uint64(0x0606060606060606)
_THREES, _HIGH_NIBBLES = np.uint64(0x3333333333333333), np.uint64(0xF0F0F0F0F0F0F0F0)
_LOW_NIBBLES, _BYTE_PAIRS = np.uint64(0x0F0F0F0F0F0F0F0F), np.uint64(0x00FF00FF00FF00FF)
_SHORT_PAIRS = np.uint64(0x0000FFFF0000FFFF)
_M1, _M2, _M3 = np.uint64(2561), np.uint64(6553601), np.uint64(42949672960001)
_U4, _U8, _U16, _U32 = np.uint64(4), np.uint64(8), np.uint64(16), np.uint64(32)
_MINUS, _PLUS, _DOT = ord("-"), ord("+"), ord(".")


class Table:
    """A file whose every line holds the same number of whitespace-separated fields:
    ``starts[f]`` / ``ends[f]``: byte offsets of field ``f`` on every line (file order)."""

    def __init__(self, data: bytes, starts: list[np.ndarray], ends: list[np.ndarray]):
        self.data = data
        self.n = len(starts[0])
        self.starts, self.ends = starts, ends
        self._bytes = np.frombuffer(data, dtype=np.uint8)
        # the 8 bytes at every offset, as big- and little-endian words (no copy)
        count = max(len(data) - 7, 0)
        self._be = np.ndarray((count,), dtype=">u8", buffer=data, strides=(1,))
        self._le = np.ndarray((count,), dtype="<u8", buffer=data, strides=(1,))

    def _at(self, offsets: np.ndarray, big: bool) -> np.ndarray:
        """The 8 bytes at each data offset as a uint64 (big- or little-endian); bytes before
        the data or past its end read as 0 (only fields near either end reach there)."""
        view = self._be if big else self._le
        inside = (offsets >= 0) & (offsets <= len(self.data) - 8)
        if inside.all():
            return view[offsets].astype(np.uint64, copy=False)
        out = np.zeros(len(offsets), dtype=np.uint64)
        out[inside] = view[offsets[inside]]
        for row in np.flatnonzero(~inside).tolist():
            at = int(offsets[row])
            chunk = bytes(max(-at, 0)) + self.data[max(at, 0) : max(at + 8, 0)]
            out[row] = int.from_bytes(chunk.ljust(8, b"\0"), "big" if big else "little")
        return out

    def token(self, field: int, line: int) -> bytes:
        """The bytes of one field."""
        return self.data[int(self.starts[field][line]) : int(self.ends[field][line])]

    def words(self, field: int, rows: np.ndarray | None = None) -> list[np.ndarray]:
        """The field's bytes as big-endian uint64 words, zero-padded, of every line or of
        ``rows``: one array per 8 bytes of the longest value. Equal words: equal fields;
        their lexicographic order: ``strcmp`` order."""
        start, end = self.starts[field], self.ends[field]
        if rows is not None:
            start, end = start[rows], end[rows]
        length = end - start
        width = max(int(length.max(initial=1)) + 7, 8) // 8
        return [
            self._at(start + 8 * j, True) & _MASKS[np.clip(length - 8 * j, 0, 8)]
            for j in range(width)
        ]

    def _number(self, end: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The decimal digits ``data[end - length : end]`` (``length`` <= 19) as uint64, and
        whether they are all digits (8 at a time: Lemire's SWAR conversion; the second and
        third 8 only on the rows that have them, when those are few)."""
        value = np.zeros(len(end), dtype=np.uint64)
        ok = np.ones(len(end), dtype=bool)
        for j in range(-(-int(length.max(initial=0)) // 8)):
            rows = None
            if j:
                longer = length > 8 * j
                if np.count_nonzero(longer) < len(length) // 2:
                    rows = np.flatnonzero(longer)
            part_end, part_length = (end, length) if rows is None else (end[rows], length[rows])
            keep = np.clip(part_length - 8 * j, 0, 8)
            word = self._at(part_end - 8 - 8 * j, False)  # its last byte is the chunk's last
            mask = _KEEP_HIGH[keep]
            word = (word & mask) | (_ZEROS & ~mask)  # '0' before the chunk's digits
            good = ((word & _HIGH_NIBBLES) | (((word + _SIXES) & _HIGH_NIBBLES) >> _U4)) == _THREES
            word = ((word & _LOW_NIBBLES) * _M1) >> _U8
            word = ((word & _BYTE_PAIRS) * _M2) >> _U16
            word = ((word & _SHORT_PAIRS) * _M3) >> _U32
            if rows is None:
                ok &= good
                value += word * _POW10_INT[8 * j]
            else:
                ok[rows] &= good
                value[rows] += word * _POW10_INT[8 * j]
        return value, ok

    def ints(self, field: int) -> np.ndarray | None:
        """``atol`` of every field when each is ``[+-]digits`` (at most 18 digits), else None."""
        start, end = self.starts[field], self.ends[field]
        first = self._bytes[start]
        sign = (first == _MINUS) | (first == _PLUS)
        length = end - start - sign
        if self.n == 0 or int(length.max()) > 18 or int(length.min()) < 1:
            return None
        value, ok = self._number(end, length)
        if not ok.all():
            return None
        value = value.astype(np.int64)
        return np.where(first == _MINUS, -value, value)

    def floats(self, field: int, single: bool = False) -> np.ndarray:
        """``atof`` of every field (a double, as glibc's ``strtod`` rounds it); with ``single``
        (trec_eval 9.0.8 keeps scores as C floats) a double that rounds to the same float32
        as that one (see :func:`_quotient`)."""
        start, end = self.starts[field], self.ends[field]
        raw = self._bytes
        first = raw[start]
        negative = first == _MINUS
        digits_start = start + (negative | (first == _PLUS))
        dots = np.flatnonzero(raw == _DOT)
        at = np.searchsorted(dots, digits_start)
        dots = np.concatenate((dots, [-1, -1]))
        dot = np.where((dots[at] >= 0) & (dots[at] < end), dots[at], end)
        n_int, n_frac = dot - digits_start, np.maximum(end - dot - 1, 0)
        slow = (n_int + n_frac == 0) | (n_int + n_frac > 19) | (n_frac > 22)
        slow |= (dots[at + 1] >= 0) & (dots[at + 1] < end)  # two dots
        n_int, n_frac = np.where(slow, 0, n_int), np.where(slow, 0, n_frac)
        whole, ok_int = self._number(dot, n_int)
        fraction, ok_frac = self._number(end, n_frac)
        slow |= ~(ok_int & ok_frac)
        mantissa = whole * _POW10_INT[n_frac] + fraction
        approx, exact = _quotient(mantissa, n_frac, single)
        slow |= ~exact
        out = np.where(negative, -approx, approx)
        if slow.any():
            rows = np.flatnonzero(slow)
            tokens = [self.data[a:b] for a, b in zip(start[rows].tolist(), end[rows].tolist())]
            out[rows] = _atof_all(tokens, self.data)
        return out


def _quotient(
    mantissa: np.ndarray, n_frac: np.ndarray, single: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``mantissa / 10**n_frac`` correctly rounded to a double (as ``strtod`` reads the
    decimal), and where that was decided: exactly when ``mantissa <= 2**53`` (one rounding
    of exact operands, Clinger 1990); else the candidate ``c`` is checked with the residual
    ``mantissa - c * 10**n_frac``, computed exactly with Dekker's product (Dekker, 1971):
    ``c`` is right when the residual lies within half the gap to either neighbour, with a
    margin for the residual's own last rounding; one neighbour is tried, the rest is left
    undecided. With ``single`` only the float32 rounding of the result matters: a quotient
    (within 2 ulps of the exact double) with no float32 rounding midpoint within 8 ulps of
    it rounds to the float32 the exact double rounds to, and is kept as it is."""
    value = mantissa.astype(np.float64) / _POW10[n_frac]
    decided = mantissa <= np.uint64(2**53)
    if single:
        decided |= _float32_safe(value)
    rows = np.flatnonzero(~decided)
    if len(rows):
        value[rows], decided[rows] = _checked(mantissa[rows], _POW10[n_frac[rows]], value[rows])
    return value, decided


def _float32_safe(value: np.ndarray) -> np.ndarray:
    """True where every double within 8 ulps of ``value`` rounds to the same float32 (no
    float32 rounding midpoint that near; normal float32 range only)."""
    with np.errstate(all="ignore"):
        f = value.astype(np.float32)
        wide = f.astype(np.float64)
        up = (wide + np.nextafter(f, np.float32(np.inf)).astype(np.float64)) / 2
        down = (wide + np.nextafter(f, np.float32(-np.inf)).astype(np.float64)) / 2
        tol = 8 * np.spacing(np.abs(value))
        ok = (np.abs(value - up) > tol) & (np.abs(value - down) > tol)
        return ok & (np.abs(value) > 1e-30) & (np.abs(value) < 1e30)


def _checked(mantissa, power, value) -> tuple[np.ndarray, np.ndarray]:
    """The candidates ``value`` of ``mantissa / power`` checked (and moved by one ulp where
    the residual says so): ``(values, decided)``."""
    high = mantissa.astype(np.float64)
    low = (mantissa - high.astype(np.uint64)).view(np.int64).astype(np.float64)
    decided = np.zeros(len(value), dtype=bool)
    rows = np.arange(len(value))
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(2):
            c, p = value[rows], power[rows]
            product, error = _two_product(c, p)
            residual = (high[rows] - product) + (low[rows] - error)  # mantissa - c * power
            above = np.spacing(c) * p / 2
            # below a power of two the gap to the next smaller double is half as wide
            even = (c.view(np.uint64) & np.uint64(2**52 - 1)) == 0
            below = np.where(even, above / 2, above)
            inside = (residual < above * (1 - 1e-9)) & (residual > -below * (1 - 1e-9))
            decided[rows[inside]] = True
            step = ~inside & ((residual > above * (1 + 1e-9)) | (residual < -below * (1 + 1e-9)))
            rows, residual = rows[step], residual[step]
            if not len(rows):
                break
            value[rows] = np.nextafter(value[rows], np.where(residual > 0, np.inf, 0.0))
    return value, decided


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, e)`` with ``p + e == a * b`` exactly (Dekker's product with Veltkamp's split)."""
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = 134217729.0 * a  # 2**27 + 1
    high = t - (t - a)
    return high, a - high


def _atof_all(tokens: list, data: bytes) -> list:
    """What :mod:`~.trec_files` reads for these tokens: ``float`` (correctly rounded, as
    glibc's ``atof``), or ``atof``'s leading-number rule when a token is not a plain number
    (``float`` would also read ``1_0``: a file holding ``_`` takes ``atof`` throughout)."""
    if b"_" not in data:
        try:
            return list(map(float, tokens))
        except ValueError:
            pass
    return [atof(t) for t in tokens]


def table(data: bytes, fields: int) -> Table | None:
    """The file as a :class:`Table` when every line holds exactly ``fields`` fields and no
    byte is a control character other than C's whitespace (9-13); else None."""
    if not data:
        return None
    b = np.frombuffer(data, dtype=np.uint8)
    separators = np.flatnonzero(b <= 32)
    if len(separators) and b[0] > 32:
        found = _single_separators(data, b, separators, fields)
        if found is not None:
            return found
    if (b < 9).any() or ((b - np.uint8(14)) < 18).any():  # a control byte other than 9-13
        return None
    space = b <= 32
    change = np.flatnonzero(space[1:] != space[:-1]) + 1
    if not space[0]:
        change = np.concatenate(([0], change))
    if not space[-1]:
        change = np.concatenate((change, [len(b)]))
    starts, ends = change[0::2], change[1::2]
    newlines = np.flatnonzero(b == 10)
    lines = len(newlines) + (0 if data.endswith(b"\n") else 1)
    if len(starts) != fields * lines or lines == 0:
        return None
    # newline i lies between the last field of line i and the first of line i + 1: then
    # (with as many newlines as line ends) every line holds exactly `fields` fields
    after = ends[fields - 1 :: fields][: len(newlines)]
    before = starts[fields::fields]
    if not (newlines >= after).all() or not (newlines[: len(before)] < before).all():
        return None
    return Table(
        data, [starts[f::fields] for f in range(fields)], [ends[f::fields] for f in range(fields)]
    )


def _single_separators(data: bytes, b: np.ndarray, space: np.ndarray, fields: int):
    """:func:`table` for the usual layout, fields separated by one whitespace byte and lines
    ended by one newline (``space``: the offsets of the bytes <= 32, the first byte not
    among them): every separator is one of them, so only they are read. None when the file
    is not so laid out (:func:`table` then reads it byte by byte)."""
    kinds = _SEPARATOR_KIND[b[space]]  # 1: between fields, 2: a newline, 0: a control byte
    ends = space
    if space[-1] != len(b) - 1:  # the end of the file ends the last line
        ends = np.concatenate((space, [len(b)]))
        kinds = np.concatenate((kinds, [2]))
    line = np.array([1] * (fields - 1) + [2], dtype=np.uint8)
    if len(kinds) % fields or not (kinds.reshape(-1, fields) == line).all():
        return None
    starts, field_ends = _fields_from_ends(ends, fields)
    if not all((e > s).all() for s, e in zip(starts, field_ends)):
        return None  # two whitespace bytes in a row: not this layout
    return Table(data, starts, field_ends)


def _fields_from_ends(ends: np.ndarray, fields: int) -> tuple[list, list]:
    """Per-field (starts, ends) when every field ends one byte before the next begins."""
    field_ends = [ends[f::fields] for f in range(fields)]
    line_starts = np.concatenate(([0], field_ends[-1][:-1] + 1))
    return [line_starts] + [e + 1 for e in field_ends[:-1]], field_ends


_SEPARATOR_KIND = np.zeros(256, dtype=np.uint8)
_SEPARATOR_KIND[[9, 11, 12, 13, 32]] = 1
_SEPARATOR_KIND[10] = 2


class Inputs:
    """A qrels file and a results file read as columns (both of the common shape)."""

    def __init__(self, qrels: Table, results: Table, labels: np.ndarray, scores: np.ndarray):
        self.qrels, self.results = qrels, results
        self.labels, self.scores = labels, scores
        self.runid = results.token(5, results.n - 1)
        self.qrels_codes, self.qrels_ids = _blocks(qrels)
        self.results_codes, self.results_ids = _blocks(results)
        #: the qrels' query ids, sorted (strcmp order); the results' query ids
        self.qrels_queries = sorted(self.qrels_ids)
        self.result_queries = set(self.results_ids)

    def join(self, evaluated: list) -> tuple | None:
        """The rows of the evaluated queries: ``(q_of, rel_of)`` for the qrels (query index,
        label), ``(codes, sims, rel_file, words)`` for the results (query index, score,
        label or ``ABSENT``, the document's words); None when a query lists a document
        twice in either file (the slow path then words trec_eval's message)."""
        index = {q: i for i, q in enumerate(evaluated)}
        q_code = _codes(self.qrels_codes, self.qrels_ids, index)
        r_code = _codes(self.results_codes, self.results_ids, index)
        q_keep, r_keep = np.flatnonzero(q_code >= 0), np.flatnonzero(r_code >= 0)
        q_of, rel_of = q_code[q_keep], self.labels[q_keep]
        codes, sims = r_code[r_keep], self.scores[r_keep]
        q_words, r_words = self.qrels.words(2, q_keep), self.results.words(2, r_keep)
        width = max(len(q_words), len(r_words))
        q_words, r_words = _widen(q_words, width), _widen(r_words, width)
        q_hash, r_hash = _hash(q_of, q_words), _hash(codes, r_words)
        q_order, r_order = np.argsort(q_hash), np.argsort(r_hash)
        q_sorted, r_sorted = q_hash[q_order], r_hash[r_order]
        if (q_sorted[1:] == q_sorted[:-1]).any() or (r_sorted[1:] == r_sorted[:-1]).any():
            return None  # a document listed twice for a query (or, never seen, a collision)
        rel_file = np.full(len(codes), ABSENT, dtype=np.int64)
        if len(q_sorted):
            at = np.minimum(np.searchsorted(q_sorted, r_sorted), len(q_sorted) - 1)
            found = q_sorted[at] == r_sorted
            q_row, r_row = q_order[at[found]], r_order[found]
            same = q_of[q_row] == codes[r_row]
            for j in range(width):
                same &= q_words[j][q_row] == r_words[j][r_row]
            if not same.all():
                return None  # a hash collision: the slow path decides
            rel_file[r_row] = rel_of[q_row]
        return q_of, rel_of, codes, sims, rel_file, r_words


ABSENT = -(1 << 62)  # a retrieved document the qrels do not list


def inputs(qrels: Table, results_data: bytes, version: str) -> Inputs | None:
    """The qrels (a :class:`Table` of four fields) and the results file as columns when
    the results are of the common shape (and, for 10.0, hold no ``#``, which may start a
    comment); else None."""
    if version == "10" and b"#" in results_data:
        return None
    results = table(results_data, 6)
    if results is None:
        return None
    labels = qrels.ints(3)
    if labels is None:
        return None
    return Inputs(qrels, results, labels, results.floats(4, single=version != "10"))


def _blocks(tab: Table) -> tuple[np.ndarray, list]:
    """Runs of equal query ids (field 0): the block of every line and each block's id."""
    words = tab.words(0)
    change = words[0][1:] != words[0][:-1]
    for word in words[1:]:
        change |= word[1:] != word[:-1]
    heads = np.concatenate(([0], np.flatnonzero(change) + 1))
    block = np.cumsum(np.concatenate(([False], change)))
    return block, [tab.token(0, i) for i in heads.tolist()]


def _codes(block: np.ndarray, ids: list, index: dict) -> np.ndarray:
    """The evaluated-query index of every line (-1: not evaluated)."""
    return np.array([index.get(q, -1) for q in ids], dtype=np.int64)[block]


def _widen(words: list, width: int) -> list:
    return words + [np.zeros(len(words[0]), dtype=np.uint64)] * (width - len(words))


def _hash(code: np.ndarray, words: list) -> np.ndarray:
    """A 64-bit hash of (query, document); equal pairs hash equal, matches are verified."""
    h = code.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    for word in words:
        h = (h ^ word) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


def word_rank(words: list, rows: np.ndarray) -> np.ndarray:
    """The position of each of the documents ``rows`` in ``strcmp`` order."""
    rank = np.empty(len(rows), dtype=np.int64)
    rank[np.lexsort([word[rows] for word in words[::-1]])] = np.arange(len(rows))
    return rank
