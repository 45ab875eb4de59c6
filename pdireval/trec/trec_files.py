"""trec_eval's input files, read exactly as trec_eval 9.0.8 / 10.0 read them.

* qrels (``get_qrels.c``): lines ``qid iter docno rel`` with exactly four whitespace-separated
  fields; a blank line or a line with another number of fields is malformed (the whole file
  is refused); ``rel`` is read with C's ``atol`` (``1.5`` -> 1, ``x`` -> 0). 10.0 skips a
  line starting with ``#`` (only one in a row: the line after a comment is always read).
* results (``get_trec_results.c``): lines ``qid iter docno rank sim run_id [anything]``;
  blank lines are skipped; ``sim`` is read with ``atof`` and stored as a C float in 9.0.8, a
  double in 10.0; the run id printed is the last line's. 10.0 skips lines whose first field
  starts with ``#``; 9.0.8 reads them as queries.
* judgment-group qrels (``get_qrels_jg.c``): as qrels, the second field naming the group.
* z-scores (``get_zscores.c``): lines ``qid measure mean stddev``.
* preferences (``get_prefs.c``, ``-R prefs``): lines ``qid jg jsg docno rel_level``, exactly
  five fields; ``get_qrels_prefs.c`` (``-R qrels_prefs``) reads a qrels file ``qid jg docno
  rel_level`` the same way, every line in sub-group ``0``. ``rel_level`` is read with
  ``atof`` (a C float in 9.0.8, a double in 10.0); blank lines are malformed; 10.0 skips a
  comment line as in qrels (only one in a row).

Errors are :class:`TrecEvalExit`: trec_eval's message and exit status.
"""

from __future__ import annotations

import math
import re
import sys

__all__ = [
    "TrecEvalExit",
    "read_bytes",
    "parse_qrels",
    "parse_results",
    "parse_zscores",
    "parse_prefs",
    "atol",
    "atof",
    "ZSCORES_STATUS",
    "nan_score_error",
]


class TrecEvalExit(Exception):
    """trec_eval stopped: ``message`` (its stderr lines) and its exit ``status``."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.message = message
        self.status = status


#: trec_eval's exit status when it cannot read the -Z file: its main() returns UNDEF (-1)
ZSCORES_STATUS = 255


def read_bytes(path: str, what: str, status: int = 2) -> bytes:
    """The file's bytes; an empty or unreadable file is trec_eval's 'Cannot read' error
    (exit ``status``: 2, or 255 for the ``-Z`` file, whose reader returns -1 from main).
    ``-`` is standard input for the results file only (as in trec_eval 10.0; both releases
    open a qrels or z-scores file named ``-`` as a file)."""
    theirs = f"trec_eval: Quit in file '{path}'"
    if status == ZSCORES_STATUS:
        theirs = f"trec_eval.get_zscores: Cannot read zscores file '{path}'; exit status 255"
    try:
        if path == "-" and what == "results":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        raise TrecEvalExit(
            f"cannot read the {what} file '{path}': {exc.strerror or exc}. ({theirs})",
            status,
        ) from None
    if not data:
        raise TrecEvalExit(
            f"the {what} file '{path}' is empty; trec_eval refuses an empty file ({theirs}).",
            status,
        )
    refuse_compressed(data, path, what)
    return data


#: the first bytes of the compressed files trec_eval 10.0's ``trec_eval_compressed`` script
#: decompresses before calling trec_eval (neither binary reads them itself)
_COMPRESSED = {b"\x1f\x8b": ("gzip", "gunzip -k"), b"BZh": ("bzip2", "bunzip2 -k")}


def refuse_compressed(data: bytes, path: str, what: str) -> None:
    """A compressed file is trec_eval's malformed line 1 (status 2), said as what it is."""
    for magic, (kind, command) in _COMPRESSED.items():
        if data.startswith(magic):
            raise TrecEvalExit(
                f"the {what} file '{path}' is {kind}-compressed; trec_eval reads plain text "
                "(9.0.8 and 10.0 alike: 10.0 ships a separate trec_eval_compressed script "
                f"that decompresses first). Decompress it ({command} '{path}')"
                + (", or use `pdireval evaluate`, which reads .gz files" if kind == "gzip" else "")
                + " (trec_eval: Malformed line 1).",
                2,
            )


_ATOL = rb"^[ \t\n\v\f\r]*([+-]?[0-9]+)"
_ATOF = (
    rb"^[ \t\n\v\f\r]*([+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan))"
)
_HEX = (
    rb"^[ \t\n\v\f\r]*([+-]?)"
    rb"(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)"
)
#: strtol's range (a 64-bit long): atol saturates there
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def atol(token: bytes) -> int:
    """C's ``atol``: the leading integer of ``token`` (``b"1.5"`` -> 1, ``b"x"`` -> 0),
    saturated at a 64-bit long's range as glibc's ``strtol`` saturates."""
    match = re.match(_ATOL, token)
    if not match:
        return 0
    return min(max(int(match.group(1)), LONG_MIN), LONG_MAX)


