"""pdireval.measures(): a DataFrame that prints readably, one block per measure, every row
with its formula and its reference."""

from __future__ import annotations

import pandas as pd

import pdireval


def test_console_print_shows_every_measure_without_elision():
    frame = pdireval.measures()
    assert isinstance(frame, pd.DataFrame)
    text = repr(frame)
    assert "..." not in text
    lines = text.splitlines()
    heads = [line.split("  [")[0] for line in lines if line and not line.startswith(" ") and "  [cut-off" in line]
    assert heads == list(frame["measure"])  # one block per measure, in the frame's order
    assert str(frame) == text
    # wrapped to the console's width: no line longer, nothing elided, at 80 and 200 columns
    for width, limit in ((80, 80), (200, 200), (100, 100)):
        wrapped = frame.to_text(width)
        assert "..." not in wrapped
        assert max(len(line) for line in wrapped.splitlines()) <= limit, width
        assert [line.split("  [")[0] for line in wrapped.splitlines() if "  [cut-off" in line and not line.startswith(" ")] == list(frame["measure"])
    # in a notebook: the whole table, no cell cut short
    html = frame._repr_html_()
    assert "..." not in html and all(row.description in html.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">") for row in frame.itertuples())
    # a selection is an ordinary frame, printed the ordinary way
    part = frame[frame["measure"] == "AP"]
    assert type(part) is pd.DataFrame and "  [cut-off" not in repr(part)


def test_every_row_states_a_formula_and_a_reference():
    frame = pdireval.measures()
    for row in frame.itertuples(index=False):
        assert row.citation.strip(), row.measure
        assert any(sym in row.description for sym in ("=", "/", "Σ", "·", "min(", "ln(", "|")), (row.measure, row.description)
        assert "seed 0" not in row.citation and "methods-spec" not in row.citation, row.measure


def test_console_print_follows_the_terminal_width():
    import subprocess
    import sys

    for columns, limit in (("80", 80), ("200", 120)):
        done = subprocess.run(
            [sys.executable, "-c", "import pdireval; print(pdireval.measures())"],
            capture_output=True, text=True, check=True, env={**__import__("os").environ, "COLUMNS": columns},
        )
        lines = done.stdout.splitlines()
        assert "..." not in done.stdout
        assert max(len(line) for line in lines) <= limit
        assert max(len(line) for line in lines) > limit - 10  # the width is used, not a fixed narrow one
