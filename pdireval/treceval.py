"""``pdireval trec_eval``: a drop-in for the trec_eval command.

Same arguments, same output, line for line: ``name<TAB>query<TAB>value`` with the name
left-justified to 22 characters, values with 4 decimals (counts as integers), per-query
lines (``-q``) in trec_eval's query order (ids compared as byte strings) and then the
``all`` lines, measure families in trec_eval's print order. The measures are pdireval's,
found through the registry's trec_eval names (:mod:`pdireval.measures.trec_eval.names`), so
every measure registered with a trec_eval name is available here.

Summary rules are trec_eval's (Buckley, NIST; trec_eval 9.0.8): means over the queries
evaluated (the queries of the run that have judgments; ``-c``: every query of the qrels,
unanswered ones counting as empty rankings), sums for count measures (``num_ret``,
``num_rel``, ``num_rel_ret``, ...), the geometric mean for ``gm_`` measures, and
``num_q`` the number of queries averaged over.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
import warnings
from contextlib import contextmanager

import numpy as np
import pandas as pd

__all__ = ["add_trec_eval", "run_trec_eval", "trec_eval_output"]

#: per-query and summary lines of these families are integers (``%ld``)
_WIDTH = 22


def _summary_rule(measure) -> str:
    """'mean', 'sum' or 'gm' (the MeasureDef's ``summary``)."""
    return getattr(measure.definition, "summary", "mean") or "mean"


def _order_run(run: pd.DataFrame, float64: bool) -> np.ndarray:
    """Row order of trec_eval: query, score descending (C float unless ``float64``), doc
    id descending (byte order)."""
    score = run["score"].to_numpy(dtype=np.float64)
    if not float64:
        score = score.astype(np.float32).astype(np.float64)
    score = score + 0.0  # -0.0 -> +0.0
    query_codes = pd.factorize(run["query"], sort=False)[0]
    doc_codes = pd.factorize(run["doc"], sort=True)[0]
    return np.lexsort((-doc_codes, -score, query_codes))


def _truncate(run: pd.DataFrame, max_docs: int, float64: bool) -> pd.DataFrame:
    """trec_eval -M: the first ``max_docs`` documents of each query in trec_eval's order."""
    order = _order_run(run, float64)
    ordered = run.iloc[order]
    position = ordered.groupby("query", sort=False, observed=True).cumcount().to_numpy()
    return ordered[position < max_docs].reset_index(drop=True)


def _judged_only(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """trec_eval -J: drop retrieved documents without a judgment (absent from the qrels,
    or a negative label: pooled but unjudged)."""
    judged = qrels.loc[qrels["label"].to_numpy() >= 0, ["query", "doc"]]
    keys = pd.MultiIndex.from_frame(judged)
    keep = pd.MultiIndex.from_frame(run[["query", "doc"]]).isin(keys)
    return run[keep].reset_index(drop=True)


def trec_eval_output(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    measures=(),
    *,
    per_query: bool = False,
    complete: bool = False,
    summary: bool = True,
    level: int = 1,
    judged_only: bool = False,
    max_docs: int | None = None,
    score_precision: str = "float32",
) -> str:
    """trec_eval's output for one canonical run (one system) and canonical qrels.

    Parameters
    ----------
    run, qrels
        Canonical frames (:func:`pdireval.read_run` / :func:`pdireval.read_qrels`); the
        run's ``system`` of its last row is the ``runid`` printed.
    measures
        trec_eval ``-m`` arguments (``"official"`` when empty): families (``P``), families
        with parameters (``P.5,10``), sets (``official``, ``all_trec``), or any pdireval
        measure string (printed under its trec_eval name when it has one).
    per_query, complete, summary, level, judged_only, max_docs
        trec_eval's ``-q``, ``-c``, not ``-n``, ``-l``, ``-J``, ``-M``.
    score_precision
        ``"float32"`` (trec_eval 9.0.8) or ``"float64"`` (trec_eval 10.0).

    Returns
    -------
    str
        The lines trec_eval prints, each ending in a newline.
    """
    from pdireval.errors import MeasureError, PdirevalWarning
    from pdireval.measures import parse_measure
    from pdireval.measures.trec_eval.names import TrecMeasure, expand, print_order, trec_eval_name

    float64 = score_precision == "float64"
    runid = str(run["system"].iloc[-1])
    extra = {"rel": float(level)} if level != 1 else {}
    chosen: dict[str, list[TrecMeasure]] = {}
    explicit: set[str] = set()
    for spec in list(measures) or ["official"]:
        try:
            items = expand(spec, extra_params=extra, pseudo=True)
            given_params = "." in spec or any(c.isdigit() for c in spec.rpartition("_")[2])
        except MeasureError:
            try:
                measure = parse_measure(spec)
            except MeasureError:
                raise MeasureError(
                    f"unknown measure {spec!r}: not a trec_eval measure name (e.g. map, P.10, "
                    "ndcg_cut.10, official, all_trec) nor a pdireval measure (e.g. nDCG@10)."
                ) from None
            if extra and any(p.name == "rel" for p in measure.definition.params):
                measure = measure.replace(**extra)
            name = trec_eval_name(measure) or str(measure)
            items, given_params = [TrecMeasure(name, "~" + str(measure), measure)], True
        by_family: dict[str, list[TrecMeasure]] = {}
        for item in items:
            by_family.setdefault(item.family, []).append(item)
        for family, group in by_family.items():
            # trec_eval: parameters given with -m win over a family's defaults; first one wins
            if family in explicit:
                continue
            if family not in chosen or given_params:
                chosen[family] = group
                if given_params:
                    explicit.add(family)
    known = [t for t in chosen.values() for t in t if not t.family.startswith("~")]
    other = [t for t in chosen.values() for t in t if t.family.startswith("~")]
    items = print_order(known) + other

    original_queries = pd.unique(run["query"])
    if max_docs is not None:
        run = _truncate(run, max_docs, float64)
    if judged_only:
        run = _judged_only(run, qrels)
    qrels_queries = sorted(pd.unique(qrels["query"]).tolist())
    judged_set = set(qrels_queries)
    evaluated = sorted(q for q in original_queries.tolist() if q in judged_set)
    if not evaluated:
        raise _no_queries()
    averaged = qrels_queries if complete else evaluated
    unique = list(dict.fromkeys(t.measure for t in items if t.measure is not None))
    special_num_rel = complete and any(t.family == "num_rel" for t in items)
    if special_num_rel:  # trec_eval -c: num_rel counts every judged relevant doc (label > 0)
        from pdireval.measures import build_measure

        all_rel = build_measure("NumRel")
        unique.append(all_rel)
    values = {}
    if unique:
        if len(run):
            from pdireval.evaluation import evaluate

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PdirevalWarning)
                scores = evaluate(run, unique, qrels=qrels, missing="zero", **_precision_kw(score_precision))
            table = scores.pivot(index="query", columns="measure", values="value")
        else:  # -J / -M left nothing: every query is an empty ranking
            table = _empty_table(unique, qrels, runid, score_precision)
        for m in unique:
            values[m] = table[str(m)]

    lines = []
    if per_query:
        block = []
        for item in items:
            if item.measure is None or _summary_rule(item.measure) == "gm":
                continue
            column = values[item.measure]
            block.append((item, column.reindex(evaluated).to_numpy()))
        for i, query in enumerate(evaluated):
            for item, vals in block:
                lines.append(_line(item.name, query, vals[i], _summary_rule(item.measure) == "sum"))
    if summary:
        for item in items:
            if item.family == "runid":
                lines.append(f"{'runid':<{_WIDTH}}\tall\t{runid}")
                continue
            if item.family == "num_q":
                lines.append(f"{'num_q':<{_WIDTH}}\tall\t{len(averaged)}")
                continue
            rule = _summary_rule(item.measure)
            column = values[item.measure]
            if rule == "sum":
                source = values[all_rel] if item.family == "num_rel" and special_num_rel else column.reindex(evaluated)
                if item.family == "num_rel" and special_num_rel:
                    source = source.reindex(qrels_queries)
                lines.append(_line(item.name, "all", _sequential_sum(source.to_numpy()), True))
            elif rule == "gm":
                total = _sequential_sum(column.reindex(averaged).to_numpy())
                lines.append(_line(item.name, "all", math.exp(total / len(averaged)), False))
            else:
                total = _sequential_sum(column.reindex(evaluated).to_numpy())
                lines.append(_line(item.name, "all", total / len(averaged), False))
    return "".join(line + "\n" for line in lines)


def _precision_kw(score_precision: str) -> dict:
    return {} if score_precision == "float32" else {"score_precision": score_precision}


def _empty_table(unique, qrels, runid, score_precision) -> pd.DataFrame:
    """Values of every measure on empty rankings for every judged query: a placeholder query
    (one document judged 0, so no label scale changes) answers, the others are empty."""
    from pdireval.evaluation import evaluate

    ghost = "\x00pdireval-empty"
    run = pd.DataFrame({"system": [runid], "query": [ghost], "doc": [ghost], "score": [0.0]})
    qrels = pd.concat([qrels, pd.DataFrame({"query": [ghost], "doc": [ghost], "label": [0.0]})], ignore_index=True)
    scores = evaluate(run, unique, qrels=qrels, missing="zero", **_precision_kw(score_precision))
    table = scores.pivot(index="query", columns="measure", values="value")
    return table.drop(index=ghost)


def _sequential_sum(values: np.ndarray) -> float:
    """Left-to-right double sum (trec_eval accumulates query by query)."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _line(name: str, query: str, value: float, integer: bool) -> str:
    if integer:
        return f"{name:<{_WIDTH}}\t{query}\t{int(value)}"
    return f"{name:<{_WIDTH}}\t{query}\t{value:6.4f}"


def _no_queries():
    from pdireval.errors import SchemaError

    return SchemaError(
        "no queries with both results and judgments: the run's query ids and the qrels' "
        "share none. Check that both files come from the same collection."
    )


# --------------------------------------------------------------------------- command line


def add_trec_eval(subparsers) -> None:
    """``pdireval trec_eval``: trec_eval's arguments and output."""
    p = subparsers.add_parser(
        "trec_eval",
        help="drop-in for the trec_eval command (same arguments, same output)",
        description=(
            "Evaluate one TREC run file against a qrels file and print trec_eval's output, "
            "line for line (trec_eval 9.0.8; --v10 orders near-tied scores as trec_eval 10.0). "
            "Measures are trec_eval's names (-m official, -m all_trec, -m P.5,10, "
            "-m ndcg_cut.10, ...) or pdireval measure strings. Use '-' for standard input."
        ),
        epilog=(
            "examples:\n"
            "  pdireval trec_eval qrels.txt run.txt\n"
            "  pdireval trec_eval -q -m map -m P.10 -m ndcg_cut.10 qrels.txt run.txt\n"
            "  pdireval trec_eval -c -l 2 -M 100 qrels.txt run.txt\n"
            "'pdireval evaluate' is the friendlier command (several runs, any pdireval measure)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file ('-': standard input)")
    p.add_argument("run", metavar="RUN", help="TREC run file ('-': standard input)")
    p.add_argument("-q", action="store_true", dest="per_query", help="also print each query's values")
    p.add_argument("-c", action="store_true", dest="complete",
                   help="average over every query of the qrels (unanswered queries score as empty rankings)")
    p.add_argument("-n", action="store_true", dest="no_summary", help="no summary ('all') lines")
    p.add_argument("-l", type=int, default=1, dest="level", metavar="LEVEL",
                   help="minimum label counted as relevant (default 1)")
    p.add_argument("-J", action="store_true", dest="judged_only",
                   help="evaluate only judged retrieved documents (unjudged ones are removed)")
    p.add_argument("-M", type=int, default=None, dest="max_docs", metavar="N",
                   help="evaluate only the top N documents of each query")
    p.add_argument("-m", action="append", dest="measures", metavar="MEASURE", default=[],
                   help="a trec_eval measure, family with parameters (P.5,10) or set (official, all_trec); repeat for more (default: official)")
    p.add_argument("--v10", action="store_true",
                   help="compare scores as doubles, as trec_eval 10.0 does (9.0.8 compares C floats)")
    p.set_defaults(func=run_trec_eval)


@contextmanager
def _file(path: str):
    """A path for a reader: ``-`` is standard input, copied to a temporary file."""
    if path != "-":
        yield path
        return
    folder = tempfile.mkdtemp(prefix="pdireval-")
    try:
        target = os.path.join(folder, "stdin.txt")
        with open(target, "w", encoding="utf-8") as fh:
            shutil.copyfileobj(sys.stdin, fh)
        yield target
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_trec_eval(args) -> int:
    from pdireval.errors import OptionError
    from pdireval.io import read_qrels, read_run

    if args.qrels == "-" and args.run == "-":
        raise OptionError("QRELS and RUN cannot both be '-' (standard input): name one of them as a file.")
    if args.max_docs is not None and args.max_docs < 1:
        raise OptionError(f"-M must be a whole number >= 1; got {args.max_docs}.")
    with _file(args.qrels) as qrels_path:
        qrels = read_qrels(qrels_path)
    with _file(args.run) as run_path:
        run = read_run(run_path)
    runid = run["system"].iloc[-1]
    if run["system"].nunique() > 1:  # trec_eval reads one run: the last line's tag names it
        run = run.assign(system=runid)
    out = trec_eval_output(
        run, qrels, args.measures, per_query=args.per_query, complete=args.complete,
        summary=not args.no_summary, level=args.level, judged_only=args.judged_only,
        max_docs=args.max_docs, score_precision="float64" if args.v10 else "float32",
    )
    sys.stdout.write(out)
    return 0
