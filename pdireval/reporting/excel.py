"""The Excel workbook of a report: one sheet per table, readable and unrounded.

Values are written exactly as the frames hold them (no rounding: a test reads the workbook
back and compares); each sheet's header row holds the frame's own column names, so
``pd.read_excel(path, sheet_name=...)`` gives back the frame's columns; the human title of
each column (:data:`TITLES`, the HTML page's header) is the header cell's comment.
Readability comes from cell formats, frozen header rows, one header style on every sheet
(``_header_row``) and fitted column widths. Needs openpyxl (``pip install pdireval[excel]``).

Every text cell is a string cell, never a formula or an error value, whatever it holds: run
tags, query ids and measure names come from other people's files, and openpyxl would store a
text starting with ``=`` as a live formula (``=HYPERLINK(...)``, ``=WEBSERVICE(...)``: the
"CSV / formula injection" of OWASP) and ``#N/A`` as an error. The workbook holds no formula.
Texts starting with a character a spreadsheet reads as the start of a formula (``= + - @``,
tab, carriage return, line feed) also get the cell style "quote prefix", Excel's and
LibreOffice's leading apostrophe: shown and edited as text, the value unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from pdireval.io.spreadsheets import FORMULA_STARTS

__all__ = ["write_workbook", "column_title", "require_openpyxl", "check_cell_texts"]

#: The longest text an Excel cell holds.
MAX_CELL_CHARS = 32767
#: Characters XML 1.0 cannot hold (openpyxl refuses them): written as Excel's ``_xHHHH_``.
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")

TITLES = {
    "system": "System",
    "query": "Query",
    "measure": "Measure",
    "value": "Value",
    "mean": "Mean",
    "std": "Std. dev.",
    "n_queries": "Queries",
    "n_systems": "Systems",
    "system_a": "System A",
    "system_b": "System B",
    "mean_a": "Mean A",
    "mean_b": "Mean B",
    "mean_diff": "Mean difference",
    "p_value": "p-value",
    "p_adjusted": "p-value (adjusted)",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "n_pairs": "Pairs",
    "n_significant": "Significant pairs",
    "power": "Discriminative power",
    "required_diff": "Difference required",
    "measure_a": "Measure A",
    "measure_b": "Measure B",
    "phi": "Φ (dependability)",
    "e_rho2": "Eρ² (generalizability)",
    "phi_ci_low": "Φ CI low",
    "phi_ci_high": "Φ CI high",
    "e_rho2_ci_low": "Eρ² CI low",
    "e_rho2_ci_high": "Eρ² CI high",
    "share_system": "Share σ² system",
    "share_query": "Share σ² query",
    "share_residual": "Share σ² residual",
    "n_queries_observed": "Queries observed",
    "effect_size": "Effect size (d_z)",
    "statistic": "Statistic",
    "ric_a": "RIC A (bits)",
    "ric_b": "RIC B (bits)",
    "mean_value": "Mean value",
    "ideal": "Ideal (IUB)",
    "random": "Random (RLB)",
    "random_se": "Random s.e.",
    "worst": "Worst (WLB)",
    "better_than": "Better than",
    "letter": "Letter",
    "text": "Text",
    "n_significant_a": "Significant (A)",
    "n_significant_b": "Significant (B)",
    "n_both": "Significant (both)",
    "n_conflicts": "Conflicts",
    "n_opposite": "Opposite",
    "conflict_rate": "Conflict rate",
    "n_trials": "Trials",
    "n_resamples": "Resamples",
    "n_comparisons": "Comparisons",
    "size": "Queries in subset",
    "queries_needed": "Queries needed (Φ)",
    "var_system": "σ² system",
    "var_query": "σ² query",
    "var_residual": "σ² residual",
    "p_vs_best": "p-value vs best",
    "worse_than_best": "Worse than best",
    "information_tau": "Information τ (bits)",
    "joint_ric": "Joint RIC (bits)",
    "information_difference": "Information difference (bits)",
    "swap_rate": "Swap rate",
    "error_rate": "Error rate",
    "tie_rate": "Tie rate",
    "queries_needed_e_rho2": "Queries needed (Eρ²)",
    "ss_system": "SS system",
    "ss_query": "SS query",
    "ss_residual": "SS residual",
    "df_system": "df system",
    "df_query": "df query",
    "df_residual": "df residual",
    "ms_system": "MS system",
    "ms_query": "MS query",
    "ms_residual": "MS residual",
    "summary": "Summary",
    "best": "Best",
    "rank": "Rank",
    "method": "Method",
    "given": "Given",
    "unit": "Unit",
    "fuzziness": "Fuzziness",
    "bin": "Bin",
    "diff_low": "Difference from",
    "n_swaps": "Swaps",
    "diff_needed": "Difference needed",
    "reason": "Reason",
    "systems": "Systems",
    "n_only_qrels": "Judged in qrels only",
    "n_only_other": "Judged in other only",
    "label": "Label",
    "rank_a": "Rank A",
    "rank_b": "Rank B",
    "rank_change": "Rank change",
    "se": "Standard error",
    "ci_method": "Interval",
    "confidence_level": "Confidence level",
    "rank_low": "Rank from",
    "rank_high": "Rank to",
    "expected_rank": "Expected rank",
    "p_best": "P(best)",
    "in_top_group": "In top group",
    "p_vs_top": "p vs top",
    "issue": "Issue",
    "tp": "Relevant in both",
    "fp": "Relevant in other only",
    "fn": "Relevant in qrels only",
    "precision": "Precision",
    "recall": "Recall",
    "f1": "F1",
    "jaccard": "Jaccard",
    "ari": "Adjusted Rand index",
    "n_docs": "Documents",
}

# number formats by column name (first match wins); everything else by dtype
FORMATS = (
    (("p_value", "p_adjusted", "p_vs_best"), '[<0.001]"< 0.001";0.000'),
    (("n_", "queries_needed", "rank"), "0"),
)


def column_title(name: str) -> str:
    """Human title of a snake_case column ("mean_diff" -> "Mean difference")."""
    if name in TITLES:
        return TITLES[name]
    if not re.fullmatch(r"[a-z][a-z0-9_]*", str(name)):
        return str(name)  # a measure name such as nDCG@10 or a user's column: keep as is
    text = str(name).replace("_", " ")
    return text[:1].upper() + text[1:]


def require_openpyxl():
    try:
        import openpyxl  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the Excel workbook needs openpyxl, an optional extra: pip install 'pdireval[excel]'"
        ) from exc


def _number_format(name: str, series: pd.Series) -> str | None:
    for prefixes, fmt in FORMATS:
        if any(name == p or (p.endswith("_") and name.startswith(p)) for p in prefixes):
            return fmt
    if pd.api.types.is_integer_dtype(series.dtype):
        return "0"
    if pd.api.types.is_float_dtype(series.dtype):
        return "0.0000"
    return None


def _sheet_name(name: str, used: set[str]) -> str:
    base = "".join(c for c in name if c not in "[]:*?/\\")[:31] or "Sheet"
    candidate, i = base, 2
    while candidate.lower() in used:
        suffix = f" ({i})"
        candidate = base[: 31 - len(suffix)] + suffix
        i += 1
    used.add(candidate.lower())
    return candidate


def write_workbook(
    tables: dict[str, pd.DataFrame], path, *, notes: dict[str, str] | None = None
) -> dict[str, str]:
    """Write ``tables`` (sheet name -> frame) to an .xlsx file.

    Each sheet: a frozen header row of the frame's column names (each with its human title
    as a comment) in the one header style, then the frame's values
    unrounded, with number formats (4 decimals for floats, integers plain) and fitted column
    widths. Infinite values are written as the text "inf" (Excel has no infinity).
    ``notes`` (sheet name -> text) are written in a final "Notes" sheet.

    Every text (values, column names, notes) is a string cell, never a formula or an error
    value, and reads back as it was written (``openpyxl``, ``pd.read_excel``); a text
    starting with ``= + - @``, tab, CR or LF also has the "quote prefix" style, so a
    spreadsheet shows it, and keeps it when edited, as text. The characters XML cannot hold
    (U+0000 to U+001F but tab, LF and CR) are written as Excel writes them, ``_xHHHH_``
    (Excel shows the character; openpyxl and pandas read the six characters).

    Returns
    -------
    dict
        Frame name -> sheet name actually used (Excel limits names to 31 characters).

    Raises
    ------
    SchemaError
        A text longer than an Excel cell holds (:data:`MAX_CELL_CHARS` characters).
    """
    require_openpyxl()
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.utils import get_column_letter

    for name, frame in tables.items():
        check_cell_texts(frame, f"the {name!r} table")
    # write-only (streaming) workbook: column widths and frozen panes are set before the rows;
    # a number format is one styled cell per column, reused row after row (each row is
    # written out when appended)
    wb = Workbook(write_only=True)
    used: set[str] = set()
    names: dict[str, str] = {}
    plain: dict[str, bool] = {}  # text -> whether openpyxl stores it as it is, as a string
    for name, frame in tables.items():
        sheet = wb.create_sheet(_sheet_name(name, used))
        names[name] = sheet.title
        columns = [str(c) for c in frame.columns]
        formatted = []
        for j, col in enumerate(columns, start=1):
            width = max([len(col)] + [len(_shown(v)) for v in frame.iloc[:200, j - 1]])
            sheet.column_dimensions[get_column_letter(j)].width = min(max(8, width + 2), 60)
            fmt = _number_format(col, frame[frame.columns[j - 1]])
            cell = None
            if fmt:
                cell = WriteOnlyCell(sheet)
                cell.number_format = fmt
            formatted.append(cell)
        sheet.freeze_panes = "A2"
        sheet.append(_header_row(sheet, columns, [column_title(c) for c in columns]))
        data = frame.astype(object).where(frame.notna(), None)
        for row in data.itertuples(index=False, name=None):
            values = [_cell(v) for v in row]
            for j, cell in enumerate(formatted):
                if cell is not None and isinstance(values[j], (int, float)):
                    cell.value = values[j]
                    values[j] = cell
            sheet.append(_text_cells(sheet, values, plain))
    if notes:
        check_cell_texts(pd.DataFrame({"note": list(notes.values())}), "the notes")
        sheet = wb.create_sheet(_sheet_name("Notes", used))
        sheet.column_dimensions["A"].width = 28
        sheet.column_dimensions["B"].width = 110
        sheet.freeze_panes = "A2"
        sheet.append(_header_row(sheet, ["Sheet", "Note"]))
        for key, text in notes.items():
            sheet.append(_text_cells(sheet, [names.get(key, key), text], plain))
    wb.save(Path(path))
    return names


def check_cell_texts(frame: pd.DataFrame, what: str) -> None:
    """Raise :class:`~pdireval.errors.SchemaError` when a text of ``frame`` (a value or a
    column name) is longer than an Excel cell holds (:data:`MAX_CELL_CHARS`): openpyxl
    would cut it silently, and the workbook would no longer hold what was evaluated."""
    from pdireval.errors import SchemaError

    long = [str(c) for c in frame.columns if len(str(c)) > MAX_CELL_CHARS]
    for col in frame.columns:
        values = frame[col]
        if values.dtype != object and not isinstance(values.dtype, pd.StringDtype):
            continue
        try:
            lengths = values.str.len()  # NaN for what is not a text
        except AttributeError:  # no text in the column (bools, lists, ...)
            continue
        over = (lengths > MAX_CELL_CHARS).fillna(False).to_numpy(dtype=bool)
        long += values[over].tolist()[:1]
    if long:
        raise SchemaError(
            f"{what} holds a text of {len(long[0]):,} characters (starting {long[0][:40]!r}); "
            f"an Excel cell holds at most {MAX_CELL_CHARS:,}. Shorten such names (e.g. map "
            "them to short ids) before making the workbook."
        )


def _text_cells(sheet, values: list, plain: dict[str, bool]) -> list:
    """``values`` with each text that openpyxl would not store as a plain string cell (a
    formula or error start, a control character) replaced by a forced string cell."""
    for j, value in enumerate(values):
        if isinstance(value, str):
            ok = plain.get(value)
            if ok is None:
                ok = plain[value] = not (
                    value.startswith(FORMULA_STARTS)
                    or value.startswith("#")  # "#N/A", "#REF!": error values
                    or CONTROL_RE.search(value)
                )
            if not ok:
                values[j] = _text_cell(sheet, value)
    return values


def _text_cell(sheet, text: str):
    """A string cell holding ``text`` (never a formula or an error value), with the quote
    prefix style when ``text`` starts as a formula would."""
    from openpyxl.cell import WriteOnlyCell

    cell = WriteOnlyCell(sheet)
    # openpyxl infers the type from the value: "=..." would be a formula, "#N/A" an error
    cell.value = CONTROL_RE.sub(lambda m: f"_x{ord(m.group()):04X}_", text)
    cell.data_type = "s"
    if text.startswith(FORMULA_STARTS):
        cell.quotePrefix = True
    return cell


#: The one header style of every sheet (the HTML page's <th>: bold on light grey, wrapped,
#: bottom-aligned, a rule below).
HEADER_FILL = "F4F4F4"


def _header_row(sheet, titles, comments=None) -> list:
    """The header row of ``sheet``: ``titles`` as string cells in the workbook's one header
    style, each with its entry of ``comments`` as a cell comment when that differs from the
    title."""
    from openpyxl.comments import Comment
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side

    font = Font(bold=True)
    fill = PatternFill("solid", start_color=HEADER_FILL, end_color=HEADER_FILL)
    align = Alignment(wrap_text=True, vertical="bottom")
    border = Border(bottom=Side(style="thin", color="999999"))
    row = []
    for j, title in enumerate(titles):
        cell = _text_cell(sheet, title)
        cell.font, cell.fill, cell.alignment, cell.border = font, fill, align, border
        if comments is not None and comments[j] != title:
            cell.comment = Comment(comments[j], "pdireval")
        row.append(cell)
    return row


def _cell(value):
    if isinstance(value, (np.floating, float)):
        value = float(value)
        if np.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (tuple, list)):
        return ", ".join(map(str, value))
    return value


def _shown(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{value:.4f}"
    return str(value)
