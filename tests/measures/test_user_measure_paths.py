"""Every path a user-defined measure takes, end to end: registration clashes (none takes over a
built-in name, alias or trec_eval spelling, and a refused registration leaves nothing
behind), replace / unregister, and the measure through evaluate, the accessor, the measure
parser, pdireval.measures(), the command line, ties="expected" and the scores functions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MeasureError


def hits(ranked, judged, *, cutoff, rel=1.0):
    return float(np.sum(ranked >= rel))


@pytest.fixture
def data():
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=10, rng=1)
    yield run, qrels
    for name in ("MyHits", "Other"):
        try:
            pdireval.unregister_measure(name)
        except MeasureError:
            pass


def registered() -> set:
    return set(pdireval.measures()["measure"])


@pytest.mark.parametrize("name, aliases, fragment", [
    ("MyHits", ("map",), "the alias 'map' of the new measure MyHits is trec_eval's spelling of the built-in AP"),
    ("P_10", (), "trec_eval's spelling of the built-in P@10"),
    ("map", (), "trec_eval's spelling of the built-in AP"),
    ("ap", (), "taken by a built-in measure"),
    ("Hits", (), "already names the built-in measure NumRelRet"),  # ranx's name of NumRelRet
    ("ndcg_cut_10", (), "built-in nDCG@10"),
    ("MyHits", ("P.10",), "built-in P@10"),
    ("MyHits", ("myhits_ok", "AP"), "already names the built-in measure AP"),
])
def test_no_registration_takes_over_a_builtin_spelling(data, name, aliases, fragment):
    run, qrels = data
    before = registered()
    with pytest.raises(MeasureError, match="choose another") as info:
        pdireval.register_measure(name, hits, aliases=aliases)
    assert fragment in str(info.value)
    assert registered() == before  # nothing half-registered
    with pytest.raises(MeasureError, match="unknown measure"):
        pdireval.evaluate(run, "myhits_ok", qrels=qrels)
    # the built-in spellings still mean the built-ins
    got = pdireval.evaluate(run, ["map", "P_10", "ndcg_cut_10", "ap"], qrels=qrels)
    assert list(pd.unique(got["measure"])) == ["map", "P_10", "ndcg_cut_10", "ap"]  # as given
    canonical = [str(pdireval.parse_measure(m)) for m in pd.unique(got["measure"])]
    assert list(dict.fromkeys(canonical)) == ["AP", "P@10", "nDCG@10"]


def test_replace_unregister_and_aliases(data):
    run, qrels = data
    pdireval.register_measure("MyHits", hits, aliases=("myhits_alias",), params={"rel": 1.0})
    with pytest.raises(MeasureError, match="already names the user-defined measure MyHits"):
        pdireval.register_measure("Other", hits, aliases=("MYHITS_ALIAS",))
    with pytest.raises(MeasureError, match="pass replace=True"):
        pdireval.register_measure("myhits", hits)
    with pytest.raises(MeasureError, match="taken by a built-in"):
        pdireval.register_measure("AP", hits, replace=True)  # replace= never replaces a built-in
    pdireval.register_measure("MyHits", hits, aliases=("myhits_new",), params={"rel": 1.0}, replace=True)
    with pytest.raises(MeasureError, match="unknown measure 'myhits_alias'"):
        pdireval.evaluate(run, "myhits_alias", qrels=qrels)  # the replaced alias is gone
    with pytest.raises(MeasureError, match="'AP' is not a user-defined measure"):
        pdireval.unregister_measure("AP")
    with pytest.raises(MeasureError, match="is not a user-defined measure"):
        pdireval.unregister_measure("Nope")
    pdireval.unregister_measure("MYHITS")  # any case
    assert "MyHits" not in registered()
    both = pdireval.evaluate(run, ["map", "AP"], qrels=qrels)["measure"]
    assert {str(pdireval.parse_measure(m)) for m in both} == {"AP"}


def test_a_user_measure_through_every_entry_point(data):
    run, qrels = data
    pdireval.register_measure("MyHits", hits, aliases=("myhits_alias",), params={"rel": 1.0},
                              description="Relevant documents retrieved.")
    row = pdireval.measures().set_index("measure").loc["MyHits"]
    assert row["description"] == "Relevant documents retrieved." and row["cutoff"] == "optional"
    # the value, by an independent loop over the lists
    expected = {}
    labels = qrels.set_index(["query", "doc"])["label"]
    for (system, query), part in run.sort_values("score", ascending=False).groupby(["system", "query"]):
        top = part.head(5)
        found = [labels.get((query, d), np.nan) for d in top["doc"]]
        expected[(system, query)] = float(np.sum(np.array(found, dtype=float) >= 2))
    for scores in (pdireval.evaluate(run, "myhits(rel=2)@5", qrels=qrels),
                   run.ireval.evaluate("MYHITS_ALIAS(rel=2)@5", qrels=qrels)):
        # the name as given; its canonical spelling is the registered one
        assert {str(pdireval.parse_measure(m)) for m in scores["measure"]} == {"MyHits(rel=2)@5"}
        got = {(s, q): v for s, q, v in zip(scores["system"], scores["query"], scores["value"])}
        assert got == expected
    # ties="expected": no ties in a simulated run without rounding of equal scores -> the same
    tied = pdireval.evaluate(run, "MyHits(rel=2,ties=expected)@5", qrels=qrels)
    np.testing.assert_allclose(tied["value"], scores["value"])
    # the scores functions take it like any measure
    assert set(pdireval.aggregate(scores)["measure"]) == {"MYHITS_ALIAS(rel=2)@5"}


def test_user_measure_on_the_command_line(data, tmp_path, capsys):
    from pdireval.cli import main

    run, qrels = data
    pdireval.register_measure("MyHits", hits, params={"rel": 1.0})
    pdireval.write_run(run, tmp_path / "run.txt")
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    assert main(["evaluate", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"),
                 "-m", "MyHits@5", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "MyHits@5" in out