def atof(token: bytes) -> float:
    """C's ``atof``: the leading number of ``token`` (``b"2.5abc"`` -> 2.5, ``b"x"`` -> 0.0,
    hexadecimal as ``strtod`` reads it: ``b"0x1p1"`` -> 2.0, ``b"0x10"`` -> 16.0)."""
    hexadecimal = re.match(_HEX, token)
    if hexadecimal:
        sign, digits = hexadecimal.groups()
        try:
            value = float.fromhex(digits.decode())
        except OverflowError:  # strtod gives HUGE_VAL
            value = math.inf
        return -value if sign == b"-" else value
    match = re.match(_ATOF, token, re.IGNORECASE)
    if not match:
        return 0.0
    try:
        return float(match.group(1))
    except ValueError:  # e.g. a lone '.': atof reads nothing
        return 0.0


def _ints(tokens: list, data: bytes) -> list:
    """``atol`` of every token (fast when they are plain integers; Python's int() would also
    read ``1_0``, so a file holding ``_`` takes the slow path)."""
    try:
        if b"_" not in data:
            out = list(map(int, tokens))
            if max(out, default=0) <= LONG_MAX and min(out, default=0) >= LONG_MIN:
                return out
    except ValueError:
        pass
    return [atol(t) for t in tokens]


def _floats(tokens: list, data: bytes) -> list:
    try:
        if b"_" not in data:
            return list(map(float, tokens))
    except ValueError:
        pass
    return [atof(t) for t in tokens]


def _token_counts(data: bytes):
    """Number of whitespace-separated fields on each line (numpy, no Python objects)."""
    import numpy as np

    b = np.frombuffer(data, dtype=np.uint8)
    space = np.zeros(256, dtype=bool)
    space[[9, 10, 11, 12, 13, 32]] = True  # C's isspace
    ws = space[b]
    start = ~ws
    start[1:] &= ws[:-1]
    starts = np.flatnonzero(start)
    newline = np.flatnonzero(b == 10)
    before = np.searchsorted(starts, newline)  # fields that start before each newline
    counts = np.diff(np.concatenate(([0], before, [len(starts)])))
    return counts if not data.endswith(b"\n") else counts[:-1]


def _uniform(data: bytes, fields: int) -> bool:
    """Every line holds exactly ``fields`` fields (then ``data.split()`` is the table)."""
    counts = _token_counts(data)
    return bool(len(counts)) and bool((counts == fields).all())


def _lines(data: bytes) -> list:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def parse_qrels(data: bytes, path: str, version: str, what: str = "qrels"):
    """``(qids, groups, docnos, rels)`` lists in file order (``groups``: the second field)."""
    if (version != "10" or b"#" not in data) and _uniform(data, 4):
        tokens = data.split()
        return tokens[0::4], tokens[1::4], tokens[2::4], _ints(tokens[3::4], data)
    lines = _lines(data)
    counts = [len(line.split()) for line in lines]
    comment = None
    if version == "10":
        # get_qrels.c (10.0): '#' in column 0 skips that line; the next line is parsed as is
        comment = [False] * len(lines)
        previous = False
        for i, line in enumerate(lines):
            if line[:1] == b"#" and not previous:
                comment[i] = previous = True
            else:
                previous = False
        if not any(comment):
            comment = None
    qids, groups, docs, rels = [], [], [], []
    parsed = 0
    for i, line in enumerate(lines):
        if comment is not None and comment[i]:
            continue
        if counts[i] != 4:
            raise TrecEvalExit(
                f"{what} file '{path}': malformed line {parsed + 1} (file line {i + 1}: "
                f"{line[:60].decode('utf-8', 'replace')!r}); trec_eval reads exactly four fields "
                "'qid iter docno rel' per line and refuses blank lines "
                f"(trec_eval.get_qrels: Malformed line {parsed + 1}).",
                2,
            )
        q, g, d, r = line.split()
        qids.append(q)
        groups.append(g)
        docs.append(d)
        rels.append(r)
        parsed += 1
    return qids, groups, docs, _ints(rels, data)


def _comments(lines: list, version: str):
    """10.0's comment lines of qrels-like files: a line starting with ``#`` is skipped, and the
    line after it is always read (get_qrels.c, get_prefs.c); None when there are none."""
    if version != "10":
        return None
    comment = [False] * len(lines)
    previous = False
    for i, line in enumerate(lines):
        if line[:1] == b"#" and not previous:
            comment[i] = previous = True
        else:
            previous = False
    return comment if any(comment) else None


