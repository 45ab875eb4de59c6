"""Words users know: the package, the docs and the README cite papers by author and year
(docs/references.md), never by the project's internal names for them ("seed 000", the internal
"methods-spec" file), which users do not have."""

from __future__ import annotations

import re

import pytest

from tests.helpers import ROOT

INTERNAL = re.compile(r"seed 00\d|methods-spec|methods spec", re.IGNORECASE)
FILES = sorted(
    [ROOT / "README.md", ROOT / "DEVELOPING.md"]
    + [p for p in (ROOT / "docs").rglob("*") if p.suffix in {".md", ".html", ".txt", ".py"}]
    + list((ROOT / "pdireval").rglob("*.py"))
)


def test_the_scan_covers_the_package_and_the_docs():
    names = {p.relative_to(ROOT).as_posix() for p in FILES}
    assert {"README.md", "docs/index.md", "docs/references.md", "pdireval/__init__.py"} <= names
    assert len([n for n in names if n.startswith("pdireval/")]) > 30


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_internal_names_for_papers(path):
    text = path.read_text(encoding="utf-8")
    hits = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for m in INTERNAL.finditer(text)
    ]
    assert not hits, (
        "cite papers by author and year (see docs/references.md), not by internal names:\n"
        + "\n".join(hits)
    )


def test_references_page_has_every_anchor_the_docs_link_to():
    page = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', page))
    linked = set()
    for path in (ROOT / "docs").rglob("*.md"):
        if path.name == "references.md":
            continue
        linked |= set(re.findall(r"references\.md#([\w-]+)", path.read_text(encoding="utf-8")))
    assert linked, "no page links to a reference"
    assert linked <= anchors, f"links to missing references: {sorted(linked - anchors)}"
