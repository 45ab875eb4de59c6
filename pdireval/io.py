"""Readers and writers for TREC run / qrels files and SVMlight (LETOR) files.

Readers parse with pyarrow's CSV reader or pandas' C parser (no Python loop per line on a
well-formed file). A malformed line raises a :class:`~pdireval.errors.SchemaError` that
names the file and the 1-based line number, says what is wrong and shows the expected
format; only then is the file scanned line by line to find the culprit.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import os
import re
import unicodedata
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pa_compute
import pyarrow.csv as pa_csv

from pdireval.core.keys import run_keys
from pdireval.core.schema import ID_DTYPE, canonical_qrels, canonical_run
from pdireval.errors import OptionError, PdirevalWarning, SchemaError, check_bool, check_option

__all__ = ["read_run", "read_qrels", "read_svmlight", "write_run", "write_qrels"]


@dataclass(frozen=True)
class _Format:
    """A whitespace-separated text format: field names, numeric fields, an example line."""

    kind: str
    names: tuple[str, ...]
    numeric: tuple[str, ...]  # parsed as float64; checked finite
    whole: tuple[str, ...]  # numeric fields that must be whole numbers >= 0
    example: str

    def expect(self) -> str:
        return f"each line needs {len(self.names)} fields: {self.example}"


RUN_FORMAT = _Format(
    "run",
    ("query", "q0", "doc", "rank", "score", "system"),
    ("rank", "score"),
    ("rank",),
    "'query Q0 doc rank score tag', e.g. '301 Q0 FBIS3-10082 1 12.5 myrun'",
)
QRELS_FORMAT = _Format(
    "qrels",
    ("query", "iteration", "doc", "label"),
    ("label",),
    (),
    "'query iteration doc label', e.g. '301 0 FBIS3-10082 1'",
)


# --------------------------------------------------------------------------- helpers


def _path(path, what: str) -> Path:
    try:
        text = os.fspath(path)
    except TypeError:
        raise TypeError(
            f"the {what} path must be a str or os.PathLike, got {type(path).__name__}"
        ) from None
    if not str(text).strip():
        # Path("") is the current folder: reading it would read every file there
        raise SchemaError(f"the {what} path is empty ({text!r}); pass the path of a {what} file.")
    return Path(text)


#: Ceiling on the decompressed size of one gzipped file (bytes). A larger archive (e.g. a
#: "gzip bomb") is refused before it is parsed; raise ``pdireval.io.MAX_DECOMPRESSED_BYTES``
#: for a genuinely larger file.
MAX_DECOMPRESSED_BYTES = 8 * 2**30

_CHECK_CHUNK = 1 << 24

#: Ceiling on rows x feature columns of the dense matrix :func:`read_svmlight` builds (2**28
#: float64 cells = 2 GiB); checked before allocating.
MAX_FEATURE_CELLS = 2**28


#: Unicode whitespace that is not ASCII whitespace, as UTF-8 bytes: U+0085, U+00A0 (no-break
#: space), U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, and U+FEFF (a
#: byte-order mark; allowed as the file's first character only).
_UNICODE_SPACE = re.compile(
    rb"\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80|\xef\xbb\xbf"
)


def _unicode_space_error(path: Path, kind: str, buf: bytes, offset: int, lines_before: int,
                         at_file_start: bool) -> SchemaError | None:
    """The error for the first non-ASCII whitespace character of ``buf`` outside comment
    lines (and other than a byte-order mark opening the file), or None. ``lines_before``:
    newlines in the file before ``buf``; ``offset``: where to start looking."""
    while True:
        match = _UNICODE_SPACE.search(buf, offset)
        if match is None:
            return None
        at = match.start()
        start = buf.rfind(b"\n", 0, at) + 1
        end = buf.find(b"\n", at)
        end = len(buf) if end < 0 else end
        if (at == 0 and at_file_start and match.group() == b"\xef\xbb\xbf") or buf[start:end].lstrip().startswith(b"#"):
            offset = match.end()
            continue
        char = match.group().decode("utf-8")
        line = lines_before + buf.count(b"\n", 0, at) + 1
        text = buf[start:end][:200].decode("utf-8", errors="replace")
        return SchemaError(
            f"{path}, line {line}: the {kind} line holds the character "
            f"{unicodedata.name(char, 'whitespace')} (U+{ord(char):04X}), which is not a field separator in a TREC file (fields are "
            f"separated by ASCII spaces or tabs) and cannot be part of an id. The line: {text!r}. "
            "Replace it by an ordinary space (e.g. sed 's/\\xc2\\xa0/ /g' for no-break spaces) "
            "or remove it."
        )


def _check_text(path: Path, kind: str, spaces: bool = True) -> None:
    """Check, in one streaming pass before parsing, that a file is UTF-8 text without
    non-ASCII whitespace (no-break spaces...) and (for ``.gz``) a sound archive no larger
    than :data:`MAX_DECOMPRESSED_BYTES` once decompressed.

    Raises a SchemaError with the file and line of the first undecodable byte (pdireval
    never replaces bytes, which would merge distinct ids) or non-ASCII whitespace
    character (``spaces``: TREC files, not SVMlight ones, whose comments are free text), or
    naming a corrupt, truncated or too large archive. An ASCII chunk (the usual case) costs
    one ``bytes.isascii`` for the whitespace check.
    """
    gz = path.name.endswith(".gz")
    decoder = codecs.getincrementaldecoder("utf-8")()
    total, lines_before, tail = 0, 0, b""
    try:
        with (gzip.open(path, "rb") if gz else open(path, "rb")) as fh:
            while True:
                chunk = fh.read(_CHECK_CHUNK)
                if not chunk:
                    break
                total += len(chunk)
                if gz and total > MAX_DECOMPRESSED_BYTES:
                    raise SchemaError(
                        f"{path}: this gzip archive decompresses to more than "
                        f"{MAX_DECOMPRESSED_BYTES} bytes (pdireval.io.MAX_DECOMPRESSED_BYTES); "
                        "it is refused before parsing. Check the file, or raise that limit."
                    )
                pending = len(decoder.getstate()[0])
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError as exc:
                    at = max(exc.start - pending, 0)
                    line = lines_before + chunk.count(b"\n", 0, at) + 1
                    start = chunk.rfind(b"\n", 0, at) + 1
                    end = chunk.find(b"\n", at)
                    text = chunk[start:end if end >= 0 else len(chunk)][:200]
                    raise SchemaError(
                        f"{path}, line {line}: the {kind} file is not UTF-8 text (byte "
                        f"0x{chunk[at]:02x} cannot be decoded). The line: {text!r}. pdireval does "
                        "not replace such bytes (distinct ids would merge): convert the file to "
                        "UTF-8, e.g. iconv -f latin1 -t utf-8 FILE > FILE.utf8."
                    ) from None
                if spaces and not chunk.isascii():
                    # a character may straddle two chunks: look again at the last 2 bytes
                    buf = tail + chunk
                    problem = _unicode_space_error(
                        path, kind, buf, 0, lines_before - tail.count(b"\n"), total == len(chunk)
                    )
                    if problem is not None:
                        raise problem
                lines_before += chunk.count(b"\n")
                tail = chunk[-2:]
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise SchemaError(
            f"{path}, line {lines_before + 1}: the {kind} file ends inside a multi-byte character "
            "(not UTF-8 text); convert it to UTF-8."
        ) from None
    except (zlib.error, EOFError, gzip.BadGzipFile) as exc:
        raise SchemaError(
            f"{path}: corrupt or truncated gzip archive ({type(exc).__name__}: {exc}); "
            "download or compress the file again."
        ) from None
    except IsADirectoryError:
        raise _folder_error(path, kind) from None
    except OSError as exc:
        raise SchemaError(f"{path}: cannot read this {kind} file ({exc}).") from None


def _folder_error(path: Path, kind: str) -> SchemaError:
    """A folder was given where a file is expected: say so and show what it holds."""
    try:
        inside = sorted(p.name for p in path.iterdir() if not p.name.startswith("."))
    except OSError:
        inside = []
    held = f" (it holds {', '.join(repr(n) for n in inside[:5])}{', ...' if len(inside) > 5 else ''})" if inside else " (it is empty)"
    return SchemaError(
        f"{path}: this is a folder{held}, where a {kind} file is expected. Pass the path of the "
        f"{kind} file itself, e.g. {str(path / (inside[0] if inside else 'file.txt'))!r}."
    )


def _require_file(path: Path, kind: str) -> None:
    """A readable path: a folder or a missing file is a clear SchemaError."""
    if path.is_dir():
        raise _folder_error(path, kind)
    if not path.is_file():
        raise SchemaError(f"{path}: no such {kind} file.")


def _open_text(path: Path):
    # utf-8-sig: a byte-order mark opening the file is not part of the first id
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="replace")
    return open(path, encoding="utf-8-sig", errors="replace")


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


def _line_number(path: Path, row: int, comments: bool = False) -> int:
    """1-based file line of non-blank data row ``row`` (counting comment lines as rows when
    ``comments``; error path only)."""
    with _open_text(path) as fh:
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


def _field_problem(fmt: _Format, name: str, text: str) -> str | None:
    """What is wrong with one numeric field's text, or None."""
    text = text.strip()
    if _NONFINITE.fullmatch(text):
        return f"the {name} field {text!r} is not a finite number"
    if not _NUMBER.fullmatch(text):
        return f"the {name} field {text!r} is not a number (digits 0-9, an optional sign, point and exponent)"
    value = float(text)
    if not np.isfinite(value):
        return f"the {name} field {text!r} is not a finite number"
    if name in fmt.whole and (value < 0 or not value.is_integer()):
        return f"the {name} field {text!r} is not a whole number >= 0"
    if name in fmt.whole and value > MAX_WHOLE:
        return f"the {name} field {text!r} is too large (a {name} is at most 2**53)"
    return None


