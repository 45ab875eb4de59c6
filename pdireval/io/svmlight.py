"""SVMlight / LETOR files (``label qid:Q f:v f:v ... # comment``): :func:`read_svmlight`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pa_compute

from pdireval.core.schema import ID_DTYPE
from pdireval.errors import SchemaError
from pdireval.io.files import as_path, check_text, folder_error, require_file

if TYPE_CHECKING:
    from pdireval.types import PathArg

__all__ = ["read_svmlight"]

#: Ceiling on rows x feature columns of the dense matrix :func:`read_svmlight` builds (2**28
#: float64 cells = 2 GiB); checked before allocating.
MAX_FEATURE_CELLS = 2**28


_SVM_EXAMPLE = "'label qid:Q 1:0.5 2:0.1 ... # comment', e.g. '2 qid:10 1:0.03 2:0.5'"


def _svm_error(file: Path, line: int, problem: str, text: str) -> SchemaError:
    return SchemaError(
        f"{file}, line {line}: {problem}. SVMlight lines look like {_SVM_EXAMPLE}. "
        f"The line: {text.strip()[:200]!r}"
    )


def _read_lines(file: Path) -> pd.Series:
    """Every line of a text file (index = line number - 1), by pandas' C parser."""
    check_text(file, "SVMlight", spaces=False, controls=True)
    try:
        lines = pd.read_csv(
            file,
            sep="\x01",
            header=None,
            names=["line"],
            dtype=str,
            engine="c",
            quoting=3,
            skip_blank_lines=False,
            na_filter=False,
            encoding_errors="replace",
        )["line"]
    except pd.errors.EmptyDataError:
        return pd.Series([], dtype=object)
    except (pd.errors.ParserError, ValueError, OSError, EOFError) as exc:
        raise SchemaError(
            f"{file}: cannot read this file as text lines ({str(exc).strip()})."
        ) from None
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


