"""``pdireval trec_eval`` against the trec_eval 9.0.8 and 10.0 binaries built from ../shared/oracles.

The whole output must be the binary's, byte for byte, with the same exit status: trec_eval's
own ``make quicktest`` command lines (each version's, in the matching mode), ``-q -m all_trec``
on the Robust 2003 runs and on generated runs with score ties, and the options one by one.
The binaries are the session fixtures ``te9`` / ``te10`` (``conftest.py``: built from
``../shared/oracles``, skipped with the reason when impossible); tests taking them are marked
slow automatically and run in CI's second step. The tests without a binary run by default.
"""

from __future__ import annotations

import gzip
import io
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.cli import main
from pdireval.treceval import command, getopt

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def theirs(binary: str, *argv, cwd=None):
    done = subprocess.run([binary, *map(str, argv)], capture_output=True, text=True, timeout=120, cwd=cwd)
    return done.stdout, done.returncode


def ours(*argv, capsys=None):
    buffer = io.StringIO()
    status = command([str(a) for a in argv], stdout=buffer)
    return buffer.getvalue(), status


def assert_same(binary: str, *argv, v10=False, cwd=None):
    """The whole output and the exit status equal the binary's."""
    mine = ours(*(("--v10",) if v10 else ()), *argv)
    reference = theirs(binary, *argv, cwd=cwd)
    if mine != reference:
        a, b = mine[0].splitlines(), reference[0].splitlines()
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        raise AssertionError(
            f"status {mine[1]} vs {reference[1]}; {len(a)} vs {len(b)} lines; first difference at "
            f"line {first}: {a[first] if first < len(a) else None!r} vs {b[first] if first < len(b) else None!r}")
    return mine[0]


# --------------------------------------------------------------------------- quicktest


def quicktest_lines(binary: str) -> list[tuple[list[str], str]]:
    """The ``make quicktest`` commands of the binary's Makefile: (arguments, expected file)."""
    makefile = Path(binary).parent / "Makefile"
    text = makefile.read_text()
    block = text.split("quicktest: trec_eval", 1)[1].split("\n\n", 1)[0]
    out = []
    for line in block.splitlines():
        match = re.match(r"\s*\./trec_eval (.*?)\s*\|\s*diff - (\S+)", line)
        if match:
            out.append((match.group(1).split(), match.group(2)))
    return out


def _quicktest(binary, v10, monkeypatch):
    folder = Path(binary).parent
    monkeypatch.chdir(folder)
    lines = quicktest_lines(binary)
    assert len(lines) == (15 if v10 else 11)
    for argv, expected in lines:
        mine = assert_same(binary, *argv, v10=v10, cwd=folder)
        assert mine == (folder / expected).read_text()
    return len(lines)


def test_quicktest_9(te9, monkeypatch, capsys):
    assert _quicktest(te9, False, monkeypatch) == 11
    assert capsys.readouterr().err == ""


def test_quicktest_10(te10, monkeypatch, capsys):
    assert _quicktest(te10, True, monkeypatch) == 15
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------- real runs


