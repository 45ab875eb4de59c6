"""The report: workbook numbers equal the frames; the HTML page works in a real browser."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.reporting import report
from tests.helpers import assert_report_headers, find_browser


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
        # the headers are the frame's columns (issue 28: they were display titles), so a sheet
        # read back with pandas has the frame's column names
        assert list(rows[0]) == [str(c) for c in frame.columns], name
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


@pytest.mark.slow  # over 3 s; CI's second step runs it
def test_report_does_not_modify_inputs(tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=20, rng=2)
    run0, qrels0 = run.copy(deep=True), qrels.copy(deep=True)
    report(run, qrels=qrels, out=tmp_path, n_resamples=50, progress=False)
    pd.testing.assert_frame_equal(run, run0)
    pd.testing.assert_frame_equal(qrels, qrels0)


def test_html_page_in_headless_browser(simulated_report):
    browser = find_browser()
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


def _edge_cases():
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=10, depth=30, rng=5)
    one = run[run["system"] == "sys01"]
    return {
        "one system": (one, qrels, None),
        "two systems": (run[run["system"].isin(["sys01", "sys02"])], qrels, None),
        "one measure": (run, qrels, ["AP"]),
        "two queries": (run[run["query"].isin(["1", "2"])], qrels[qrels["query"].isin(["1", "2"])], None),
        "tied system means": (pd.concat([one, one.assign(system="sys01b"), one.assign(system="sys01c")]), qrels, None),
        "no relevant document": (run, qrels.assign(label=0), None),
    }


@pytest.mark.slow
@pytest.mark.parametrize("case", list(_edge_cases()))
def test_small_and_odd_collections_explain_every_section(case, tmp_path):
    run, qrels, measures = _edge_cases()[case]
    kwargs = {"measures": measures} if measures else {}
    r = report(run, qrels=qrels, out=tmp_path, n_resamples=60, progress=False, **kwargs)
    keys = [s.key for s in r.sections]
    assert keys == ["systems", "uncertainty", "per-query", "bounds", "power", "correlations", "reliability", "stability", "information"]
    for s in r.sections:
        assert s.tables or s.figures or s.notes, f"{case}: section {s.key} shows nothing and says nothing"
        for name, frame in s.tables.items():
            assert len(frame) > 0, f"{case}: {name} is an empty table"
    html = r.html.read_text(encoding="utf-8")
    notes = [n for s in r.sections for n in s.notes]
    if case == "one system":
        assert any("two systems" in n for n in notes) and "systems" in r.tables
    if case in ("two systems", "one system"):
        assert "asl_curves" not in r.figures  # one pair (or none) is not a curve
    if case == "two queries":
        assert "error_rate" not in r.figures and any("four queries" in n for n in notes)
    if case == "no relevant document":
        assert any("same value on every system and query" in n for n in notes)
    import html as html_module

    for n in notes:
        assert html_module.escape(n) in html


def test_paper_table_is_embedded_and_written(simulated_report):
    html = simulated_report.html.read_text(encoding="utf-8")
    assert 'class="paper-table"' in html
    tex = (simulated_report.directory / "paper_table.tex").read_text(encoding="utf-8")
    assert r"\toprule" in tex and r"\bottomrule" in tex
    assert (simulated_report.directory / "paper_table.md").is_file()
    tests = simulated_report.tables["paper_table"]
    assert set(tests["system"]) == set(simulated_report.tables["systems"]["system"])


def test_systems_in_the_systems_table_order_everywhere(simulated_report):
    order = list(simulated_report.tables["systems"]["system"])
    first = simulated_report.tables["systems"].columns[1]
    means = simulated_report.tables["systems"][first].to_numpy()
    assert (np.diff(means) <= 0).all()
    for name in ("summary", "per_query", "bound_means", "paper_table", "ric"):
        systems = list(pd.unique(simulated_report.tables[name]["system"]))
        assert systems == [s for s in order if s in systems], name


def test_svg_twins_on_request(tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=8, depth=20, rng=2)
    r = report(run, qrels=qrels, out=tmp_path, n_resamples=30, progress=False, svg=True)
    assert r.figures and all(p.with_suffix(".svg").is_file() for p in r.figures.values())


def test_default_collection_is_the_cli_evaluate_one(simulated_report):
    from pdireval.datasets import EXAMPLE

    run, qrels = pdireval.datasets.simulate(**EXAMPLE)
    scores = pdireval.evaluate(run, ["nDCG@10"], qrels=qrels).groupby("system")["value"].mean()
    shown = simulated_report.tables["systems"].set_index("system")["nDCG@10"]
    np.testing.assert_allclose(shown.sort_index().to_numpy(), scores.sort_index().to_numpy(), rtol=1e-14, atol=0)
    assert "simulated example collection" in simulated_report.html.read_text(encoding="utf-8")


def test_power_table_shows_sakais_required_difference(simulated_report):
    # the report's one bootstrap (the first seed drawn from rng=0) gives the same estimate as
    # discriminative_power run on its own on the per-query scores
    power = simulated_report.tables["power"]
    assert "required_diff" in power.columns and power["required_diff"].notna().all()
    seed = int(np.random.default_rng(0).integers(0, 2**31 - 1))
    scores = simulated_report.tables["per_query"]
    alone = pdireval.discriminative_power(scores, alpha=0.05, n_resamples=200, rng=seed)
    alone = alone.set_index("measure").loc[power["measure"]]
    np.testing.assert_array_equal(power["required_diff"].to_numpy(), alone["required_diff"].to_numpy())
    np.testing.assert_array_equal(power["n_significant"].to_numpy(), alone["n_significant"].to_numpy())
    assert "Difference required" in simulated_report.html.read_text(encoding="utf-8")


def test_pair_tables_in_the_systems_table_order(simulated_report):
    # the simulated collection's Systems order (by mean) is not the names' order, so sorting by
    # name would fail here
    order = list(simulated_report.tables["systems"]["system"])
    assert order != sorted(order)
    pos = {s: i for i, s in enumerate(order)}
    measures = list(simulated_report.tables["systems"].columns[1:])
    by = {"asl_curve": "p_value", "information_difference": "information_difference"}
    for name, value in by.items():
        frame = simulated_report.tables[name]
        a, b = frame["system_a"].map(pos), frame["system_b"].map(pos)
        assert (a < b).all(), f"{name}: a pair written against the Systems table's order"
        group = frame["measure"].map(measures.index) if "measure" in frame else pd.Series(0, index=frame.index)
        key = list(zip(group, frame[value], a, b))
        assert key == sorted(key), name
        ranks = frame.groupby(group, sort=False).cumcount() + 1
        assert (frame["rank"] == ranks).all(), name
    # the information difference is symmetric: each row's RICs are those of its own systems
    ric = simulated_report.tables["ric"].set_index("system")["mean"]
    diff = simulated_report.tables["information_difference"]
    np.testing.assert_allclose(diff["ric_a"], diff["system_a"].map(ric), rtol=1e-12)
    np.testing.assert_allclose(diff["ric_b"], diff["system_b"].map(ric), rtol=1e-12)
    for name in ("conflicts", "correlations", "information_tau"):
        frame = simulated_report.tables[name]
        ma, mb = frame["measure_a"].map(measures.index), frame["measure_b"].map(measures.index)
        assert (ma < mb).all(), name
        key = list(zip(ma, mb))
        assert key == sorted(key), name


def test_workbook_headers_one_style_human_titles_same_as_the_page(simulated_report):
    pytest.importorskip("openpyxl")
    assert_report_headers(simulated_report)


def test_reliability_table_shows_phi_e_rho2_and_queries_needed_first(simulated_report):
    """Issue 28: the reliability table had 27 columns with Φ and 'queries needed' behind a
    horizontal scroll; now the measure, then Φ, Eρ² and the queries needed lead, on the page
    and in the workbook."""
    import html as html_module
    import re

    frame = simulated_report.tables["reliability"]
    assert list(frame.columns[:5]) == ["measure", "phi", "e_rho2", "queries_needed", "queries_needed_e_rho2"]
    page = simulated_report.html.read_text(encoding="utf-8")
    head = re.search(r'<table id="tab-reliability">.*?<thead><tr>(.*?)</tr>', page, re.S).group(1)
    shown = [html_module.unescape(t) for t in re.findall(r"<th>(.*?)</th>", head)]
    assert shown[:4] == ["Measure", "Φ (dependability)", "Eρ² (generalizability)", "Queries needed (Φ)"]


def test_the_report_object_prints_short(simulated_report):
    """Printed (and shown in a notebook), a report says what it holds and where it was
    written, in a few lines, not every table it holds."""
    result = simulated_report
    text = repr(result)
    assert text.startswith("<pdireval Report>") and len(text.splitlines()) == 5 and len(text) < 1500
    assert f"written to {result.directory}: report.xlsx, report.html" in text
    assert all(name in text for name in result.tables)
    page = result._repr_html_()
    assert page.startswith("<div><b>pdireval Report</b>") and result.html.as_uri() in page
    assert "<script" not in page and len(page) < 2500


@pytest.mark.slow  # a whole report: about 3 s
def test_report_takes_a_maxt_correction(tmp_path):
    """correction="maxt": the Systems table's p-values against the best are compare()'s
    step-down maxT p-values of the report's one bootstrap, and the captions say so."""
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=12, depth=20, rng=2)
    r = report(run, qrels=qrels, measures=["AP"], out=tmp_path, n_resamples=50, rng=1,
               progress=False, correction="maxt")
    seed = int(np.random.default_rng(1).integers(0, 2**31 - 1))
    tests = pdireval.compare(r.tables["per_query"], method="bootstrap", correction="maxt",
                             n_resamples=50, rng=seed, required_diff_alpha=0.05)
    summary = r.tables["summary"]
    best = summary["best"].iloc[0]
    for row in summary[summary["system"] != best].itertuples(index=False):
        pair = tests[((tests.system_a == row.system) & (tests.system_b == best))
                     | ((tests.system_b == row.system) & (tests.system_a == best))]
        assert row.p_vs_best == pair["p_adjusted"].iloc[0]
    assert "maxT" in r.html.read_text(encoding="utf-8")
    with pytest.raises(pdireval.errors.OptionError, match="correction=None"):
        report(run, qrels=qrels, out=tmp_path / "x", correction=None, progress=False)