def read_svmlight(path: PathArg, *, query_file: PathArg | None = None) -> pd.DataFrame:
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
    file = as_path(path, "SVMlight")
    require_file(file, "SVMlight")
    body, raw = _data_lines(file)
    line_no = body.index.to_numpy() + 1
    flat, lengths, starts = _tokens(body)
    first, second = _leading_tokens(flat, lengths, starts)
    label = pd.to_numeric(first, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(label)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _svm_error(
            file, line_no[i], f"the label {first.iloc[i]!r} is not a finite number", raw.iloc[i]
        )
    has_qid = second.str.startswith("qid:").to_numpy(dtype=bool)
    if has_qid.all():
        query = _qid_queries(file, second, body, raw, query_file)
    elif not has_qid.any():
        query = _group_queries(file, body, query_file)
    else:
        i = int(np.flatnonzero(~has_qid)[0])
        raise _svm_error(
            file, line_no[i], "no 'qid:' field, while other lines have one", raw.iloc[i]
        )
    skip = 2 if has_qid.all() else 1
    position, fid, fval = _features(file, flat, lengths, starts, skip, raw)
    query = query.astype(str)
    docid = raw.str.extract(r"#.*?\bdocid\s*=\s*(\S+)", expand=False)
    if docid.notna().all():
        doc = docid
    else:
        doc = query + "-" + query.groupby(query, sort=False).cumcount().astype(str)
    low, matrix = _feature_matrix(file, position, fid, fval, raw)
    out = pd.DataFrame({"query": query.to_numpy(), "doc": doc.to_numpy(), "label": label}).astype(
        {"query": ID_DTYPE, "doc": ID_DTYPE}
    )
    features = pd.DataFrame(matrix, columns=[f"f{i + low}" for i in range(matrix.shape[1])])
    return pd.concat([out, features], axis=1)


def _data_lines(file: Path) -> tuple[pd.Series, pd.Series]:
    """The data lines' text before any ``#`` (stripped) and their whole text, blank ones out."""
    lines = _read_lines(file)
    split = lines.str.split("#", n=1)
    body = split.str[0].str.strip()
    keep = (body != "").to_numpy()
    body, raw = body[keep], lines[keep]
    if len(body) == 0:
        raise SchemaError(
            f"{file}: the SVMlight file has no data line. Lines look like {_SVM_EXAMPLE}."
        )
    return body, raw


def _tokens(body: pd.Series) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Every line's whitespace-separated tokens, flat, with each line's count and first index."""
    lists = pa_compute.utf8_split_whitespace(
        pa.array(body.to_numpy(dtype=object), type=pa.string())
    )
    lengths = pa_compute.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = pa_compute.list_flatten(lists)
    starts = np.cumsum(lengths) - lengths
    return flat, lengths, starts


def _leading_tokens(flat, lengths: np.ndarray, starts: np.ndarray) -> tuple[pd.Series, pd.Series]:
    """Each line's first token (the label) and second one (``""`` where a line has one)."""
    first = pd.Series(flat.take(pa.array(starts)).to_numpy(zero_copy_only=False), dtype=object)
    second_at = np.minimum(starts + 1, len(flat) - 1)
    second = pd.Series(flat.take(pa.array(second_at)).to_numpy(zero_copy_only=False), dtype=object)
    second[lengths < 2] = ""
    return first, second


def _qid_queries(file: Path, second: pd.Series, body: pd.Series, raw: pd.Series, query_file):
    """The queries of lines that all carry ``qid:Q`` (then no group file is allowed)."""
    if query_file is not None:
        raise SchemaError(
            f"{file}: the lines have 'qid:' fields, so query_file= is not used; drop it."
        )
    query = pd.Series(second.str.slice(4).to_numpy(), index=body.index)
    empty = (query == "").to_numpy(dtype=bool)
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        line = int(body.index[i]) + 1
        raise _svm_error(file, line, "the qid: field is empty", raw.iloc[i])
    return query


def _group_queries(file: Path, body: pd.Series, query_file) -> pd.Series:
    """The queries of lines without ``qid:``: group numbers from the group file's sizes."""
    qfile = as_path(query_file, "query") if query_file is not None else Path(str(file) + ".query")
    if qfile.is_dir():
        raise folder_error(qfile, "group (query_file=)")
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
    return pd.Series(np.repeat(np.arange(1, len(sizes) + 1), sizes).astype(str), index=body.index)


def _features(file: Path, flat, lengths, starts, skip: int, raw: pd.Series):
    """The ``id:value`` tokens after the first ``skip`` of each line: (line, id, value) arrays.

    Parsed by pyarrow's compute kernels (no Python loop per token).
    """
    line_no = raw.index.to_numpy() + 1
    line_of = np.repeat(np.arange(len(lengths)), lengths)
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
            file,
            int(line_no[position[j]]),
            f"the feature {tokens_f[j].as_py()!r} is not of the form id:value (a whole number "
            ">= 0, a colon, a finite number)",
            raw.iloc[position[j]],
        )
    pairs = pd.DataFrame({"row": position, "f": fid})
    repeated = pairs.duplicated().to_numpy()
    if repeated.any():
        j = int(np.flatnonzero(repeated)[0])
        raise _svm_error(
            file,
            int(line_no[position[j]]),
            f"feature {fid[j]} is given twice",
            raw.iloc[position[j]],
        )
    return position, fid, fval


def _feature_matrix(file: Path, position, fid, fval, raw: pd.Series) -> tuple[int, np.ndarray]:
    """The lowest feature id (0 or 1) and the dense lines x features matrix, 0 where omitted."""
    n_rows = len(raw)
    low = 0 if len(fid) and fid.min() == 0 else 1
    width = int(fid.max()) - low + 1 if len(fid) else 0
    if n_rows * width > MAX_FEATURE_CELLS:
        j = int(np.argmax(fid))
        raise _svm_error(
            file,
            int(raw.index[position[j]]) + 1,
            f"feature id {int(fid[j])} would make a dense matrix of {n_rows} rows x {width} "
            f"feature columns ({n_rows * width} cells, "
            f"{n_rows * width * 8 / 2**30:.1f} GiB), more than "
            f"pdireval.io.svmlight.MAX_FEATURE_CELLS = {MAX_FEATURE_CELLS}. Renumber the features "
            "densely (1..number of features), or raise that limit",
            raw.iloc[position[j]],
        )
    matrix = np.zeros((n_rows, width), dtype=np.float64)
    matrix[position, fid - low] = fval
    return low, matrix