def _diagnose(path: Path, fmt: _Format, cause: str = "") -> SchemaError:
    """Scan the file line by line (error path only) and describe its first malformed line."""
    try:
        with _open_text(path) as fh:
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


def _read_fast(path: Path, fmt: _Format) -> pd.DataFrame | None:
    """pyarrow's reader with the delimiter of the first data line (tab or space); None if that
    does not fit the whole file (mixed or repeated whitespace, malformed lines...)."""
    try:
        with _open_text(path) as fh:  # the first line that is not blank or a comment
            first = next((line for line in fh if line.strip() and not line.lstrip().startswith("#")), "")
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


def _trim_fields(path: Path, table, fmt: _Format):
    """Tab-separated fields without surrounding spaces; a run tag is its first word
    (trec_eval splits on any whitespace and ignores what follows the tag). An id holding
    whitespace inside is an error (:func:`_check_inner_spaces`); both are looked at only in a
    column that holds whitespace at all (one vectorised test per column on a clean file)."""
    columns = {}
    for name in fmt.names:
        column = table[name]
        if name not in fmt.numeric and pa_compute.any(pa_compute.match_substring_regex(column, r"\s")).as_py():
            column = pa_compute.utf8_trim_whitespace(column)
            if name == fmt.names[-1] and fmt.kind == "run":
                column = pa_compute.list_element(pa_compute.utf8_split_whitespace(column, max_splits=1), 0)
            else:
                _check_inner_spaces(path, fmt, name, column, table[fmt.names[0]])
        columns[name] = column
    return pa.table(columns)


