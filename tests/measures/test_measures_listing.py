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
    assert max(len(line) for line in lines[1:]) <= 100
    assert str(frame) == text
    # a selection is an ordinary frame, printed the ordinary way
    part = frame[frame["measure"] == "AP"]
    assert type(part) is pd.DataFrame and "  [cut-off" not in repr(part)


def test_every_row_states_a_formula_and_a_reference():
    frame = pdireval.measures()
    for row in frame.itertuples(index=False):
        assert row.citation.strip(), row.measure
        assert any(sym in row.description for sym in ("=", "/", "Σ", ":")), (row.measure, row.description)
        assert "seed 0" not in row.citation and "methods-spec" not in row.citation, row.measure
