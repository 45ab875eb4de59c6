"""The ``pdireval`` command line, in-process through ``main([...])`` and once as a process."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.cli import DEFAULT_MEASURES, SIMULATED, build_parser, main
from tests.helpers import ROOT, shared_path


@pytest.fixture
def files(tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=20, rng=5)
    pdireval.write_run(run, tmp_path / "all.txt")
    folder = tmp_path / "runs"
    folder.mkdir()
    for system, part in run.groupby("system"):
        pdireval.write_run(part, folder / f"{system}.gz")
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    return {"run": run, "qrels": qrels, "file": tmp_path / "all.txt", "folder": folder, "qrels_file": tmp_path / "qrels.txt"}


def call(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def parse_table(text):
    """trec_eval-like lines -> {system: {(measure, query): value}}."""
    result, system = {}, None
    for line in text.splitlines():
        measure, query, value = (part.strip() for part in line.split("\t"))
        if measure == "runid":
            system = value
            result[system] = {}
        else:
            result[system][(measure, query)] = float(value)
    return result


def test_table_matches_evaluate(files, capsys):
    status, out, err = call(capsys, "evaluate", files["file"], "--qrels", files["qrels_file"], "-m", "nDCG@10", "-m", "map")
    assert status == 0 and err == ""
    table = parse_table(out)
    expected = pdireval.aggregate(pdireval.evaluate(files["run"], ["nDCG@10", "AP"], qrels=files["qrels"]))
    assert sorted(table) == ["sys01", "sys02", "sys03"]
    shown = {"nDCG@10": "nDCG@10", "AP": "map"}
    for row in expected.itertuples():
        assert table[row.system][(shown[row.measure], "all")] == pytest.approx(row.mean, abs=5e-5)
        assert table[row.system][("num_q", "all")] == 6
    # trec_eval's alias 'map' is printed as given (issue 28: names come back as given); 4 decimals
    assert "\nmap " in out and "\nAP " not in out
    assert all(len(line.split("\t")[2].split(".")[-1]) == 4 for line in out.splitlines() if line.split("\t")[0].strip() in ("map", "nDCG@10"))


def test_folder_per_query_and_csv(files, capsys):
    status, out, _ = call(capsys, "evaluate", files["folder"], "--qrels", files["qrels_file"], "-m", "P@5", "--per-query", "--format", "csv", "--system", "filename")
    assert status == 0
    frame = pd.read_csv(io.StringIO(out), dtype={"query": str})
    expected = pdireval.evaluate(files["run"], "P@5", qrels=files["qrels"])
    assert list(frame.columns) == ["system", "query", "measure", "value"]
    assert frame["system"].tolist() == expected["system"].tolist()  # file names sys01.gz -> sys01
    np.testing.assert_array_equal(frame["value"].to_numpy(), expected["value"].to_numpy())  # full precision


def test_per_query_table_lists_queries_then_all(files, capsys):
    _, out, _ = call(capsys, "evaluate", files["file"], "--qrels", files["qrels_file"], "-m", "RR", "--per-query")
    block = [line.split("\t") for line in out.splitlines()][:9]
    assert [q for _, q, _ in block] == ["all", "all", "1", "2", "3", "4", "5", "6", "all"]
    assert [m.strip() for m, _, _ in block][2:] == ["RR"] * 7


def test_json_summary_and_several_run_files(files, tmp_path, capsys):
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    run = files["run"]
    pdireval.write_run(run[run["system"] == "sys01"], one)
    pdireval.write_run(run[run["system"] == "sys02"], two)
    status, out, _ = call(capsys, "evaluate", one, two, "--qrels", files["qrels_file"], "-m", "AP", "--format", "json")
    assert status == 0
    records = json.loads(out)
    assert [r["system"] for r in records] == ["sys01", "sys02"]
    assert set(records[0]) == {"system", "measure", "mean", "std", "n_queries", "summary"}
    expected = pdireval.aggregate(pdireval.evaluate(run[run["system"] != "sys03"], "AP", qrels=files["qrels"]))
    assert [r["mean"] for r in records] == pytest.approx(expected["mean"].tolist(), rel=1e-14)


def test_missing_drop(tmp_path, capsys):
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": ["1", "2"], "doc": ["a", "c"], "label": [1, 1]})
    pdireval.write_run(run, tmp_path / "r.txt")
    pdireval.write_qrels(qrels, tmp_path / "q.txt")
    args = ["evaluate", tmp_path / "r.txt", "--qrels", tmp_path / "q.txt", "-m", "AP"]
    zero = parse_table(call(capsys, *args)[1])["s"]
    drop = parse_table(call(capsys, *args, "--missing", "drop")[1])["s"]
    assert zero[("AP", "all")] == 0.5 and zero[("num_q", "all")] == 2
    assert drop[("AP", "all")] == 1.0 and drop[("num_q", "all")] == 1


def test_simulated_collection_when_no_input(capsys):
    status, out, err = call(capsys, "evaluate")
    assert status == 0
    assert "simulated collection" in err and "rng=42" in err
    table = parse_table(out)
    assert len(table) == SIMULATED["n_systems"]
    assert [m for m, q in next(iter(table.values())) if q == "all"] == ["num_q", *DEFAULT_MEASURES]
    run, qrels = pdireval.datasets.simulate(**SIMULATED)
    expected = pdireval.aggregate(pdireval.evaluate(run, DEFAULT_MEASURES, qrels=qrels))
    for row in expected.itertuples():
        assert table[row.system][(row.measure, "all")] == pytest.approx(row.mean, abs=5e-5)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["evaluate", "nope.txt", "--qrels", "nope.qrels"], "nope.txt: no such run file or folder"),
        (["evaluate", "{file}"], "no --qrels given"),
        (["evaluate", "--qrels", "{qrels}"], "no RUN"),
        (["evaluate", "{file}", "--qrels", "{file}"], "line 1: malformed qrels line: too many fields (6)"),
        (["evaluate", "{file}", "--qrels", "{qrels}", "-m", "nDGC@10"], "unknown measure 'nDGC'"),
        (["evaluate", "-m", "P@0"], "cut-off"),
    ],
)
def test_bad_input_exits_1_with_one_line(files, capsys, argv, fragment):
    argv = [a.format(file=files["file"], qrels=files["qrels_file"]) for a in argv]
    status, out, err = call(capsys, *argv)
    assert status == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pdireval: error: "), err
    assert fragment in lines[0]


def test_multi_line_errors_keep_first_and_last_line(tmp_path, capsys):
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 t\n")
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 a 2\n")
    status, _, err = call(capsys, "evaluate", tmp_path / "r.txt", "--qrels", tmp_path / "q.txt")
    assert status == 1 and len(err.strip().splitlines()) == 1
    assert "more than one label" in err and "decide which label is right" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["evaluate", "--format", "xml"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    assert "SUBCOMMAND" in capsys.readouterr().err


def test_help_is_useful(capsys):
    with pytest.raises(SystemExit) as info:
        main(["evaluate", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for fragment in ("RUN_OR_DIR", "--qrels", "--measure", "--per-query", "--format", "--missing", "simulated", "examples:"):
        assert fragment in text
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "evaluate" in capsys.readouterr().out


def test_adding_a_subcommand_is_one_function(monkeypatch, capsys):
    from pdireval import cli

    def add_hello(subparsers):
        p = subparsers.add_parser("hello", help="say hello")
        p.add_argument("name")
        p.set_defaults(func=lambda args: print(f"hello {args.name}") or 0)

    monkeypatch.setattr(cli, "SUBCOMMANDS", [*cli.SUBCOMMANDS, add_hello])
    assert main(["hello", "world"]) == 0
    assert capsys.readouterr().out == "hello world\n"
    assert "evaluate" in build_parser().format_help()


def test_robust03_first_run(capsys):
    runs = shared_path("robust03", "runs")
    status, out, _ = call(capsys, "evaluate", runs / "input.Sel50.gz", "--qrels", runs.parent / "qrels.txt", "-m", "map", "--missing", "drop")
    assert status == 0
    table = parse_table(out)["Sel50"]
    assert table[("num_q", "all")] == 100
    assert 0 < table[("map", "all")] < 1


def test_python_dash_m_in_a_subprocess(files):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ok = subprocess.run(
        [sys.executable, "-m", "pdireval.cli", "evaluate", str(files["file"]), "--qrels", str(files["qrels_file"]), "-m", "P@10"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.splitlines()[0].split("\t")[2] == "sys01"
    bad = subprocess.run(
        [sys.executable, "-m", "pdireval.cli", "evaluate", "missing.txt", "--qrels", "missing.txt"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
    )
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == ["pdireval: error: missing.txt: no such run file or folder."]


def test_warnings_are_one_line_on_stderr(files, tmp_path, capsys):
    qrels = files["qrels"]
    pdireval.write_qrels(qrels[qrels["query"] != "6"], tmp_path / "fewer.txt")
    status, out, err = call(capsys, "evaluate", files["file"], "--qrels", tmp_path / "fewer.txt", "-m", "AP")
    assert status == 0 and "runid" in out
    assert err.strip().splitlines() == ["pdireval: warning: 1 run query has no judgments and is not evaluated (e.g. ['6'])."]


def test_evaluate_sums_counts_and_says_how_many_pairs_it_filled(capsys, tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=4, depth=10, rng=2)
    run = run[run["query"] != "1"]  # a judged query the run does not answer
    pdireval.write_run(run, tmp_path / "run.txt")
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    status, out, err = call(capsys, "evaluate", tmp_path / "run.txt", "--qrels", tmp_path / "qrels.txt", "-m", "NumRet", "-m", "AP")
    assert status == 0
    assert err.count("\n") == 1 and "--missing zero: 1 (system, query) pair" in err  # one line
    numret = [line for line in out.splitlines() if line.startswith("NumRet") and "\tall\t" in line]
    assert numret[0].endswith(f"\t{len(run)}")  # trec_eval sums counts (as an integer)


def test_two_run_files_with_one_tag_name_both_files(capsys, tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=3, depth=5, rng=2)
    pdireval.write_run(run, tmp_path / "a.txt")
    pdireval.write_run(run, tmp_path / "b.txt")
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    status, _, err = call(capsys, "evaluate", tmp_path / "a.txt", tmp_path / "b.txt", "--qrels", tmp_path / "qrels.txt")
    assert status == 1
    assert "a.txt" in err and "b.txt" in err and "--system filename" in err
    status, out, _ = call(capsys, "evaluate", tmp_path / "a.txt", tmp_path / "b.txt", "--qrels", tmp_path / "qrels.txt", "--system", "filename")
    assert status == 0
    assert {line.split("\t")[2] for line in out.splitlines() if line.startswith("runid")} == {"a", "b"}


# --------------------------------------------------------------------------- float32 ties (issue 28)


@pytest.mark.slow
def test_robust_evaluate_warns_only_when_a_printed_value_depends_on_a_float32_tie(capsys):
    """Robust 2003 holds 1,458 scores that differ as doubles but tie at float32 in 123 lists.
    They change AP on 13 queries by about 1e-6 and nDCG@10, P@10, RR nowhere: the default
    table (means to 4 decimals) prints no warning; full-precision csv means do change, and get
    one short warning whose advice is this command's own option."""
    runs, qrels = shared_path("robust03", "runs"), shared_path("robust03", "qrels.txt")
    status, table, err = call(capsys, "evaluate", runs, "--qrels", qrels)
    assert status == 0 and err == ""
    status, _, err = call(capsys, "evaluate", runs, "--qrels", qrels, "-m", "AP", "-m", "nDCG@10", "--per-query")
    assert status == 0 and err == ""  # per-query values to 4 decimals do not change either
    status, _, err = call(capsys, "evaluate", runs, "--qrels", qrels, "-m", "AP", "-m", "nDCG@10", "--format", "csv")
    lines = err.splitlines()
    assert status == 0 and len(lines) == 1 and len(err) < 450
    assert lines[0].startswith("pdireval: warning: 2 of 34 printed means (AP: 2) differ")
    assert "--score-precision float32 keeps 9.0.8's numbers, --score-precision float64 gives" in lines[0]
    status, exact, err = call(capsys, "evaluate", runs, "--qrels", qrels, "-m", "AP", "-m", "nDCG@10",
                              "--format", "csv", "--score-precision", "float64")
    assert status == 0 and err == "" and exact != table


