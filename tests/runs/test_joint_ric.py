"""Joint RIC and information difference (Golbus & Aslam 2013, Section 6–7) against the
direct plug-in MI over enumerated ordered pairs (oracle in tests/helpers.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pdireval
import pdireval.runs.joint_ric as info
from pdireval.errors import PdirevalError, SchemaError
from tests.helpers import EXAMPLE, direct_joint_ric, direct_ric, frames, random_ric_case


def test_worked_example_joint_and_difference():
    run, qrels = frames({"s1": list("bcuad"), "s2": list("aeb")}, EXAMPLE)
    joint = pdireval.joint_ric(run, qrels=qrels)
    assert joint["query"].tolist() == ["1", "all"]
    assert joint["systems"].iloc[0] == "s1,s2"
    assert joint["joint_ric"].iloc[0] == pytest.approx(1.0, abs=1e-12)
    assert joint["n_pairs"].iloc[0] == 16.0
    diff = pdireval.information_difference(run, qrels=qrels)
    row = diff.iloc[0]
    assert (row.system_a, row.system_b) == ("s1", "s2")
    assert row.information_difference == pytest.approx(0.9870746190, abs=1e-10)
    assert row.ric_a == pytest.approx(0.0129253810, abs=1e-10)
    assert row.joint_ric == pytest.approx(1.0, abs=1e-12)


def _random_collection(rng, n_queries, n_systems):
    runs, qrels, cases = [], [], {}
    for q in range(n_queries):
        _, labels = random_ric_case(rng)
        pool = list(labels) + [f"x{i}" for i in range(3)]
        rankings = {f"s{s}": list(rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))]) for s in range(n_systems)}
        run, qr = frames(rankings, labels, query=str(q))
        runs.append(run)
        qrels.append(qr)
        cases[str(q)] = (rankings, labels)
    return pd.concat(runs, ignore_index=True), pd.concat(qrels, ignore_index=True), cases


@pytest.mark.parametrize("chunk", [None, 3])
def test_joint_ric_equals_direct_mle(monkeypatch, chunk):
    if chunk is not None:
        monkeypatch.setattr(info, "PAIR_CELLS", chunk)  # one query per chunk
    rng = np.random.default_rng(21)
    run, qrels, cases = _random_collection(rng, 40, 4)
    groups = [["s0", "s1", "s2", "s3"], ["s2"], ["s3", "s0"]]
    out = pdireval.joint_ric(run, qrels=qrels, systems=groups)
    assert out["systems"].unique().tolist() == ["s0,s1,s2,s3", "s2", "s0,s3"]
    checked = 0
    for row in out[out["query"] != "all"].itertuples():
        rankings, labels = cases[row.query]
        names = row.systems.split(",")
        if not any(labels[a] != labels[b] for a in labels for b in labels if not (math.isnan(labels[a]) or math.isnan(labels[b]))):
            assert math.isnan(row.joint_ric)
            continue
        expected = direct_joint_ric([rankings[s] for s in names], labels)
        assert row.joint_ric == pytest.approx(expected, abs=1e-12), row
        checked += 1
    assert checked > 60
    means = out[out["query"] == "all"].set_index("systems")["joint_ric"]
    per_q = out[out["query"] != "all"].groupby("systems")["joint_ric"].mean()
    for k, v in per_q.items():
        assert means[k] == pytest.approx(v, abs=1e-15)


def test_joint_ric_bounds_and_single_system_equals_ric():
    rng = np.random.default_rng(5)
    run, qrels, _ = _random_collection(rng, 30, 3)
    ric = pdireval.evaluate(run, "RIC", qrels=qrels, missing="drop")
    singles = pdireval.joint_ric(run, qrels=qrels, systems=[["s0"], ["s1"], ["s2"]])
    singles = singles[singles["query"] != "all"]
    merged = ric.merge(singles.rename(columns={"systems": "system"}), on=["system", "query"])
    np.testing.assert_allclose(merged["value"], merged["joint_ric"], atol=1e-12)
    joint = pdireval.joint_ric(run, qrels=qrels)
    joint = joint[joint["query"] != "all"].set_index("query")["joint_ric"]
    best = ric.groupby("query")["value"].max()
    ok = best.notna()
    assert (joint[best.index[ok]] >= best[ok] - 1e-12).all()
    assert (joint.dropna() <= 1.0 + 1e-12).all()


@pytest.mark.parametrize("chunk", [None, 2])
def test_information_difference_matches_oracle_and_chain_rule(monkeypatch, chunk):
    if chunk is not None:
        monkeypatch.setattr(info, "PAIR_CELLS", chunk)
    rng = np.random.default_rng(33)
    run, qrels, cases = _random_collection(rng, 25, 4)
    out = pdireval.information_difference(run, qrels=qrels)
    assert list(out.columns) == ["system_a", "system_b", "query", "information_difference", "joint_ric", "ric_a", "ric_b"]
    per_q = out[out["query"] != "all"]
    assert len(per_q) == 6 * 25
    for row in per_q.itertuples():
        rankings, labels = cases[row.query]
        if math.isnan(row.joint_ric):
            continue
        ra, rb = rankings[row.system_a], rankings[row.system_b]
        joint = direct_joint_ric([ra, rb], labels)
        assert row.joint_ric == pytest.approx(joint, abs=1e-12)
        assert row.ric_a == pytest.approx(direct_ric(ra, labels), abs=1e-12)
        expected = 2 * joint - direct_ric(ra, labels) - direct_ric(rb, labels)
        assert row.information_difference == pytest.approx(max(expected, 0.0), abs=1e-12)


def test_information_difference_of_a_system_with_itself_is_zero():
    rng = np.random.default_rng(2)
    run, qrels, _ = _random_collection(rng, 10, 2)
    twin = run[run.system == "s0"].assign(system="twin")
    both = pd.concat([run[run.system == "s0"], twin], ignore_index=True)
    out = pdireval.information_difference(both, qrels=qrels)
    np.testing.assert_allclose(out["information_difference"].dropna(), 0.0, atol=1e-12)


def test_information_difference_rank_orders_pairs():
    rng = np.random.default_rng(8)
    run, qrels, _ = _random_collection(rng, 10, 4)
    ranked = pdireval.information_difference(run, qrels=qrels, rank=True)
    assert ranked["rank"].tolist() == list(range(1, 7))
    assert ranked["information_difference"].is_monotonic_increasing
    full = pdireval.information_difference(run, qrels=qrels)
    means = full[full["query"] == "all"].set_index(["system_a", "system_b"])["information_difference"]
    for row in ranked.itertuples():
        assert row.information_difference == means[(row.system_a, row.system_b)]


def test_errors_name_the_problem():
    run, qrels = frames({"s1": list("bcuad"), "s2": list("aeb")}, EXAMPLE)
    with pytest.raises(SchemaError, match="does not have.*'nope'"):
        pdireval.joint_ric(run, qrels=qrels, systems=["s1", "nope"])
    with pytest.raises(SchemaError, match="repeats"):
        pdireval.joint_ric(run, qrels=qrels, systems=["s1", "s1"])
    with pytest.raises(SchemaError, match="two or more"):
        pdireval.information_difference(run, qrels=qrels, systems=["s1"])
    with pytest.raises(TypeError):
        pdireval.joint_ric(run, qrels=qrels, systems=5)
    many = pd.concat([run[run.system == "s1"].assign(system=f"x{i}") for i in range(31)], ignore_index=True)
    with pytest.raises(PdirevalError, match="at most 30"):
        pdireval.joint_ric(many, qrels=qrels)


def test_accessor_mirrors():
    run, qrels = frames({"s1": list("bcuad"), "s2": list("aeb")}, EXAMPLE)
    pd.testing.assert_frame_equal(run.ireval.joint_ric(qrels=qrels), pdireval.joint_ric(run, qrels=qrels))
    pd.testing.assert_frame_equal(
        run.ireval.information_difference(qrels=qrels), pdireval.information_difference(run, qrels=qrels)
    )


def test_segments_keep_each_hits_qrels_row():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=30, rng=4)
    shuffled = run.sample(frac=1.0, random_state=1).reset_index(drop=True)
    for frame in (run, shuffled):
        prepared = pdireval.evaluation.prepare(frame, qrels=qrels)
        seg = prepared.segments
        judged = seg.judgments.frame
        assert len(seg.hit_qrow) == len(seg.hit_seg) > 0
        np.testing.assert_array_equal(seg.judgments.row_query[seg.hit_qrow], seg.seg_query[seg.hit_seg])
        np.testing.assert_array_equal(seg.judgments.label[seg.hit_qrow], seg.hit_label)
        # the hit at position p of a segment is the run's row ranked p-th there, and its doc is the qrels row's
        ordered = pdireval.evaluation.prepare(frame, qrels=qrels).run
        key = ordered.assign(score32=ordered["score"].astype("float32")).sort_values(
            ["system", "query", "score32", "doc"], ascending=[True, True, False, False])
        key["pos"] = key.groupby(["system", "query"]).cumcount()
        hits = pd.DataFrame({
            "system": seg.systems.to_numpy()[seg.seg_system[seg.hit_seg]],
            "query": seg.judgments.queries.to_numpy()[seg.seg_query[seg.hit_seg]],
            "pos": seg.hit_pos,
            "doc": judged["doc"].to_numpy()[seg.hit_qrow],
        })
        merged = hits.merge(key[["system", "query", "pos", "doc"]], on=["system", "query", "pos"], suffixes=("", "_run"))
        assert len(merged) == len(hits)
        assert (merged["doc"].astype(str) == merged["doc_run"].astype(str)).all()


def test_lists_from_an_evaluations_segments_equal_a_fresh_join(monkeypatch):
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=8, depth=40, rng=9, negative_rate=0.05)
    prepared = pdireval.evaluation.prepare(run.sample(frac=1.0, random_state=2), qrels=qrels)  # missing="zero"
    for negatives in ("unjudged", "nonrel", "keep"):
        a = info.judged_lists_of(prepared, negatives=negatives, rel=2)
        b = info.judged_lists(run, qrels=qrels, negatives=negatives, rel=2)
        for name in ("sys", "query", "doc", "rank"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    # numpy < 2 has no bitwise_count: the byte-table popcount gives the same counts
    expected = pdireval.information_difference(run, qrels=qrels)
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    pd.testing.assert_frame_equal(pdireval.information_difference(run, qrels=qrels), expected)


def test_one_pair_pass_for_joint_ric_and_differences_gives_the_same_tables():
    run, qrels = pdireval.datasets.simulate(n_systems=5, n_queries=6, depth=40, rng=12)
    prepared = pdireval.evaluation.prepare(run, qrels=qrels)
    shared = info.judged_lists_of(prepared)
    info.pair_pass(shared, np.arange(5), codes=True, bits=True)
    fresh = info.judged_lists_of(prepared)
    pd.testing.assert_frame_equal(info.joint_ric_of(shared), info.joint_ric_of(fresh))
    pd.testing.assert_frame_equal(info.information_difference_of(shared), info.information_difference_of(fresh))
    # the cached counts are not consumed by a first reader
    pd.testing.assert_frame_equal(info.information_difference_of(shared), info.information_difference_of(fresh))
    pd.testing.assert_frame_equal(info.joint_ric_of(shared), pdireval.joint_ric(run, qrels=qrels))
