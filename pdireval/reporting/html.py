"""The self-contained HTML page of a report: tables and figures together, no external files.

Figures are embedded as base64 PNG data URIs, so the single .html file can be mailed or
archived. Every section is a ``<section id="...">``, every table a ``<table id="tab-...">``
and every figure a ``<figure id="fig-...">`` so a browser test can find them. Numbers are
rounded for display only (4 decimals; p-values to 3, below 0.001 as "< 0.001"; counts as
integers); the workbook keeps full precision.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from pdireval.reporting.excel import column_title

__all__ = ["Section", "write_html"]

#: Tables longer than this are folded in a <details> element.
FOLD_ROWS = 25

CSS = (
    "\n"
    "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;"
    "max-width:72rem;padding:0 1rem;color:#222;line-height:1.45}\n"
    "h1{font-size:1.7rem;margin-bottom:.2rem} h2{border-bottom:2px solid #ddd;"
    "padding-bottom:.2rem;margin-top:2.5rem}\n"
    "nav ul{columns:3;list-style:none;padding:0} nav a{text-decoration:none}\n"
    ".table-box{max-width:100%;overflow-x:auto;margin:.8rem 0}\n"
    "table{border-collapse:collapse;font-size:.85rem} caption{text-align:left;"
    "font-weight:600;padding:.3rem 0;caption-side:top}\n"
    "th,td{border:1px solid #ddd;padding:.25rem .55rem} th{background:#f4f4f4;"
    "position:sticky;top:0;white-space:normal;max-width:9rem;vertical-align:bottom}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    ".legend{color:#555;font-size:.8rem;margin:.2rem 0 .8rem}\n"
    "table.paper-table td{text-align:right} "
    "table.paper-table td:nth-child(-n+2){text-align:left}\n"
    "figure{display:inline-block;margin:.6rem 1rem .6rem 0;vertical-align:top;"
    "max-width:100%} figure img{max-width:min(34rem,100%);border:1px solid #eee}\n"
    "figcaption{font-size:.85rem;color:#555;max-width:34rem} .note{color:#555;"
    "font-size:.9rem} .meta{color:#666}\n"
    "details{margin:.5rem 0}\n"
)


@dataclass
class Section:
    """One part of the report: a title, an explanation, tables and figures."""

    key: str
    title: str
    text: str = ""
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Path] = field(default_factory=dict)  # name -> PNG path
    captions: dict[str, str] = field(default_factory=dict)
    preview_rows: int = 60
    notes: list[str] = field(default_factory=list)  # one line each: what is skipped and why
    html: str = ""  # a ready-made HTML block shown after the text (e.g. the paper table)


P_COLUMNS = ("p_value", "p_adjusted", "p_vs_best", "p_vs_top")
#: headers longer than this are abbreviated (M1, M2, ...) with a legend under the table
LONG_HEADER = 22


def _fmt(value, column: str = "") -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        if np.isinf(value):
            return "∞" if value > 0 else "−∞"
        if column in P_COLUMNS:
            return "< 0.001" if value < 0.001 else f"{value:.3f}"
        if _is_count(column) and float(value).is_integer():
            return f"{int(value):,}"
        return f"{value:.4f}"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}" if _is_count(column) else str(int(value))
    return html.escape(str(value))


def _is_count(column: str) -> bool:
    return column.startswith("n_") or column in ("queries_needed",)


def _headers(frame: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Header texts (human titles; long ones abbreviated) and the legend entries."""
    heads: list[str] = []
    legend: list[str] = []
    for c in frame.columns:
        title = column_title(str(c))
        if len(title) > LONG_HEADER and title == str(c):  # a long measure name, not a titled column
            short = f"M{len(legend) + 1}"
            legend.append(f"{short} = {title}")
            title = short
        heads.append(title)
    return heads, legend


def _table_html(table_id: str, caption: str, frame: pd.DataFrame, limit: int) -> str:
    shown = frame.head(limit)
    numeric = [
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
        for c in frame.columns
    ]
    names = [str(c) for c in frame.columns]
    heads, legend = _headers(frame)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    rows = []
    for row in shown.itertuples(index=False, name=None):
        cells = "".join(
            f'<td class="num">{_fmt(v, c)}</td>' if num else f"<td>{_fmt(v, c)}</td>"
            for v, num, c in zip(row, numeric, names)
        )
        rows.append(f"<tr>{cells}</tr>")
    more = ""
    if len(frame) > limit:
        more = f'<p class="note">First {limit} of {len(frame)} rows; the workbook has them all.</p>'
    note = f'<p class="legend">{html.escape("; ".join(legend))}</p>' if legend else ""
    table = (
        '<div class="table-box"><table '
        f'id="tab-{html.escape(table_id)}"><caption>{html.escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>{note}{more}"
    )
    if len(frame) > FOLD_ROWS:  # long tables fold away; still in the page (and the DOM)
        return (
            f"<details><summary>{html.escape(caption)} ({len(frame)} rows)</summary>"
            f"{table}</details>"
        )
    return table


def _figure_html(fig_id: str, path: Path, caption: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (
        f'<figure id="fig-{html.escape(fig_id)}"><img alt="{html.escape(caption or fig_id)}" '
        f'src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def write_html(sections: list[Section], path, *, title: str, subtitle: str = "") -> None:
    """Write the report page: a title, a table of contents, then every section."""
    toc = "".join(f'<li><a href="#{s.key}">{html.escape(s.title)}</a></li>' for s in sections)
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1><p class='meta'>{html.escape(subtitle)}</p>",
        f"<nav><ul>{toc}</ul></nav>",
    ]
    for s in sections:
        parts.append(f'<section id="{html.escape(s.key)}"><h2>{html.escape(s.title)}</h2>')
        if s.text:
            parts.append(f"<p>{html.escape(s.text)}</p>")
        for line in s.notes:
            parts.append(f'<p class="note">{html.escape(line)}</p>')
        if s.html:
            parts.append(f'<div class="table-box">{s.html}</div>')
        for name, png in s.figures.items():
            parts.append(_figure_html(name, png, s.captions.get(name, "")))
        for name, frame in s.tables.items():
            parts.append(
                _table_html(name, s.captions.get(name, column_title(name)), frame, s.preview_rows)
            )
        parts.append("</section>")
    # lets a headless browser confirm that every embedded figure decoded
    parts.append(
        "<script>window.addEventListener('load',function(){var i=document.images,n=0;"
        "for(var k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0){n++;}}"
        "document.body.setAttribute('data-figures-decoded',String(n));});</script>"
    )
    parts.append("</body></html>")
    Path(path).write_text("\n".join(parts), encoding="utf-8")