def parse_prefs(data: bytes, path: str, version: str, qrels_prefs: bool = False):
    """``(qids, jgs, jsgs, docnos, rel_levels)`` lists in file order from a ``-R prefs`` file
    (``qid jg jsg docno rel_level``) or, with ``qrels_prefs``, a qrels file read as
    preferences (``qid jg docno rel_level``, sub-group ``b"0"``)."""
    fields = 4 if qrels_prefs else 5
    reader = "get_qrels_prefs" if qrels_prefs else "get_prefs"
    layout = "'qid jg docno rel_level'" if qrels_prefs else "'qid jg jsg docno rel_level'"
    if (version != "10" or b"#" not in data) and _uniform(data, fields):
        tokens = data.split()
        columns = [tokens[i::fields] for i in range(fields)]
    else:
        lines = _lines(data)
        comment = _comments(lines, version)
        rows: list[list[bytes]] = []
        for i, line in enumerate(lines):
            if comment is not None and comment[i]:
                continue
            split = line.split()
            if len(split) != fields:
                number = len(rows) + 1
                raise TrecEvalExit(
                    f"{'qrels' if qrels_prefs else 'prefs'} file '{path}': malformed line "
                    f"{number} (file line {i + 1}: "
                    f"{line[:60].decode('utf-8', 'replace')!r}); -R "
                    f"{'qrels_prefs' if qrels_prefs else 'prefs'} reads exactly {fields} "
                    f"fields {layout} per line and refuses blank lines "
                    f"(trec_eval.{reader}: Malformed line {number}).",
                    2,
                )
            rows.append(split)
        columns = [[row[j] for row in rows] for j in range(fields)]
    if qrels_prefs:
        qids, jgs, docs, rels = columns
        jsgs = [b"0"] * len(qids)
    else:
        qids, jgs, jsgs, docs, rels = columns
    return qids, jgs, jsgs, docs, _floats(rels, data)


def nan_score_error(path: str, line: int, token: bytes) -> TrecEvalExit:
    """The error for a results line whose score reads as NaN (``nan``, ``-nan``, ``NaN``).

    trec_eval reads it with ``atof`` and sorts with a comparator for which a NaN is neither
    above nor below any score: the ranking it prints then depends on its C library's
    ``qsort`` (undefined in C when the comparator is not an order), so pdireval refuses the
    line, as :func:`pdireval.evaluate` refuses NaN scores."""
    text = token.decode("utf-8", "replace")
    return TrecEvalExit(
        f"results file '{path}': line {line} has the score '{text}', which is not a number; "
        "trec_eval would rank its document wherever its C library's qsort leaves it (a NaN "
        "is neither above nor below any score), so pdireval refuses the line. Give the "
        "document a score or remove the line (trec_eval: no message; undefined ranking).",
        2,
    )


def parse_results(data: bytes, path: str, version: str):
    """``(qids, docnos, sims, run_id)``: lists in file order and the last line's run id; a
    score that reads as NaN is an error (:func:`nan_score_error`)."""
    if (version != "10" or b"#" not in data) and _uniform(data, 6):
        tokens = data.split()
        sims = _floats(tokens[4::6], data)
        bad = next((i for i, x in enumerate(sims) if x != x), None)
        if bad is not None:
            raise nan_score_error(path, bad + 1, tokens[4::6][bad])
        return tokens[0::6], tokens[2::6], sims, tokens[-1]
    lines = _lines(data)
    split = [line.split() for line in lines]
    qids, docs, sims = [], [], []
    numbers = []
    run_id = None
    parsed = 0
    for i, fields in enumerate(split):
        if not fields:
            continue  # blank lines are skipped
        if version == "10" and fields[0][:1] == b"#":
            continue
        if len(fields) < 6:
            raise TrecEvalExit(
                f"results file '{path}': malformed line {parsed + 1} (file line {i + 1}: "
                f"{lines[i][:60].decode('utf-8', 'replace')!r}); trec_eval needs six fields "
                "'qid iter docno rank sim run_id' per line "
                f"(trec_eval.get_results: Malformed line {parsed + 1}).",
                2,
            )
        qids.append(fields[0])
        docs.append(fields[2])
        sims.append(fields[4])
        numbers.append(i + 1)
        run_id = fields[5]
        parsed += 1
    values = _floats(sims, data)
    bad = next((i for i, x in enumerate(values) if x != x), None)
    if bad is not None:
        raise nan_score_error(path, numbers[bad], sims[bad])
    return qids, docs, values, run_id


def parse_zscores(data: bytes, path: str) -> dict:
    """``{(qid, measure name): (mean, stddev)}`` from a ``-Z`` file (four fields a line)."""
    out: dict[tuple[bytes, bytes], tuple[float, float]] = {}
    for i, line in enumerate(_lines(data)):
        fields = line.split()
        if len(fields) != 4:
            raise TrecEvalExit(
                f"z-scores file '{path}': malformed line {i + 1}; trec_eval reads four fields "
                f"'qid measure mean stddev' (trec_eval.get_zscores: Malformed line {i + 1}).",
                ZSCORES_STATUS,
            )
        out.setdefault((fields[0], fields[1]), (atof(fields[2]), atof(fields[3])))
    return out