def test_score_precision_option_orders_near_ties_by_score(tmp_path, capsys):
    """--score-precision float64 compares doubles (trec_eval 10.0); the default float32 ties
    1.00000001 and 1.0 (trec_eval 9) and, since that changes the printed RR, says so once."""
    pd.DataFrame({"query": ["1"], "it": "0", "doc": ["a"], "label": [1]}).to_csv(
        tmp_path / "qrels.txt", sep=" ", header=False, index=False)
    (tmp_path / "run.txt").write_text("1 Q0 a 1 1.00000001 s\n1 Q0 b 2 1.0 s\n")
    base = ["evaluate", tmp_path / "run.txt", "--qrels", tmp_path / "qrels.txt", "-m", "RR"]
    status, out, err = call(capsys, *base)
    assert status == 0 and parse_table(out)["s"][("RR", "all")] == 0.5
    assert err.startswith("pdireval: warning: 1 of 1 printed means (RR: 1) differ") and len(err.splitlines()) == 1
    assert "RR 0.5 (1 as doubles)" in err and "--score-precision float64" in err
    status, out, err = call(capsys, *base, "--score-precision", "float64")
    assert status == 0 and err == "" and parse_table(out)["s"][("RR", "all")] == 1.0
    assert build_parser().parse_args(["report", "--score-precision", "float64"]).score_precision == "float64"