def _check_inner_spaces(path: Path, fmt: _Format, name: str, column, first) -> None:
    """A tab-separated id field (trimmed ``column``) holding whitespace (``d 1``) is an error
    with file and line: trec_eval splits fields on any whitespace, so it would read other
    fields there, and a TREC file cannot hold such an id (:func:`write_run` refuses it).
    Comment lines (``first`` field starting with '#') are exempt."""
    inner = pa_compute.and_(
        pa_compute.match_substring_regex(column, r"\s"), pa_compute.invert(pa_compute.starts_with(first, "#"))
    )
    if not pa_compute.any(inner).as_py():
        return
    row = int(np.flatnonzero(inner.to_numpy(zero_copy_only=False))[0])
    number = _line_number(path, row, comments=True)
    raise SchemaError(
        f"{path}, line {number}: the {name} field {column[row].as_py()!r} of this tab-separated "
        f"{fmt.kind} file contains whitespace; an id cannot (trec_eval splits fields on any "
        f"whitespace and would read different fields). {fmt.expect()[0].upper()}{fmt.expect()[1:]}. "
        "Replace the whitespace inside ids (e.g. with '_')."
    )


def _arrow_read(path: Path, fmt: _Format, delimiter: str, typed: bool):
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


def _read_slow(path: Path, fmt: _Format) -> pd.DataFrame:
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
    if frame[fmt.names[-1]].isna().any() or frame["_surplus"].notna().any() or (
        frame[fmt.names[0]].str.startswith("#").any()
    ):
        lenient = _read_lenient(path, fmt)
        if lenient is not None:
            return lenient
        raise _diagnose(path, fmt)
    frame = frame.drop(columns="_surplus")
    for name in fmt.numeric:
        frame[name] = pd.to_numeric(frame[name], errors="coerce")
    return frame


def _read_lenient(path: Path, fmt: _Format) -> pd.DataFrame | None:
    """trec_eval's own reading, line by line (only for files the parsers above reject):
    lines starting with '#' are comments (trec_eval 10.0), fields are split on any
    whitespace, and a run line's words after the run tag are ignored (trec_eval ignores
    them). None when a line is still malformed (then :func:`_diagnose` explains). A line
    whose tab-separated fields are as many as expected but hold a space inside an id is an
    error, as on the fast path (:func:`_check_inner_spaces`)."""
    rows = []
    n = len(fmt.names)
    ids = [i for i, name in enumerate(fmt.names) if name not in fmt.numeric and not (fmt.kind == "run" and i == n - 1)]
    try:
        with _open_text(path) as fh:
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
                                "(trec_eval splits fields on any whitespace and would read different "
                                f"fields). {fmt.expect()[0].upper()}{fmt.expect()[1:]}. Replace the "
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


def _read_table(path: Path, fmt: _Format) -> pd.DataFrame:
    """Read a whitespace-separated file with exactly ``len(fmt.names)`` fields per line."""
    _require_file(path, fmt.kind)
    _check_text(path, fmt.kind)
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


def _run_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise SchemaError(f"{path}: the folder holds no run files.")
        return files
    if not path.exists():
        raise SchemaError(f"{path}: no such run file or folder.")
    return [path]


def _file_system_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".txt", ".run", ".trec", *PARQUET_SUFFIXES):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def file_system_names(files) -> list[str]:
    """The ``system="filename"`` name of each file: its name without ``.gz`` / ``.txt`` /
    ``.run`` / ``.trec`` / ``.parquet`` / ``.pq``, except that files whose stems collide
    (``bm25.txt`` and ``bm25.run``) keep their whole file name, so that two runs never merge
    under one name. Two files with the same whole name (in different folders) are an error."""
    paths = [Path(f) for f in files]
    stems = [_file_system_name(p) for p in paths]
    counts = pd.Series(stems).value_counts()
    names = [p.name if counts[stem] > 1 else stem for p, stem in zip(paths, stems)]
    seen: dict[str, Path] = {}
    for path, name in zip(paths, names):
        if name in seen:
            raise SchemaError(
                f"system='filename' would give two run files the same system name {name!r} "
                f"({seen[name]} and {path}), merging two runs into one. Rename one of the files, "
                "or read them with system='tag' if their run tags differ."
            )
        seen[name] = path
    return names


PARQUET_SUFFIXES = (".parquet", ".pq")


def _is_parquet(path) -> bool:
    return str(path).endswith(PARQUET_SUFFIXES)


