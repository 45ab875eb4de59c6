"""`pdireval compare`, `pdireval agreement` and `pdireval fuse`: the same frames as the Python
functions, in every output format."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=12, depth=25, rng=8)
    folder = tmp_path_factory.mktemp("cli-analyses")
    pdireval.write_qrels(qrels, folder / "qrels.txt")
    paths = []
    for system, part in run.groupby("system"):
        paths.append(str(folder / f"{system}.run"))
        pdireval.write_run(part, paths[-1])
    other = qrels.assign(label=np.where(qrels["label"].to_numpy() > 0, 1, 0))
    other.loc[other.index[::7], "label"] = 1 - other.loc[other.index[::7], "label"]
    pdireval.write_qrels(other, folder / "other.txt")
    return {"run": run, "qrels": qrels, "other": other, "runs": paths, "folder": folder,
            "qrels_path": str(folder / "qrels.txt"), "other_path": str(folder / "other.txt")}


def _call(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_compare_csv_json_and_table_equal_the_python_function(files, capsys):
    scores = pdireval.evaluate(files["run"], ["AP"], qrels=files["qrels"])
    want = pdireval.compare(scores, method="t", correction="holm")
    argv = ["compare", *files["runs"], "--qrels", files["qrels_path"], "-m", "AP",
            "--method", "student", "--correction", "holm"]
    code, out, _ = _call([*argv, "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    np.testing.assert_allclose(got["p_adjusted"], want["p_adjusted"], rtol=1e-12)
    assert got["system_a"].tolist() == want["system_a"].tolist()
    code, out, _ = _call([*argv, "--format", "json"], capsys)
    records = json.loads(out)
    assert [r["method"] for r in records] == ["t"] * len(want)
    code, out, _ = _call(argv, capsys)
    assert code == 0 and "p_adjusted" in out.splitlines()[0]
    assert f"{want['p_value'].iloc[0]:.4f}" in out


def test_compare_takes_maxt_and_bayes(files, capsys):
    scores = pdireval.evaluate(files["run"], ["AP"], qrels=files["qrels"])
    argv = ["compare", *files["runs"], "--qrels", files["qrels_path"], "-m", "AP",
            "--format", "csv"]
    want = pdireval.compare(scores, method="t", correction="maxt", n_resamples=500, rng=42)
    code, out, _ = _call([*argv, "--method", "t", "--correction", "maxt", "--resamples", "500"],
                         capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    np.testing.assert_allclose(got["p_adjusted"], want["p_adjusted"], rtol=1e-12)
    assert (got["correction"] == "maxt").all()
    want = pdireval.compare(scores, method="bayes", margin=0.01)
    code, out, _ = _call([*argv, "--method", "bayes", "--margin", "0.01"], capsys)
    got = pd.read_csv(io.StringIO(out))
    np.testing.assert_allclose(got["prob_a_better"], want["prob_a_better"], rtol=1e-12)
    np.testing.assert_allclose(got["prob_rope"], want["prob_rope"], rtol=1e-12)


def test_compare_reads_scores_files(files, capsys, tmp_path):
    scores = pdireval.evaluate(files["run"], ["AP", "P@10"], qrels=files["qrels"])
    pdireval.write_scores(scores, tmp_path / "all.txt", digits=None)
    want = pdireval.compare(scores.assign(measure=scores["measure"].map({"AP": "map",
                                                                          "P@10": "P_10"})),
                            method="t", baseline="sys01")
    code, out, _ = _call(["compare", "--scores", str(tmp_path / "all.txt"), "--method", "t",
                          "--baseline", "sys01", "--format", "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    np.testing.assert_allclose(got["p_value"], want["p_value"], rtol=1e-12)
    code, _, err = _call(["compare", "--scores", str(tmp_path / "all.txt"), "--qrels",
                          str(tmp_path / "all.txt")], capsys)
    assert code == 1 and "not both" in err


def test_agreement_labels_and_leaderboards(files, capsys):
    want = pdireval.agreement(files["qrels"], files["other"], rng=0)
    code, out, _ = _call(["agreement", files["qrels_path"], files["other_path"], "--format",
                          "csv"], capsys)
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    assert list(got.columns) == list(want.columns)
    np.testing.assert_allclose(got.select_dtypes("number"), want.select_dtypes("number"),
                               rtol=1e-12)
    code, out, _ = _call(["agreement", files["qrels_path"], files["other_path"], "--runs",
                          *files["runs"], "-m", "AP", "--format", "json"], capsys)
    both = json.loads(out)
    assert set(both) == {"labels", "leaderboard"}
    run = files["run"]
    lb = pdireval.leaderboard_agreement(pdireval.evaluate(run, ["AP"], qrels=files["qrels"]),
                                        pdireval.evaluate(run, ["AP"], qrels=files["other"]))
    assert [r["statistic"] for r in both["leaderboard"]] == lb["statistic"].tolist()
    code, _, err = _call(["agreement", files["qrels_path"], files["other_path"], "--runs",
                          *files["runs"], "--format", "csv"], capsys)
    assert code == 1 and "--what" in err
    code, out, _ = _call(["agreement", files["qrels_path"], files["other_path"], "--runs",
                          *files["runs"], "-m", "AP"], capsys)
    assert "# labels agreement" in out and "# leaderboard agreement" in out


def test_fuse_writes_the_fused_run(files, capsys, tmp_path):
    want = pdireval.fuse(files["run"], "combmnz", norm="zmuv")
    code, out, _ = _call(["fuse", *files["runs"], "--method", "combmnz", "--norm", "zmuv"],
                         capsys)
    assert code == 0
    (tmp_path / "fused.run").write_text(out)
    got = pdireval.read_run(tmp_path / "fused.run")
    key = ["query", "doc"]
    merged = got.merge(want, on=key, suffixes=("_got", "_want"))
    assert len(merged) == len(want) == len(got)
    np.testing.assert_allclose(merged["score_got"], merged["score_want"], rtol=1e-15)
    code, _, err = _call(["fuse", *files["runs"], "--out", str(tmp_path / "f.run.gz")], capsys)
    assert code == 0 and "wrote" in err
    assert len(pdireval.read_run(tmp_path / "f.run.gz")) == len(pdireval.fuse(files["run"]))
    weights = {"sys01": 0.2, "sys02": 0.5, "sys03": 0.3}
    code, out, _ = _call(["fuse", *files["runs"], "--method", "rrf", "--format", "csv",
                          *sum((["--weight", f"{k}={v}"] for k, v in weights.items()), [])],
                         capsys)
    # the digits as text, converted by Python's correctly rounded float(): pandas 2.2's CSV
    # parser can be 1 ulp off them
    got = pd.read_csv(io.StringIO(out), dtype={"query": str, "doc": str, "score": str})
    got["score"] = np.array([float(v) for v in got["score"]])
    want = pdireval.fuse(files["run"], "rrf", weights=weights)
    np.testing.assert_allclose(got["score"], want["score"], rtol=1e-15)
    code, _, err = _call(["fuse", *files["runs"], "--weight", "sys01"], capsys)
    assert code == 1 and "SYSTEM=NUMBER" in err


def test_compare_scores_takes_m_to_pick_measures(tmp_path, capsys):
    """-m with --scores picks the files' measures, as written or in another spelling (an
    all_trec file holds dozens); a name the files lack is an error that lists what they hold."""
    from pdireval.cli import main

    for system, shift in (("a", 0.0), ("b", 0.05)):
        lines = [f"runid\tall\t{system}"]
        for m in ("map", "P_10", "num_rel"):
            lines += [f"{m}\t{q}\t{0.1 * q + shift * (q % 2):.4f}" for q in (1, 2, 3)]
            lines.append(f"{m}\tall\t0.2000")
        (tmp_path / f"{system}.txt").write_text("\n".join(lines) + "\n")
    files = ["--scores", str(tmp_path / "a.txt"), "--scores", str(tmp_path / "b.txt")]
    assert main(["compare", *files, "--method", "t", "-m", "AP", "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[1].startswith("map,")  # one pair of one measure: map as AP
    assert main(["compare", *files, "--method", "t", "-m", "ERR@20"]) != 0
    err = capsys.readouterr().err
    assert "-m ERR@20: no such measure in the --scores files, which hold map, P_10, num_rel" in err