def test_trec_eval_10_gives_evaluates_numbers(files, capsys):
    """--trec-eval 10 is evaluate(trec_eval="10"): 10.0's interpolated precision and the
    measures only 10.0 has, the same per-query values as the Python API; --trec-eval 9.0.8
    refuses those with the Python API's message (naming --trec-eval 10) and exit status 1."""
    only_10 = ["rbp", "unj_5"]
    common = ["11pt_avg", "iprec_at_recall_0.10", "map"]

    def evaluate(measures, *version):
        argv = ["evaluate", files["file"], "--qrels", files["qrels_file"], "--per-query", "--format", "csv"]
        return call(capsys, *argv, *[a for m in measures for a in ("-m", m)], *version)

    for version, measures in [("10", common + only_10), (None, common + only_10), ("9.0.8", common)]:
        status, out, err = evaluate(measures, *([] if version is None else ["--trec-eval", version]))
        assert status == 0 and err == ""
        # values as text, converted by Python's correctly rounded float() (pandas 2.2's CSV
        # parser can be 1 ulp off)
        got = pd.read_csv(io.StringIO(out), dtype={"query": str, "value": str})
        expected = pdireval.evaluate(files["run"], measures, qrels=files["qrels"], trec_eval=version)
        assert got["measure"].tolist() == expected["measure"].tolist()
        assert got["query"].tolist() == expected["query"].astype(str).tolist()
        np.testing.assert_array_equal([float(v) for v in got["value"]], expected["value"].to_numpy())
    ten = pdireval.evaluate(files["run"], ["11pt_avg"], qrels=files["qrels"], trec_eval="10")["value"]
    nine = pdireval.evaluate(files["run"], ["11pt_avg"], qrels=files["qrels"])["value"]
    assert (ten.to_numpy() != nine.to_numpy()).any()  # the option changes numbers
    status, out, err = evaluate(common + only_10, "--trec-eval", "9.0.8")
    with pytest.raises(pdireval.MeasureError) as expected_error:
        pdireval.evaluate(files["run"], common + only_10, qrels=files["qrels"], trec_eval="9.0.8")
    assert status == 1 and out == ""
    # the Python API's message, its advice worded with the command's option (issue 33)
    python = str(expected_error.value)
    assert "trec_eval='10'" in python and "leave trec_eval unset" in python
    assert err == "pdireval: error: " + python.replace("trec_eval='10'", "--trec-eval 10").replace(
        "leave trec_eval unset", "leave --trec-eval out") + "\n"
    assert "'rbp'" in err and "trec_eval 9.0.8 does not have" in err and "trec_eval='" not in err


