"""``ndcg_p`` (trec_eval's m_ndcg_p.c) per query against trec_eval 9.0.8 itself.

trec_eval 9.0.8 ships m_ndcg_p.c but registers it nowhere (not in measures.c, not in the
Makefile), so its stock binary rejects ``-m ndcg_p``. The fixture builds a copy from
``../shared/oracles/trec_eval-9.0.8.tar.gz`` with two patches: ``te_meas_ndcg_p`` is
registered (measures.c + Makefile), and per-query values are printed with ``%.17g`` instead
of ``%6.4f`` (meas_print_single.c), so that every value can be compared to 1e-9, not only to
4 decimals. Nothing else of trec_eval changes.
"""

from __future__ import annotations

import math
import os
import subprocess
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import pdireval
from pdireval.measures.registry import parse_measure
from pdireval.measures.trec_eval.names import expand
from tests.helpers import SHARED, collections, write_trec_files

TARBALL = SHARED / "oracles" / "trec_eval-9.0.8.tar.gz"
_BUILT: list = []


def _build() -> str:
    """Path of the patched trec_eval 9.0.8 (built once per machine in $TMPDIR)."""
    if _BUILT:
        return _BUILT[0]
    if not TARBALL.exists():
        pytest.skip(f"{TARBALL} is absent: the ndcg_p oracle test needs the project's ../shared folder")
    dest = Path(tempfile.gettempdir()) / "trec_eval-9.0.8-ndcg_p-full-precision"
    binary = dest / "trec_eval"
    if not binary.exists():
        part = Path(tempfile.mkdtemp(prefix="trec_eval-ndcg_p-"))
        with tarfile.open(TARBALL) as tar:
            tar.extractall(part, filter="data")
        src = next(part.iterdir())
        measures = (src / "measures.c").read_text()
        measures = measures.replace(
            "extern TREC_MEAS te_meas_ndcg;\n", "extern TREC_MEAS te_meas_ndcg;\nextern TREC_MEAS te_meas_ndcg_p;\n", 1
        ).replace("    &te_meas_ndcg,\n", "    &te_meas_ndcg,\n    &te_meas_ndcg_p,\n", 1)
        makefile = (src / "Makefile").read_text().replace("m_ndcg.c ", "m_ndcg.c m_ndcg_p.c ", 1)
        printing = (src / "meas_print_single.c").read_text().replace("%6.4f", "%.17g")
        assert "te_meas_ndcg_p" in measures and "m_ndcg_p.c" in makefile and "%.17g" in printing
        (src / "measures.c").write_text(measures)
        (src / "Makefile").write_text(makefile)
        (src / "meas_print_single.c").write_text(printing)
        try:
            subprocess.run(["make", "-s", "-C", str(src)], capture_output=True, timeout=600, check=True)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            pytest.skip(f"trec_eval 9.0.8 with ndcg_p could not be built (needs cc and make): {exc}")
        dest.mkdir(parents=True, exist_ok=True)
        tmp = dest / f"trec_eval.{os.getpid()}"
        (src / "trec_eval").replace(tmp)
        tmp.replace(binary)  # atomic: parallel test processes never see half a binary
    _BUILT.append(str(binary))
    return _BUILT[0]


def compare(run, qrels, folder: Path, spec: str, *flags: str, rel: float = 1.0, judged_only: bool = False, counts: dict | None = None) -> int:
    """Every per-query ``trec_eval -q -m spec`` value equals pdireval's ``spec`` to 1e-9
    (where trec_eval divides by an ideal DCG of 0 and prints inf or nan, pdireval gives 0 and
    the ideal must indeed be 0). Returns the number of values compared."""
    binary = _build()
    measure = parse_measure(spec)
    if rel != 1.0 or judged_only:
        measure = measure.replace(rel=rel, judged_only=judged_only)
    (item,) = expand(spec)
    qpath, paths = write_trec_files(run, qrels, folder)
    compared = 0
    for system, path in paths.items():
        done = subprocess.run([binary, "-q", *flags, "-m", spec, str(qpath), str(path)], capture_output=True, text=True, check=True)
        ours = pdireval.evaluate(run[run["system"] == system], measure, qrels=qrels, missing="drop")
        values = dict(zip(ours["query"].astype(str), ours["value"]))
        for line in done.stdout.splitlines():
            name, query, value = (part.strip() for part in line.split("\t"))
            if query == "all" or name == "runid":
                continue
            assert name == item.name, (name, item.name)  # trec_eval prints the name pdireval gives
            theirs = float(value)
            if not math.isfinite(theirs):
                assert values[query] == 0.0, (system, query, values[query], value)
                # an infinite or undefined ratio means the ideal ranking has no positive gain
                q_labels = qrels.loc[qrels["query"].astype(str) == query, "label"].to_numpy(dtype=float)
                gains = {**{lab: lab for lab in q_labels if lab >= 0}, **dict(measure.get("gains") or {})}
                assert all(gains[lab] <= 0 for lab in q_labels if lab >= 0), (system, query, value)
                if counts is not None:
                    counts["undefined"] = counts.get("undefined", 0) + 1
            else:
                assert abs(values[query] - theirs) <= 1e-9, (system, query, spec, values[query], theirs)
            compared += 1
    return compared


