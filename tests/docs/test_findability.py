"""Issue 28, findability: what a newcomer looks for is in a guide, and the docs say what the
code does."""

from __future__ import annotations

import re

from tests.helpers import ROOT


def test_a_guide_shows_the_latex_table_for_a_paper():
    """The LaTeX paper table appeared only in the API page and a docstring."""
    guides = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md") if p.name != "api.md"}
    found = [name for name, text in guides.items()
             if re.search(r"^## A table for your paper\n(?:(?!^## ).)*paper_table\([^`]*format=\"latex\"",
                          text, re.S | re.M)]
    assert found == ["significance.md"]
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "significance.md#a-table-for-your-paper" in index


def test_index_says_svg_figures_are_written_on_request():
    """docs/index.md said the report writes SVG figures; it does so only with svg=True/--svg."""
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "PNG and SVG figures" not in index
    assert "`svg=True`, `--svg`" in index