def _read_parquet(path, kind: str, *, system: str = "tag", row_group: int | None = None,
                  name: str | None = None) -> pd.DataFrame:
    """A run or qrels frame stored in Parquet (as :func:`write_run` / :func:`write_qrels`
    write it, or any frame with the canonical columns), validated; ``row_group`` reads one
    row group only (pdireval.dask reads a file row group by row group)."""
    import pyarrow.parquet as pq

    path = Path(path)
    if path.is_dir():
        raise _folder_error(path, kind)
    try:
        file = pq.ParquetFile(path)
        table = file.read() if row_group is None else file.read_row_group(row_group)
    except FileNotFoundError:
        raise SchemaError(f"{path}: no such {kind} file.") from None
    except (OSError, pa.ArrowException) as exc:
        raise SchemaError(f"{path}: not a readable Parquet file ({exc}). Write it with pandas' "
                          "to_parquet or pdireval's write_run / write_qrels.") from None
    frame = table.to_pandas()
    try:
        if kind == "qrels":
            return canonical_qrels(frame)
        if system == "filename":
            frame["system"] = name if name is not None else _file_system_name(path)
        return canonical_run(frame)
    except SchemaError as exc:
        raise SchemaError(f"{path}: {exc}", failure_cases=exc.failure_cases) from None


# --------------------------------------------------------------------------- readers


def read_run(path, *, system: str = "tag") -> pd.DataFrame:
    """Read a TREC run file, or every run file in a folder, into one run frame.

    The TREC run format has six whitespace-separated fields per line:
    ``query Q0 doc rank score tag``. Files may be gzipped (``.gz``). A file ending in
    ``.parquet`` (or ``.pq``) holds a run frame (as :func:`write_run` writes it, or any
    frame with the run columns): its columns are read as they are and validated like a
    frame passed to :func:`pdireval.evaluate` (so 0-based ranks are shifted to 1-based).
    In text files, as in trec_eval, lines starting with ``#`` are comments (trec_eval
    10.0), words after the run tag are ignored, and a tab-separated file is split on tabs
    with the spaces around fields trimmed. Fields are separated by ASCII whitespace only (as
    trec_eval's C parser): a no-break space or other Unicode space anywhere outside a
    comment is an error naming the file and line (it would otherwise become part of an id,
    or split one where trec_eval does not), and so is an id of a tab-separated file holding
    a space. A byte-order mark opening the file is skipped.

    Parameters
    ----------
    path : str or os.PathLike
        A run file, or a folder of run files (hidden files are skipped; files are read in
        name order).
    system : {"tag", "filename"}
        ``"tag"`` (default): the ``system`` column is each line's run tag (the 6th field).
        ``"filename"``: the file's name without ``.gz`` / ``.txt`` / ``.run`` / ``.trec``
        / ``.parquet`` (use it when several files share a run tag); files whose names
        would collide that way (``bm25.txt`` and ``bm25.run``) keep their whole file
        name (``"bm25.txt"``, ``"bm25.run"``), so two runs never merge under one name.

    Returns
    -------
    DataFrame
        A canonical run frame in file order with a RangeIndex:

        - ``system`` (str): run tag or file name;
        - ``query``, ``doc`` (str): the query and document ids as written;
        - ``score`` (float64): the 5th field;
        - ``rank`` (int64): the 4th field, except that a file whose smallest rank is 0
          (many TREC submissions, e.g. Robust 2003, count from 0) is shifted by one so that
          ranks start at 1. trec_eval ignores this field and orders by score; so does
          :func:`pdireval.evaluate` unless ``order="rank"``.

    Raises
    ------
    SchemaError
        Missing or empty file or folder; a malformed line (too few or too many fields,
        a rank that is not a whole number from 0 to 2**53, a score that is not a finite
        number, numbers written other than with ASCII digits, sign, point and exponent, e.g.
        ``1_000``; non-ASCII whitespace; a space inside an id of a tab-separated file), named
        by file and 1-based line number; a document listed twice for the same query and run
        (file and lines given), or two files with the same run tag.

    Warns
    -----
    PdirevalWarning
        When files sharing a run tag both hold lines of one query (a ranked list merged
        from two files): two runs with the same tag, or parts of one run.

    Examples
    --------
    >>> import pdireval, tempfile, os
    >>> run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=2, depth=3, rng=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.txt")
    >>> pdireval.write_run(run, path)
    >>> pdireval.read_run(path).shape
    (12, 5)
    """
    check_option("system", system, ("tag", "filename"))
    files = _run_files(_path(path, "run"))
    names = file_system_names(files) if system == "filename" else [None] * len(files)
    frames = [_read_run_file(file, system, name) for file, name in zip(files, names)]
    if len({tuple(f.columns) for f in frames}) > 1:  # Parquet files with other columns: keep the shared ones
        shared = [c for c in frames[0].columns if all(c in f.columns for f in frames)]
        frames = [f[shared] for f in frames]
    run = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    keys = run_keys(run)
    _check_run_duplicates(run, frames, files, keys)
    if system == "tag" and len(files) > 1:
        _warn_lists_across_files(run, keys, frames, files)
    return canonical_run(run, check_duplicates=False)


def _read_run_file(file: Path, system: str, name: str | None = None) -> pd.DataFrame:
    """One run file (TREC text or Parquet) as a run frame; ``name``: the system name when
    ``system="filename"`` (default: the file's stem)."""
    if _is_parquet(file):
        return _read_parquet(file, "run", system=system, name=name)
    raw = _read_table(file, RUN_FORMAT)
    rank = raw["rank"].to_numpy().astype(np.int64)
    if rank.min() == 0:
        rank = rank + 1  # 0-based rank fields (common in TREC submissions)
    tag = raw["system"] if system == "tag" else pd.Series(
        name if name is not None else _file_system_name(file), index=raw.index, dtype=ID_DTYPE
    )
    return pd.DataFrame(
        {"system": tag, "query": raw["query"], "doc": raw["doc"],
         "score": raw["score"].to_numpy(dtype=np.float64), "rank": rank}
    )


