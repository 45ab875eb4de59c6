"""The report: workbook numbers equal the frames; the HTML page works in a real browser."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.reporting import report


@pytest.fixture(scope="module")
def simulated_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    return report(out=out, n_resamples=200, rng=0, progress=False)


def test_report_writes_workbook_html_and_figures(simulated_report):
    r = simulated_report
    assert r.workbook.is_file() and r.html.is_file()
    for png in r.figures.values():
        assert png.is_file() and not png.with_suffix(".svg").exists()
    assert {"systems", "summary", "per_query"} <= set(r.tables)


def test_workbook_holds_the_frames_numbers(simulated_report):
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.load_workbook(simulated_report.workbook)
    sheets = {ws.title: ws for ws in wb.worksheets}
    for name, frame in simulated_report.tables.items():
        ws = sheets[name[:31]]
        rows = list(ws.iter_rows(values_only=True))
        assert len(rows) == len(frame) + 1, name
        body = pd.DataFrame(rows[1:], columns=list(frame.columns))
        for col in frame.columns:
            expected = frame[col]
            got = body[col]
            if pd.api.types.is_numeric_dtype(expected) and not pd.api.types.is_bool_dtype(expected):
                exp = expected.to_numpy(dtype=float)
                val = np.array([np.inf if v == "inf" else -np.inf if v == "-inf" else (np.nan if v is None else v) for v in got], dtype=float)
                # Excel stores 15-16 significant digits: equal to that precision
                np.testing.assert_allclose(val, exp, rtol=1e-14, atol=0, err_msg=f"{name}.{col}")
            else:
                assert [("" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)) for v in got.astype(object)] == [("" if pd.isna(v) else str(v)) for v in expected], f"{name}.{col}"
        assert ws.freeze_panes == "A2"
    wb.close()


def test_report_is_reproducible(tmp_path):
    a = report(out=tmp_path / "a", n_resamples=100, rng=3, progress=False)
    b = report(out=tmp_path / "b", n_resamples=100, rng=3, progress=False)
    for name in a.tables:
        pd.testing.assert_frame_equal(a.tables[name], b.tables[name])


def test_report_does_not_modify_inputs(tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=20, rng=2)
    run0, qrels0 = run.copy(deep=True), qrels.copy(deep=True)
    report(run, qrels=qrels, out=tmp_path, n_resamples=50, progress=False)
    pd.testing.assert_frame_equal(run, run0)
    pd.testing.assert_frame_equal(qrels, qrels0)


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_html_page_in_headless_browser(simulated_report):
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium/Chrome installed: the HTML page cannot be checked in a real browser")
    cmd = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={simulated_report.directory / 'chromium-profile'}",
        "--virtual-time-budget=5000", "--dump-dom", simulated_report.html.resolve().as_uri(),
    ]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    assert "<html" in dom, "the browser rendered nothing"
    for section in simulated_report.sections:
        assert f'id="{section.key}"' in dom
        for name in section.tables:
            assert f'id="tab-{name}"' in dom, name
        for name in section.figures:
            assert f'id="fig-{name}"' in dom, name
    decoded = re.search(r'data-figures-decoded="(\d+)"', dom)
    assert decoded is not None, "the page's load script did not run"
    assert int(decoded.group(1)) == len(simulated_report.figures)


def test_cli_report_on_simulated_collection(tmp_path, capsys):
    from pdireval.cli import main

    assert main(["report", "--out", str(tmp_path / "r"), "--resamples", "100", "--no-progress"]) == 0
    out = capsys.readouterr()
    assert "simulated collection" in out.err
    assert (tmp_path / "r" / "report.xlsx").is_file() and (tmp_path / "r" / "report.html").is_file()


def test_cli_report_bad_input_exits_1_with_one_line(tmp_path, capsys):
    from pdireval.cli import main

    assert main(["report", str(tmp_path / "missing.run"), "--qrels", str(tmp_path / "q.txt"), "--out", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pdireval: error:")
    assert main(["report", "-m", "nDGC@10", "--out", str(tmp_path / "r")]) == 1
    assert "Did you mean" in capsys.readouterr().err
