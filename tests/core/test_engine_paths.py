"""The fast paths of the engine: string hashing, the hash-based duplicate check and hit
lookup (exact even under forced hash collisions), grouped vs shuffled runs, and
trec_eval tie-breaking, each checked against a plain pandas reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import pdireval
from pdireval.core import hashing as _hashing
from pdireval.core import keys as _keys
from pdireval.core import segments as seg_mod
from pdireval.errors import SchemaError
from pdireval.evaluation import prepare

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@50", "Rprec", "Bpref", "NumRelRet"]


def _strings(values) -> pd.Series:
    return pd.Series(pd.array(values, dtype="string[pyarrow]"))


# --------------------------------------------------------------------------- hashing


def test_hash_equal_strings_equal_hashes_across_paths_and_chunks():
    base = ["", "a", "ab", "ab\x00", "abcdefgh", "abcdefghi", "é" * 5, "naïve", "x" * 100, "y" * 64, "y" * 65]
    one = _hashing.hash_strings(_strings(base))
    # the same strings in other chunks of different widest id (padded vs unpadded paths)
    for typ in (pa.string(), pa.large_string()):
        chunked = pa.chunked_array([pa.array(base[:3], typ), pa.array(base[3:8], typ), pa.array(base[8:], typ)])
        assert np.array_equal(one, _hashing.hash_strings(chunked))
    sliced = pa.chunked_array([pa.array(["zz"] + base, pa.large_string()).slice(1)])
    assert np.array_equal(one, _hashing.hash_strings(sliced))
    for i, s in enumerate(base):  # each alone (other widths)
        assert _hashing.hash_strings(_strings([s]))[0] == one[i]
    assert len(set(one.tolist())) == len(base)  # distinct strings, distinct hashes here


def test_take_from_chunks_matches_pyarrow():
    arr = pa.chunked_array([pa.array(list("abc")), pa.array(list("defg")), pa.array([], pa.string()), pa.array(list("hi"))])
    rows = np.array([0, 2, 3, 6, 7, 8])
    assert _hashing.take(arr, rows).to_pylist() == arr.take(pa.array(rows)).to_pylist()


@pytest.mark.parametrize("weak", [False, True])
def test_duplicated_rows_is_exact(weak):
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 5, 400)
    docs = np.array([f"d{i}" for i in rng.integers(0, 60, 400)], dtype=object)
    strings = pa.chunked_array([pa.array(docs)])
    # weak: every row has the same hash, so every row is a candidate (all collisions)
    hashes = np.zeros(400, dtype=np.uint64) if weak else _hashing.hash_strings(strings)
    got = _hashing.duplicated_rows(codes, strings, hashes)
    want = np.flatnonzero(pd.DataFrame({"c": codes, "d": docs}).duplicated(keep=False))
    assert np.array_equal(got, want)


def _run(n_queries=6, depth=30, rng=0):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=n_queries, depth=depth, rng=rng)
    return run, qrels


def test_duplicate_check_reports_exact_rows(monkeypatch):
    run, _ = _run()
    dup = pd.concat([run, run.iloc[[5, 77]]], ignore_index=True).sample(frac=1, random_state=1)
    with pytest.raises(SchemaError, match="4 rows sharing a \\(system, query, doc\\) key") as err:
        pdireval.core.schema.canonical_run(dup)
    want = dup[dup.duplicated(["system", "query", "doc"], keep=False)]
    got = err.value.failure_cases
    assert sorted(got.index) == sorted(want.index)
    # with a hash that collides everywhere the answer is the same, and a clean run passes
    monkeypatch.setattr(_keys, "hash_strings", lambda values: np.zeros(len(values), dtype=np.uint64))
    with pytest.raises(SchemaError) as err2:
        pdireval.core.schema.canonical_run(dup)
    assert sorted(err2.value.failure_cases.index) == sorted(want.index)
    pdireval.core.schema.canonical_run(run)


def test_same_doc_in_other_segment_is_not_a_duplicate():
    run = pd.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": ["1", "2", "1", "1"], "doc": ["x", "x", "x", "y"], "score": [1.0, 2, 3, 4]}
    )
    got = pdireval.core.schema.canonical_run(run)  # the same doc for two queries, or two systems
    assert len(got) == 4 and sorted(zip(got["system"], got["query"], got["doc"])) == sorted(
        zip(run["system"], run["query"], run["doc"]))
    # positive control: the same (system, query, doc) twice is refused
    with pytest.raises(SchemaError, match="duplicate|twice|more than once"):
        pdireval.core.schema.canonical_run(run.assign(query=["1", "1", "1", "1"], system="a"))


# --------------------------------------------------------------------------- order


def _values(run, qrels):
    return pdireval.evaluate(run, MEASURES, qrels=qrels)["value"].to_numpy()


def test_grouped_shuffled_reversed_and_chunked_runs_agree():
    run, qrels = _run(rng=4)
    base = _values(run, qrels)
    assert np.array_equal(base, _values(run.sample(frac=1, random_state=2), qrels))
    assert np.array_equal(base, _values(run.iloc[::-1], qrels))
    # interleaved segments (grouped by query, systems alternating) and many arrow chunks
    inter = run.sort_values(["query", "rank", "system"])
    assert np.array_equal(base, _values(inter, qrels))
    chunked = pd.concat([run.iloc[i : i + 37] for i in range(0, len(run), 37)], ignore_index=True)
    assert np.array_equal(base, _values(chunked, qrels))
    # object-dtype ids give the same numbers
    obj = run.astype({"system": object, "query": object, "doc": object})
    assert np.array_equal(base, _values(obj, qrels))


def _reference_positions(run, qrels, order="score"):
    """Hit positions by a full pandas sort in trec_eval order (the definition)."""
    r = run.copy()
    if order == "score":
        r["k"] = -r["score"].astype(np.float32).astype(np.float64)
        r = r.sort_values(["system", "query", "k", "doc"], ascending=[True, True, True, False], kind="stable")
    else:
        r = r.sort_values(["system", "query", "rank", "doc"], kind="stable")
    r["pos"] = r.groupby(["system", "query"]).cumcount()
    hits = r.merge(qrels, on=["query", "doc"])
    return sorted(zip(hits["system"], hits["query"], hits["pos"], hits["label"].fillna(-99)))


def _engine_positions(run, qrels, order="score"):
    s = prepare(run, qrels=qrels, missing="drop", order=order).segments
    systems = s.systems.to_numpy()[s.seg_system[s.hit_seg]]
    queries = s.judgments.queries.to_numpy()[s.seg_query[s.hit_seg]]
    return sorted(zip(systems, queries, s.hit_pos, np.nan_to_num(s.hit_label, nan=-99)))


@pytest.mark.parametrize("order", ["score", "rank"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_tie_breaking_matches_full_sort(order, shuffle):
    rng = np.random.default_rng(7)
    n = 600
    run = pd.DataFrame(
        {
            "system": rng.choice(["s1", "s2"], n),
            "query": rng.choice(["1", "2", "3"], n),
            "doc": [f"D{i:04d}" for i in rng.permutation(n)],
            # few distinct scores: big tie groups; 1 + 1e-9 equals 1 at float32 precision
            "score": rng.choice([1.0, 1.0 + 1e-9, 2.0, 3.5, -0.0, 0.0], n),
            "rank": rng.integers(1, 20, n),
        }
    )
    if not shuffle:
        run = run.sort_values(["system", "query", "score"], ascending=[True, True, False], kind="stable")
    judged = run.sample(frac=0.4, random_state=1)[["query", "doc"]].drop_duplicates()
    qrels = judged.assign(label=rng.integers(0, 3, len(judged)).astype(float))
    engine = _engine_positions(run, qrels, order)
    assert engine == _reference_positions(run, qrels, order)
    s = prepare(run, qrels=qrels, missing="drop", order=order).segments
    merged = s.float32_merged
    if order == "rank":
        assert merged is None
        return
    # 1 and 1 + 1e-9 tie at float32 around judged documents: the lists where that happens
    # are flagged (their values are checked again as doubles, see evaluation.float32_changes)
    r = run.assign(f32=run["score"].astype(np.float32), judged=run.merge(
        qrels, on=["query", "doc"], how="left")["label"].notna().to_numpy())
    groups = r.groupby(["system", "query", "f32"])
    flagged = groups.filter(lambda g: g["judged"].any() and g["score"].nunique() > 1)
    want = sorted(set(zip(flagged["system"], flagged["query"])))
    got = sorted(zip(s.systems.to_numpy()[s.seg_system[merged]], s.judgments.queries.to_numpy()[s.seg_query[merged]]))
    assert want and got == want


def test_hit_lookup_exact_under_hash_collisions(monkeypatch):
    """A hash that only sees the length: run docs collide with qrels docs of the same
    length, and qrels keys collide with each other (exact fallback)."""
    run, qrels = _run(rng=5)
    want = _values(run, qrels)

    def by_length(values):
        return _hashing.arrow_strings(values).to_pandas().str.len().to_numpy().astype(np.uint64) if not isinstance(values, pa.ChunkedArray) else np.asarray(pa.compute.binary_length(values).to_numpy(), dtype=np.uint64)

    monkeypatch.setattr(_keys, "hash_strings", by_length)
    monkeypatch.setattr(seg_mod, "hash_strings", by_length)
    assert np.array_equal(want, _values(run, qrels))
    # qrels with one doc per query (distinct keys), run docs colliding with it
    q1 = qrels.groupby("query").head(1).reset_index(drop=True)
    monkeypatch.undo()
    want1 = _values(run, q1)
    monkeypatch.setattr(_keys, "hash_strings", by_length)
    monkeypatch.setattr(seg_mod, "hash_strings", by_length)
    assert np.array_equal(want1, _values(run, q1))


def test_unjudged_queries_dropped_keep_numbers():
    run, qrels = _run(rng=6)
    some = qrels[qrels["query"].isin(["1", "3", "4"])]
    with pytest.warns(pdireval.PdirevalWarning):
        got = pdireval.evaluate(run, MEASURES, qrels=some)
    sub = run[run["query"].isin(["1", "3", "4"])]
    want = pdireval.evaluate(sub, MEASURES, qrels=some)
    pd.testing.assert_frame_equal(got, want)


def test_caller_frame_unchanged():
    run, qrels = _run(rng=8)
    run = run.sample(frac=1, random_state=0)
    before_run, before_qrels = run.copy(deep=True), qrels.copy(deep=True)
    pdireval.evaluate(run, MEASURES, qrels=qrels)
    pd.testing.assert_frame_equal(run, before_run)
    pd.testing.assert_frame_equal(qrels, before_qrels)


def test_sparse_system_query_pairs_shuffled():
    """Many systems x many queries with few pairs used: the shuffled-run path that numbers
    segments by first appearance (no dense pair table) gives the same numbers."""
    rng = np.random.default_rng(11)
    rows = []
    for s in range(150):
        for q in rng.choice(150, 2, replace=False):
            for d in range(3):
                rows.append((f"s{s}", str(q), f"d{rng.integers(0, 8)}-{d}", float(rng.integers(0, 4))))
    run = pd.DataFrame(rows, columns=["system", "query", "doc", "score"])
    qrels = run[["query", "doc"]].drop_duplicates().assign(label=1.0).iloc[::2]
    base = pdireval.evaluate(run, MEASURES, qrels=qrels, missing="drop")
    shuffled = pdireval.evaluate(run.sample(frac=1, random_state=3), MEASURES, qrels=qrels, missing="drop")
    pd.testing.assert_frame_equal(base, shuffled)
    keys = _keys.run_keys(pdireval.core.schema.canonical_run(run.sample(frac=1, random_state=3)))
    assert len(keys.seg_system) == 300 and not keys.contiguous
