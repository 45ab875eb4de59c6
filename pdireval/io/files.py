"""Paths and files as the readers and writers take them: path checks, the one streaming
check of a text file (UTF-8, no non-ASCII whitespace, a sound and bounded gzip archive)
before parsing, the run files of a folder and the system names given by file names."""

from __future__ import annotations

import codecs
import gzip
import os
import re
import unicodedata
import zlib
from pathlib import Path

import pandas as pd

from pdireval.errors import SchemaError

#: Suffixes of files read and written as Parquet instead of TREC text.
PARQUET_SUFFIXES = (".parquet", ".pq")


# --------------------------------------------------------------------------- helpers


def as_path(path, what: str) -> Path:
    """``path`` as a Path; a TypeError for a non-path, a SchemaError for an empty one."""
    try:
        text = os.fspath(path)
    except TypeError:
        raise TypeError(
            f"the {what} path must be a str or os.PathLike, got {type(path).__name__}"
        ) from None
    if isinstance(text, bytes):
        raise TypeError(f"the {what} path must be a str or os.PathLike, got bytes ({text!r})")
    if not str(text).strip():
        # Path("") is the current folder: reading it would read every file there
        raise SchemaError(f"the {what} path is empty ({text!r}); pass the path of a {what} file.")
    return Path(text)


#: Ceiling on the decompressed size of one gzipped file (bytes). A larger archive (e.g. a
#: "gzip bomb") is refused before it is parsed; raise
#: ``pdireval.io.files.MAX_DECOMPRESSED_BYTES`` for a genuinely larger file.
MAX_DECOMPRESSED_BYTES = 8 * 2**30

#: Ceiling on the length of one line of a text file (bytes, after decompression). TREC lines
#: are tens of bytes and SVMlight lines rarely reach a megabyte; a longer line (e.g. a small
#: gzip archive holding gigabytes of NUL bytes without a newline) is refused while it is being
#: decompressed, before anything holds it in memory. Raise
#: ``pdireval.io.files.MAX_LINE_BYTES`` for a genuinely longer line.
MAX_LINE_BYTES = 64 * 2**20

_CHECK_CHUNK = 1 << 24


#: Unicode whitespace that is not ASCII whitespace, as UTF-8 bytes: U+0085, U+00A0 (no-break
#: space), U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, and U+FEFF (a
#: byte-order mark; allowed as the file's first character only).
_UNICODE_SPACE = re.compile(
    rb"\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|"
    rb"\xe2\x81\x9f|\xe3\x80\x80|\xef\xbb\xbf"
)


def _unicode_space_error(
    path: Path, kind: str, buf: bytes, offset: int, lines_before: int, at_file_start: bool
) -> SchemaError | None:
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
        if (at == 0 and at_file_start and match.group() == b"\xef\xbb\xbf") or buf[
            start:end
        ].lstrip().startswith(b"#"):
            offset = match.end()
            continue
        char = match.group().decode("utf-8")
        line = lines_before + buf.count(b"\n", 0, at) + 1
        text = buf[start:end][:200].decode("utf-8", errors="replace")
        return SchemaError(
            f"{path}, line {line}: the {kind} line holds the character "
            f"{unicodedata.name(char, 'whitespace')} (U+{ord(char):04X}), which is not a field "
            "separator in a TREC file (fields are "
            f"separated by ASCII spaces or tabs) and cannot be part of an id. The line: {text!r}. "
            "Replace it by an ordinary space (e.g. sed 's/\\xc2\\xa0/ /g' for no-break spaces) "
            "or remove it."
        )


#: C0 control characters other than whitespace (tab, newline, vertical tab, form feed,
#: carriage return), and DEL: never part of a well-formed line of the formats that refuse them
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")


def _control_error(path: Path, kind: str, chunk: bytes, at: int, lines_before: int) -> SchemaError:
    line = lines_before + chunk.count(b"\n", 0, at) + 1
    start = chunk.rfind(b"\n", 0, at) + 1
    end = chunk.find(b"\n", at)
    text = chunk[start : end if end >= 0 else len(chunk)][:200].decode("utf-8", "replace")
    code = chunk[at]
    name = unicodedata.name(chr(code), "") or {0: "NULL", 0x7F: "DELETE"}.get(
        code, "control character"
    )
    return SchemaError(
        f"{path}, line {line}: the {kind} line holds the control character U+{code:04X} ({name}) "
        f"at column {at - start + 1}; {kind} fields are numbers, ids and words separated by spaces "
        f"or tabs, never control characters. The line: {text!r}. Remove the character (e.g. "
        "tr -d '\\000-\\010\\016-\\037\\177' < FILE > FILE.clean)."
    )


