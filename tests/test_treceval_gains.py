"""Gain levels (``-m ndcg.1=3,2=9``, ``G.``, ``Rndcg.``, ``ndcg_rel.``, 10.0's ``dcg.`` and
``ideal_dcg.``) in ``pdireval trec_eval`` and in :func:`pdireval.evaluate`.

trec_eval builds each query's gain table from the ``level=gain`` pairs and the labels 0 ..
max label of the query, sorts it with glibc's ``qsort`` and the comparator ``(int) (gain1 -
gain2)`` (gains closer than 1 compare equal), and walks it from the top entry down, passing
over entries that hold no document. The fast tests check values derived by hand from that
definition; the tests taking ``te9`` / ``te10`` (slow) compare the command with the binaries
over random gain maps and qrels, and :func:`pdireval.evaluate` with them wherever trec_eval's
sorted table is in gain order (elsewhere pdireval sorts exactly, as documented).
"""

from __future__ import annotations

import io
import math
import subprocess
import warnings

import numpy as np
import pytest

import pdireval
from pdireval.trec.trec_gains import C_INT_MIN, c_int, comp_rel_gain, gain_order, glibc_qsort
from pdireval.treceval import command


def ours(*argv):
    buffer = io.StringIO()
    status = command([str(a) for a in argv], stdout=buffer)
    return buffer.getvalue(), status


def theirs(binary: str, *argv):
    done = subprocess.run([binary, *map(str, argv)], capture_output=True, text=True, timeout=60)
    return done.stdout, done.returncode


def summary(text: str) -> dict:
    """{measure: value} of the ``all`` lines."""
    out = {}
    for line in text.splitlines():
        name, query, value = line.split("\t")
        if query == "all":
            out[name.strip()] = value
    return out


@pytest.fixture
def no_zero_judged(tmp_path):
    """The issue's reproducer: no document judged 0, labels 4 (x) and 3 (z); the run ranks z
    first."""
    (tmp_path / "q").write_text("a 0 x 4\na 0 z 3\n")
    (tmp_path / "r").write_text("a Q0 x 0 1 t\na Q0 z 1 2 t\n")
    return tmp_path / "q", tmp_path / "r"


def _dcg(gains) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_a_level_with_less_gain_and_no_document_at_level_0(no_zero_judged):
    """Level 0 holds no document, so trec_eval's walk down the table passes over it (gain 0)
    and reaches the level given less gain: the ideal ranking keeps that document."""
    q, r = no_zero_judged
    ndcg4 = _dcg([3, 0.5]) / _dcg([3, 0.5])  # z (3), x (4 -> 0.5); ideal 3, 0.5
    ndcg3 = _dcg([0.5, 4]) / _dcg([4, 0.5])  # z (3 -> 0.5), x (4); ideal 4, 0.5
    # G: Σ gain_i / log2(2 + ideal cost_i - results gain_i), cost max(ideal gain, 1)
    g3 = (0.5 / math.log2(2 + 4 - 0.5) + 4 / math.log2(2 + (4 + 1) - 4.5)) / 4.5
    # Rndcg: nDCG where the ideal gain changes (after rank 1: 4 -> 0.5) and at its end
    rndcg3 = (0.5 / 4 + ndcg3) / 2
    # ndcg_rel: nDCG at each retrieved positive-gain document (ranks 1 and 2), over n+ = 2
    ndcg_rel3 = (0.5 / 4 + ndcg3) / 2
    expected = {
        "ndcg.4=0.5": ndcg4,
        "ndcg.3=0.5": ndcg3,
        "G.3=0.5": g3,
        "Rndcg.3=0.5": rndcg3,
        "ndcg_rel.3=0.5": ndcg_rel3,
    }
    assert f"{ndcg4:6.4f}" == "1.0000" and f"{ndcg3:6.4f}" == "0.7007"  # the binary's
    for v10 in ((), ("--v10",)):
        for spec, value in expected.items():  # (one call each: -m ndcg.a -m ndcg.b keeps b)
            out, status = ours(*v10, "-m", spec, q, r)
            assert (summary(out), status) == ({spec.replace(".", "_", 1): f"{value:6.4f}"}, 0)
    out, status = ours("--v10", "-m", "dcg.3=0.5", q, r)
    assert summary(out)["dcg_3=0.5"] == f"{_dcg([0.5, 4]):6.4f}"
    out, status = ours("--v10", "-m", "ideal_dcg.3=0.5", q, r)
    assert summary(out)["ideal_dcg_3=0.5"] == f"{_dcg([4, 0.5]):6.4f}"