SPECS = ["ndcg_p", "ndcg_p.1=3,2=7", "ndcg_p.0=1,1=-1,2=5", "ndcg_p.1=1.5,2=3.25", "ndcg_p.2=0", "ndcg_p.1=0,2=0"]


@pytest.mark.parametrize("spec", SPECS)
def test_matches_trec_eval_on_robust03(robust03, tmp_path, spec):
    run, qrels = robust03
    run = run[run["system"].isin(sorted(run["system"].unique())[:2])]
    counts = {}
    assert compare(run, qrels, tmp_path, spec, counts=counts) > 150
    if spec == "ndcg_p.1=0,2=0":  # every gain 0: trec_eval divides 0 by 0 wherever a relevant document is retrieved
        assert counts.get("undefined", 0) > 50


def test_relevance_level_and_judged_only_match_trec_eval(robust03, tmp_path):
    run, qrels = robust03
    run = run[run["system"] == sorted(run["system"].unique())[4]]
    assert compare(run, qrels, tmp_path, "ndcg_p.1=3,2=7", "-l", "2", rel=2.0) > 40
    assert compare(run, qrels, tmp_path, "ndcg_p.0=1,2=4", "-J", judged_only=True) > 40


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(require_judged=True))
def test_matches_trec_eval_on_generated_collections(data):
    """Score ties (also at float32 precision), unjudged and negatively labelled documents."""
    run, qrels = data
    with tempfile.TemporaryDirectory() as folder:
        for spec in ("ndcg_p", "ndcg_p.0=2,1=-1,3=4", "ndcg_p.1=0"):
            compare(run, qrels, Path(folder), spec)


def test_hand_computed():
    """Labels 2, 0, 1 at ranks 1-3 with the pool {2, 1, 1}: DCG = 2 + 0 + 1/log2 3 and IDCG = 2 +
    1/log2 2 + 1/log2 3 (ranks 1 and 2 undiscounted, the ideal's log2 at single precision);
    with gains {1: 3} the 1s weigh 3; nothing relevant retrieved gives 0."""
    qrels = pd.DataFrame({"query": "q", "doc": ["a", "b", "c", "d"], "label": [2, 0, 1, 1]})
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})

    def value(measure, run=run):
        return pdireval.evaluate(run, measure, qrels=qrels)["value"].iloc[0]

    f32 = float(np.float32(np.log2(3.0)))
    assert value("ndcg_p") == pytest.approx((2 + 1 / math.log2(3)) / (2 + 1 + 1 / f32), abs=1e-15)
    assert value("ndcg_p.1=3") == pytest.approx((2 + 3 / math.log2(3)) / (3 + 3 + 2 / f32), abs=1e-15)
    assert value("ndcg_p(gains={1:3})") == value("ndcg_p.1=3")
    # level 0 with a gain counts, but a list without a relevant document scores 0 (trec_eval)
    only_b = run[run["doc"] == "b"]
    assert value("ndcg_p.0=5", only_b) == 0.0
    assert value("nDCG(gains={0:5})", only_b) > 0  # trec_eval's ndcg has no such condition


def test_spellings():
    assert str(parse_measure("ndcg_p.1=3,2=7")) == "ndcg_p(gains={1:3,2:7})"
    assert parse_measure("ndcg_p_1=3,2=7") == parse_measure("ndcg_p.1=3,2=7")
    assert [t.name for t in expand("ndcg_p.1=3.5,2=9.0")] == ["ndcg_p_1=3.5,2=9.0"]
    # the same pair spelling for trec_eval's other gain measures
    assert str(parse_measure("ndcg.1=3,2=7")) == "nDCG(gains={1:3,2:7})"
    assert str(parse_measure("G.0=1,2=5")) == "G(gains={0:1,2:5})"
    assert str(parse_measure("ndcg_rel.3=-1")) == "ndcg_rel(gains={3:-1})"