def check_text(path: Path, kind: str, spaces: bool = True, controls: bool = False) -> None:
    """Check, in one streaming pass before parsing, that a file is UTF-8 text without
    non-ASCII whitespace (no-break spaces...) and (for ``.gz``) a sound archive no larger
    than :data:`MAX_DECOMPRESSED_BYTES` once decompressed.

    Raises a SchemaError with the file and line of the first undecodable byte (pdireval
    never replaces bytes, which would merge distinct ids) or non-ASCII whitespace
    character (``spaces``: TREC files, not SVMlight ones, whose comments are free text), or
    naming a corrupt, truncated or too large archive. An ASCII chunk (the usual case) costs
    one ``bytes.isascii`` for the whitespace check. ``controls``: refuse control characters
    (other than whitespace) too, with the line and the character (SVMlight files). Any line
    longer than :data:`MAX_LINE_BYTES` is refused with its line number.
    """
    gz = path.name.endswith(".gz")
    decoder = codecs.getincrementaldecoder("utf-8")()
    total, lines_before, tail = 0, 0, b""
    line_so_far, line_head = 0, b""  # the current (unfinished) line: bytes read, its start
    # read in pieces no longer than the line ceiling, so no line longer than it is ever held
    step = max(1, min(_CHECK_CHUNK, MAX_LINE_BYTES))
    try:
        with gzip.open(path, "rb") if gz else open(path, "rb") as fh:
            while True:
                chunk = fh.read(step)
                if not chunk:
                    break
                total += len(chunk)
                if gz and total > MAX_DECOMPRESSED_BYTES:
                    raise SchemaError(
                        f"{path}: this gzip archive decompresses to more than "
                        f"{MAX_DECOMPRESSED_BYTES} bytes "
                        "(pdireval.io.files.MAX_DECOMPRESSED_BYTES); "
                        "it is refused before parsing. Check the file, or raise that limit."
                    )
                first_newline = chunk.find(b"\n")
                if (
                    line_so_far + (len(chunk) if first_newline < 0 else first_newline)
                    > MAX_LINE_BYTES
                ):
                    raise SchemaError(
                        f"{path}, line {lines_before + 1}: the line is longer than "
                        f"{MAX_LINE_BYTES} "
                        "bytes "
                        f"(pdireval.io.files.MAX_LINE_BYTES{' once decompressed' if gz else ''}"
                        f"; it starts {(line_head or chunk)[:40]!r}); it is refused before "
                        f"parsing. A {kind} "
                        "line is far shorter: check the file (a broken or hostile archive?), or "
                        "raise that limit."
                    )
                if first_newline < 0:
                    line_head = line_head or chunk[:40]
                    line_so_far += len(chunk)
                else:
                    last_newline = chunk.rfind(b"\n")
                    line_head = chunk[last_newline + 1 : last_newline + 41]
                    line_so_far = len(chunk) - last_newline - 1
                pending = len(decoder.getstate()[0])
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError as exc:
                    at = max(exc.start - pending, 0)
                    line = lines_before + chunk.count(b"\n", 0, at) + 1
                    start = chunk.rfind(b"\n", 0, at) + 1
                    end = chunk.find(b"\n", at)
                    text = chunk[start : end if end >= 0 else len(chunk)][:200]
                    raise SchemaError(
                        f"{path}, line {line}: the {kind} file is not UTF-8 text (byte "
                        f"0x{chunk[at]:02x} cannot be decoded). The line: {text!r}. pdireval does "
                        "not replace such bytes (distinct ids would merge): convert the file to "
                        "UTF-8, e.g. iconv -f latin1 -t utf-8 FILE > FILE.utf8."
                    ) from None
                if controls:
                    found = _CONTROL.search(chunk)
                    if found is not None:
                        raise _control_error(path, kind, chunk, found.start(), lines_before)
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
        raise folder_error(path, kind) from None
    except OSError as exc:
        raise SchemaError(f"{path}: cannot read this {kind} file ({exc}).") from None


def folder_error(path: Path, kind: str) -> SchemaError:
    """A folder was given where a file is expected: say so and show what it holds."""
    try:
        inside = sorted(p.name for p in path.iterdir() if not p.name.startswith("."))
    except OSError:
        inside = []
    held = (
        f" (it holds {', '.join(repr(n) for n in inside[:5])}{', ...' if len(inside) > 5 else ''})"
        if inside
        else " (it is empty)"
    )
    return SchemaError(
        f"{path}: this is a folder{held}, where a {kind} file is expected. Pass the path of the "
        f"{kind} file itself, e.g. {str(path / (inside[0] if inside else 'file.txt'))!r}."
    )


def require_file(path: Path, kind: str) -> None:
    """A readable path: a folder or a missing file is a clear SchemaError."""
    if path.is_dir():
        raise folder_error(path, kind)
    if not path.is_file():
        raise SchemaError(f"{path}: no such {kind} file.")


def open_text(path: Path):
    # utf-8-sig: a byte-order mark opening the file is not part of the first id
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="replace")
    return open(path, encoding="utf-8-sig", errors="replace")


# --------------------------------------------------------------------------- run files


def run_files(path: Path) -> list[Path]:
    """The run files of ``path``: the file itself, or a folder's visible files in name order."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise SchemaError(f"{path}: the folder holds no run files.")
        return files
    if not path.exists():
        raise SchemaError(f"{path}: no such run file or folder.")
    return [path]


def file_system_name(path: Path) -> str:
    """A file's name without its run suffixes (``.gz``, ``.txt``, ``.run``, ``.trec``, Parquet)."""
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
    stems = [file_system_name(p) for p in paths]
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
