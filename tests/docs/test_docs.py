"""Every ```python block of README.md and docs/*.md runs, and prints what the page shows.

The blocks of one file run in order in one namespace, from the repository root. A python
block followed directly by a ```text block must print exactly that text (trailing
whitespace aside), so the outputs pasted in the docs stay true. A file that reads
``../shared`` is skipped with a reason when that folder is absent. A file holding the marker
``<!-- slow -->`` is marked slow.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re

import matplotlib
import pytest

from tests.docs.claims import CLAIMS, normalise
from tests.helpers import ROOT

FILES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
#: the top-level modules a page's code imports
IMPORTED = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", re.M)
BLOCK = re.compile(r"^```python\n(.*?)^```\s*\n+(?:```text\n(.*?)^```)?", re.S | re.M)


def _params():
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        if not BLOCK.search(text):
            continue
        marks = [pytest.mark.slow] if "<!-- slow -->" in text else []
        yield pytest.param(path, id=str(path.relative_to(ROOT)), marks=marks)


@pytest.mark.parametrize("path", list(_params()))
def test_code_blocks_run_and_print_what_the_page_shows(path, monkeypatch, tmp_path):
    text = path.read_text(encoding="utf-8")
    if "../shared" in text and not (ROOT.parent / "shared").exists():
        pytest.skip("this page reads ../shared, which is absent")
    code = "\n".join(m.group(1) for m in BLOCK.finditer(text))
    absent = sorted({m for m in IMPORTED.findall(code) if importlib.util.find_spec(m) is None})
    if absent:  # an optional oracle (lightgbm, ranx, ...) of the test group not installed here
        pytest.skip(f"this page imports {', '.join(absent)}, which is not installed")
    matplotlib.use("Agg")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PDIREVAL_DOCS_TMP", str(tmp_path))
    namespace: dict = {"__name__": "__docs__"}
    claims = list(CLAIMS.get(path.name, []))
    prose = normalise(text)
    for claim in claims:  # the sentence the check stands for is on the page, word for word
        assert normalise(claim.sentence) in prose, f"{path.name}: the claim {claim.sentence!r} is no longer on the page"
    for number, match in enumerate(BLOCK.finditer(text), start=1):
        code, shown = match.group(1), match.group(2)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(code, f"{path.name}[block {number}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the failure is the report
            raise AssertionError(f"{path.name}, code block {number} failed: {exc!r}\n{code}") from exc
        if shown is not None:
            got = "\n".join(line.rstrip() for line in printed.getvalue().rstrip().splitlines())
            want = "\n".join(line.rstrip() for line in shown.rstrip().splitlines())
            assert got == want, f"{path.name}, code block {number} printed something else than the page shows"
        for claim in [c for c in claims if c.after in code]:  # prose claims, recomputed from the page's results
            assert claim.check(namespace), f"{path.name}: the page's results contradict its sentence {claim.sentence!r}"
            claims.remove(claim)
    assert not claims, f"{path.name}: no code block holds {[c.after for c in claims]} any more (claims unchecked)"
    import matplotlib.pyplot as plt

    plt.close("all")
    assert os.getcwd() == str(ROOT)