def test_trec_eval_10_compares_doubles_unless_score_precision_says_otherwise(tmp_path, capsys):
    pd.DataFrame({"query": ["1"], "it": "0", "doc": ["a"], "label": [1]}).to_csv(
        tmp_path / "qrels.txt", sep=" ", header=False, index=False)
    (tmp_path / "run.txt").write_text("1 Q0 a 1 1.00000001 s\n1 Q0 b 2 1.0 s\n")
    base = ["evaluate", tmp_path / "run.txt", "--qrels", tmp_path / "qrels.txt", "-m", "RR"]
    status, out, err = call(capsys, *base, "--trec-eval", "10")
    assert status == 0 and err == "" and parse_table(out)["s"][("RR", "all")] == 1.0
    status, out, err = call(capsys, *base, "--trec-eval", "10", "--score-precision", "float32")
    assert status == 0 and parse_table(out)["s"][("RR", "all")] == 0.5
    assert err == ""  # a precision chosen: nothing to warn about
    status, out, err = call(capsys, *base, "--trec-eval", "9.0.8")
    assert status == 0 and parse_table(out)["s"][("RR", "all")] == 0.5 and "--score-precision float64" in err
    with pytest.raises(SystemExit) as info:  # a release pdireval does not reproduce: usage error
        main([str(a) for a in [*base, "--trec-eval", "11"]])
    assert info.value.code == 2
    capsys.readouterr()


def test_warnings_name_the_commands_options(tmp_path, capsys):
    """Advice worded for the Python API (missing='drop') reaches the command line as its
    option (--missing drop)."""
    (tmp_path / "q").write_text("a 0 x 1\nb 0 y 1\n")
    (tmp_path / "r").write_text("a Q0 x 1 1 t\n")
    assert main(["evaluate", str(tmp_path / "r"), "--qrels", str(tmp_path / "q"), "-m", "AP"]) == 0
    err = capsys.readouterr().err
    assert "Pass --missing drop to leave them out" in err and "missing='drop'" not in err