def _warn_lists_across_files(run: pd.DataFrame, keys, frames: list[pd.DataFrame], files: list[Path]) -> None:
    """Warn when a (run tag, query) ranked list takes lines from several files: the files
    share a run tag, and their lines for one query are merged into one ranking. That is
    right for one run split into parts, and silently wrong for two runs that share a tag
    (their documents happened not to repeat, else the duplicate check would have stopped
    them). One boolean per (file, list): O(rows + files x lists)."""
    in_file = np.zeros((len(frames), keys.n_segments), dtype=bool)
    start = 0
    for i, frame in enumerate(frames):
        in_file[i, keys.seg[start:start + len(frame)]] = True
        start += len(frame)
    spread = np.flatnonzero(in_file.sum(axis=0) > 1)
    if not len(spread):
        return
    seg = spread[0]
    system = keys.systems[keys.seg_system[seg]]
    query = keys.queries[keys.seg_query[seg]]
    names = [str(files[i].name) for i in np.flatnonzero(in_file[:, seg])]
    warnings.warn(
        f"{len(spread)} ranked list(s) take lines from more than one file, e.g. query {query!r} of "
        f"run tag {system!r} (in {', '.join(names[:4])}): the files share a run tag and their lines "
        "for one query are merged into one ranking. If the files are different runs, read them "
        "with system='filename'; if they are parts of one run, concatenate them into one file.",
        PdirevalWarning,
        stacklevel=3,
    )


def _check_run_duplicates(run: pd.DataFrame, frames: list[pd.DataFrame], files: list[Path], keys=None) -> None:
    # exact hash-based check (see pdireval.core.hashing): ~10x faster than DataFrame.duplicated
    dup_rows = (keys if keys is not None else run_keys(run)).duplicated_rows()
    if not len(dup_rows):
        return
    dup = np.zeros(len(run), dtype=bool)
    dup[dup_rows] = True
    sizes = np.array([len(f) for f in frames])
    file_of = np.repeat(np.arange(len(frames)), sizes)
    first = int(np.flatnonzero(dup)[0])
    key = run.loc[first, ["system", "query", "doc"]]
    same = np.flatnonzero(
        dup
        & (run["system"] == key["system"]).to_numpy()
        & (run["query"] == key["query"]).to_numpy()
        & (run["doc"] == key["doc"]).to_numpy()
    )
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    where = [(files[file_of[i]], _line_number(files[file_of[i]], int(i - offsets[file_of[i]]))) for i in same]
    rows = run[dup]
    n_files = len({f for f, _ in where})
    fix = (
        "Several files share the run tag: read them with system='filename'."
        if n_files > 1
        else "A run lists each document at most once per query: remove the repeated line."
    )
    places = ", ".join(f"{f}, line {n}" for f, n in where[:4])
    raise SchemaError(
        f"document {key['doc']!r} appears {len(same)} times for query {key['query']!r} of run "
        f"{key['system']!r} ({places}); {int(dup.sum())} lines in all are repeats. {fix}",
        failure_cases=rows.reset_index(drop=True),
    )


def read_qrels(path, *, subtopics: bool = False) -> pd.DataFrame:
    """Read a TREC qrels file (``query iteration doc label``; plain or ``.gz``).

    Lines starting with ``#`` are comments (trec_eval 10.0); a tab-separated file is split
    on tabs with the spaces around fields trimmed. Fields are separated by ASCII whitespace
    only, as in :func:`read_run` (non-ASCII whitespace is an error with file and line).

    Parameters
    ----------
    path : str or os.PathLike
        The qrels file. A ``.parquet`` (or ``.pq``) file holds a qrels frame
        (``query, doc, label`` and optionally ``subtopic``), validated as such.
    subtopics : bool
        False (default): the iteration field of a TREC file is ignored. True: it is the
        subtopic (intent) of a diversity qrels file (TREC Web track, ``query subtopic doc
        label``), kept as the ``subtopic`` column that the intent-aware measures
        (``alpha_nDCG@k``, ``ERR_IA@k``, ...) read.

    Returns
    -------
    DataFrame
        A canonical qrels frame with a RangeIndex, one row per (query, doc), sorted by
        query then doc:

        - ``query``, ``doc`` (str);
        - ``label`` (float64): the relevance label as written (negative labels kept).

        A (query, doc) listed twice with the same label is kept once. With
        ``subtopics=True``: columns ``query, subtopic, doc, label``, one row per
        (query, subtopic, doc), sorted by query, subtopic, doc.

    Raises
    ------
    SchemaError
        Missing or empty file, or a folder; a malformed line (too few or too many fields, a
        label that is not a finite number, non-ASCII whitespace, a space inside an id of a
        tab-separated file), named by file and 1-based line number; a (query, doc) with two
        different labels.
    """
    file = _path(path, "qrels")
    subtopics = check_bool("subtopics", subtopics)
    if _is_parquet(file):
        return _read_parquet(file, "qrels")
    raw = _read_table(file, QRELS_FORMAT)
    frame = pd.DataFrame(
        {"query": raw["query"], "doc": raw["doc"], "label": raw["label"].to_numpy(dtype=np.float64)}
    )
    if subtopics:
        frame.insert(1, "subtopic", raw["iteration"])
    try:
        return canonical_qrels(frame)
    except SchemaError as exc:
        raise SchemaError(f"{file}: {exc}", failure_cases=exc.failure_cases) from None


