"""Helpers shared by the test modules (the only module tests import besides pdireval).

* Real data: :func:`shared_path` (skips with a reason when the ``../shared`` data folder is
  absent).
* Oracles: the trec_eval binaries (:func:`build_trec_eval`, behind the session fixtures ``te9``
  and ``te10`` of ``conftest.py``); pytrec_eval-terrier as trec_eval (:func:`pytrec_scores`, :func:`assert_same_scores`);
  the direct plug-in mutual information over enumerated ordered document pairs for RIC
  (:func:`direct_ric`, :func:`direct_joint_ric`).
* Fusion in exact arithmetic: :func:`exact_fused` (Fractions), :func:`assert_exact_ties`.
* Data: hypothesis strategies of TREC-like collections (:func:`collections`); scores frames from
  query x system matrices (:func:`scores_from_matrix`, :func:`random_matrix`).

Fixtures live in ``conftest.py``; a test module never imports another test module.
"""

from __future__ import annotations

import math
import subprocess
import warnings
from collections import Counter
from itertools import permutations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = SHARED / "data"


def shared_path(*parts: str) -> Path:
    """Path inside ../shared/data, skipping the test when the folder is absent."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: the real-data tests need the project's ../shared folder")
    return path


def quietly(function, *args, **kwargs):
    """Call a reference implementation with its own warnings silenced: they are not under test
    (scipy < 1.12's wilcoxon warns that zero differences switch it to the normal
    approximation, which pdireval's adapter already handles)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def build_trec_eval(version: str, dest: Path) -> str:
    """Path of the trec_eval ``version`` binary built into ``dest`` by
    ``../shared/oracles/build-trec-eval`` (a C compiler and make, a few seconds); skips the test
    with the reason when that is impossible. Tests use the session fixtures ``te9`` / ``te10``
    (``conftest.py``), so each binary is built once per run."""
    script = SHARED / "oracles" / "build-trec-eval"
    if not script.exists():
        pytest.skip(f"{script} is absent: the trec_eval oracle tests need ../shared")
    command = [str(script), version, str(dest)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot build trec_eval {version}: {exc}")
    binary = Path(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else None
    if done.returncode != 0 or binary is None or not binary.exists():
        reason = done.stderr.strip()[:300]
        pytest.skip(f"cannot build trec_eval {version} (needs cc and make): {reason}")
    return str(binary)


# ------------------------------------------------------------- trec_eval (pytrec_eval) oracle
# pytrec_eval-terrier as an oracle: our measure strings <-> trec_eval's, and its per-query
# values as a tidy frame comparable with pdireval.evaluate's output.

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
# callers must not pass one (collections(require_judged=True) below).
def pytrec_scores(run, qrels, measures, *, relevance_level: int = 1, judged_docs_only: bool = False,
                  rename: dict | None = None) -> pd.DataFrame:
    """pytrec_eval's per-query values as ``system, query, measure, value`` (trec_eval's
    default: only queries both in the run and in the qrels). ``measures`` is a list of
    (pdireval name, pytrec_eval spec, output key); ``rename`` maps our name to the name
    expected in pdireval's output (e.g. 'AP' -> 'AP(rel=2)')."""
    rename = rename or {}
    import pytrec_eval

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


# ----------------------------------------------------------------- hypothesis collections
# Hypothesis strategies and helpers shared by the measure tests.
#
# ``collections()`` draws small TREC-like test collections built to exercise what trec_eval is
# picky about: several systems, graded labels including negative ones, unjudged retrieved
# documents, exact score ties (also ties that only exist at float32 precision, as trec_eval
# stores scores in a C float), queries some systems did not answer, and documents that appear
# in several queries. Doc ids are chosen so that string order differs from numeric order
# ("d10" < "d9"), which matters for trec_eval's tie-breaking by doc id descending.

QUERY_POOL = ("1", "2", "10", "q3", "Q-4")
DOC_POOL = ("d1", "d2", "d3", "d9", "d10", "d11", "d20", "d100", "A", "b", "zz", "x-1", "x_2", "7")
SYSTEM_POOL = ("bm25", "BM25+rm3", "sys_2", "Z")
# few distinct values -> many exact ties; 1 + 1e-9 equals 1.0 at float32 precision
SCORE_POOL = (-1.5, 0.0, 0.25, 1.0, 1.0 + 1e-9, 2.0, 3.5, 1e6)


LABELS = st.integers(min_value=-2, max_value=3)


@st.composite
def collections(
    draw,
    *,
    labels=LABELS,
    max_systems: int = 3,
    max_queries: int = 4,
    max_depth: int = 10,
    with_rank: bool = False,
    require_judged: bool = False,
):
    """A (run, qrels) pair of small frames (see the module docstring).

    Every system answers at least one judged query; qrels labels are ints (pytrec_eval needs
    them). With ``with_rank`` the run also has a ``rank`` column (a permutation of 1..L per
    segment, independent of the score). With ``require_judged`` every query has at least one
    label >= 0: pytrec_eval-terrier 0.5.x crashes (segfault) on a query whose qrels labels are
    all negative, so the oracle tests need it (that case is tested by hand instead).
    """
    queries = draw(st.lists(st.sampled_from(QUERY_POOL), min_size=1, max_size=max_queries, unique=True))
    qrows = []
    for q in queries:
        docs = draw(st.lists(st.sampled_from(DOC_POOL), min_size=1, max_size=8, unique=True))
        drawn = [draw(labels) for _ in docs]
        if require_judged and all(lab < 0 for lab in drawn):
            drawn[0] = draw(st.integers(min_value=0, max_value=3))
        qrows.extend((q, d, lab) for d, lab in zip(docs, drawn))
    qrels = pd.DataFrame(qrows, columns=["query", "doc", "label"])

    systems = draw(st.lists(st.sampled_from(SYSTEM_POOL), min_size=1, max_size=max_systems, unique=True))
    rows = []
    for s in systems:
        answered = draw(st.lists(st.sampled_from(queries), min_size=1, max_size=len(queries), unique=True))
        for q in answered:
            docs = draw(st.lists(st.sampled_from(DOC_POOL), min_size=1, max_size=max_depth, unique=True))
            scores = draw(st.lists(st.sampled_from(SCORE_POOL), min_size=len(docs), max_size=len(docs)))
            ranks = draw(st.permutations(range(1, len(docs) + 1))) if with_rank else [None] * len(docs)
            for d, sc, r in zip(docs, scores, ranks):
                rows.append((s, q, d, sc, r))
    run = pd.DataFrame(rows, columns=["system", "query", "doc", "score", "rank"])
    if with_rank:
        run["rank"] = run["rank"].astype("int64")
    else:
        run = run.drop(columns="rank")
    return run, qrels


# -------------------------------------------------------------- scores frames from matrices


def scores_from_matrix(matrix, measure="AP", systems=None):
    matrix = np.asarray(matrix, dtype=float)
    n, m = matrix.shape
    systems = systems or [f"s{j:02d}" for j in range(m)]
    return pd.DataFrame(
        {
            "system": np.repeat(systems, n),
            "query": np.tile([f"q{i:03d}" for i in range(n)], m),
            "measure": measure,
            "value": matrix.T.ravel(),
        }
    )


def random_matrix(n=20, m=6, seed=0, ties=True):
    rng = np.random.default_rng(seed)
    x = rng.beta(2, 5, size=(n, m)) + np.linspace(0, 0.1, m)
    if ties:  # IR-like: identical scores on some topics (zero differences)
        x[: n // 4, :] = np.round(x[: n // 4, :], 1)
        x[0, :] = 0.0
    return x


# ------------------------------------------------------------------------- RIC oracle
# The direct maximum-likelihood MI over explicitly enumerated *ordered* document pairs,
# written from the definitions, independent of pdireval's closed form.

NAN = float("nan")


def mi(samples):
    n = len(samples)
    pxy = Counter(samples)
    px = Counter(x for x, _ in samples)
    py = Counter(y for _, y in samples)
    return sum(c / n * math.log2((c / n) / ((px[x] / n) * (py[y] / n))) for (x, y), c in pxy.items())


def list_variable(ranking, labels, rel=1.0):
    """Rank of each judged document in the condensed, truncated list (inf = not retrieved)."""
    condensed = [d for d in ranking if d in labels and not math.isnan(labels[d])]
    last = max((i for i, d in enumerate(condensed) if labels[d] >= rel), default=-1)
    return {d: i for i, d in enumerate(condensed[: last + 1])}


def r_value(rank, di, dj):
    ri, rj = rank.get(di, math.inf), rank.get(dj, math.inf)
    if math.isinf(ri) and math.isinf(rj):
        return 0
    return 1 if ri < rj else -1


def pair_sample(labels):
    judged = [d for d, g in labels.items() if not math.isnan(g)]
    return [(i, j) for i, j in permutations(judged, 2) if labels[i] != labels[j]]


def direct_ric(ranking, labels, rel=1.0):
    pairs = pair_sample(labels)
    if not pairs:
        return NAN
    rank = list_variable(ranking, labels, rel)
    return mi([(r_value(rank, i, j), int(labels[i] > labels[j])) for i, j in pairs])


def direct_joint_ric(rankings, labels, rel=1.0):
    pairs = pair_sample(labels)
    ranks = [list_variable(r, labels, rel) for r in rankings]
    return mi([(tuple(r_value(rk, i, j) for rk in ranks), int(labels[i] > labels[j])) for i, j in pairs])


def frames(rankings: dict, labels: dict, query="1"):
    run = pd.DataFrame(
        [
            {"system": s, "query": query, "doc": d, "rank": i + 1}
            for s, ranking in rankings.items()
            for i, d in enumerate(ranking)
        ]
    )
    qrels = pd.DataFrame([{"query": query, "doc": d, "label": g} for d, g in labels.items()])
    return run, qrels


EXAMPLE = {"a": 2, "b": 1, "e": 1, "c": 0, "d": 0, "u": NAN}


def random_ric_case(rng):
    n_docs = int(rng.integers(2, 12))
    docs = [f"d{i}" for i in range(n_docs)]
    grades = rng.integers(0, int(rng.integers(2, 5)), n_docs).astype(float)
    grades[rng.random(n_docs) < 0.15] = NAN
    labels = dict(zip(docs, grades))
    pool = docs + [f"x{i}" for i in range(3)]  # x*: never judged
    rankings = {}
    for s in range(int(rng.integers(1, 4))):
        k = int(rng.integers(0, len(pool) + 1))
        rankings[f"s{s}"] = list(rng.permutation(pool)[:k])
    return rankings, labels


# --------------------------------------------------------------------------- provider cross-checks


def graded_collection(seed: int, *, n_queries: int = 12, n_systems: int = 3, max_depth: int = 60, long_lists: bool = False):
    """A seeded (run, qrels) pair with graded labels 0..3 and some -1, unjudged retrieved
    documents, queries some systems do not answer (empty lists), distinct scores within a
    ranking (peers break score ties differently), and with ``long_lists`` lists longer than
    1000 (cwl_eval's depth). Query ids are numeric strings."""
    import numpy as np

    gen = np.random.default_rng(seed)
    rows, qrows = [], []
    n_docs = 3 * max(max_depth, 1200 if long_lists else 0)
    for q in range(1, n_queries + 1):
        pool = gen.choice(n_docs, size=min(n_docs, 2 * max_depth), replace=False)
        judged = pool[: int(gen.integers(1, len(pool)))]
        labels = gen.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=len(judged))
        qrows += [(str(q), f"d{d}", int(lab)) for d, lab in zip(judged, labels)]
        for s in range(n_systems):
            if gen.random() < 0.1:
                continue  # unanswered query
            depth = int(gen.integers(1, max_depth + 1))
            if long_lists and gen.random() < 0.3:
                depth = int(gen.integers(1000, 1200))
            docs = gen.choice(n_docs, size=depth, replace=False)
            scores = gen.permutation(depth).astype(float) + 1.0
            rows += [(f"s{s}", str(q), f"d{d}", x) for d, x in zip(docs, scores)]
    run = pd.DataFrame(rows, columns=["system", "query", "doc", "score"])
    qrels = pd.DataFrame(qrows, columns=["query", "doc", "label"])
    return run, qrels


def ir_measures_values(run: pd.DataFrame, qrels: pd.DataFrame, measures: dict) -> pd.DataFrame:
    """ir_measures' per-query values, ``measures`` mapping our string -> theirs; qrels may
    carry a ``subtopic`` column (passed as ir_measures' ``iteration``)."""
    import logging
    import warnings

    import ir_measures

    parsed = {ir_measures.parse_measure(theirs): ours for ours, theirs in measures.items()}
    ir_qrels = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance", "subtopic": "iteration"})
    ir_qrels = ir_qrels.astype({"relevance": int, "query_id": str, "doc_id": str})
    rows = []
    logging.disable(logging.WARNING)  # cwl_eval's gain-range warnings
    try:
        for system, sys_run in run.groupby("system"):
            ir_run = sys_run.rename(columns={"query": "query_id", "doc": "doc_id"})[["query_id", "doc_id", "score"]]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for metric in ir_measures.iter_calc(list(parsed), ir_qrels, ir_run.astype({"query_id": str, "doc_id": str})):
                    rows.append((system, metric.query_id, parsed[metric.measure], metric.value))
    finally:
        logging.disable(logging.NOTSET)
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


def canonical_measures(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each measure name replaced by its canonical spelling (evaluate keeps
    names as given; names pdireval does not parse stay as they are)."""
    import pdireval

    def canonical(name):
        try:
            return str(pdireval.parse_measure(name))
        except (pdireval.MeasureError, TypeError):
            return name

    names = {m: canonical(m) for m in pd.unique(frame["measure"])}
    return frame.assign(measure=frame["measure"].map(names))


def assert_same_values(ours: pd.DataFrame, theirs: pd.DataFrame, atol: float = 1e-9) -> None:
    """Every (system, query, measure) of both frames present in both (measure names compared
    by their canonical spelling), values within atol."""
    import numpy as np

    keys = ["system", "query", "measure"]
    ours, theirs = canonical_measures(ours), canonical_measures(theirs)
    merged = ours.astype({k: str for k in keys}).merge(theirs.astype({k: str for k in keys}), on=keys, how="outer", indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head(10)
    diff = np.abs(merged["value_x"].to_numpy(dtype=float) - merged["value_y"].to_numpy(dtype=float))
    assert (diff <= atol).all(), merged[diff > atol].head(10)


def assert_report_headers(rep) -> None:
    """Every sheet of a report's workbook has the one header style and the frame's own column
    names as headers (issue 28: a sheet read back has the frame's columns), each field with
    an explicit human title (its cell comment; no snake_case left, Greek letters where the
    field uses them) that the HTML page's table of the same name shows (abbreviated long
    names resolved by its legend)."""
    import html as html_module
    import re

    import openpyxl

    from pdireval.reporting.excel import TITLES

    wb = openpyxl.load_workbook(rep.workbook)
    styles = {}
    for ws in wb.worksheets:
        for cell in ws[1]:
            key = (cell.font.b, cell.fill.fill_type, cell.fill.start_color.rgb, cell.alignment.wrap_text,
                   cell.alignment.vertical, cell.border.bottom.style)
            styles.setdefault(key, []).append(f"{ws.title}!{cell.coordinate}")
    assert len(styles) == 1, f"more than one header style: { {k: v[:3] + [f'({len(v)} cells)'] for k, v in styles.items()} }"
    assert next(iter(styles))[0] is True, "headers are not bold"
    page = rep.html.read_text(encoding="utf-8")
    for name, frame in rep.tables.items():
        cells = list(wb[name[:31]][1])
        assert [cell.value for cell in cells] == [str(c) for c in frame.columns], name
        heads = []
        for col, cell in zip(frame.columns, cells):
            head = cell.comment.text if cell.comment is not None else str(col)
            if re.fullmatch(r"[a-z][a-z0-9_]*", str(col)):  # a field, not a measure or label name
                assert col in TITLES and head == TITLES[col], f"{name}.{col}: no human title (shown as {head!r})"
            assert not re.search(r"(?i)\b(rho|phi|tau|sigma|kappa|alpha)\d*\b", head), f"{name}: {head!r} spells a Greek letter"
            heads.append(head)
        found = re.search(rf'<table id="tab-{re.escape(name)}">.*?<thead><tr>(.*?)</tr></thead>.*?</div>'
                          r'(<p class="legend">(.*?)</p>)?', page, re.S)
        assert found is not None, name
        shown = [html_module.unescape(t) for t in re.findall(r"<th>(.*?)</th>", found.group(1))]
        legend = {}
        if found.group(3):
            legend = dict(item.split(" = ", 1) for item in html_module.unescape(found.group(3)).split("; "))
        assert [legend.get(t, t) for t in shown] == heads, name
    wb.close()


def every_tie_ordering(run: pd.DataFrame) -> pd.DataFrame:
    """Every ordering of every score-tie group of each (system, query) list, as a run: each
    ordering is a system ``"system|query|i"`` with distinct scores (brute force for
    ``ties="expected"``; small lists only)."""
    import itertools

    rows = []
    for (system, query), seg in run.groupby(["system", "query"], sort=False):
        groups = [list(seg.loc[seg["score"] == sc, "doc"]) for sc in sorted(seg["score"].unique(), reverse=True)]
        for i, perms in enumerate(itertools.product(*[itertools.permutations(g) for g in groups])):
            order = [d for p in perms for d in p]
            rows += [(f"{system}|{query}|{i}", query, d, float(len(order) - j)) for j, d in enumerate(order)]
    return pd.DataFrame(rows, columns=["system", "query", "doc", "score"])


def evaluate_every_tie_ordering(run: pd.DataFrame, qrels: pd.DataFrame, measures) -> pd.DataFrame:
    """The default (doc-id tie-break) scores of :func:`every_tie_ordering`, ``system`` back to
    the original system (one row per ordering)."""
    import pdireval

    scores = canonical_measures(pdireval.evaluate(every_tie_ordering(run), measures, qrels=qrels, missing="drop"))
    scores["system"] = scores["system"].str.split("|").str[0]
    return scores


def tie_brute_force(run: pd.DataFrame, qrels: pd.DataFrame, measures) -> pd.Series:
    """Mean of the default value over every ordering of every tie group of each list, indexed
    by (system, query, measure): the expectation ``ties="expected"`` must equal."""
    scores = evaluate_every_tie_ordering(run, qrels, measures)
    return scores.groupby(["system", "query", "measure"], sort=False)["value"].mean()


def expected_name(text: str) -> str:
    """``text`` with ``ties="expected"`` (e.g. ``AP@10`` -> ``AP(ties=expected)@10``)."""
    from pdireval.measures.registry import parse_measure

    return str(parse_measure(text).replace(ties="expected"))


def assert_every_ordering(
    run: pd.DataFrame, qrels: pd.DataFrame, measures, atol: float, *, form_options=None, **options
) -> None:
    """``ties="expected"`` of each measure equals the mean over every ordering of every tie
    group (:func:`tie_brute_force`), per (system, query), within ``atol``.

    ``form_options`` (keyword arguments of the measures' declared closed form, e.g.
    ``max_stoppers=1``) and ``options`` (of the enumeration, e.g. ``designs=False``,
    ``exact_limit=20_000``) compute the tie-aware values with those arguments instead of
    the defaults (:func:`tie_aware_values`)."""
    import pdireval
    from pdireval.measures.registry import parse_measure

    reference = tie_brute_force(run, qrels, measures)
    if form_options is None and not options:
        ours = canonical_measures(pdireval.evaluate(run, [expected_name(m) for m in measures], qrels=qrels,
                                                    missing="drop"))
    for text in measures:
        if form_options is None and not options:
            got = ours[ours["measure"] == expected_name(text)].set_index(["system", "query"])["value"]
        else:
            got = tie_aware_values(run, qrels, text, form_options, **options)
        got = got.sort_index()
        want = reference.xs(str(parse_measure(text)), level="measure").sort_index()
        assert len(got) == len(want) > 0, text
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=atol, err_msg=text)


def tie_aware_values(run, qrels, text: str, form_options=None, **options) -> pd.Series:
    """``ties="expected"`` of the measure ``text`` per (system, query), computed by its
    declared method with ``form_options`` passed to its closed form and ``options`` to the
    enumeration (:func:`pdireval.measures.ties.expected`)."""
    import dataclasses
    import functools

    from pdireval.evaluation import prepare
    from pdireval.measures.registry import parse_measure
    from pdireval.measures.ties import ByCutoff, ClosedForm, expected

    m = parse_measure(expected_name(text))
    definition = m.definition
    declared = definition.ties
    if isinstance(declared, ByCutoff):
        declared = declared.without if m.cutoff is None else declared.with_cutoff
    if form_options and isinstance(declared, ClosedForm):
        declared = dataclasses.replace(declared, form=functools.partial(declared.form, **form_options))
    segments = prepare(run, qrels=qrels, missing="drop").segments
    real = definition.cutoff == "real"
    values = expected(segments, m, definition.kernel, declared, real_cutoff=real, **options)
    index = pd.MultiIndex.from_arrays(
        [segments.systems[segments.seg_system], segments.judgments.queries[segments.seg_query]],
        names=["system", "query"],
    )
    return pd.Series(np.asarray(values, dtype=np.float64), index=index)


def small_tied_case(seed: int):
    """Two systems, three queries, lists of 7 documents in 2-3 tie groups (with 2-4 judged
    documents of mixed grades each), negative labels, unjudged documents."""
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2", "3"):
        docs = [f"d{i}" for i in range(10)]
        labels = gen.choice([-1, 0, 0, 1, 2, 3], size=8)
        qrels += [(q, d, float(lab)) for d, lab in zip(docs[:8], labels)]
        for s in ("a", "b"):
            picked = gen.choice(docs, size=7, replace=False)
            scores = np.sort(gen.choice([1.0, 2.0, 3.0], size=7))[::-1]
            runs += [(s, q, d, sc) for d, sc in zip(picked, scores)]
    run = pd.DataFrame(runs, columns=["system", "query", "doc", "score"])
    return run, pd.DataFrame(qrels, columns=["query", "doc", "label"])


def subtopic_case(seed: int):
    """One system, two queries, lists of 6 documents in tie groups, three subtopics judged
    0-2 on 4 of 7 documents each."""
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2"):
        docs = [f"d{i}" for i in range(9)]
        for sub in ("1", "2", "3"):
            judged = gen.choice(docs[:7], size=4, replace=False)
            qrels += [(q, sub, d, float(gen.choice([0, 1, 1, 2]))) for d in judged]
        picked = gen.choice(docs, size=6, replace=False)
        scores = np.sort(gen.choice([1.0, 2.0], size=6))[::-1]
        runs += [("s", q, d, sc) for d, sc in zip(picked, scores)]
    run = pd.DataFrame(runs, columns=["system", "query", "doc", "score"])
    return run, pd.DataFrame(qrels, columns=["query", "subtopic", "doc", "label"])


def tied_case(seed: int, labels=(-1, 0, 1, 1, 2, 3), max_judged: int = 8):
    """Three queries, two systems, lists of 8 documents in 2-4 tie groups; 2 to
    ``max_judged`` − 1 judged documents per query with ``labels``, documents outside the qrels."""
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2", "3"):
        docs = [f"d{i}" for i in range(11)]
        judged = gen.choice(docs, size=int(gen.integers(2, max_judged)), replace=False)
        qrels += [(q, d, float(gen.choice(labels))) for d in judged]
        for s in ("a", "b"):
            picked = gen.choice(docs, size=8, replace=False)
            scores = np.sort(gen.choice([1.0, 2.0, 3.0, 4.0], size=8, p=[0.35, 0.35, 0.15, 0.15]))[::-1]
            runs += [(s, q, d, sc) for d, sc in zip(picked, scores)]
    return pd.DataFrame(runs, columns=["system", "query", "doc", "score"]), pd.DataFrame(qrels, columns=["query", "doc", "label"])


def write_trec_files(run: pd.DataFrame, qrels: pd.DataFrame, folder: Path) -> tuple[Path, dict[str, Path]]:
    """Write qrels and one TREC run file per system (scores printed exactly) for trec_eval."""
    qpath = folder / "qrels.txt"
    with qpath.open("w") as f:
        for q, d, lab in zip(qrels["query"], qrels["doc"], qrels["label"]):
            f.write(f"{q} 0 {d} {int(lab)}\n")
    paths = {}
    for i, (system, part) in enumerate(run.groupby("system", sort=True)):
        path = folder / f"run{i}.txt"
        with path.open("w") as f:
            for q, d, s in zip(part["query"], part["doc"], part["score"]):
                f.write(f"{q} Q0 {d} 0 {float(s)!r} {system}\n")
        paths[system] = path
    return qpath, paths


@st.composite
def tied_runs(draw):
    """One or two queries, lists of up to 6 documents with scores from {1, 2, 3} (many
    ties), graded and negative labels, unjudged and unpooled documents."""
    docs = [f"d{i}" for i in range(8)]
    qrows, rows = [], []
    for q in draw(st.lists(st.sampled_from(["1", "2"]), min_size=1, max_size=2, unique=True)):
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6, unique=True))
        labels = draw(st.lists(st.sampled_from([-1, 0, 1, 2, 3]), min_size=len(judged), max_size=len(judged)))
        qrows += [(q, d, float(lab)) for d, lab in zip(judged, labels)]
        ranked = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6, unique=True))
        scores = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=len(ranked), max_size=len(ranked)))
        rows += [("s", q, d, sc) for d, sc in zip(ranked, scores)]
    return pd.DataFrame(rows, columns=["system", "query", "doc", "score"]), pd.DataFrame(qrows, columns=["query", "doc", "label"])


def find_browser() -> str | None:
    """A headless-capable Chromium/Chrome on PATH, or None."""
    import shutil

    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


# ------------------------------------------------------------- fusion in exact arithmetic


def exact_fused(lists, method, norm):
    """Fused scores in exact arithmetic (Fractions) of one query's lists ``{system: [docs in
    rank order]}``, from the documented definitions of norm="rank" and norm="borda"."""
    from fractions import Fraction

    union = sorted({d for docs in lists.values() for d in docs})
    size = len(union)
    values = {d: [] for d in union}
    for docs in lists.values():
        n = len(docs)
        where = {d: i for i, d in enumerate(docs)}
        for d in union:
            if d in where:
                values[d].append(Fraction(n - where[d], n) if norm == "rank" else Fraction(size - where[d], size))
            elif norm == "borda":  # every system scores every document of U
                values[d].append(Fraction(1, 2) - Fraction(n - 1, 2 * size))
    if method == "combsum":
        return {d: sum(v) for d, v in values.items()}
    if method == "combmnz":
        return {d: sum(v) * len(v) for d, v in values.items()}
    if method == "combanz":
        return {d: sum(v) / len(v) for d, v in values.items()}
    if method == "combmax":
        return {d: max(v) for d, v in values.items()}
    return {d: (sorted(v)[(len(v) - 1) // 2] + sorted(v)[len(v) // 2]) / 2 for d, v in values.items()}


def assert_exact_ties(fused, exact):
    """Equal exact scores are equal fused scores, and the order is the exact one: score
    descending, ties by doc id descending."""
    got = dict(zip(fused["doc"], fused["score"]))
    assert set(got) == set(exact)
    by_value = {}
    for d, v in exact.items():
        by_value.setdefault(v, set()).add(got[d])
    split = {v: s for v, s in by_value.items() if len(s) > 1}
    assert not split, f"{len(split)} exact tie(s) split, e.g. {next(iter(split.items()))}"
    want = sorted(exact, key=lambda d: (-exact[d], tuple(-ord(c) for c in d)))
    assert fused["doc"].tolist() == want
    np.testing.assert_allclose([got[d] for d in want], [float(exact[d]) for d in want], rtol=1e-13)