@pytest.fixture(scope="session")
def robust(tmp_path_factory):
    """Robust 2003: the qrels and the 17 runs uncompressed (trec_eval reads plain files)."""
    folder = DATA / "robust03" / "runs"
    if not folder.exists():
        pytest.skip(f"{folder} is absent: the real-data tests need the project's ../shared folder")
    out = tmp_path_factory.mktemp("robust03")
    runs = {}
    for path in sorted(folder.iterdir()):
        target = out / path.name.removesuffix(".gz")
        with gzip.open(path, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        runs[target.name] = target
    return DATA / "robust03" / "qrels.txt", runs


def test_robust_one_run_all_trec(te9, te10, robust):
    qrels, runs = robust
    run = runs["input.InexpC2"]
    nine = assert_same(te9, "-q", "-m", "all_trec", qrels, run)
    ten = assert_same(te10, "-q", "-m", "all_trec", qrels, run, v10=True)
    assert len(nine.splitlines()) == 9194  # relstring included
    assert "rbp" not in nine and "rbp  " in ten and "unj_5 " in ten


@pytest.mark.slow
@pytest.mark.parametrize("v10", [False, True], ids=["9.0.8", "10.0"])
def test_robust_all_runs_all_trec(te9, te10, robust, v10):
    qrels, runs = robust
    assert len(runs) == 17
    for run in runs.values():
        assert_same(te10 if v10 else te9, "-q", "-m", "all_trec", qrels, run, v10=v10)


@pytest.mark.slow
@pytest.mark.parametrize(
    "flags", [(), ("-c", "-q"), ("-l", "2"), ("-J", "-q"), ("-M", "100", "-q"), ("-n", "-m", "all_trec")],
    ids=lambda f: " ".join(f) or "default")
def test_robust_flags(te9, te10, robust, flags):
    qrels, runs = robust
    for name in ("input.oce03noXbmD", "input.uic0301", "input.Sel50"):
        assert_same(te9, *flags, qrels, runs[name])
        assert_same(te10, *flags, qrels, runs[name], v10=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A simulated collection with score ties, float32-only ties, negative labels, graded
    labels, unjudged documents, a query no run answers and a run query without judgments."""
    folder = tmp_path_factory.mktemp("generated")
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=12, depth=60, score_decimals=1, rng=11)
    one = run[run["system"] == run["system"].iloc[0]].copy()
    one = one[one["query"] != one["query"].iloc[0]]  # a judged query the run does not answer
    near = one.index[::7]  # near-ties: equal as C floats, different as doubles
    one.loc[near, "score"] = 1000.0 + 1e-6 * np.arange(len(near)) % 3
    extra = pd.DataFrame({"system": one["system"].iloc[0], "query": "9999", "doc": ["x1", "x2"], "score": [1.0, 2.0]})
    one = pd.concat([one.drop(columns="rank"), extra], ignore_index=True)
    pdireval.write_run(one, folder / "run.txt")
    pdireval.write_qrels(qrels, folder / "qrels.txt")
    complete = one[one["query"] != "9999"]
    pdireval.write_run(complete, folder / "run-judged.txt")
    return folder / "qrels.txt", folder / "run.txt"


FLAGS = [(), ("-q",), ("-c",), ("-c", "-q"), ("-l", "2"), ("-l", "0"), ("-l", "-1", "-q"), ("-J", "-q"),
         ("-M", "7", "-q"), ("-M", "0", "-q"), ("-J", "-c", "-q"), ("-n", "-q"), ("-N", "5000", "-m", "utility")]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "default")
def test_generated_all_trec_9(te9, generated, flags):
    qrels, run = generated
    assert_same(te9, "-m", "all_trec", *flags, qrels, run)


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "default")
def test_generated_all_trec_10(te10, generated, flags):
    qrels, run = generated
    assert_same(te10, "-m", "all_trec", *flags, qrels, run, v10=True)
    judged = Path(run).with_name("run-judged.txt")
    if "-c" not in flags:  # 10.0 stops at a judged query missing from the run (exit 4)
        assert ours("--v10", "-m", "all_trec", *flags, qrels, judged)[1] == 4


@pytest.mark.parametrize(
    "measures",
    [
        ("-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10,20"),
        ("-m", "P.20,5", "-m", "recip_rank", "-m", "num_q", "-m", "runid"),
        ("-m", "official", "-m", "P.7"),
        ("-m", "P.2.5", "-m", "ndcg_cut.10,20,23.4", "-m", "success.1,3", "-m", "map_cut.5"),
        ("-m", "set",),
        ("-m", "set_F.0.5", "-m", "11pt_avg..25,.5,.75", "-m", "relstring.20"),
        ("-m", "utility.1,-1,0,0", "-N", "1000", "-m", "G.1=3.5", "-m", "ndcg.1=3,2=9", "-m", "Rndcg.2=5"),
        ("-m", "iprec_at_recall..75,.25", "-m", "Rprec_mult.1.5,0.5", "-m", "relative_P.3,40", "-m", "yaap"),
        ("-m", "binG", "-m", "ndcg_rel.1=2,2=1", "-m", "infAP", "-m", "bpref", "-m", "gm_bpref", "-m", "gm_map"),
    ],
    ids=lambda m: " ".join(m[1::2]),
)
def test_generated_measure_specs(te9, te10, generated, measures):
    qrels, run = generated
    for flags in (("-q",), ("-c", "-l", "2")):
        assert_same(te9, *flags, *measures, qrels, run)
        assert_same(te10, *flags, *measures, qrels, run, v10=True)


@pytest.fixture(scope="module")
def generated_jg(generated, tmp_path_factory):
    """Judgment-group qrels: the generated qrels as group 'a', and a second group 'b' that
    disagrees on a third of the labels and misses some documents."""
    qrels_path, run = generated
    lines = Path(qrels_path).read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        q, _it, d, r = line.split()
        out.append(f"{q} a {d} {r}")
        if i % 5 != 4:
            out.append(f"{q} b {d} {(int(r) + 1) % 3 if i % 3 == 0 else r}")
    path = tmp_path_factory.mktemp("jg") / "qrels.jg"
    path.write_text("\n".join(out) + "\n")
    return path, run


@pytest.mark.parametrize("flags", [("-q",), ("-c", "-q"), ("-J", "-q"), ("-M", "5", "-q"), ("-l", "2")],
                         ids=lambda f: " ".join(f))
def test_generated_judgment_groups(te9, te10, generated_jg, flags):
    qrels, run = generated_jg
    argv = ("-R", "qrels_jg", "-m", "qrels_jg", "-m", "P_avgjg.3,8", *flags, qrels, run)
    assert_same(te9, *argv)
    assert_same(te10, *argv, v10=True)
    assert_same(te9, "-R", "qrels_jg", "-m", "map", qrels, run)  # qrels measures: exit 4


def test_generated_10_only_measures(te10, generated):
    qrels, run = generated
    for spec in ("rbp", "rbp.p=0.5", "rbp_resid.p=0.8", "unj.3,50", "dcg", "ideal_dcg.1=2"):
        assert_same(te10, "-q", "-m", spec, qrels, run, v10=True)


# --------------------------------------------------------------------------- options


@pytest.fixture
def small(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 0\n2 0 z 1\n3 0 q 1\n")
    (tmp_path / "run").write_text(
        "1 Q0 a 0 1.00000001 r\n1 Q0 b 1 1.0 r\n1 Q0 x 2 0.5 r\n2 Q0 a 0 7.0000001 r\n2 Q0 z 1 7.0 tag\n")
    return tmp_path


def test_long_options_and_prefixes(te9, small):
    q, r = small / "qrels", small / "run"
    spellings = [
        ("--query_eval_wanted", "--measure", "map", q, r),
        ("--query", "--meas=map", q, r),
        (q, r, "-q", "-mmap"),  # options after the files (GNU getopt permutes)
        ("-qc", "-M1", "--level_for_rel", "2", q, r),
        ("--complete_rel_info_wanted", "--Max_retrieved_per_topic=1", "--nosummary", "-q", q, r),
        ("--Judged_docs_only", "--Number_docs_in_coll", "10", "-m", "utility", q, r),
        ("-o", "--Output_old_results_format", "x", "--Rel_info_format", "qrels", "--Results_format",
         "trec_results", q, r),
        ("-D", "0.2", "-q", q, r),
        ("--Debug_level=0", q, r),
    ]
    for argv in spellings:
        assert_same(te9, *argv)
    assert getopt(["-qcm", "P.5", "--v10", "a", "b"]) == ([("q", None), ("c", None), ("m", "P.5"), ("v10", None)], ["a", "b"])


def test_version_help_usage(te9, te10, small, capsys):
    assert ours("-v") == ("", 0)
    assert capsys.readouterr().err == "trec_eval version 9.0.7\n"  # what 9.0.8's binary prints
    assert ours("--v10", "--version") == ("", 0)
    assert capsys.readouterr().err == "trec_eval version 10.0-rc3\n"
    out, status = ours("-h")
    assert status == 0 and "--Zscore, -Z" in out and "--v10" in out
    for argv in (("-x", small / "qrels", small / "run"), (small / "qrels",), ("-Z",)):
        assert ours(*argv) == ("", 1) == (theirs(te9, *argv)[0], theirs(te9, *argv)[1])
        err = capsys.readouterr().err
        assert err.splitlines()[0].startswith("pdireval trec_eval: ")


def test_refusals_name_the_option(small, capsys):
    q, r = small / "qrels", small / "run"
    cases = {
        ("-D", "1", q, r): (1, "-D 1"),
        ("-M", "-3", q, r): (1, "-M -3"),
        ("-R", "prefs", q, r): (2, "malformed line 1"),
        ("-R", "bogus", q, r): (2, "-R bogus"),
        ("-T", "other", q, r): (2, "-T other"),
        ("-m", "P.0", q, r): (2, "-m P"),
        ("-m", "P.5,5", q, r): (2, "-m P"),
        ("-m", "ndcg.1", q, r): (2, "-m ndcg"),
        ("-m", "P.", q, r): (1, "-m P."),
        ("-Z", small / "none", q, r): (255, "none"),
    }
    for argv, (status, named) in cases.items():
        assert ours(*argv) == ("", status), argv
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and named in err, err


def test_measure_errors_explain(te9, small, capsys):
    q, r = small / "qrels", small / "run"
    assert ours("-m", "rbp", q, r) == ("", 1)
    err = capsys.readouterr().err
    assert "10.0 measure" in err and "--v10" in err and "illegal measure 'rbp'" in err
    assert ours("-m", "ndgc_cut.10", q, r) == ("", 1)
    err = capsys.readouterr().err
    assert "ndgc_cut" in err and "nor a pdireval measure" in err and len(err.splitlines()) == 1
    assert theirs(te9, "-m", "ndgc_cut.10", q, r)[1] == 1


def test_empty_parameters_of_a_measure_of_this_release(small, capsys):
    """Issue 33: ``-m P.`` and ``-m Rprec_mult.`` are 9.0.8 measures with nothing after the
    dot (trec_eval: improper measure in parameter), not "10.0 measures"."""
    q, r = small / "qrels", small / "run"
    for v10 in ((), ("--v10",)):
        for spec, example in (("P.", "P.5,10"), ("Rprec_mult.", "Rprec_mult.0.5,2"),
                              ("ndcg.", "ndcg.1=3,2=9")):
            assert ours(*v10, "-m", spec, q, r) == ("", 1)
            err = capsys.readouterr().err
            assert f"-m {spec}: nothing after the dot" in err and example in err, err
            assert "10.0 measure" not in err and "9.0.8 measure" not in err
            assert f"improper measure in parameter '{spec[:-1]}'" in err
    assert ours("-m", "map.", q, r) == ("", 1)
    assert "map takes no parameters" in capsys.readouterr().err
    assert ours("-m", "official.", q, r) == ("", 1)
    assert "a measure set takes no parameters" in capsys.readouterr().err
    assert ours("-m", "rbp.", q, r) == ("", 1)  # still: a 10.0 measure in 9.0.8 mode
    assert "rbp is a trec_eval 10.0 measure" in capsys.readouterr().err


def test_empty_parameters_exit_as_the_binaries(te9, te10, small):
    q, r = small / "qrels", small / "run"
    for spec in ("P.", "Rprec_mult.", "ndcg.", "map.", "official."):
        assert_same(te9, "-m", spec, q, r)
        assert_same(te10, "-m", spec, q, r, v10=True)
        assert theirs(te9, "-m", spec, q, r)[1] == 1


def test_pdireval_measures_after_trec_eval_ones(te9, small):
    q, r = small / "qrels", small / "run"
    out, status = ours("-q", "-m", "map", "-m", "nDCG(gain=exp)@10", q, r)
    assert status == 0
    lines = out.splitlines()
    reference = theirs(te9, "-q", "-m", "map", q, r)[0].splitlines()
    assert [ln for ln in lines if ln.startswith("map")] == reference
    assert lines[1].startswith("nDCG(gain=exp)@10") and lines[-1].startswith("nDCG(gain=exp)@10")


def test_edge_outputs(te9, te10, small, tmp_path):
    q, r = small / "qrels", small / "run"
    # -J with a query left without judged documents: -nan where trec_eval prints it
    (tmp_path / "unjudged").write_text("1 Q0 a 0 1.0 r\n2 Q0 nope 0 1.0 r\n")
    out = assert_same(te9, "-J", "-q", q, tmp_path / "unjudged")
    assert "iprec_at_recall_0.00  \t2\t  -nan" in out
    assert_same(te10, "-J", "-q", "-m", "all_trec", q, tmp_path / "unjudged", v10=True)
    for argv in (("-M", "0", "-q"), ("-l", "-1", "-q"), ("-l", "0", "-q", "-m", "all_trec"), ("-c", "-q")):
        assert_same(te9, *argv, q, r)
        assert_same(te10, *argv, q, r, v10=True)
    # 10.0 stops (exit 4) at a judged query absent from the run, after the lines before it
    out, status = ours("--v10", "-q", q, r)
    assert (out, status) == theirs(te10, "-q", q, r) and status == 4


def test_input_rules(te9, te10, tmp_path, capsys):
    def files(qrels: str, run: str):
        (tmp_path / "q").write_text(qrels)
        (tmp_path / "r").write_text(run)
        return tmp_path / "q", tmp_path / "r"

    run = "1 Q0 a 0 2 r\n1 Q0 b 0 1 r\n#1 Q0 a 0 1 r\n"
    # '#' query ids: 9.0.8 evaluates them, 10.0 reads them as comments
    q, r = files("#1 0 a 1\n1 0 a 1\n1 0 b 0\n", run)  # (10.0 crashes on a comment as last line)
    assert "\t#1\t" in assert_same(te9, "-q", q, r)
    assert "#1" not in assert_same(te10, "-q", q, r, v10=True)
    # fractional and odd labels read with atol (1.5 -> 1, 2x -> 2, x -> 0)
    q, r = files("1 0 a 1.5\n1 0 b 2x\n1 0 c x\n", "1 Q0 a 0 3 r\n1 Q0 b 0 2 r\n1 Q0 c 0 1 r\n")
    assert_same(te9, "-q", "-m", "all_trec", q, r)
    assert_same(te10, "-q", "-m", "all_trec", q, r, v10=True)
    # blank qrels lines, a line with three fields, a duplicate qrels pair, a duplicate document
    for qrels, run_text in (("1 0 a 1\n\n1 0 b 0\n", run), ("1 0 a 1\n1 0 b\n", run),
                            ("1 0 a 1\n1 0 a 0\n", run), ("1 0 a 1\n", "1 Q0 a 0 1 r\n1 Q0 a 0 2 r\n"),
                            ("1 0 a 1\n", "1 Q0 a 0 r\n")):
        q, r = files(qrels, run_text)
        mine = ours(q, r)
        assert mine == theirs(te9, q, r), (qrels, run_text)
        assert mine[1] != 0
        assert len(capsys.readouterr().err.splitlines()) == 1
    # blank run lines are skipped
    q, r = files("1 0 a 1\n", "\n1 Q0 a 0 1 r\n  \n")
    assert_same(te9, "-q", q, r)


def test_zscores(te9, te10, small, tmp_path):
    # (trec_eval's binary search reads one entry past the end: 'zzz' rows keep it inside)
    (tmp_path / "z").write_text("1 map 0.5 0.25\n1 P_5 0.1 0\n1 zzz 0 1\n2 map 0.2 0.1\n2 num_ret 2 1\n"
                                "2 zzz 0 1\n9 zzz 0 1\n")
    q, r = small / "qrels", small / "run"
    assert_same(te9, "-q", "-Z", tmp_path / "z", "-m", "map", "-m", "P.5", "-m", "num_ret", q, r)
    assert_same(te10, "-q", "-Z", tmp_path / "z", "-m", "all_trec", q, r, v10=True)


def test_score_and_file_rules_as_the_binaries(te9, te10, small, tmp_path, capsys):
    """Issue 33: hexadecimal scores read as atof reads them, scores above the float32 range
    tied at infinity in 9.0.8 mode without a numpy warning, the -Z file's failures exit 255,
    '-' as QRELS is a file name (exit 2 when there is none), as in both binaries."""
    q = small / "qrels"
    (tmp_path / "hex").write_text(
        "1 Q0 a 0 0x1p1 r\n1 Q0 b 0 0x10 r\n1 Q0 c 0 3 r\n1 Q0 x 0 0X.8P1 r\n"
        "2 Q0 a 0 1e39 r\n2 Q0 z 0 2e39 r\n2 Q0 y 0 3.5e38 r\n2 Q0 w 0 -1e40 r\n"
    )
    run = tmp_path / "hex"
    for binary, v10 in ((te9, False), (te10, True)):
        assert_same(binary, "-q", "-m", "relstring", "-m", "map", q, run, v10=v10)
    assert "\trec_eval" not in capsys.readouterr().err  # (no RuntimeWarning either: -W error)
    # hexadecimal scores 2, 16, 3 and 1: b (16), c (3), a (2), x (1)
    assert "'021-" in ours("-q", "-m", "relstring", q, run)[0]
    (tmp_path / "empty").write_text("")
    (tmp_path / "short").write_text("1 map 0.5\n")
    r = small / "run"
    for z in (tmp_path / "none", tmp_path / "empty", tmp_path / "short"):
        for binary, v10 in ((te9, False), (te10, True)):
            assert assert_same(binary, "-Z", z, q, r, v10=v10) == ""
            assert theirs(binary, "-Z", z, q, r)[1] == 255
        assert "z-scores file" in capsys.readouterr().err
    for binary, v10 in ((te9, False), (te10, True)):
        assert_same(binary, "-", r, v10=v10, cwd=tmp_path)
        assert theirs(binary, "-", r, cwd=tmp_path)[1] == 2
    assert "the qrels file '-'" in capsys.readouterr().err


def test_file_rules_without_the_binaries(small, tmp_path, monkeypatch, capsys):
    """What the binaries do (test above) checked by value: '-' as QRELS is not standard
    input, -Z failures exit 255, hexadecimal and huge scores read as atof reads them."""
    q, r = small / "qrels", small / "run"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(Path(q).read_bytes())))
    assert ours("-", r) == ("", 2)
    assert "cannot read the qrels file '-'" in capsys.readouterr().err
    (tmp_path / "-").write_bytes(Path(q).read_bytes())  # a file named '-' is read
    assert ours("-", r) == ours(q, r)
    for z in ("none", "empty"):
        (tmp_path / "empty").write_text("")
        assert ours("-Z", tmp_path / z, q, r) == ("", 255)
    (tmp_path / "hex").write_text("1 Q0 a 0 0x1p1 r\n1 Q0 b 0 0x10 r\n1 Q0 c 0 3 r\n"
                                  "2 Q0 a 0 1e39 r\n2 Q0 z 0 2e39 r\n")
    out = ours("-q", "-m", "relstring", q, tmp_path / "hex")[0]
    assert "relstring             \t1\t'021'" in out  # b (16), c (3), a (2)
    # 9.0.8: 1e39 and 2e39 are both infinite as C floats, tied: z before a (docno descending)
    assert "relstring             \t2\t'10'" in out
    ten = ours("--v10", "-q", "-m", "relstring", q, tmp_path / "hex")[0]
    assert "relstring             \t2\t'10'" in ten


def test_nan_scores_are_refused(small, tmp_path, capsys):
    """A score that reads as NaN: trec_eval ranks its document wherever qsort leaves it
    (undefined); the command refuses the line, naming the file and the line."""
    q = small / "qrels"
    for text, line in (("1 Q0 a 0 1 r\n1 Q0 b 0 nan r\n", 2),
                       ("1 Q0 a 0 1 r\n\n2 Q0 z 0 -NaN r x\n", 3),  # slow reader
                       ("1 Q0 a 0 1 r\n1 Q0 b 0 nan(0x1) r\n", 2)):
        (tmp_path / "r").write_text(text)
        for v10 in ((), ("--v10",)):
            assert ours(*v10, q, tmp_path / "r") == ("", 2)
            err = capsys.readouterr().err
            assert f"results file '{tmp_path / 'r'}': line {line} has the score" in err
            assert len(err.splitlines()) == 1


def test_a_huge_label_is_a_clear_error(small, tmp_path, capsys):
    """A qrels label of 3e9: trec_eval sizes a table of counts by the largest label (both
    binaries run out of memory); the command names the query, the label and the limit."""
    (tmp_path / "q").write_text("1 0 a 3000000000\n1 0 b 0\n2 0 z 1\n")
    for v10 in ((), ("--v10",)):
        assert ours(*v10, "-m", "map", tmp_path / "q", small / "run") == ("", 2)
        err = capsys.readouterr().err
        assert "query 1 has the label 3000000000" in err and "33,554,432" in err
    (tmp_path / "q").write_text("1 0 a 99999999999999999999999\n")  # atol saturates
    assert ours(tmp_path / "q", small / "run") == ("", 2)
    assert "label 9223372036854775807" in capsys.readouterr().err


def test_stdin_and_cli_entry(te9, small, monkeypatch, capsys):
    q, r = small / "qrels", small / "run"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(Path(r).read_bytes())))
    assert ours(q, "-")[0] == ours(q, r)[0]
    assert main(["trec_eval", "-m", "map", str(q), str(r)]) == 0
    assert capsys.readouterr().out == theirs(te9, "-m", "map", q, r)[0]


def test_command_starts_without_pandas():
    """The installed command path imports numpy, never pandas (trec_eval's start-up)."""
    probe = ("import sys; sys.argv = ['pdireval', 'trec_eval', '-v']; import pdireval.cli; "
             "from pdireval.trec import trec_engine; print('pandas' in sys.modules)")
    done = subprocess.run([__import__("sys").executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_engine_agrees_with_evaluate(generated):
    """The command's transcription of trec_eval and pdireval's own measures (the registry
    kernels behind :func:`pdireval.evaluate`) give the same per-query numbers wherever both
    have the measure."""
    import warnings

    qrels_path, run_path = generated
    pairs = {"map": "AP", "P_10": "P@10", "P_5": "P@5", "ndcg_cut_10": "nDCG@10", "ndcg": "nDCG",
             "recip_rank": "RR", "Rprec": "Rprec", "bpref": "Bpref", "recall_100": "R@100",
             "infAP": "infAP", "success_5": "Success@5", "num_rel_ret": "NumRelRet",
             "num_ret": "NumRet", "num_rel": "NumRel"}
    specs = ["map", "P.5,10", "ndcg_cut.10", "ndcg", "recip_rank", "Rprec", "bpref", "recall.100",
             "infAP", "success.5", "num_rel_ret", "num_ret", "num_rel"]
    out, status = ours("-q", *(a for s in specs for a in ("-m", s)), qrels_path, run_path)
    assert status == 0
    mine = {}
    for line in out.splitlines():
        name, query, value = line.split("\t")
        if query != "all" and name.strip() in pairs:
            mine[(pairs[name.strip()], query)] = value
    run = pdireval.read_run(run_path)
    qrels = pdireval.read_qrels(qrels_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdireval.PdirevalWarning)
        scores = pdireval.evaluate(run, sorted(set(pairs.values())), qrels=qrels, missing="drop")
    theirs_ = {}
    for row in scores.itertuples():
        is_count = row.measure.startswith("Num")
        theirs_[(row.measure, row.query)] = str(int(row.value)) if is_count else f"{row.value:6.4f}"
    assert len(mine) == len(theirs_) > 100
    assert mine == theirs_


def test_the_label_table_limit_is_for_labels_above_255(tmp_path, monkeypatch, capsys):
    """The label-table limit applies to labels above 255 only (however many queries): with
    the limit lowered to 100 entries, three queries with a label 255 (768 entries) evaluate,
    a label 256 is refused."""
    monkeypatch.setattr("pdireval.trec.trec_engine.MAX_LEVEL_TABLE", 100)
    (tmp_path / "r").write_text("".join(f"{i} Q0 d 0 1 r\n" for i in range(3)))
    for top, status in ((255, 0), (256, 2)):
        (tmp_path / "q").write_text("".join(f"{i} 0 d {top if i == 0 else 1}\n" for i in range(3)))
        out, got = ours("-m", "num_rel", tmp_path / "q", tmp_path / "r")
        assert got == status and out == ("num_rel               \tall\t3\n" if status == 0 else "")
    assert "query 0 has the label 256" in capsys.readouterr().err