# --------------------------------------------------------------------------- writers


def _output_path(path, kind: str) -> Path:
    """The path a writer writes to, checked before anything is written: not empty, not a
    folder, and in a folder that exists (pdireval does not create folders for a file)."""
    if isinstance(path, (str, os.PathLike)) and not os.fspath(path).strip():
        raise OptionError(f"the {kind} path is empty ({os.fspath(path)!r}); pass the path of the {kind} file to write.")
    target = _path(path, kind)
    if target.is_dir():
        raise OptionError(
            f"{target}: this is a folder; write_{kind} needs the path of a {kind} file to write, "
            f"e.g. {str(target / (kind + '.txt'))!r}."
        )
    parent = target.parent
    if not parent.is_dir():
        what = "is a file, not a folder" if parent.exists() else "does not exist"
        raise OptionError(
            f"{target}: cannot write the {kind} file there: the folder {str(parent)!r} {what}. "
            "Create the folder first (e.g. Path(path).parent.mkdir(parents=True)) or pick "
            "another path."
        )
    return target


def _check_writable_ids(frame: pd.DataFrame, names, kind: str) -> None:
    comment = frame["query"].str.startswith("#").to_numpy(dtype=bool)
    if comment.any():
        raise SchemaError(
            f"cannot write this {kind} file: {int(comment.sum())} query id(s) start with '#' "
            f"(first: {frame['query'][comment].iloc[0]!r}), and a line starting with '#' is a "
            "comment to trec_eval 10.0 and to pdireval's readers. Rename those queries first.",
            failure_cases=frame[comment],
        )
    for name in names:
        text = frame[name]
        bad = (text.str.contains(r"\s", regex=True) | (text.str.len() == 0)).to_numpy(dtype=bool)
        if bad.any():
            rows = frame[bad]
            raise SchemaError(
                f"cannot write this {kind} file: {int(bad.sum())} '{name}' id(s) are empty or "
                f"contain whitespace, which a TREC file cannot hold (first: "
                f"{text[bad].iloc[0]!r}). Replace the whitespace (e.g. with '_') first.",
                failure_cases=rows,
            )


def write_run(run: pd.DataFrame, path, *, columns=None) -> None:
    """Write a run frame as a TREC run file (``query Q0 doc rank score tag``).

    Parameters
    ----------
    run : DataFrame
        A run frame (see :func:`pdireval.evaluate`).
    path : str or os.PathLike
        Output file; a name ending in ``.gz`` is gzip-compressed. A name ending in
        ``.parquet`` (or ``.pq``) writes the canonical run frame to Parquet instead, in its
        row order, with every column (``score``, ``rank``, ``label``) kept exactly.
    columns : mapping, optional
        ``{canonical name: your column name}``.

    Notes
    -----
    Lines are grouped by system and query and written in trec_eval's order (score
    descending, ties by doc id descending); ranks are renumbered 1..n per (system, query).
    A run with only ``rank`` is written in rank order with score ``n - rank + 1`` ... 1
    (positive, decreasing), so trec_eval reads the same ranking. Scores are written with
    full precision, so :func:`read_run` gives them back exactly.

    Raises
    ------
    SchemaError
        An invalid run frame, or ids that are empty or contain whitespace.
    OptionError
        ``path`` is empty or a folder, or its folder does not exist (checked before
        writing).
    """
    canonical = canonical_run(run, columns)
    target = _output_path(path, "run")
    if _is_parquet(path):
        canonical.to_parquet(target, index=False)
        return
    _check_writable_ids(canonical, ("system", "query", "doc"), "run")
    if "score" in canonical.columns:
        ordered = canonical.sort_values(
            ["system", "query", "score", "doc"], ascending=[True, True, False, False], kind="stable"
        )
    else:
        ordered = canonical.sort_values(["system", "query", "rank", "doc"], kind="stable")
    groups = ordered.groupby(["system", "query"], sort=False, observed=True)
    rank = groups.cumcount().to_numpy() + 1
    if "score" in ordered.columns:
        score = ordered["score"].to_numpy()
    else:
        score = (groups["doc"].transform("size").to_numpy() - rank + 1).astype(np.float64)
    out = pd.DataFrame(
        {"query": ordered["query"].to_numpy(), "q0": "Q0", "doc": ordered["doc"].to_numpy(),
         "rank": rank, "score": score, "system": ordered["system"].to_numpy()}
    )
    out.to_csv(target, sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE)


