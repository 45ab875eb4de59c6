"""Qrels of several judges: reading them, evaluating per judge and averaged over judges
(trec_eval 10.0's judgment-group measures, checked per query against the binary), and the
agreement of every pair of judges in one call."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError, SchemaError

ROOT = Path(__file__).resolve().parents[1]
ORACLES = ROOT.parent / "shared" / "oracles"
MEASURES = ["AP", "P@5", "P@10", "nDCG@10", "RR", "Rprec"]


def _judges(seed: int = 3, n_systems: int = 4, n_queries: int = 8):
    """A simulated run, its qrels (judge "a") and two noisy judges; judge "c" skips a query."""
    run, qrels = pdireval.datasets.simulate(n_systems=n_systems, n_queries=n_queries, depth=30,
                                            rng=seed)
    gen = np.random.default_rng(seed)
    noisy = [qrels.assign(label=np.clip(qrels["label"] + gen.integers(-1, 2, len(qrels)), 0, 2))
             for _ in range(2)]
    first = qrels["query"].iloc[0]
    noisy[1] = noisy[1][noisy[1]["query"] != first]
    multi = pd.concat([qrels.assign(judge="a"), noisy[0].assign(judge="b"),
                       noisy[1].assign(judge="c")], ignore_index=True)
    return run, {"a": qrels, "b": noisy[0], "c": noisy[1]}, multi


# --------------------------------------------------------------------------- reading


def test_read_qrels_one_judge_per_file_and_qrels_jg(tmp_path):
    _, parts, multi = _judges()
    paths = {}
    for name, q in parts.items():
        paths[name] = tmp_path / f"{name}.qrels.txt"
        pdireval.write_qrels(q, paths[name])
    by_list = pdireval.read_qrels([paths[j] for j in "abc"])
    by_dict = pdireval.read_qrels({"x": paths["a"], "y": paths["b"]})
    assert list(by_list.columns) == ["query", "judge", "doc", "label"]
    assert sorted(by_list["judge"].unique()) == ["a", "b", "c"]
    assert sorted(by_dict["judge"].unique()) == ["x", "y"]
    expected = pdireval.read_qrels(paths["b"])
    got = by_list[by_list["judge"] == "b"].drop(columns="judge").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected)
    # trec_eval's qrels_jg format: the second field names the judge
    jg = tmp_path / "jg.txt"
    canonical = pdireval.read_qrels([paths[j] for j in "abc"])
    with jg.open("w") as f:
        for q, j, d, lab in canonical.itertuples(index=False):
            f.write(f"{q} {j} {d} {int(lab)}\n")
    pd.testing.assert_frame_equal(pdireval.read_qrels(jg, judges=True), canonical)


def test_read_qrels_judges_errors(tmp_path):
    _, parts, _ = _judges()
    one = tmp_path / "a"
    one.mkdir()
    two = tmp_path / "b"
    two.mkdir()
    pdireval.write_qrels(parts["a"], one / "qrels.txt")
    pdireval.write_qrels(parts["b"], two / "qrels.txt")
    with pytest.raises(OptionError, match="same judge name 'qrels'"):
        pdireval.read_qrels([one / "qrels.txt", two / "qrels.txt"])
    with pytest.raises(OptionError, match="empty list"):
        pdireval.read_qrels([])
    with pytest.raises(OptionError, match="subtopics=True and judges=True"):
        pdireval.read_qrels(one / "qrels.txt", subtopics=True, judges=True)


def test_same_label_twice_for_one_judge_is_still_a_conflict():
    frame = pd.DataFrame({"query": ["1", "1"], "judge": ["a", "a"], "doc": ["d", "d"],
                          "label": [0, 1]})
    with pytest.raises(SchemaError, match=r"\(query, judge, doc\) triple"):
        pdireval.evaluate(pd.DataFrame({"query": ["1"], "doc": ["d"], "score": [1.0]}),
                          "AP", qrels=frame)


# --------------------------------------------------------------------------- evaluate


def test_each_judge_equals_evaluating_its_qrels_alone():
    run, parts, multi = _judges()
    with pytest.warns(pdireval.PdirevalWarning):  # judge c: the skipped query is not judged
        singles = {j: pdireval.evaluate(run, MEASURES, qrels=q) for j, q in parts.items()}
    each = pdireval.evaluate(run, MEASURES, qrels=multi.sample(frac=1.0, random_state=1))
    assert list(each.columns) == ["judge", "system", "query", "measure", "value"]
    assert list(pd.unique(each["judge"])) == ["a", "b", "c"]
    for j, ref in singles.items():
        got = each[each["judge"] == j].drop(columns="judge").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, ref)


def test_mean_over_judges_is_the_mean_of_the_judges_who_judged_the_query():
    run, parts, multi = _judges()
    mean = pdireval.evaluate(run, MEASURES, qrels=multi, judges="mean")
    assert list(mean.columns) == ["system", "query", "measure", "value"]
    with pytest.warns(pdireval.PdirevalWarning):
        stacked = pd.concat([pdireval.evaluate(run, MEASURES, qrels=q) for q in parts.values()])
    # independent: a pandas groupby over the separately evaluated judges
    expected = stacked.groupby(["system", "query", "measure"], observed=True)["value"].mean()
    got = mean.set_index(["system", "query", "measure"])["value"]
    pd.testing.assert_series_equal(got.sort_index(), expected.sort_index(), check_names=False)
    # the row order is evaluate's: judge a judged every query
    order = pdireval.evaluate(run, MEASURES, qrels=parts["a"])
    pd.testing.assert_frame_equal(mean[["system", "query", "measure"]],
                                  order[["system", "query", "measure"]])
    first = parts["a"]["query"].iloc[0]
    row = mean[(mean["query"] == first) & (mean["measure"] == "AP")]
    two = stacked[(stacked["query"] == first) & (stacked["measure"] == "AP")]
    assert np.allclose(row["value"].to_numpy(),
                       two.groupby("system")["value"].mean().to_numpy())


def test_one_judge_column_is_plain_qrels():
    run, parts, _ = _judges()
    alone = pdireval.evaluate(run, "AP", qrels=parts["a"])
    tagged = pdireval.evaluate(run, "AP", qrels=parts["a"].assign(judge="a"))
    pd.testing.assert_frame_equal(alone, tagged)
    pd.testing.assert_frame_equal(alone, pdireval.evaluate(run, "AP", qrels=parts["a"],
                                                           judges="mean"))


def test_functions_of_one_judgment_set_refuse_several_judges():
    run, _, multi = _judges()
    with pytest.raises(SchemaError, match="(?s)judgments of 3 judges.*judges='each' or 'mean'"):
        pdireval.bounds(run, "nDCG@10", qrels=multi)
    with pytest.raises(OptionError, match="judges"):
        pdireval.evaluate(run, "AP", qrels=multi, judges="median")


# --------------------------------------------------------------------------- trec_eval 10.0


def _avgjg(binary: str, qrels_path: Path, run_path: Path) -> pd.DataFrame:
    """trec_eval 10.0 ``-q -R qrels_jg -m qrels_jg`` per-query lines as (name, query, value)."""
    done = subprocess.run([binary, "-q", "-R", "qrels_jg", "-m", "qrels_jg", str(qrels_path),
                           str(run_path)], capture_output=True, text=True, check=True)
    rows = []
    for line in done.stdout.splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        if query != "all" and name != "runid":
            rows.append((name, query, float(value)))
    return pd.DataFrame(rows, columns=["name", "query", "value"])


#: trec_eval 10.0's judgment-group measure -> the pdireval measure averaged over judges
AVGJG = {"map_avgjg": "AP", **{f"P_avgjg_{k}": f"P@{k}" for k in (5, 10, 15, 20, 30, 100)},
         **{f"Rprec_mult_avgjg_{x:.2f}": f"Rprec_mult@{x:g}" for x in (0.2, 0.6, 1.0, 1.4, 2.0)}}


def _compare(binary, run, qrels_jg_path: Path, run_path: Path):
    qrels = pdireval.read_qrels(qrels_jg_path, judges=True)
    ours = pdireval.evaluate(run, sorted(set(AVGJG.values())), qrels=qrels, judges="mean",
                             missing="drop", score_precision="float64")
    theirs = _avgjg(binary, qrels_jg_path, run_path)
    theirs = theirs[theirs["name"].isin(AVGJG)]
    assert set(theirs["name"]) == set(AVGJG)
    theirs = theirs.assign(measure=theirs["name"].map(AVGJG))
    merged = theirs.merge(ours, on=["query", "measure"], how="left", suffixes=("_te", ""))
    assert merged["value"].notna().all()
    # trec_eval prints 4 decimals
    assert np.abs(merged["value"].to_numpy() - merged["value_te"].to_numpy()).max() <= 5e-5 + 1e-12
    return len(merged)


def test_judges_mean_equals_trec_eval_10_avgjg_on_its_test_files(te10, tmp_path):
    with tarfile.open(ORACLES / "trec_eval-10.0.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    test = next(tmp_path.glob("*/test"))
    run = pdireval.read_run(test / "results.test")
    n = _compare(te10, run, test / "qrels.123", test / "results.test")
    assert n == 3 * len(AVGJG)  # queries 301, 302, 303


def test_judges_mean_equals_trec_eval_10_avgjg_on_random_judges(te10, tmp_path):
    gen = np.random.default_rng(7)
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=12, depth=60, rng=7)
    run = run.assign(score=gen.permutation(len(run)) / 7.0 + 1.0)  # distinct scores
    rows = []
    for j in range(3):
        labels = np.clip(qrels["label"].to_numpy() + gen.integers(-1, 2, len(qrels)), 0, 3)
        keep = gen.random(len(qrels)) < 0.8
        part = qrels.assign(label=labels, judge=f"j{j}")[keep]
        if j == 2:  # judge j2 judges half of the queries only
            part = part[part["query"].isin(qrels["query"].unique()[::2])]
        rows.append(part)
    multi = pd.concat(rows, ignore_index=True)
    qpath = tmp_path / "qrels_jg.txt"
    with qpath.open("w") as f:
        for q, d, lab, j in multi[["query", "doc", "label", "judge"]].itertuples(index=False):
            f.write(f"{q} {j} {d} {int(lab)}\n")
    rpath = tmp_path / "run.txt"
    with rpath.open("w") as f:
        for q, d, s in run[["query", "doc", "score"]].itertuples(index=False):
            f.write(f"{q} Q0 {d} 0 {s!r} sys\n")
    n = _compare(te10, pdireval.read_run(rpath), qpath, rpath)
    assert n == 12 * len(AVGJG)


# --------------------------------------------------------------------------- every pair of judges


def test_agreement_of_every_pair_of_judges_equals_the_pairwise_calls():
    _, parts, multi = _judges()
    table = pdireval.agreement(multi, n_resamples=20, rng=0)
    assert list(table.columns[:3]) == ["judge_a", "judge_b", "statistic"]
    pairs = list(dict.fromkeys(zip(table["judge_a"], table["judge_b"])))
    assert pairs == [("a", "b"), ("a", "c"), ("b", "c")]
    for a, b in pairs:
        got = table[(table["judge_a"] == a) & (table["judge_b"] == b)]
        ref = pdireval.agreement(parts[a], parts[b], n_resamples=0)
        assert np.allclose(got["value"].to_numpy(), ref["value"].to_numpy(), equal_nan=True)
        assert (got["n_pairs"].to_numpy() == ref["n_pairs"].to_numpy()).all()


def test_agreement_refuses_a_judge_column_on_one_side_only():
    _, parts, multi = _judges()
    with pytest.raises(SchemaError, match="3 judges"):
        pdireval.agreement(multi.drop(columns=[]), parts["a"].rename(columns={}), n_resamples=0)
    with pytest.raises(SchemaError, match="several judges"):
        pdireval.agreement(parts["a"], n_resamples=0)


def test_leaderboard_agreement_of_every_pair_of_judges():
    run, parts, multi = _judges(n_systems=5)
    scores = pdireval.evaluate(run, ["AP", "nDCG@10"], qrels=multi)
    table = pdireval.leaderboard_agreement(scores)
    assert list(table.columns[:4]) == ["judge_a", "judge_b", "measure_a", "measure_b"]
    assert (table["measure_a"] == table["measure_b"]).all()
    for (a, b), got in table.groupby(["judge_a", "judge_b"], observed=True):
        sa = scores[scores["judge"] == a].drop(columns="judge")
        sb = scores[scores["judge"] == b].drop(columns="judge")
        ref = pdireval.leaderboard_agreement(sa, sb)
        assert np.allclose(got["value"].to_numpy(), ref["value"].to_numpy(), equal_nan=True)
    # per-judge leaderboards: aggregate keeps the judge as a grouping key
    board = pdireval.aggregate(scores)
    assert set(board["judge"]) == {"a", "b", "c"}