def test_evaluate_agrees_on_the_reproducer(no_zero_judged):
    q, r = no_zero_judged
    scores = pdireval.evaluate(
        pdireval.read_run(r), ["ndcg.4=0.5", "ndcg.3=0.5"], qrels=pdireval.read_qrels(q)
    )
    assert scores["value"].round(4).tolist() == [1.0, 0.7007]


def test_gains_closer_than_one_keep_trec_eval_order(tmp_path):
    """``ndcg.1=0.5`` on a query judged 1 only: the table (1: 0.5), (0: 0) compares equal
    ((int) 0.5 = 0), qsort keeps it as built, so its top entry is level 0 with gain 0 and
    trec_eval's ideal ranking is empty: ndcg 0 (pdireval's evaluate sorts exactly: 1)."""
    (tmp_path / "q").write_text("a 0 x 1\na 0 y 1\n")
    (tmp_path / "r").write_text("a Q0 x 0 1 t\na Q0 y 1 2 t\n")
    q, r = tmp_path / "q", tmp_path / "r"
    assert summary(ours("-m", "ndcg.1=0.5", "-m", "G.1=0.5", q, r)[0]) == {
        "ndcg_1=0.5": "0.0000",
        "G_1=0.5": "0.0000",
    }
    assert summary(ours("-m", "ndcg.1=1.5", q, r)[0]) == {"ndcg_1=1.5": "1.0000"}