def write_qrels(qrels: pd.DataFrame, path, *, columns=None) -> None:
    """Write a qrels frame as a TREC qrels file (``query 0 doc label``).

    Parameters
    ----------
    qrels : DataFrame
        A qrels frame: ``query, doc, label``.
    path : str or os.PathLike
        Output file; a name ending in ``.gz`` is gzip-compressed. A name ending in
        ``.parquet`` (or ``.pq``) writes the canonical qrels frame to Parquet (NaN labels
        allowed there).
    columns : mapping, optional
        ``{canonical name: your column name}``.

    Notes
    -----
    Rows are sorted by query then doc. Labels are written as integers when all are whole
    numbers, else with full precision. A ``subtopic`` column is written in the second
    (iteration) field, so ``read_qrels(path, subtopics=True)`` reads it back.

    Raises
    ------
    SchemaError
        An invalid qrels frame; ids that are empty or contain whitespace; NaN (pooled but
        unjudged) labels, which a TREC qrels file cannot express.
    OptionError
        ``path`` is empty or a folder, or its folder does not exist (checked before
        writing).
    """
    canonical = canonical_qrels(qrels, columns)
    target = _output_path(path, "qrels")
    if _is_parquet(path):
        canonical.to_parquet(target, index=False)
        return
    has_sub = "subtopic" in canonical.columns
    _check_writable_ids(canonical, ("query", "subtopic", "doc") if has_sub else ("query", "doc"), "qrels")
    labels = canonical["label"].to_numpy()
    if np.isnan(labels).any():
        rows = canonical[np.isnan(labels)]
        raise SchemaError(
            f"the qrels hold {len(rows)} NaN (pooled but unjudged) label(s), which a TREC qrels "
            "file cannot express. Drop those rows or give them a label before writing.",
            failure_cases=rows,
        )
    whole = np.all(labels == np.round(labels)) and np.all(np.abs(labels) < 2**53)
    text = labels.astype(np.int64) if whole else labels
    out = pd.DataFrame(
        {"query": canonical["query"].to_numpy(), "it": canonical["subtopic"].to_numpy() if has_sub else "0", "doc": canonical["doc"].to_numpy(), "label": text}
    )
    out.to_csv(target, sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE)


# --------------------------------------------------------------------------- SVMlight

_SVM_EXAMPLE = "'label qid:Q 1:0.5 2:0.1 ... # comment', e.g. '2 qid:10 1:0.03 2:0.5'"


def _svm_error(file: Path, line: int, problem: str, text: str) -> SchemaError:
    return SchemaError(
        f"{file}, line {line}: {problem}. SVMlight lines look like {_SVM_EXAMPLE}. "
        f"The line: {text.strip()[:200]!r}"
    )


def _read_lines(file: Path) -> pd.Series:
    """Every line of a text file (index = line number - 1), by pandas' C parser."""
    _check_text(file, "SVMlight", spaces=False)
    try:
        lines = pd.read_csv(
            file, sep="\x01", header=None, names=["line"], dtype=str, engine="c", quoting=3,
            skip_blank_lines=False, na_filter=False, encoding_errors="replace",
        )["line"]
    except pd.errors.EmptyDataError:
        return pd.Series([], dtype=object)
    except (pd.errors.ParserError, ValueError, OSError, EOFError) as exc:
        raise SchemaError(f"{file}: cannot read this file as text lines ({str(exc).strip()}).") from None
    lines.index = pd.RangeIndex(len(lines))
    return lines


