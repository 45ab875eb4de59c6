"""The report's HTML in a real browser: no table is wider than the page, on a full collection
and on small ones (headless Chromium; skipped with a reason when no browser is installed)."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

import pdireval
from pdireval.reporting import report
from tests.helpers import assert_report_headers, find_browser

MEASURE = """
<script>window.addEventListener('load',function(){
  var page=document.documentElement.clientWidth, out=[];
  document.querySelectorAll('table').forEach(function(t){
    var box=t.closest('.table-box')||t, r=box.getBoundingClientRect();
    out.push({id:t.id||t.className, right:Math.round(r.right), width:Math.round(r.width),
              scrolls:box!==t && box.scrollWidth>box.clientWidth});
  });
  document.body.setAttribute('data-layout', JSON.stringify({page:page,
    scroll:document.documentElement.scrollWidth, tables:out}));
});</script>
"""


def _layout(html_path, tmp_path, width):
    page = html_path.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>")
    probe = tmp_path / f"probe-{width}.html"
    probe.write_text(page, encoding="utf-8")
    cmd = [
        find_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}", f"--window-size={width},900",
        "--virtual-time-budget=5000", "--dump-dom", probe.resolve().as_uri(),
    ]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    found = re.search(r"data-layout=\"([^\"]*)\"", dom)
    assert found is not None, "the measuring script did not run in the browser"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=12, depth=30, rng=5)
    out = tmp_path_factory.mktemp("layout")
    return {
        "simulated": report(out=out / "simulated", n_resamples=100, rng=0, progress=False),
        "one system": report(run[run["system"] == "sys01"], qrels=qrels, out=out / "one", n_resamples=50, progress=False),
        "long measure names": report(run, qrels=qrels, measures=["nDCG(gain=exp,discount=jk)@10", "AP", "P@5"],
                                     out=out / "long", n_resamples=50, progress=False),
    }


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 800])
def test_no_table_is_wider_than_the_page(reports, tmp_path, width):
    if find_browser() is None:
        pytest.skip("no Chromium/Chrome installed: the page layout cannot be checked in a real browser")
    for name, rep in reports.items():
        layout = _layout(rep.html, tmp_path, width)
        assert layout["tables"], name
        assert layout["scroll"] <= layout["page"], f"{name}: the page scrolls sideways at {width}px"
        too_wide = [t for t in layout["tables"] if t["right"] > layout["page"]]
        assert not too_wide, f"{name}: tables wider than the {layout['page']}px page: {too_wide}"


@pytest.mark.slow
def test_long_measure_names_abbreviated_on_the_page_same_titles_in_the_workbook(reports):
    pytest.importorskip("openpyxl")
    long = reports["long measure names"]
    assert 'class="legend"' in long.html.read_text(encoding="utf-8")
    for rep in reports.values():
        assert_report_headers(rep)
