"""TREC text files (runs and qrels) read into frames, with the diagnoser of malformed lines.

Files are parsed with pyarrow's CSV reader or pandas' C parser (no Python loop per line on a
well-formed file). A malformed line raises a :class:`~pdireval.errors.SchemaError` that
names the file and the 1-based line number, says what is wrong and shows the expected
format; only then is the file scanned line by line to find the culprit (:func:`_diagnose`).
"""

from __future__ import annotations

import gzip
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pa_compute
import pyarrow.csv as pa_csv

from pdireval.core.schema import ID_DTYPE
from pdireval.errors import SchemaError
from pdireval.io.files import check_text, open_text, require_file


@dataclass(frozen=True)
class TextFormat:
    """A whitespace-separated text format: field names, numeric fields, an example line."""

    kind: str
    names: tuple[str, ...]
    numeric: tuple[str, ...]  # parsed as float64; checked finite
    whole: tuple[str, ...]  # numeric fields that must be whole numbers >= 0
    example: str

    def expect(self) -> str:
        """What a line of this format holds, for error messages."""
        return f"each line needs {len(self.names)} fields: {self.example}"


RUN_FORMAT = TextFormat(
    "run",
    ("query", "q0", "doc", "rank", "score", "system"),
    ("rank", "score"),
    ("rank",),
    "'query Q0 doc rank score tag', e.g. '301 Q0 FBIS3-10082 1 12.5 myrun'",
)
QRELS_FORMAT = TextFormat(
    "qrels",
    ("query", "iteration", "doc", "label"),
    ("label",),
    (),
    "'query iteration doc label', e.g. '301 0 FBIS3-10082 1'",
)

#: ASCII whitespace: what separates the fields of a TREC line (as trec_eval's C parser)
_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")


def _fields(line: str) -> list[str]:
    """The fields of a line, split on ASCII whitespace only (``str.split()`` would also split
    on no-break spaces and the like, which neither the parsers nor trec_eval do)."""
    return [f for f in _ASCII_SPACE.split(line) if f]


#: A number as the readers accept it: ASCII digits, optional sign, decimal point, exponent
#: (no ``1_000``, which Python's ``float`` would accept, no hexadecimal, no other digits).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NONFINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)

#: Largest whole-number field (a rank) the readers accept: 2**53, beyond which float64 no
#: longer holds every whole number (and int64 overflows past 2**63).
MAX_WHOLE = 2**53


def line_number(path: Path, row: int, comments: bool = False) -> int:
    """1-based file line of non-blank data row ``row`` (counting comment lines as rows when
    ``comments``; error path only)."""
    with open_text(path) as fh:
        seen = -1
        for number, line in enumerate(fh, start=1):
            if _fields(line) and (comments or not line.lstrip().startswith("#")):
                seen += 1
                if seen == row:
                    return number
    return row + 1


def _data_lines(fh):
    """``(line number, line, fields)`` of every line of an open text file that is neither
    blank nor a comment (first field starting with '#'): the slow, line-by-line paths."""
    for number, line in enumerate(fh, start=1):
        fields = _fields(line)
        if fields and not fields[0].startswith("#"):
            yield number, line, fields


def _field_problem(fmt: TextFormat, name: str, text: str) -> str | None:
    """What is wrong with one numeric field's text, or None."""
    text = text.strip()
    if _NONFINITE.fullmatch(text):
        return f"the {name} field {text!r} is not a finite number"
    if not _NUMBER.fullmatch(text):
        return (
            f"the {name} field {text!r} is not a number (digits 0-9, an optional sign, point "
            "and exponent)"
        )
    value = float(text)
    if not np.isfinite(value):
        return f"the {name} field {text!r} is not a finite number"
    if name in fmt.whole and (value < 0 or not value.is_integer()):
        return f"the {name} field {text!r} is not a whole number >= 0"
    if name in fmt.whole and value > MAX_WHOLE:
        return f"the {name} field {text!r} is too large (a {name} is at most 2**53)"
    return None


def _diagnose(path: Path, fmt: TextFormat, cause: str = "") -> SchemaError:
    """Scan the file line by line (error path only) and describe its first malformed line."""
    try:
        with open_text(path) as fh:
            for number, line, fields in _data_lines(fh):
                if fmt.kind == "run":
                    fields = fields[: len(fmt.names)]
                problem = None
                if len(fields) != len(fmt.names):
                    few = "few" if len(fields) < len(fmt.names) else "many"
                    problem = f"too {few} fields ({len(fields)})"
                else:
                    for name in fmt.numeric:
                        problem = _field_problem(fmt, name, fields[fmt.names.index(name)])
                        if problem:
                            break
                if problem:
                    return SchemaError(
                        f"{path}, line {number}: malformed {fmt.kind} line: {problem}; "
                        f"{fmt.expect()}. The line: {line.strip()[:200]!r}"
                    )
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        return SchemaError(f"{path}: cannot read this {fmt.kind} file ({exc}).")
    detail = f" ({cause})" if cause else ""
    return SchemaError(f"{path}: cannot parse this {fmt.kind} file{detail}; {fmt.expect()}.")