def _group_sizes(qfile: Path) -> np.ndarray:
    lines = _read_lines(qfile)
    kept = lines.str.strip()
    kept = kept[kept != ""]
    values = pd.to_numeric(kept, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(values) | (values < 1) | (values != np.round(values))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise SchemaError(
            f"{qfile}, line {int(kept.index[i]) + 1}: {kept.iloc[i]!r} is not a group size (a "
            "whole number >= 1). A .query file holds one group size per line, in file order."
        )
    if len(values) == 0:
        raise SchemaError(f"{qfile}: the group file is empty.")
    return values.astype(np.int64)


def read_svmlight(path, *, query_file=None) -> pd.DataFrame:
    """Read an SVMlight / LETOR file (``label qid:Q f:v f:v ... # comment``).

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or ``.gz``). Blank lines and lines holding only a ``#`` comment are
        skipped. Lines without ``qid:`` (LightGBM's format) take their query from a group
        file.
    query_file : str or os.PathLike, optional
        Group sizes, one whole number per line, in file order (LightGBM's ``*.query``
        files): the first ``n1`` lines are query ``"1"``, the next ``n2`` query ``"2"``, ...
        Default: ``path + ".query"`` when the lines have no ``qid:``. Not allowed when they do.

    Returns
    -------
    DataFrame
        One row per line, in file order, with a RangeIndex:

        - ``query`` (str): the ``qid:`` value, or the group number;
        - ``doc`` (str): the ``docid = X`` of a LETOR comment when every line has one, else
          ``"<query>-<i>"`` with ``i`` the 0-based position of the line within its query;
        - ``label`` (float64): the first field;
        - ``f1``, ``f2``, ... (float64): one column per feature id up to the largest id
          used (``f0`` too when id 0 occurs); 0 where a line omits a feature, as the sparse
          format means.

    Raises
    ------
    SchemaError
        Missing or empty file; a malformed line (non-numeric label, bad or repeated
        ``id:value`` token, a missing ``qid:`` when other lines have one), named by file and
        1-based line number; a missing or malformed group file, or group sizes that do not
        add up to the number of lines.
    """
    file = _path(path, "SVMlight")
    _require_file(file, "SVMlight")
    lines = _read_lines(file)
    split = lines.str.split("#", n=1)
    body = split.str[0].str.strip()
    keep = (body != "").to_numpy()
    body, raw = body[keep], lines[keep]
    if len(body) == 0:
        raise SchemaError(f"{file}: the SVMlight file has no data line. Lines look like {_SVM_EXAMPLE}.")
    line_no = body.index.to_numpy() + 1
    lists = pa_compute.utf8_split_whitespace(pa.array(body.to_numpy(dtype=object), type=pa.string()))
    lengths = pa_compute.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = pa_compute.list_flatten(lists)
    starts = np.cumsum(lengths) - lengths
    first = pd.Series(flat.take(pa.array(starts)).to_numpy(zero_copy_only=False), dtype=object)
    second_at = np.minimum(starts + 1, len(flat) - 1)
    second = pd.Series(flat.take(pa.array(second_at)).to_numpy(zero_copy_only=False), dtype=object)
    second[lengths < 2] = ""
    label = pd.to_numeric(first, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(label)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _svm_error(file, line_no[i], f"the label {first.iloc[i]!r} is not a finite number", raw.iloc[i])

    has_qid = second.str.startswith("qid:").to_numpy(dtype=bool)
    if has_qid.all():
        if query_file is not None:
            raise SchemaError(
                f"{file}: the lines have 'qid:' fields, so query_file= is not used; drop it."
            )
        query = pd.Series(second.str.slice(4).to_numpy(), index=body.index)
        empty = (query == "").to_numpy(dtype=bool)
        if empty.any():
            i = int(np.flatnonzero(empty)[0])
            raise _svm_error(file, line_no[i], "the qid: field is empty", raw.iloc[i])
    elif not has_qid.any():
        qfile = _path(query_file, "query") if query_file is not None else Path(str(file) + ".query")
        if qfile.is_dir():
            raise _folder_error(qfile, "group (query_file=)")
        if not qfile.is_file():
            raise SchemaError(
                f"{file}: the lines have no 'qid:' field and there is no group file {qfile}. "
                "Pass query_file= (one group size per line, as LightGBM's .query files), or "
                "write 'qid:Q' after each label."
            )
        sizes = _group_sizes(qfile)
        if sizes.sum() != len(body):
            raise SchemaError(
                f"{qfile}: the group sizes add up to {int(sizes.sum())} lines, but {file} has "
                f"{len(body)} data lines. The group file must list, in order, how many lines "
                "each query has."
            )
        query = pd.Series(np.repeat(np.arange(1, len(sizes) + 1), sizes).astype(str), index=body.index)
    else:
        i = int(np.flatnonzero(~has_qid)[0])
        raise _svm_error(file, line_no[i], "no 'qid:' field, while other lines have one", raw.iloc[i])

    # id:value tokens, parsed by pyarrow's compute kernels (no Python loop per token)
    skip = 2 if has_qid.all() else 1
    line_of = np.repeat(np.arange(len(body)), lengths)
    within = np.arange(len(flat)) - np.repeat(starts, lengths)
    take = np.flatnonzero(within >= skip)
    tokens_f = flat.take(pa.array(take))
    position = line_of[take]
    parts = pa_compute.extract_regex(tokens_f, r"^(?P<id>[0-9]{1,9}):(?P<value>[^:]+)$")
    matched = parts.is_valid().to_numpy(zero_copy_only=False)
    fid = np.full(len(take), -1, dtype=np.int64)
    fval = np.full(len(take), np.nan)
    if matched.any():
        ok = pa.array(np.flatnonzero(matched))
        fid[matched] = pa_compute.cast(parts.field("id").take(ok), pa.int64()).to_numpy()
        fval[matched] = pd.to_numeric(
            pd.Series(parts.field("value").take(ok).to_numpy(zero_copy_only=False)), errors="coerce"
        ).to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(fval)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise _svm_error(
            file, int(line_no[position[j]]),
            f"the feature {tokens_f[j].as_py()!r} is not of the form id:value (a whole number "
            ">= 0, a colon, a finite number)",
            raw.iloc[position[j]],
        )
    pairs = pd.DataFrame({"row": position, "f": fid})
    repeated = pairs.duplicated().to_numpy()
    if repeated.any():
        j = int(np.flatnonzero(repeated)[0])
        raise _svm_error(
            file, int(line_no[position[j]]), f"feature {fid[j]} is given twice", raw.iloc[position[j]]
        )

    query = query.astype(str)
    docid = raw.str.extract(r"#.*?\bdocid\s*=\s*(\S+)", expand=False)
    if docid.notna().all():
        doc = docid
    else:
        doc = query + "-" + query.groupby(query, sort=False).cumcount().astype(str)
    low = 0 if len(fid) and fid.min() == 0 else 1
    width = int(fid.max()) - low + 1 if len(fid) else 0
    if len(body) * width > MAX_FEATURE_CELLS:
        j = int(np.argmax(fid))
        raise _svm_error(
            file, int(line_no[position[j]]),
            f"feature id {int(fid[j])} would make a dense matrix of {len(body)} rows x {width} "
            f"feature columns ({len(body) * width} cells, {len(body) * width * 8 / 2**30:.1f} GiB), "
            f"more than pdireval.io.MAX_FEATURE_CELLS = {MAX_FEATURE_CELLS}. Renumber the features "
            "densely (1..number of features), or raise that limit",
            raw.iloc[position[j]],
        )
    matrix = np.zeros((len(body), width), dtype=np.float64)
    matrix[position, fid - low] = fval
    out = pd.DataFrame(
        {"query": query.to_numpy(), "doc": doc.to_numpy(), "label": label}
    ).astype({"query": ID_DTYPE, "doc": ID_DTYPE})
    features = pd.DataFrame(matrix, columns=[f"f{i + low}" for i in range(width)])
    return pd.concat([out, features], axis=1)
