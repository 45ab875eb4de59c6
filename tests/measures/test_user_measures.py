"""User-defined measures: register_measure through evaluate, the accessor, the parser,
pdireval.measures() and the command line; the per-query path against the vectorised one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.cli import main
from pdireval.measures.registry import REGISTRY, parse_measure
from pdireval.measures.view import seg_sum


def hits(ranked, judged, *, cutoff, rel):
    """Relevant documents retrieved (label >= rel) in the top cutoff."""
    return float(np.sum(ranked >= rel))


def hits_kernel(view, m):
    inside = view.hit_label >= m.get("rel")
    if m.cutoff is not None:
        inside &= view.hit_pos < m.cutoff
    return seg_sum(view.hit_seg[inside], 1.0, view.n_seg)


def recall_like(ranked, judged, *, cutoff, rel, mode):
    R = np.sum(judged >= rel)
    found = np.sum(ranked >= rel)
    if mode == "ratio":
        return found / R if R else 0.0
    return float(R - found)


@pytest.fixture
def user_measures():
    names = []

    def add(*args, **kwargs):
        names.append(pdireval.register_measure(*args, **kwargs))
        return names[-1]

    yield add
    for name in names:
        if name.lower() in REGISTRY:
            pdireval.unregister_measure(name)


@pytest.fixture(scope="module")
def collection():
    return pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=30, rng=7)


def test_per_query_function_equals_the_builtin(user_measures, collection):
    run, qrels = collection
    user_measures("UHits", hits, params={"rel": 1.0}, description="Relevant retrieved.")
    for k in ("", "@5", "@100"):
        ours = pdireval.evaluate(run, [f"UHits{k}", "UHits(rel=2)" + k], qrels=qrels)
        ref = pdireval.evaluate(run, [f"NumRelRet{k}", "NumRelRet(rel=2)" + k], qrels=qrels)
        np.testing.assert_array_equal(ours["value"].to_numpy(), ref["value"].to_numpy())
        assert list(ours["measure"].unique()) == [f"UHits{k}", f"UHits(rel=2){k}"]


def test_vectorised_kernel_equals_the_per_query_function(user_measures, collection):
    run, qrels = collection
    user_measures("UHitsSlow", hits, params={"rel": 1.0})
    user_measures("UHitsFast", kernel=hits_kernel, params={"rel": 1.0})
    slow = pdireval.evaluate(run, ["UHitsSlow@10", "UHitsSlow(judged_only=true)@10"], qrels=qrels)
    fast = pdireval.evaluate(run, ["UHitsFast@10", "UHitsFast(judged_only=true)@10"], qrels=qrels)
    np.testing.assert_array_equal(slow["value"].to_numpy(), fast["value"].to_numpy())


def test_parameters_accessor_registry_and_empty_value(user_measures, collection):
    run, qrels = collection
    user_measures(
        "URecall", recall_like, cutoff="required", empty=-1.0, citation="Nobody 2024",
        description="found / R, or R - found.",
        params={"rel": 1.0, "mode": {"default": "ratio", "type": str, "choices": ["ratio", "missed"], "description": "What to report."}},
    )
    assert str(parse_measure("urecall(MODE=missed)@10")) == "URecall(mode=missed)@10"
    with pytest.raises(pdireval.MeasureError, match="needs a cut-off"):
        parse_measure("URecall")
    with pytest.raises(pdireval.MeasureError, match="one of ratio, missed"):
        parse_measure("URecall(mode=other)@10")
    dropped = run[~((run["system"] == "sys01") & (run["query"] == "1"))]
    scores = dropped.ireval.evaluate(["URecall@1000", "R@1000"], qrels=qrels)
    wide = scores.pivot_table(index=["system", "query"], columns="measure", values="value")
    assert wide.loc[("sys01", "1"), "URecall@1000"] == -1.0  # the empty value
    rest = wide.drop(index=("sys01", "1"))
    np.testing.assert_allclose(rest["URecall@1000"], rest["R@1000"], rtol=0, atol=1e-15)
    row = pdireval.measures().set_index("measure").loc["URecall"]
    assert row["cutoff"] == "required" and row["citation"] == "Nobody 2024" and row["empty"] == "-1.0"
    assert "mode=ratio" in row["parameters"] and row["summary"] == "mean"


def test_command_line_loads_measures_from_the_environment(tmp_path, monkeypatch, capsys):
    plugin = tmp_path / "my_measures.py"
    plugin.write_text(
        "import numpy as np, pdireval\n"
        "def twice_hits(ranked, judged, *, cutoff):\n"
        "    return 2.0 * float(np.sum(ranked >= 1))\n"
        "pdireval.register_measure('TwiceHits', twice_hits, replace=True)\n"
    )
    monkeypatch.setenv("PDIREVAL_MEASURES", str(plugin))
    try:
        assert main(["evaluate", "-m", "TwiceHits@10", "-m", "NumRelRet@10", "--format", "csv"]) == 0
    finally:
        pdireval.unregister_measure("TwiceHits")
    out = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    wide = out.pivot_table(index="system", columns="measure", values="mean")
    np.testing.assert_allclose(wide["TwiceHits@10"], 2 * wide["NumRelRet@10"])
    monkeypatch.setenv("PDIREVAL_MEASURES", str(tmp_path / "absent.py"))
    assert main(["evaluate", "-m", "AP"]) == 1
    assert "absent.py" in capsys.readouterr().err


def test_bad_registrations(user_measures):
    with pytest.raises(pdireval.MeasureError, match="taken by a built-in"):
        pdireval.register_measure("AP", hits)
    with pytest.raises(pdireval.MeasureError, match="exactly one"):
        pdireval.register_measure("X1")
    with pytest.raises(pdireval.MeasureError, match="letters"):
        pdireval.register_measure("1x", hits)
    with pytest.raises(pdireval.MeasureError, match="rel"):
        pdireval.register_measure("X2", lambda ranked, judged, *, cutoff: 0.0, params={"rel": 1.0})
    with pytest.raises(pdireval.MeasureError, match="choices"):
        pdireval.register_measure("X3", recall_like, params={"rel": 1.0, "mode": "ratio"})
    user_measures("X4", hits, params={"rel": 1.0})
    with pytest.raises(pdireval.MeasureError, match="replace=True"):
        pdireval.register_measure("X4", hits, params={"rel": 1.0})
    assert "X5" not in REGISTRY and "x2" not in REGISTRY


def test_a_function_returning_no_number_is_reported(user_measures, collection):
    run, qrels = collection
    user_measures("Broken", lambda ranked, judged, *, cutoff: "high")
    with pytest.raises(pdireval.MeasureError, match="must return a number"):
        pdireval.evaluate(run, "Broken", qrels=qrels)
