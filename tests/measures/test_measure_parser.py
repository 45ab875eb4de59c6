"""The measure-string grammar: public spellings, aliases, canonical round-trip, errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import MeasureError, PdirevalError, parse_measure
from pdireval.measures import REGISTRY, Measure

# string -> (canonical name, non-default params, cut-off): the meaning each public string has
PUBLIC = {
    "AP": ("AP", {}, None),
    "AP@100": ("AP", {}, 100),
    "P@10": ("P", {}, 10),
    "R@1000": ("R", {}, 1000),
    "RR": ("RR", {}, None),
    "Rprec": ("Rprec", {}, None),
    "nDCG": ("nDCG", {}, None),
    "nDCG@10": ("nDCG", {}, 10),
    "Bpref": ("Bpref", {}, None),
    "infAP": ("infAP", {}, None),
    "nDCG(gain=exp)@10": ("nDCG", {"gain": "exp"}, 10),
    "nDCG(negatives=keep)@10": ("nDCG", {"negatives": "keep"}, 10),
    "SP@10": ("SP", {}, 10),
    "ERR@20": ("ERR", {}, 20),
    "RBP(p=0.8)": ("RBP", {}, None),  # p=0.8 is the default (as in ir_measures): left out
    "RBP(p=0.5)": ("RBP", {"p": 0.5}, None),
    "Judged@10": ("Judged", {}, 10),
    "NumRet": ("NumRet", {}, None),
    "NumRel": ("NumRel", {}, None),
    "NumRelRet": ("NumRelRet", {}, None),
    "Success@5": ("Success", {}, 5),
    "DCG@5": ("DCG", {}, 5),
    "GAP": ("GAP", {}, None),
    "RBPResidual(p=0.9)": ("RBPResidual", {"p": 0.9}, None),
}

TREC_ALIASES = {
    "map": "AP",
    "map_cut_100": "AP@100",
    "ndcg": "nDCG",
    "ndcg_cut_10": "nDCG@10",
    "P_10": "P@10",
    "recall_1000": "R@1000",
    "recip_rank": "RR",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "infAP": "infAP",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "success_10": "Success@10",
    "mrr": "RR",
}


@pytest.mark.parametrize("text", sorted(PUBLIC))
def test_public_strings_have_their_meaning(text):
    name, params, cutoff = PUBLIC[text]
    m = parse_measure(text)
    assert isinstance(m, Measure)
    assert m.name == name
    assert dict(m.params) == params
    assert m.cutoff == cutoff
    assert m.definition is REGISTRY[name.lower()]


def test_parameter_values_are_read_with_the_declared_meaning():
    m = parse_measure("nDCG(gain=exp,discount=zipf,negatives=nonrel,judged_only=true)@10")
    assert (m.get("gain"), m.get("discount"), m.get("negatives"), m.get("judged_only")) == ("exp", "zipf", "nonrel", True)
    assert parse_measure("RBP(p=0.5)").get("p") == 0.5
    assert parse_measure("RBP").get("p") == 0.8  # the default
    assert parse_measure("AP(rel=2)").get("rel") == 2.0
    assert parse_measure("nDCG(gain={0:0,1:1,2:3})@5").get("gain") == ((0.0, 0.0), (1.0, 1.0), (2.0, 3.0))
    assert parse_measure("nDCG(discount=[1,0.5,0.25])").get("discount") == (1.0, 0.5, 0.25)
    assert parse_measure("GAP(probs=[0.25,0.75])").get("probs") == (0.25, 0.75)


@pytest.mark.parametrize("alias", sorted(TREC_ALIASES))
def test_trec_eval_aliases(alias):
    assert parse_measure(alias) == parse_measure(TREC_ALIASES[alias])
    assert str(parse_measure(alias)) == TREC_ALIASES[alias]


@pytest.mark.parametrize(
    "variant, canonical",
    [
        ("ndcg@10", "nDCG@10"),
        ("NDCG@10", "nDCG@10"),
        ("ap@100", "AP@100"),
        ("MAP", "AP"),
        ("p@10", "P@10"),
        ("RPREC", "Rprec"),
        ("INFAP", "infAP"),
        ("bPrEf", "Bpref"),
        ("rbp(P=0.5)", "RBP(p=0.5)"),
        ("nDCG(GAIN=EXP)@10", "nDCG(gain=exp)@10"),
        ("NDCG_CUT_10", "nDCG@10"),
        ("Judged@10", "Judged@10"),
        ("judged@10", "Judged@10"),
        ("  nDCG @ 10 ", "nDCG@10"),
    ],
)
def test_case_insensitive(variant, canonical):
    assert str(parse_measure(variant)) == canonical


@pytest.mark.parametrize(
    "text, canonical",
    [
        # parameters sorted by name, defaults left out
        ("RBP(rel=2,p=0.5)", "RBP(p=0.5,rel=2)"),
        ("RBP(p=0.5, rel=2)", "RBP(p=0.5,rel=2)"),
        ("nDCG(negatives=keep,gain=exp)@10", "nDCG(gain=exp,negatives=keep)@10"),
        ("nDCG(gain=linear,discount=log2,negatives=unjudged,judged_only=false)@10", "nDCG@10"),
        ("AP(rel=1)", "AP"),
        ("AP(rel=1.0)", "AP"),
        ("AP(rel=2.0)", "AP(rel=2)"),
        ("RBP(p=0.8)", "RBP"),
        ("nDCG(gain={2:3,0:0,1:1})@5", "nDCG(gain={0:0,1:1,2:3})@5"),
        ("nDCG(discount=[1, 0.5])", "nDCG(discount=[1,0.5])"),
        ("ERR(max_grade=4)@20", "ERR@20"),
        ("ERR(max_grade=QRELS)@20", "ERR(max_grade=qrels)@20"),
    ],
)
def test_canonical_form(text, canonical):
    assert str(parse_measure(text)) == canonical


ALL_SPELLINGS = sorted(PUBLIC) + sorted(TREC_ALIASES) + [
    "nDCG(gain=exp,discount=zipf)@5",
    "nDCG(discount=linear)@5",
    "nDCG(discount=jk,negatives=nonrel)",
    "nDCG(gain={0:0,1:1,2:3,-1:-2})@5",
    "nDCG(discount=[1,0.5,0.25])",
    "AP(judged_only=true,rel=2)@10",
    "GAP(probs=[0.25,0.75])",
    "ERR(max_grade=2)@20",
    "RR@10",
    "R@5",
]


@pytest.mark.parametrize("text", ALL_SPELLINGS)
def test_round_trip_is_stable(text):
    m = parse_measure(text)
    once = str(m)
    again = parse_measure(once)
    assert again == m and hash(again) == hash(m)
    assert str(again) == once
    assert parse_measure(m) is m  # a Measure passes through


@settings(max_examples=100, deadline=None)
@given(
    name=st.sampled_from(["nDCG", "DCG"]),
    gain=st.sampled_from(["linear", "exp"]),
    discount=st.sampled_from(["log2", "zipf", "jk", "linear"]),
    negatives=st.sampled_from(["unjudged", "nonrel", "keep"]),
    judged_only=st.booleans(),
    cutoff=st.integers(1, 2000),
    order=st.permutations(range(4)),
)
def test_round_trip_any_parameter_order(name, gain, discount, negatives, judged_only, cutoff, order):
    parts = [f"gain={gain}", f"discount={discount}", f"negatives={negatives}", f"judged_only={str(judged_only).lower()}"]
    text = f"{name}({','.join(parts[i] for i in order)})@{cutoff}"
    m = parse_measure(text)
    assert (m.get("gain"), m.get("discount"), m.get("negatives"), m.get("judged_only")) == (gain, discount, negatives, judged_only)
    assert m.cutoff == cutoff
    canonical = str(m)
    assert parse_measure(canonical) == m and str(parse_measure(canonical)) == canonical
    shown = [k for k, _ in m.params]
    assert shown == sorted(shown)
    defaults = {"gain": "linear", "discount": "log2", "negatives": "unjudged", "judged_only": False}
    assert all(defaults[k] != v for k, v in m.params)


def test_unknown_name_suggests_the_closest():
    with pytest.raises(MeasureError) as info:
        parse_measure("nDGC@10")
    text = str(info.value)
    assert "nDGC" in text and "Did you mean 'nDCG@10' or 'nDCG'" in text  # the cut-off kept
    assert "pdireval.measures() lists every measure" in text
    with pytest.raises(MeasureError, match=r"'qqqqqq'\. pdireval.measures\(\) lists every measure"):
        parse_measure("qqqqqq")  # nothing close: no list of 70 names
    with pytest.raises(MeasureError, match="Did you mean 'Bpref'"):
        parse_measure("bperf")


@pytest.mark.parametrize(
    "typed, first",
    [("P10", "P@10"), ("nDCG10", "nDCG@10"), ("ndcg_cut10", "nDCG@10"), ("NDGC_cut_10", "nDCG@10"),
     ("recall100", "R@100"), ("recip_rank10", "RR@10"), ("ERR20", "ERR@20"), ("Precison@5", "P@5")],
)
def test_typos_are_read_by_name_and_cutoff(typed, first):
    """A name with its cut-off glued on (or a misspelt name with one) suggests the measure at
    that cut-off first, and at most four names in all."""
    with pytest.raises(MeasureError) as info:
        parse_measure(typed)
    suggested = re.findall(r"'([^']+)'", str(info.value).split("Did you mean", 1)[1])
    assert suggested[0] == first and len(suggested) <= 4


@pytest.mark.parametrize(
    "text, needle",
    [
        ("P", "needs a cut-off"),
        ("Success", "needs a cut-off"),
        ("Rprec@10", "takes no cut-off"),
        ("AP@0", "whole number >= 1"),
        ("AP@-1", "whole number >= 1"),
        ("AP@1.5", "whole number >= 1"),
        ("AP@x", "whole number >= 1"),
        ("ndcg_cut_10@5", "cut-off twice"),
        ("RBP(p=1.5)", "0 < p < 1"),
        ("RBP(p=0)", "0 < p < 1"),
        ("RBP(p=x)", "expected a number"),
        ("AP(rel=x)", "expected a number"),
        ("nDCG(gain=foo)", "one of linear, exp"),
        ("nDCG(discount=cubic)", "one of log2, zipf, linear, jk"),
        ("nDCG(discount=[])", "non-empty vector"),
        ("nDCG(negatives=drop)", "one of unjudged, nonrel, keep"),
        ("nDCG(judged_only=1)", "true or false"),
        ("nDCG(q=1)", "has no parameter 'q'"),
        ("AP(gain=exp)", "has no parameter 'gain'"),
        ("GAP(probs=[0.5,0.6])", "summing to 1"),
        ("AP(rel)", "has no value"),
        ("", "cannot parse"),
        ("nDCG@10@5", "cannot parse"),
        ("nDCG(gain=$)", "cannot read the parameter value"),
    ],
)
def test_bad_measures_raise_measure_error(text, needle):
    with pytest.raises(MeasureError) as info:
        parse_measure(text)
    assert needle in str(info.value)
    assert isinstance(info.value, PdirevalError) and isinstance(info.value, ValueError)


def test_discount_linear_without_cutoff_is_a_measure_error():
    run = pdireval.datasets.simulate(n_systems=1, n_queries=2, depth=5, rng=0)
    with pytest.raises(MeasureError, match="needs a cut-off"):
        pdireval.evaluate(run[0], "nDCG(discount=linear)", qrels=run[1])


def test_non_string_measure_is_a_type_error():
    with pytest.raises(TypeError):
        parse_measure(10)


def test_evaluate_rejects_bad_measures_before_work():
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=2, depth=5, rng=0)
    with pytest.raises(MeasureError, match="Did you mean"):
        pdireval.evaluate(run, ["AP", "nDGC@10"], qrels=qrels)
    with pytest.raises(MeasureError, match="no measure given"):
        pdireval.evaluate(run, [], qrels=qrels)


def test_measures_frame():
    frame = pdireval.measures()
    assert list(frame.columns) == ["measure", "description", "cutoff", "parameters", "trec_eval", "empty", "summary", "citation"]
    assert frame.index.equals(__import__("pandas").RangeIndex(len(frame)))
    assert sorted(frame["measure"]) == sorted(d.name for d in REGISTRY.values())
    assert list(frame["measure"]) == sorted(frame["measure"], key=str.lower)
    assert frame["measure"].is_unique
    assert set(frame["cutoff"]) <= {"optional", "required", "none", "real"}
    by = frame.set_index("measure")
    assert by.loc["P", "cutoff"] == "required" and by.loc["Rprec", "cutoff"] == "none"
    assert "map" in by.loc["AP", "trec_eval"] and by.loc["ERR", "trec_eval"] == ""
    assert by.loc["NumRel", "empty"] == "R" and by.loc["AP", "empty"] == "0"
    assert "p=0.8" in by.loc["RBP", "parameters"]
    assert (frame["citation"].str.len() > 0).all() and (frame["description"].str.len() > 0).all()
    # every listed measure parses under its own name (with a cut-off where one is required)
    for name, cutoff in zip(frame["measure"], frame["cutoff"]):
        text = name + {"required": "@10", "real": "@0.5"}.get(cutoff, "")
        assert str(parse_measure(text)) == text