def _read_fast(path: Path, fmt: TextFormat) -> pd.DataFrame | None:
    """pyarrow's reader with the delimiter of the first data line (tab or space); None if that
    does not fit the whole file (mixed or repeated whitespace, malformed lines...)."""
    try:
        with open_text(path) as fh:  # the first line that is not blank or a comment
            first = next(
                (line for line in fh if line.strip() and not line.lstrip().startswith("#")), ""
            )
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    delimiter = "\t" if "\t" in first else " "
    table = _arrow_read(path, fmt, delimiter, typed=True)
    if table is None and delimiter == "\t":
        # tab-separated with spaces inside fields (trec_eval's test/results.trunc pads
        # scores and writes words after the run tag): split on tabs, trim, then convert
        table = _arrow_read(path, fmt, delimiter, typed=False)
        if table is None:
            return None
        columns = {}
        for name in fmt.names:
            column = table[name]
            if name in fmt.numeric:
                try:
                    column = pa_compute.cast(pa_compute.utf8_trim_whitespace(column), pa.float64())
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    return None
            columns[name] = column
        table = pa.table(columns)
    if table is None:
        return None
    if delimiter == "\t":
        table = _trim_fields(path, table, fmt)
    # '#' lines are comments (trec_eval 10.0)
    comment = pa_compute.starts_with(table[fmt.names[0]], "#")
    if pa_compute.any(comment).as_py():
        table = table.filter(pa_compute.invert(comment))
    mapping = {pa.string(): pd.StringDtype("pyarrow"), pa.large_string(): pd.StringDtype("pyarrow")}
    return table.to_pandas(types_mapper=mapping.get)


def _trim_fields(path: Path, table, fmt: TextFormat):
    """Tab-separated fields without surrounding spaces; a run tag is its first word
    (trec_eval splits on any whitespace and ignores what follows the tag). An id holding
    whitespace inside is an error (:func:`_check_inner_spaces`); both are looked at only in a
    column that holds whitespace at all (one vectorised test per column on a clean file)."""
    columns = {}
    for name in fmt.names:
        column = table[name]
        if (
            name not in fmt.numeric
            and pa_compute.any(pa_compute.match_substring_regex(column, r"\s")).as_py()
        ):
            column = pa_compute.utf8_trim_whitespace(column)
            if name == fmt.names[-1] and fmt.kind == "run":
                column = pa_compute.list_element(
                    pa_compute.utf8_split_whitespace(column, max_splits=1), 0
                )
            else:
                _check_inner_spaces(path, fmt, name, column, table[fmt.names[0]])
        columns[name] = column
    return pa.table(columns)


def _check_inner_spaces(path: Path, fmt: TextFormat, name: str, column, first) -> None:
    """A tab-separated id field (trimmed ``column``) holding whitespace (``d 1``) is an error
    with file and line: trec_eval splits fields on any whitespace, so it would read other
    fields there, and a TREC file cannot hold such an id (:func:`write_run` refuses it).
    Comment lines (``first`` field starting with '#') are exempt."""
    inner = pa_compute.and_(
        pa_compute.match_substring_regex(column, r"\s"),
        pa_compute.invert(pa_compute.starts_with(first, "#")),
    )
    if not pa_compute.any(inner).as_py():
        return
    row = int(np.flatnonzero(inner.to_numpy(zero_copy_only=False))[0])
    number = line_number(path, row, comments=True)
    raise SchemaError(
        f"{path}, line {number}: the {name} field {column[row].as_py()!r} of this tab-separated "
        f"{fmt.kind} file contains whitespace; an id cannot (trec_eval splits fields on any "
        "whitespace and would read different fields). "
        f"{fmt.expect()[0].upper()}{fmt.expect()[1:]}. "
        "Replace the whitespace inside ids (e.g. with '_')."
    )


