"""pytrec_eval-terrier as an oracle: our measure strings <-> trec_eval's, and its per-query values
as a tidy frame comparable with :func:`pdireval.evaluate`'s output."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytrec_eval

# (pdireval measure, pytrec_eval measure spec, key in pytrec_eval's output)
FIXED = [
    ("AP", "map", "map"),
    ("RR", "recip_rank", "recip_rank"),
    ("Rprec", "Rprec", "Rprec"),
    ("nDCG", "ndcg", "ndcg"),
    ("Bpref", "bpref", "bpref"),
    ("infAP", "infAP", "infAP"),
    ("NumRet", "num_ret", "num_ret"),
    ("NumRel", "num_rel", "num_rel"),
    ("NumRelRet", "num_rel_ret", "num_rel_ret"),
]
CUT = [  # pdireval name, trec_eval name
    ("AP", "map_cut"),
    ("P", "P"),
    ("R", "recall"),
    ("nDCG", "ndcg_cut"),
    ("Success", "success"),
]


def trec_measures(cutoffs) -> list[tuple[str, str, str]]:
    """Every trec_eval measure pdireval has, with the given cut-offs."""
    out = list(FIXED)
    for ours, theirs in CUT:
        for k in cutoffs:
            out.append((f"{ours}@{k}", f"{theirs}.{k}", f"{theirs}_{k}"))
    return out


def qrels_dict(qrels: pd.DataFrame) -> dict:
    out: dict = {}
    for q, d, lab in zip(qrels["query"].astype(str), qrels["doc"].astype(str), qrels["label"]):
        out.setdefault(q, {})[d] = int(lab)
    return out


def run_dicts(run: pd.DataFrame) -> dict:
    """{system: {query: {doc: score}}} (pytrec_eval's run format, one per system)."""
    out: dict = {}
    for s, q, d, sc in zip(run["system"].astype(str), run["query"].astype(str), run["doc"].astype(str), run["score"]):
        out.setdefault(s, {}).setdefault(q, {})[d] = float(sc)
    return out


# NB pytrec_eval-terrier 0.5.x segfaults on a query whose qrels labels are all negative:
# callers must not pass one (tests/strategies.py: collections(require_judged=True)).
def pytrec_scores(run, qrels, measures, *, relevance_level: int = 1, judged_docs_only: bool = False,
                  rename: dict | None = None) -> pd.DataFrame:
    """pytrec_eval's per-query values as ``system, query, measure, value`` (trec_eval's
    default: only queries both in the run and in the qrels). ``measures`` is a list of
    (pdireval name, pytrec_eval spec, output key); ``rename`` maps our name to the name
    expected in pdireval's output (e.g. 'AP' -> 'AP(rel=2)')."""
    rename = rename or {}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels_dict(qrels), {spec for _, spec, _ in measures},
        relevance_level=relevance_level, judged_docs_only_flag=judged_docs_only,
    )
    rows = []
    for system, sys_run in run_dicts(run).items():
        for query, values in evaluator.evaluate(sys_run).items():
            for ours, _, key in measures:
                rows.append((system, query, rename.get(ours, ours), values[key]))
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


def assert_same_scores(ours: pd.DataFrame, expected: pd.DataFrame, atol: float = 1e-9) -> None:
    """Same (system, query, measure) rows and values equal to ``atol``."""
    keys = ["system", "query", "measure"]
    a = ours.assign(**{k: ours[k].astype(str) for k in keys})
    b = expected.assign(**{k: expected[k].astype(str) for k in keys})
    merged = a.merge(b, on=keys, how="outer", suffixes=("_ours", "_expected"), indicator=True)
    only = merged[merged["_merge"] != "both"]
    assert only.empty, f"rows present on one side only:\n{only.head(20)}"
    diff = np.abs(merged["value_ours"].to_numpy(float) - merged["value_expected"].to_numpy(float))
    bad = merged[~(diff <= atol)]
    assert bad.empty, f"{len(bad)} values differ:\n{bad.head(20).to_string()}"