def test_glibc_qsort_is_merge_sort_order():
    """glibc's merge sort: stable, equal to sorted() for a total order; for trec_eval's
    comparator its order follows the merges (checked by hand on a five-entry table)."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        items = rng.integers(0, 6, size=rng.integers(0, 12)).tolist()
        keyed = list(enumerate(items))
        by_value = glibc_qsort(keyed, lambda a, b: a[1] - b[1])
        assert by_value == sorted(keyed, key=lambda x: x[1])
    gains = [3.0, 1.3, 1.5, 0.0, 1.0]
    # [3, 1.3] -> [1.3, 3]; [1.5] with [0, 1] -> [0, 1.5, 1]; merged: [0, 1.3, 1.5, 1, 3]
    assert [gains[i] for i in gain_order(gains)] == [0.0, 1.3, 1.5, 1.0, 3.0]
    # (int) 1.5 - 1.3 = 0 and (int) 1.5 - 1.0 = 0, but (int) 1.3 - 0 = 1: not a total order
    assert comp_rel_gain(1.5, 1.3) == comp_rel_gain(1.5, 1.0) == 0 < comp_rel_gain(1.3, 0.0)
    assert gain_order([2.0, 0.0, 1.0, 7.0]) == [1, 2, 0, 3]  # integers: the stable sort


def test_c_int_is_x86_truncation():
    assert [c_int(x) for x in (0.9, -0.9, 1.5, -2.5, 2147483647.5)] == [0, 0, 1, -2, 2147483647]
    assert c_int(3e9) == c_int(-3e9) == c_int(float("nan")) == c_int(math.inf) == C_INT_MIN


# --------------------------------------------------------------------------- the binaries

GAIN_VALUES = (-1.0, -0.5, 0.0, 1e-3, 0.25, 0.5, 0.9, 1.0, 1.3, 1.5, 2.0, 2.5, 3.0, 4.0, 7.0, 3e9)


def _random_case(rng, folder):
    """Random qrels (labels -1 .. 5, some queries without a document judged 0), a run with
    score ties and unjudged documents, and a gain map over levels -1 .. 6."""
    qrels, run = [], []
    for q in range(int(rng.integers(1, 5))):
        for i in range(int(rng.integers(1, 8))):
            if rng.random() < 0.85:
                qrels.append(f"q{q} 0 d{i} {rng.choice([-1, 0, 0, 1, 1, 2, 3, 4, 5])}")
            if rng.random() < 0.8:
                run.append(f"q{q} Q0 d{i} 0 {rng.integers(0, 6)} t")
        run.append(f"q{q} Q0 u{q} 0 {rng.integers(0, 6)} t")
    qrels = qrels or ["q0 0 d0 1"]
    (folder / "q").write_text("\n".join(qrels) + "\n")
    (folder / "r").write_text("\n".join(run) + "\n")
    levels = rng.choice(np.arange(-1, 7), size=int(rng.integers(1, 5)))
    return ",".join(f"{lvl}={rng.choice(GAIN_VALUES):g}" for lvl in levels)


def test_random_gain_maps_against_the_binaries(te9, te10, tmp_path):
    """Per-query output and exit status equal the binaries' over random gain maps (duplicate
    levels, gains closer than 1, negative and huge gains) and qrels (10.0 aborts on ``dcg``
    and ``ndcg`` in one call, so those run apart; ``rbp`` reads uninitialised variables)."""
    rng = np.random.default_rng(33)
    calls = [
        (te9, (), ("ndcg", "G", "Rndcg", "ndcg_rel")),
        (te10, ("--v10",), ("ndcg", "G", "Rndcg", "ndcg_rel")),
        (te10, ("--v10",), ("dcg",)),
        (te10, ("--v10",), ("ideal_dcg",)),
    ]
    compared = 0
    for _ in range(60):
        pairs = _random_case(rng, tmp_path)
        for binary, v10, names in calls:
            argv = ["-q", *(a for m in names for a in ("-m", f"{m}.{pairs}"))]
            argv += [tmp_path / "q", tmp_path / "r"]
            reference = theirs(binary, *argv)
            assert ours(*v10, *argv) == reference, (pairs, (tmp_path / "q").read_text())
            compared += reference[0].count("\n")
    assert compared > 1000


def test_evaluate_against_the_binaries_where_trec_eval_sorts_exactly(te9, te10, tmp_path):
    """evaluate's trec_eval-named gain measures equal the binaries per query wherever
    trec_eval's sorted gain table is in gain order (every table the queries can have), one
    pair per level, levels 0 and above; values trec_eval prints as NaN (0/0) are left out
    (evaluate gives 0)."""
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 25:
        pairs = _random_case(rng, tmp_path)
        spec = dict(p.split("=") for p in pairs.split(","))
        if len(spec) != len(pairs.split(",")) or "-1" in spec:  # (trec_eval gives level -1,
            continue  # i.e. documents not in the qrels, a gain; evaluate does not)
        exact = True
        for n_levels in range(8):
            table = [float(g) for g in spec.values()]
            table += [float(x) for x in range(n_levels) if str(x) not in spec]
            exact &= bool((np.diff(np.array(table)[gain_order(table)]) >= 0).all())
        qrels = pdireval.read_qrels(tmp_path / "q")
        if not exact or qrels.groupby("query")["label"].max().lt(0).any():
            continue
        names = [f"{m}.{pairs}" for m in ("ndcg", "G", "Rndcg", "ndcg_rel")]
        for binary, version in ((te9, "9.0.8"), (te10, "10")):
            out = theirs(binary, "-q", *(a for m in names for a in ("-m", m)), *(
                tmp_path / "q", tmp_path / "r"))[0]
            want = {}
            for line in out.splitlines():
                name, query, value = line.split("\t")
                if query != "all" and "nan" not in value:
                    want[(name.strip(), query)] = value
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", pdireval.PdirevalWarning)
                scores = pdireval.evaluate(
                    pdireval.read_run(tmp_path / "r"), names, qrels=qrels, missing="drop",
                    trec_eval=version,
                )
            got = {(m.replace(".", "_", 1), q): f"{v:6.4f}"
                   for m, q, v in zip(scores["measure"], scores["query"], scores["value"])}
            assert {k: got[k] for k in want} == want, pairs
        checked += 1