def _arrow_read(path: Path, fmt: TextFormat, delimiter: str, typed: bool):
    """pyarrow's CSV reader with ``fmt``'s field names (numeric fields as float64 when
    ``typed``, else every field as a string); None when the file does not fit."""
    types = {n: (pa.float64() if typed and n in fmt.numeric else pa.string()) for n in fmt.names}
    try:
        return pa_csv.read_csv(
            path,
            read_options=pa_csv.ReadOptions(column_names=list(fmt.names)),
            parse_options=pa_csv.ParseOptions(delimiter=delimiter, quote_char=False),
            convert_options=pa_csv.ConvertOptions(
                column_types=types, strings_can_be_null=False, quoted_strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, EOFError):
        return None


def _read_slow(path: Path, fmt: TextFormat) -> pd.DataFrame:
    """pandas' C parser on any whitespace; row i of the result is line i + 1 of the file.

    One spare column catches lines with too many fields (``index_col=False`` stops pandas
    from silently turning a surplus first field into the index).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                path,
                sep=r"\s+",
                header=None,
                names=[*fmt.names, "_surplus"],
                index_col=False,
                dtype=str,
                engine="c",
                quoting=3,  # csv.QUOTE_NONE: quotes are part of ids
                skip_blank_lines=False,
                keep_default_na=False,
                na_values=[""],
                encoding_errors="replace",
            )
    except pd.errors.EmptyDataError:
        raise SchemaError(f"{path}: the {fmt.kind} file is empty; {fmt.expect()}.") from None
    except (pd.errors.ParserError, pd.errors.ParserWarning, ValueError, OSError, EOFError) as exc:
        lenient = _read_lenient(path, fmt)
        if lenient is not None:
            return lenient
        raise _diagnose(path, fmt, str(exc).strip()) from None
    frame = frame[frame[fmt.names[0]].notna().to_numpy()]
    if (
        frame[fmt.names[-1]].isna().any()
        or frame["_surplus"].notna().any()
        or (frame[fmt.names[0]].str.startswith("#").any())
    ):
        lenient = _read_lenient(path, fmt)
        if lenient is not None:
            return lenient
        raise _diagnose(path, fmt)
    frame = frame.drop(columns="_surplus")
    for name in fmt.numeric:
        frame[name] = pd.to_numeric(frame[name], errors="coerce")
    return frame


def _read_lenient(path: Path, fmt: TextFormat) -> pd.DataFrame | None:
    """trec_eval's own reading, line by line (only for files the parsers above reject):
    lines starting with '#' are comments (trec_eval 10.0), fields are split on any
    whitespace, and a run line's words after the run tag are ignored (trec_eval ignores
    them). None when a line is still malformed (then :func:`_diagnose` explains). A line
    whose tab-separated fields are as many as expected but hold a space inside an id is an
    error, as on the fast path (:func:`_check_inner_spaces`)."""
    rows = []
    n = len(fmt.names)
    ids = [
        i
        for i, name in enumerate(fmt.names)
        if name not in fmt.numeric and not (fmt.kind == "run" and i == n - 1)
    ]
    try:
        with open_text(path) as fh:
            for number, line, fields in _data_lines(fh):
                if "\t" in line:
                    tab = [f for f in (part.strip(" \r\n\f\v") for part in line.split("\t")) if f]
                    if len(tab) == n or (fmt.kind == "run" and len(tab) > n):
                        inner = next((i for i in ids if _ASCII_SPACE.search(tab[i])), None)
                        if inner is not None:
                            name = fmt.names[inner]
                            raise SchemaError(
                                f"{path}, line {number}: the {name} field {tab[inner]!r} of this "
                                f"tab-separated {fmt.kind} line contains whitespace; an id cannot "
                                "(trec_eval splits fields on any whitespace and would read "
                                "different fields). "
                                f"{fmt.expect()[0].upper()}{fmt.expect()[1:]}. Replace the "
                                "whitespace inside ids (e.g. with '_')."
                            )
                if len(fields) > len(fmt.names) and fmt.kind == "run":
                    fields = fields[: len(fmt.names)]
                if len(fields) != len(fmt.names):
                    return None
                rows.append(fields)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    frame = pd.DataFrame(rows, columns=list(fmt.names), dtype=object)
    for name in fmt.numeric:
        frame[name] = pd.to_numeric(frame[name], errors="coerce")
    return frame


def read_table(path: Path, fmt: TextFormat) -> pd.DataFrame:
    """Read a whitespace-separated file with exactly ``len(fmt.names)`` fields per line."""
    require_file(path, fmt.kind)
    check_text(path, fmt.kind)
    frame = _read_fast(path, fmt)
    if frame is None:
        frame = _read_slow(path, fmt)
    if len(frame) == 0:
        raise SchemaError(f"{path}: the {fmt.kind} file is empty; {fmt.expect()}.")
    bad = np.zeros(len(frame), dtype=bool)
    for name in fmt.numeric:
        values = frame[name].to_numpy(dtype=np.float64, na_value=np.nan)
        bad |= ~np.isfinite(values)
        if name in fmt.whole:
            with np.errstate(invalid="ignore"):
                bad |= (values < 0) | (values != np.round(values)) | (values > MAX_WHOLE)
    if bad.any():
        raise _diagnose(path, fmt)
    for name in fmt.names:
        if name not in fmt.numeric:
            frame[name] = frame[name].astype(ID_DTYPE)
    return frame.reset_index(drop=True)
