"""The self-contained HTML page of a report: tables and figures together, no external files.

Figures are embedded as base64 PNG data URIs, so the single .html file can be mailed or
archived. Every section is a ``<section id="...">``, every table a ``<table id="tab-...">``
and every figure a ``<figure id="fig-...">`` so a browser test can find them. Numbers are
rounded for display only (4 significant decimals); the workbook keeps full precision.
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

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:72rem;color:#222;line-height:1.45}
h1{font-size:1.7rem;margin-bottom:.2rem} h2{border-bottom:2px solid #ddd;padding-bottom:.2rem;margin-top:2.5rem}
nav ul{columns:3;list-style:none;padding:0} nav a{text-decoration:none}
table{border-collapse:collapse;margin:.8rem 0;font-size:.85rem} caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border:1px solid #ddd;padding:.25rem .55rem} th{background:#f4f4f4;position:sticky;top:0}
td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{display:inline-block;margin:.6rem 1rem .6rem 0;vertical-align:top} figure img{max-width:34rem;border:1px solid #eee}
figcaption{font-size:.85rem;color:#555;max-width:34rem} .note{color:#555;font-size:.9rem} .meta{color:#666}
details{margin:.5rem 0}
"""


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


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (float, np.floating)):
        if np.isinf(value):
            return "∞" if value > 0 else "−∞"
        return f"{value:.4f}"
    return html.escape(str(value))


def _table_html(table_id: str, caption: str, frame: pd.DataFrame, limit: int) -> str:
    shown = frame.head(limit)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns]
    head = "".join(f"<th>{html.escape(column_title(str(c)))}</th>" for c in frame.columns)
    rows = []
    for row in shown.itertuples(index=False, name=None):
        cells = "".join(
            f'<td class="num">{_fmt(v)}</td>' if num else f"<td>{_fmt(v)}</td>" for v, num in zip(row, numeric)
        )
        rows.append(f"<tr>{cells}</tr>")
    more = ""
    if len(frame) > limit:
        more = f'<p class="note">First {limit} of {len(frame)} rows; the workbook has them all.</p>'
    table = (
        f'<table id="tab-{html.escape(table_id)}"><caption>{html.escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{more}"
    )
    if len(frame) > FOLD_ROWS:  # long tables fold away; still in the page (and the DOM)
        return f"<details><summary>{html.escape(caption)} ({len(frame)} rows)</summary>{table}</details>"
    return table


def _figure_html(fig_id: str, path: Path, caption: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (
        f'<figure id="fig-{html.escape(fig_id)}"><img alt="{html.escape(caption or fig_id)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}</figcaption></figure>'
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
        for name, png in s.figures.items():
            parts.append(_figure_html(name, png, s.captions.get(name, "")))
        for name, frame in s.tables.items():
            parts.append(_table_html(name, s.captions.get(name, column_title(name)), frame, s.preview_rows))
        parts.append("</section>")
    # lets a headless browser confirm that every embedded figure decoded
    parts.append(
        "<script>window.addEventListener('load',function(){var i=document.images,n=0;"
        "for(var k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0){n++;}}"
        "document.body.setAttribute('data-figures-decoded',String(n));});</script>"
    )
    parts.append("</body></html>")
    Path(path).write_text("\n".join(parts), encoding="utf-8")
