"""read_scores / write_scores against what the real tools write (trec_eval, ir_measures, ranx,
PyTerrier; MTEB and BEIR through the files tests/data/tools/make_mteb_beir.py wrote with them),
and round trips."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.errors import OptionError, PdirevalWarning, SchemaError
from pdireval.io import read_scores, write_scores
from tests.helpers import DATA, ROOT
from tests.test_treceval import theirs

ROBUST = DATA / "robust03"
MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "bpref", "num_rel_ret"]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=8, depth=30, rng=4)
    folder = tmp_path_factory.mktemp("small")
    qrels_path, run_paths = folder / "qrels.txt", []
    pdireval.write_qrels(qrels, qrels_path)
    for system, part in run.groupby("system"):
        path = folder / f"{system}.run"
        pdireval.write_run(part, path)
        run_paths.append(path)
    return run, qrels, qrels_path, run_paths


def _robust_run_paths(n):
    if not ROBUST.exists():
        pytest.skip(f"{ROBUST} is absent: the Robust 2003 tests need the project's ../shared folder")
    return sorted((ROBUST / "runs").glob("*.gz"))[:n], ROBUST / "qrels.txt"


def _aligned(got: pd.DataFrame, want: pd.DataFrame) -> pd.DataFrame:
    both = got.merge(want, on=["system", "query", "measure"], suffixes=("_got", "_want"),
                     how="outer", indicator=True)
    assert (both["_merge"] == "both").all(), both[both["_merge"] != "both"].head()
    return both


@pytest.mark.slow  # builds and runs the trec_eval binary
def test_trec_eval_q_output_of_the_binary_equals_evaluate(te9, tmp_path):
    runs, qrels_path = _robust_run_paths(2)
    specs = ["runid", "map", "P.10", "ndcg_cut.10", "recip_rank", "bpref", "num_rel_ret"]
    plain = []
    for path in runs:  # trec_eval 9.0.8 reads plain text only
        plain.append(tmp_path / path.stem)
        plain[-1].write_bytes(gzip.decompress(path.read_bytes()))
    outputs = [theirs(te9, "-q", *sum((["-m", m] for m in specs), []), str(qrels_path),
                      str(path)) for path in plain]
    assert [code for _, code in outputs] == [0] * len(plain)
    text = "".join(out for out, _ in outputs)
    (tmp_path / "eval.txt").write_text(text)
    got = read_scores(tmp_path / "eval.txt")
    assert set(got["measure"]) == set(MEASURES)
    run = pd.concat([pdireval.read_run(p) for p in runs], ignore_index=True)
    qrels = pdireval.read_qrels(qrels_path)
    want = pdireval.evaluate(run, list(MEASURES), qrels=qrels, missing="drop")
    trec_name = {str(pdireval.parse_measure(name)): name for name in MEASURES}
    want["measure"] = [trec_name[str(pdireval.parse_measure(m))] for m in want["measure"]]
    assert set(got["system"]) == set(run["system"])  # each block named by its runid line
    both = _aligned(got, want)
    np.testing.assert_allclose(both["value_got"], both["value_want"], atol=5e-5 + 1e-12)
    kept = read_scores(tmp_path / "eval.txt", all_rows="keep")
    summary = kept[kept["query"] == "all"]
    assert len(summary) == 2 * len(MEASURES)  # runid is not a number
    assert len(kept) == len(got) + len(summary)
    # without runid lines, the blocks are named after the file
    bare = "".join(line + "\n" for line in text.splitlines() if not line.startswith("runid"))
    (tmp_path / "bare.txt").write_text(bare)
    assert set(read_scores(tmp_path / "bare.txt")["system"]) == {"bare-1", "bare-2"}


def test_write_scores_is_read_back_by_trec_eval_format_readers(small, tmp_path):
    run, qrels, *_ = small
    scores = pdireval.evaluate(run, ["AP", "nDCG@10", "P@10", "RBP(p=0.5)"], qrels=qrels)
    write_scores(scores, tmp_path / "out.txt")
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert lines[0].split("\t") == ["map                   ", "1", f"{scores['value'][0]:.4f}"]
    assert "runid                 \tall\tsys01" in lines
    back = read_scores(tmp_path / "out.txt")
    assert set(back["measure"]) == {"map", "ndcg_cut_10", "P_10", "RBP(p=0.5)"}
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RBP(p=0.5)": "RBP(p=0.5)"}
    want = scores.assign(measure=scores["measure"].map(names))
    both = _aligned(back, want)
    np.testing.assert_allclose(both["value_got"], both["value_want"], atol=5e-5 + 1e-12)
    # full precision round trip, gzip too
    write_scores(scores, tmp_path / "exact.txt.gz", digits=None)
    exact = read_scores(tmp_path / "exact.txt.gz")
    np.testing.assert_array_equal(exact["value"].to_numpy(), scores["value"].to_numpy())
    # the summary lines are the means trec_eval prints
    kept = read_scores(tmp_path / "exact.txt.gz", all_rows="keep")
    means = kept[(kept["query"] == "all") & (kept["measure"] == "map")]
    want_means = scores[scores["measure"] == "AP"].groupby("system")["value"].mean()
    np.testing.assert_allclose(means["value"].to_numpy(), want_means.to_numpy(), rtol=1e-15)


@pytest.mark.slow  # two ir_measures processes (about a minute of imports)
def test_ir_measures_cli_output_tsv_and_jsonl(small, tmp_path):
    run, qrels, qrels_path, run_paths = small
    measures = ["nDCG@10", "AP", "P@5"]
    for fmt, suffix in (("tsv", ".tsv"), ("jsonl", ".jsonl")):
        done = subprocess.run([sys.executable, "-m", "ir_measures", str(qrels_path),
                               str(run_paths[0]), *measures, "-q", "-o", fmt, "-p", "-1"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        path = tmp_path / f"{run_paths[0].stem}{suffix}"
        path.write_text(done.stdout)
        got = read_scores(path)
        assert set(got["system"]) == {run_paths[0].stem}
        want = pdireval.evaluate(run[run["system"] == run_paths[0].stem], measures, qrels=qrels,
                                 missing="drop")
        both = _aligned(got, want)
        np.testing.assert_allclose(both["value_got"], both["value_want"], rtol=1e-9, atol=1e-12)
        written = tmp_path / f"ours{suffix}"
        write_scores(want, written, format="ir_measures" if fmt == "tsv" else "ir_measures_jsonl",
                     digits=None)
        again = read_scores(written, system=run_paths[0].stem)
        pd.testing.assert_frame_equal(again, want.reset_index(drop=True), check_exact=False,
                                      rtol=1e-14)


@pytest.mark.slow  # ranx compiles its kernels (numba) on first use
def test_ranx_per_query_and_report_json(small, tmp_path):
    ranx = pytest.importorskip("ranx", reason="ranx is a test dependency")
    run, qrels, *_ = small
    plain = {"query": object, "doc": object}
    r = ranx.Qrels.from_df(qrels.astype({"label": int, **plain}), q_id_col="query",
                           doc_id_col="doc", score_col="label")
    one = run[run["system"] == "sys01"]
    x = ranx.Run.from_df(one.astype(plain), q_id_col="query", doc_id_col="doc",
                         score_col="score")
    ranx.evaluate(r, x, ["ndcg@10", "map"], return_mean=False, make_comparable=True)
    path = tmp_path / "sys01.json"
    path.write_text(json.dumps({m: dict(v) for m, v in x.scores.items()}))
    got = read_scores(path)
    assert set(got["measure"]) == {"ndcg@10", "map"} and set(got["system"]) == {"sys01"}
    want = pdireval.evaluate(one, ["nDCG@10", "AP"], qrels=qrels, missing="drop")
    want["measure"] = want["measure"].map({"nDCG@10": "ndcg@10", "AP": "map"})
    both = _aligned(got, want)
    assert len(both) == len(want)
    # ranx's Report JSON: means only
    x2 = ranx.Run.from_df(run[run["system"] == "sys02"].astype(plain), q_id_col="query",
                          doc_id_col="doc", score_col="score")
    x.name, x2.name = "sys01", "sys02"
    report = ranx.compare(r, [x, x2], ["map"], make_comparable=True)
    report.save(str(tmp_path / "report.json"))
    with pytest.raises(SchemaError, match="only summary values"):
        read_scores(tmp_path / "report.json")
    means = read_scores(tmp_path / "report.json", all_rows="keep")
    assert list(means["system"]) == ["sys01", "sys02"] and set(means["query"]) == {"all"}


@pytest.mark.slow  # imports PyTerrier and runs pt.Experiment (a few seconds)
def test_pyterrier_save_dir_written_by_pt_experiment(tmp_path):
    """perquery.csv and aggregated.csv as pt.Experiment(save_dir=...) writes them, for two
    in-memory transformers (the runs of a simulated collection), equal evaluate's values."""
    pt = pytest.importorskip("pyterrier", reason="PyTerrier is a test dependency")
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=6, depth=30, rng=7)
    topics = pd.DataFrame({"qid": sorted(run["query"].unique()), "query": "text"})
    pt_qrels = qrels.rename(columns={"query": "qid", "doc": "docno"}).astype({"label": int})
    systems, names = [], []
    for name, part in run.groupby("system"):
        res = part.rename(columns={"query": "qid", "doc": "docno"})[["qid", "docno", "score", "rank"]]
        systems.append(pt.Transformer.from_df(res, uniform=True))
        names.append(name)
    metrics = ["map", "ndcg_cut_10", "P_10"]
    pt.Experiment(systems, topics, pt_qrels, eval_metrics=metrics, names=names, perquery=True,
                  save_dir=str(tmp_path))
    assert {"perquery.csv", "aggregated.csv"} <= {p.name for p in tmp_path.iterdir()}
    want = pdireval.evaluate(run, metrics, qrels=qrels)
    for path in (tmp_path / "perquery.csv", tmp_path):  # the file, and the save_dir folder
        got = read_scores(path)
        assert list(got.columns) == ["system", "query", "measure", "value"]
        both = _aligned(got, want)
        assert len(both) == 2 * 6 * 3 and (both["value_got"] > 0).any()
        np.testing.assert_allclose(both["value_got"], both["value_want"], rtol=0, atol=1e-12)
    means = read_scores(tmp_path / "aggregated.csv", all_rows="keep")
    expected = want.groupby(["system", "measure"], as_index=False)["value"].mean().assign(query="all")
    both = _aligned(means, expected)
    np.testing.assert_allclose(both["value_got"], both["value_want"], rtol=0, atol=1e-12)
    # the folder with all_rows="keep": the per-query rows and the means, each once
    assert len(read_scores(tmp_path, all_rows="keep")) == 2 * 6 * 3 + 2 * 3


def test_pyterrier_aggregated_significance_columns_are_dropped(tmp_path):
    # pt.Experiment(baseline=0)'s aggregated table (name, measure, measure +, measure -,
    # measure p-value): written by hand here, as the slow test above runs PyTerrier itself
    agg = pd.DataFrame({"name": ["BM25", "DPH"], "map": [0.2, 0.6], "map +": [None, 1],
                        "map -": [None, 0], "map p-value": [None, 0.01]})
    agg.to_csv(tmp_path / "aggregated.csv")
    means = read_scores(tmp_path / "aggregated.csv", all_rows="keep")
    assert means["measure"].tolist() == ["map", "map"] and means["value"].tolist() == [0.2, 0.6]


# Written by mteb 2.26.24 and beir 2.2.0 themselves: tests/data/tools/make_mteb_beir.py (run
# in a throwaway virtual environment, as both pull torch) evaluates a tiny qrels / run pair
# with each library's own code and saves the results with its own serialisation
BEIR = ROOT / "tests" / "data" / "beir"
MTEB_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MTEB = (ROOT / "tests" / "data" / "mteb" / "results" / MTEB_MODEL.replace("/", "__")
        / "8b3219a92973c328a8e22fadcfa821b5dc75636a")
# the same measures under each tool's names (trec_eval's via pytrec_eval, the oracle)
CUTS = (1, 3, 5, 10)
TREC = {"ndcg_cut_{k}": ("NDCG@{k}", "ndcg_at_{k}"), "map_cut_{k}": ("MAP@{k}", "map_at_{k}"),
        "recall_{k}": ("Recall@{k}", "recall_at_{k}"), "P_{k}": ("P@{k}", "precision_at_{k}")}


def _pytrec_means(run_name):
    """trec_eval's measures at CUTS, averaged over the queries, by pytrec_eval on the TREC qrels
    and run (BEIR's save_runfile) the script wrote beside BEIR's results."""
    import pytrec_eval

    with open(BEIR / "qrels.txt") as q, open(BEIR / f"run-{run_name}.txt") as r:
        qrels, run = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
    cuts = ",".join(map(str, CUTS))
    names = {f"{m}.{cuts}" for m in ("ndcg_cut", "map_cut", "recall", "P")} | {"recip_rank"}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    measures = [m.format(k=k) for m in TREC for k in CUTS] + ["recip_rank"]
    return {m: np.mean([v[m] for v in per_query.values()]) for m in measures}


def _json_numbers(path):
    """Every number of an MTEB result file's scores, keyed as read_scores names them."""
    data = json.loads(path.read_text())  # MTEB writes NaN, which Python's json reads
    out = {}
    for split, entries in data["scores"].items():
        for entry in entries:
            subset = "" if entry["hf_subset"] == "default" else entry["hf_subset"] + "/"
            for metric, value in entry.items():
                if isinstance(value, (int, float)):
                    out[f"{data['task_name']}/{split}/{subset}{metric}"] = value
    return out


def test_mteb_result_files_as_mteb_writes_them():
    for task, prefixes in [("NFCorpus", {"NFCorpus/test/": "a"}),
                           ("MIRACLRetrieval", {"MIRACLRetrieval/dev/de/": "a",
                                                "MIRACLRetrieval/dev/fr/": "b"})]:
        path = MTEB / f"{task}.json"
        with pytest.warns(PdirevalWarning, match=r"undefined value\(s\) written as NaN kept as NaN"):
            got = read_scores(path, all_rows="keep")
        # the model named by model_meta.json beside the file (the result file does not name it)
        assert set(got["system"]) == {MTEB_MODEL} and set(got["query"]) == {"all"}
        values = dict(zip(got["measure"].astype(str), got["value"], strict=True))
        want = _json_numbers(path)
        assert list(values) == list(want)  # all of them, in file order; no evaluation_time
        np.testing.assert_array_equal(list(values.values()), list(want.values()))  # NaN too
        assert np.isnan(list(values.values())).any()  # MTEB's NaN nAUCs are kept as NaN
        n_nan = int(np.isnan(list(values.values())).sum())  # and counted in the warning
        with pytest.warns(PdirevalWarning, match=f": {n_nan} undefined value"):
            read_scores(path, all_rows="keep")
        for prefix, run_name in prefixes.items():
            assert values[prefix + "main_score"] == values[prefix + "ndcg_at_10"]
            oracle = _pytrec_means(run_name)
            for trec, (_, mteb_name) in TREC.items():
                for k in CUTS:  # MTEB rounds its means to 5 decimals
                    assert values[prefix + mteb_name.format(k=k)] == pytest.approx(
                        oracle[trec.format(k=k)], abs=5e-6), (prefix, mteb_name, k)
            assert values[prefix + "mrr_at_10"] == pytest.approx(oracle["recip_rank"], abs=5e-6)
    # the cache folder results/<model>/<revision>/: its task files, not model_meta.json or
    # run_settings.jsonl
    with pytest.warns(PdirevalWarning, match="MIRACLRetrieval.json: [0-9]+ undefined.*NFCorpus.json: [0-9]+ undefined"):
        both = read_scores(MTEB, all_rows="keep")
    assert set(both["system"]) == {MTEB_MODEL}
    assert len(both) == len(_json_numbers(MTEB / "NFCorpus.json")) + len(
        _json_numbers(MTEB / "MIRACLRetrieval.json"))
    for fmt in (None, "mteb"):
        with pytest.raises(SchemaError, match="model_meta.json"):
            read_scores(MTEB / "model_meta.json", format=fmt, all_rows="keep")


def test_mteb_result_file_without_its_cache_folder(tmp_path):
    # copied out of MTEB's cache (no model_meta.json beside it), or read from a buffer: the
    # system is the file name, or system=
    (tmp_path / "NFCorpus.json").write_text((MTEB / "NFCorpus.json").read_text())
    with pytest.warns(PdirevalWarning, match="NaN"):
        got = read_scores(tmp_path / "NFCorpus.json", all_rows="keep")
    assert set(got["system"]) == {"NFCorpus"}
    with pytest.warns(PdirevalWarning, match="the scores input: .* NaN"):
        got = read_scores(io.StringIO((MTEB / "NFCorpus.json").read_text()), all_rows="keep",
                          system="MiniLM")
    assert set(got["system"]) == {"MiniLM"} and "NFCorpus/test/ndcg_at_10" in set(got["measure"])
    with pytest.raises(SchemaError, match="only summary values"):
        read_scores(MTEB / "NFCorpus.json")


def test_beir_results_as_beir_writes_them():
    oracle = _pytrec_means("a")
    want = {beir.format(k=k): oracle[trec.format(k=k)] for trec, (beir, _) in TREC.items()
            for k in CUTS}
    # EvaluateRetrieval.evaluate()'s four dicts, json.dump'ed (BEIR has no writer for them)
    got = read_scores(BEIR / "bm25-evaluate.json", all_rows="keep")
    assert set(got["system"]) == {"bm25-evaluate"} and set(got["query"]) == {"all"}
    assert got["measure"].astype(str).tolist() == list(want)
    np.testing.assert_allclose(got["value"], list(want.values()), rtol=0, atol=5e-6)
    # beir.util.save_results' {"ndcg": {"NDCG@1": ...}, ...}, with evaluate_custom's MRR: a
    # dict of dicts, which is not ranx's per-query {measure: {query: value}}
    saved = read_scores(BEIR / "bm25.json", all_rows="keep")
    assert set(saved["system"]) == {"bm25"} and set(saved["query"]) == {"all"}
    values = dict(zip(saved["measure"].astype(str), saved["value"], strict=True))
    assert list(values) == list(want) + [f"MRR@{k}" for k in CUTS]
    assert [values[m] for m in want] == got["value"].tolist()  # the same numbers as evaluate()
    assert values["MRR@10"] == pytest.approx(oracle["recip_rank"], abs=5e-6)
    assert read_scores(BEIR / "bm25.json", format="mteb", all_rows="keep").equals(saved)


def test_folders_buffers_and_the_pdireval_cli_output(small, tmp_path):
    run, qrels, qrels_path, run_paths = small
    from pdireval.cli import main

    out = io.StringIO()
    sys_stdout, sys.stdout = sys.stdout, out
    try:
        assert main(["evaluate", *map(str, run_paths), "--qrels", str(qrels_path), "-m", "AP",
                     "--per-query", "--format", "csv"]) == 0
    finally:
        sys.stdout = sys_stdout
    got = read_scores(io.StringIO(out.getvalue()))
    want = pdireval.evaluate(run, ["AP"], qrels=qrels)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-14)
    folder = tmp_path / "perrun"
    folder.mkdir()
    for system, part in want.groupby("system"):
        write_scores(part, folder / f"{system}.txt", digits=None)
    together = read_scores(folder)
    renamed = want.assign(measure=pd.array(["map"] * len(want), dtype=want["measure"].dtype))
    pd.testing.assert_frame_equal(together, renamed)


def test_bad_scores_inputs_are_clear_errors(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(SchemaError, match="empty"):
        read_scores(tmp_path / "empty.txt")
    (tmp_path / "odd.txt").write_text("a b c d\ne f g h\n")
    with pytest.raises(SchemaError, match="cannot tell the format.*trec_eval -q"):
        read_scores(tmp_path / "odd.txt")
    (tmp_path / "broken.txt").write_text("map\t1\t0.5\nP_10\t1\n")
    with pytest.raises(SchemaError, match="line 2 has 2 fields"):
        read_scores(tmp_path / "broken.txt", format="trec_eval")
    with pytest.raises(OptionError, match="format="):
        read_scores(tmp_path / "broken.txt", format="trec")
    with pytest.raises(SchemaError, match="does not exist"):
        read_scores(tmp_path / "missing.txt")
    (tmp_path / "bad.gz").write_bytes(gzip.compress(b"\xff\xfe\x00"))
    with pytest.raises(SchemaError, match="not UTF-8"):
        read_scores(tmp_path / "bad.gz")
    with pytest.raises(TypeError, match="path"):
        read_scores(3)
    scores = pd.DataFrame({"system": ["a", "b"], "query": ["1", "1"], "measure": ["AP"] * 2,
                           "value": [0.1, 0.2]})
    with pytest.raises(SchemaError, match="one run"):
        write_scores(scores, tmp_path / "x.tsv", format="ir_measures")
    with pytest.raises(OptionError, match="digits"):
        write_scores(scores, tmp_path / "x.txt", digits=-1)


# ------------------------------------------------- sniffing real trec_eval output (issue 33)


def _per_query_lines(text):
    """(system, query, measure, value) of every numeric per-query line of trec_eval -q output,
    parsed line by line (independently of read_scores), each block named by its runid."""
    rows, block, tag = [], [], None
    for line in text.splitlines():
        measure, query, value = line.split()
        if query != "all":
            if tag is not None:  # a new run's block after the previous one's summary
                rows, tag = rows + [(None, *r) for r in block], None
                block = []
            block.append((query, measure, value))
        elif measure == "runid":
            tag = value
            rows += [(value, *r) for r in block]
            block = []
    return [r for r in rows if r[2] != "relstring"]


@pytest.mark.slow  # builds both trec_eval binaries and runs them on the 17 Robust 2003 runs
def test_real_trec_eval_q_outputs_of_every_robust_run_are_sniffed(te9, te10, tmp_path):
    runs, qrels_path = _robust_run_paths(17)
    assert len(runs) == 17
    for binary, version in ((te9, "9.0.8"), (te10, "10.0")):
        for i, path in enumerate(runs):
            plain = tmp_path / path.stem
            plain.write_bytes(gzip.decompress(path.read_bytes()))  # 9.0.8 reads plain text
            extra = ["-m", "all_trec"] if i == 0 else []  # ~100 measures per query, relstring
            out, code = theirs(binary, "-q", *extra, str(qrels_path), str(plain))
            assert code == 0 and out.startswith("num_ret"), (version, path.name)
            assert len(out) > 65536  # past the sniffer's window
            (tmp_path / "eval.txt").write_text(out)
            got = read_scores(tmp_path / "eval.txt")  # no format=
            want = _per_query_lines(out)
            tag = path.name.removeprefix("input.").removesuffix(".gz")
            assert set(got["system"]) == {tag}, (version, tag)
            assert list(zip(got["query"].astype(str), got["measure"].astype(str))) == [
                (q, m) for _, q, m, _ in want], (version, tag)
            np.testing.assert_array_equal(got["value"].to_numpy(),
                                          np.array([v for *_, v in want], dtype=np.float64))
            pd.testing.assert_frame_equal(got, read_scores(tmp_path / "eval.txt",
                                                           format="trec_eval"))
        plain.unlink()


def _synthetic_trec_eval(queries, measures, summary=True, runid="myrun", shift=0):
    """trec_eval -q output laid out as trec_eval lays it out (num_ret first), values i/1000."""
    lines, k = [], shift
    for q in queries:
        for m in measures:
            k += 1
            lines.append(f"{m:<22}\t{q}\t{k % 997 / 1000:.4f}")
    if summary:
        lines += [f"{'runid':<22}\tall\t{runid}", f"{'num_q':<22}\tall\t{len(queries)}"]
        lines += [f"{m:<22}\tall\t0.5000" for m in measures]
    return "\n".join(lines) + "\n"


MANY_MEASURES = (["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                  "recip_rank"]
                 + [f"iprec_at_recall_{x / 10:.2f}" for x in range(11)]
                 + [f"{m}_{k}" for m in ("P", "recall", "ndcg_cut", "map_cut", "success")
                    for k in (1, 5, 10, 15, 20, 30, 100, 200, 500, 1000)])


def test_trec_eval_output_over_64_kib_is_sniffed_whatever_line_the_window_cuts(tmp_path):
    queries = [str(301 + i) for i in range(100)]  # fewer queries than measures in the window
    text = _synthetic_trec_eval(queries, MANY_MEASURES)
    assert len(text) > 3 * 65536
    cuts = {}  # fields of the line the 64 KiB window cuts -> blanks that put the cut there
    for pad in range(40):  # blanks after the first line's first field shift every line
        shifted = text.replace("num_ret", "num_ret" + " " * pad, 1)
        head = shifted[:65536]
        cuts.setdefault(0 if head.endswith("\n") else len(head.rsplit("\n", 1)[1].split()), pad)
    assert {1, 2, 3} <= set(cuts)  # the window cuts the first, the second, the third field
    for pad in cuts.values():
        (tmp_path / "eval.txt").write_text(text.replace("num_ret", "num_ret" + " " * pad, 1))
        got = read_scores(tmp_path / "eval.txt")
        assert len(got) == len(queries) * len(MANY_MEASURES) and set(got["system"]) == {"myrun"}
        assert got["measure"].iloc[0] == "num_ret" and got["query"].iloc[0] == "301"
        np.testing.assert_array_equal(got["value"].to_numpy()[:3], [0.001, 0.002, 0.003])
    # a file of more measures than queries in the window, cut on a line end, without its
    # summary lines: the measure column is told by its names, not by counting distinct values
    lines = text.splitlines(keepends=True)
    bare = "".join(line for line in lines if "\tall\t" not in line)
    (tmp_path / "bare.txt").write_text(bare)
    got = read_scores(tmp_path / "bare.txt")
    assert got["measure"].iloc[0] == "num_ret" and got["query"].iloc[0] == "301"


def test_trec_eval_output_with_num_ret_first_and_no_summary_is_not_taken_for_ir_measures(
        tmp_path):
    # one query, three measures, no summary lines: before, the columns were swapped
    (tmp_path / "one.txt").write_text("num_ret\t301\t1000\nmap\t301\t0.2500\nP_10\t301\t0.3000\n")
    got = read_scores(tmp_path / "one.txt")
    assert got["measure"].astype(str).tolist() == ["num_ret", "map", "P_10"]
    assert got["query"].astype(str).tolist() == ["301"] * 3
    assert got["value"].tolist() == [1000.0, 0.25, 0.3]
    # trec_eval's 11pt_avg opens with digits and is still a measure name
    (tmp_path / "pt.txt").write_text("11pt_avg\t301\t0.25\nmap\t301\t0.5\n")
    assert read_scores(tmp_path / "pt.txt")["measure"].astype(str).tolist() == ["11pt_avg", "map"]
    # ir_measures' layout, also without summaries: query ids first
    (tmp_path / "irm.tsv").write_text("q1\tnDCG@10\t0.5\nq2\tnDCG@10\t0.25\nq1\tAP\t0.1\n")
    got = read_scores(tmp_path / "irm.tsv")
    assert got["measure"].astype(str).tolist() == ["nDCG@10", "nDCG@10", "AP"]
    assert got["query"].astype(str).tolist() == ["q1", "q2", "q1"]
    # neither column holds measure names: the error lists both layouts and format=
    (tmp_path / "odd.txt").write_text("foo\tbar\t0.5\nbaz\tbar\t0.25\n")
    with pytest.raises(SchemaError, match=r"format='trec_eval'.*format='ir_measures'.*format="):
        read_scores(tmp_path / "odd.txt")
    got = read_scores(tmp_path / "odd.txt", format="ir_measures")
    assert got["measure"].astype(str).tolist() == ["bar", "bar"]
    # summary lines in both columns' places contradict each other
    (tmp_path / "both.txt").write_text("map\tall\t0.5\nall\tmap\t0.5\nmap\t1\t0.5\n")
    with pytest.raises(SchemaError, match="cannot tell the format.*format="):
        read_scores(tmp_path / "both.txt")


def test_compare_reads_big_trec_eval_output_and_takes_a_scores_format(tmp_path, capsys):
    from pdireval import cli_analyses
    from pdireval.cli import main
    from pdireval.io.scores import SCORES_FORMATS

    assert cli_analyses.SCORES_FORMATS == SCORES_FORMATS  # the command line's own copy
    queries, measures = [str(i) for i in range(1, 801)], ["num_ret", "map", "P_10"]
    for system in ("a", "b"):
        text = _synthetic_trec_eval(queries, measures, runid=system,
                                    shift=0 if system == "a" else 7)
        assert len(text) > 65536
        (tmp_path / f"{system}.txt").write_text(text)
    argv = ["compare", "--scores", str(tmp_path / "a.txt"), "--scores", str(tmp_path / "b.txt"),
            "--method", "t", "--format", "csv"]
    assert main(argv) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(got["measure"]) == set(measures) and len(got) == len(measures)
    (tmp_path / "odd.txt").write_text("foo\t1\t0.5\nfoo\t2\t0.25\nbar\t1\t0.1\nbar\t2\t0.3\n")
    (tmp_path / "odd2.txt").write_text("foo\t1\t0.4\nfoo\t2\t0.15\nbar\t1\t0.2\nbar\t2\t0.5\n")
    odd = ["compare", "--scores", str(tmp_path / "odd.txt"), "--scores",
           str(tmp_path / "odd2.txt"), "--method", "t", "--format", "csv"]
    assert main(odd) == 1
    assert "--scores-format" in capsys.readouterr().err
    assert main([*odd, "--scores-format", "trec_eval"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(got["measure"]) == {"foo", "bar"} and set(got["system_a"]) == {"odd"}


# ------------------------------------- values that are not numbers, in every format (issue 33)

# Each format's file with one value replaced by V (text formats: the token as written; CSV
# cells quoted, so that "1,5" stays one cell), where the error must point, and read_scores'
# all_rows= (means-only formats need "keep").
TEXT_FILES = {
    "trec_eval": ("eval.txt", "map\t301\t0.5\nP_10\t301\t{V}\nrunid\tall\tr\nmap\tall\t0.5\n",
                  "line 2", "drop"),
    "ir_measures": ("irm.tsv", "301\tAP\t0.5\n301\tP@10\t{V}\nall\tAP\t0.5\n", "line 2", "drop"),
    "ir_measures means": ("means.tsv", "AP\t0.5\nP@10\t{V}\n", "line 2", "keep"),
    "pyterrier": ("perquery.csv", 'name,qid,measure,value\nbm25,301,map,0.5\n\nbm25,301,P_10,"{V}"\n',
                  "line 4", "drop"),
    "pyterrier aggregated": ("aggregated.csv", 'name,map,P_10\nbm25,0.5,"{V}"\n',
                             "line 2, column 'P_10'", "keep"),
    "pdireval": ("scores.csv", 'system,query,measure,value\na,301,map,0.5\na,301,P_10,"{V}"\n',
                 "line 3", "drop"),
}
JSON_FILES = {
    "ir_measures_jsonl": ("irm.jsonl", lambda v: json.dumps(
        {"query_id": "301", "measure": "AP", "value": 0.5}) + "\n\n" + json.dumps(
        {"query_id": "301", "measure": "P@10", "value": v}) + "\n", "line 3", "drop"),
    "ranx": ("ranx.json", lambda v: json.dumps({"map": {"301": 0.5, "302": v}}),
             "key map.302", "drop"),
    "ranx report": ("report.json", lambda v: json.dumps(
        {"model_names": ["bm25"], "metrics": ["map"], "bm25": {"scores": {"map": v}}}),
        "key bm25.scores.map", "keep"),
    "mteb": ("NFCorpus.json", lambda v: json.dumps(
        {"task_name": "NFCorpus", "mteb_version": "2.26.24", "scores": {"test": [
            {"ndcg_at_10": 0.5, "map_at_10": v, "hf_subset": "default",
             "languages": ["eng-Latn"], "main_score": 0.5}]}, "evaluation_time": 1.2}),
        "key scores.test[0].map_at_10", "keep"),
    "beir": ("bm25.json", lambda v: json.dumps([{"NDCG@10": 0.5}, {"MAP@10": v}]),
             "key [1].MAP@10", "keep"),
    "pdireval json": ("scores.json", lambda v: json.dumps(
        [{"system": "a", "query": "301", "measure": "map", "value": 0.5},
         {"system": "a", "query": "301", "measure": "P_10", "value": v}]), "record 2", "drop"),
}
HOSTILE_TEXT = ["n/a", "N/A-error", "NA", "null", "True", "false", "inf", "-Infinity", "1e400",
                "1,5", "0x10", "1_000", "0.5abc", "１"]
HOSTILE_JSON = ["n/a", "N/A-error", "", "0.5", True, False, {"value": 0.5}, [0.5], [],
                float("inf"), 10**400]


def _check_not_a_number(path, where, shown, **kwargs):
    with pytest.raises(SchemaError) as caught:
        read_scores(path, **kwargs)
    message = str(caught.value)
    assert path.name in message and f", {where}: the value {shown!r}" in message, message
    assert "not a finite number" in message and "format=" in message


@pytest.mark.parametrize("kind", list(TEXT_FILES))
def test_text_values_that_are_not_numbers_name_the_file_line_and_value(kind, tmp_path):
    file_name, template, where, all_rows = TEXT_FILES[kind]
    path = tmp_path / file_name
    for token in HOSTILE_TEXT:
        path.write_text(template.replace("{V}", token))
        _check_not_a_number(path, where, token, all_rows=all_rows)
        fmt = kind.split()[0]
        _check_not_a_number(path, where, token, all_rows=all_rows, format=fmt)
    path.write_text(template.replace("{V}", " 0.25"))  # a number, blanks around it or not
    got = read_scores(path, all_rows=all_rows)
    assert got["value"].tolist()[:2] == [0.5, 0.25]


@pytest.mark.parametrize("kind", list(JSON_FILES))
def test_json_values_that_are_not_numbers_name_the_file_place_and_value(kind, tmp_path):
    file_name, build, where, all_rows = JSON_FILES[kind]
    path = tmp_path / file_name
    for value in HOSTILE_JSON:
        if kind == "mteb" and isinstance(value, (dict, list)):
            continue  # MTEB writes nested values itself: left out with a warning (below)
        path.write_text(build(value))
        shown = (value if isinstance(value, str) else json.dumps(value))[:80]
        _check_not_a_number(path, where, shown, all_rows=all_rows)
    path.write_text(build(0.25))
    got = read_scores(path, all_rows=all_rows)
    assert 0.25 in got["value"].tolist() and got["value"].notna().all()


@pytest.mark.parametrize("kind", [*TEXT_FILES, *JSON_FILES])
def test_nan_the_tool_wrote_is_kept_with_a_warning_that_counts_it(kind, tmp_path):
    """trec_eval prints -nan, Python nan / NaN, pandas an empty CSV cell or JSON null: the
    value is undefined, kept as NaN, and the warning counts it and says where one is."""
    if kind in TEXT_FILES:
        file_name, template, where, all_rows = TEXT_FILES[kind]
        spellings = ["nan", "-nan", "NaN", "-NaN"] + ([""] if file_name.endswith(".csv") else [])
        texts = [template.replace("{V}", s) for s in spellings]
    else:
        file_name, build, where, all_rows = JSON_FILES[kind]
        texts = [build(float("nan")), build(None)]
    path = tmp_path / file_name
    for text in texts:
        path.write_text(text)
        with pytest.warns(PdirevalWarning) as caught:
            got = read_scores(path, all_rows=all_rows)
        assert len(caught) == 1
        message = str(caught[0].message)
        assert f"{path.name}: 1 undefined value(s) written as NaN kept as NaN (e.g. {where})" in (
            message), message
        assert int(got["value"].isna().sum()) == 1


def test_records_without_a_value_are_errors_not_nan(tmp_path):
    path = tmp_path / "irm.jsonl"
    path.write_text('{"query_id": "1", "measure": "AP", "value": 0.5}\n'
                    '{"query_id": "2", "measure": "AP"}\n')
    with pytest.raises(SchemaError, match=r"irm\.jsonl, line 2: expected a record with 'measure' "
                                          r"and 'value'"):
        read_scores(path)
    path = tmp_path / "scores.json"
    path.write_text('[{"system": "a", "query": "1", "measure": "AP", "value": 0.5}, '
                    '{"system": "a", "query": "2", "measure": "AP"}]')
    with pytest.raises(SchemaError, match=r"scores\.json, record 2: expected the keys"):
        read_scores(path)
    path = tmp_path / "report.json"
    path.write_text('{"model_names": ["a"], "metrics": ["map", "P@10"], '
                    '"a": {"scores": {"map": 0.5}}}')
    with pytest.raises(SchemaError, match=r"report\.json: ranx's Report JSON has no value of "
                                          r"'P@10' for model 'a'"):
        read_scores(path, all_rows="keep")
    path = tmp_path / "eval.txt"  # a trec_eval line without its value
    path.write_text("map\t1\t0.5\nP_10\t1\nrunid\tall\tx\n")
    with pytest.raises(SchemaError, match=r"eval\.txt: line 2 has 2 fields"):
        read_scores(path, format="trec_eval")


def test_mteb_nested_values_are_left_out_with_a_warning_and_files_without_scores_refused(
        tmp_path):
    entry = {"ndcg_at_10": 0.5, "scores_per_experiment": [{"accuracy": 0.4}],
             "cv": {"mean": 0.3}, "hf_subset": "default", "languages": ["eng-Latn"]}
    path = tmp_path / "Task.json"
    path.write_text(json.dumps({"task_name": "Task", "mteb_version": "2", "scores": {
        "test": [entry]}}))
    with pytest.warns(PdirevalWarning, match=r"Task\.json: 2 nested value\(s\) of MTEB's scores "
                                             r".*e\.g\. key scores\.test\[0\]\.scores_per_exp"):
        got = read_scores(path, all_rows="keep")
    assert got["measure"].astype(str).tolist() == ["Task/test/ndcg_at_10"]
    # an MTEB file without its scores: before, evaluation_time came back as a measure
    path.write_text(json.dumps({"task_name": "Task", "mteb_version": "2",
                                "evaluation_time": 1.25, "kg_co2_emissions": None}))
    for fmt in (None, "mteb"):
        with pytest.raises(SchemaError, match="MTEB result file without its 'scores'"):
            read_scores(path, format=fmt, all_rows="keep")
    # JSON of none of the known layouts: the candidates and format=, no guess
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"evaluation_time": 1.25, "ndcg": 0.5}))
    with pytest.raises(SchemaError, match=r"cannot tell the format.*\['evaluation_time', 'ndcg'\]"
                                          r".*Pass format="):
        read_scores(path, all_rows="keep")
    with pytest.raises(SchemaError, match="'evaluation_time' is not one of BEIR's measures"):
        read_scores(path, format="mteb", all_rows="keep")


def test_a_query_named_all_survives_a_round_trip_or_is_refused(tmp_path):
    scores = pd.DataFrame({"system": "a", "query": ["all", "q2"], "measure": "AP",
                           "value": [0.25, 0.5]})
    write_scores(scores, tmp_path / "s.csv", format="csv")
    back = read_scores(tmp_path / "s.csv")
    assert back["query"].astype(str).tolist() == ["all", "q2"]  # before: the row was dropped
    assert back["value"].tolist() == [0.25, 0.5]
    for fmt in ("trec_eval", "ir_measures", "ir_measures_jsonl"):
        with pytest.raises(SchemaError, match=r"query named 'all' \(1 row\(s\)\).*format='csv'"):
            write_scores(scores, tmp_path / "s.out", format=fmt)
    # ranx writes no summary: its query 'all' is a query
    (tmp_path / "r.json").write_text(json.dumps({"map": {"all": 0.25, "q2": 0.5}}))
    assert read_scores(tmp_path / "r.json")["query"].astype(str).tolist() == ["all", "q2"]
    # ids with blanks would come back as lines of too many fields
    spaced = scores.assign(query=["q 1", "q2"])
    with pytest.raises(SchemaError, match="query 'q 1' is empty or holds a blank"):
        write_scores(spaced, tmp_path / "s.txt")
    write_scores(spaced, tmp_path / "s.jsonl", format="ir_measures_jsonl", digits=None)
    assert read_scores(tmp_path / "s.jsonl")["query"].astype(str).tolist() == ["q 1", "q2"]


def test_lines_are_counted_as_the_parser_breaks_them(tmp_path):
    # U+0085 and form feeds are not line breaks for pandas' parser or trec_eval (str.splitlines
    # breaks there): the line named is the file's line
    path = tmp_path / "eval.txt"
    path.write_text("map\tq\x851\t0.5\r\nP_10\tq\x0c1\t0.5\r\nP_10\tq\x851\tn/a\r\n", newline="")
    with pytest.raises(SchemaError, match=r"eval\.txt, line 3: the value 'n/a'"):
        read_scores(path, format="trec_eval")


def test_csv_lines_without_their_value_are_errors_not_nan(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("system,query,measure,value\na,1,map,0.5\na,2,map\n")
    with pytest.raises(SchemaError, match=r"scores\.csv, line 3: 3 fields where the header "
                                          r"names 4 \(system, query, measure, value\)"):
        read_scores(path)
    path = tmp_path / "perquery.csv"
    path.write_text(",name,qid,measure,value\n0,bm25,1,map,0.5\n1,bm25,2,map\n")
    with pytest.raises(SchemaError, match=r"perquery\.csv, line 3: 4 fields where the header"):
        read_scores(path)
    path.write_text(",name,qid,measure,value\n0,bm25,1,map,0.5\n1,bm25,2,map,\n")  # pandas' NaN
    with pytest.warns(PdirevalWarning, match=r"perquery\.csv: 1 undefined value\(s\) written as "
                                             r"NaN kept as NaN \(e\.g\. line 3\)"):
        got = read_scores(path)
    assert got["value"].isna().tolist() == [False, True]


#: a plain decimal number as the tools print one (the oracle of what is a number)
PLAIN_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
TOKENS = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: f"{v:.6g}"),
    st.integers(-10**6, 10**6).map(str),
    st.sampled_from(["nan", "-nan", "NaN", "+nan", "n/a", "N/A-error", "True", "inf", "1,5",
                     "0x10", "1_0", "1e", ".", "-", "1.2.3", "１", "1e999", "NA", "-"]),
    st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=6),
)


@settings(max_examples=60, deadline=None)
@given(tokens=st.lists(TOKENS, min_size=1, max_size=6), layout=st.sampled_from(
    ["trec_eval", "ir_measures", "csv"]))
def test_every_value_is_read_as_its_number_nan_or_a_named_error(tokens, layout, tmp_path_factory):
    """Whatever text a value holds, read_scores returns float(text) for a plain number, NaN
    (with a warning) for nan / -nan, and otherwise a SchemaError naming its line and value."""
    import re
    import warnings

    path = tmp_path_factory.mktemp("fuzz") / {"csv": "s.csv"}.get(layout, "s.txt")
    if layout == "csv":
        lines = ["system,query,measure,value"] + [f'a,{i},map,"{t}"' for i, t in
                                                   enumerate(tokens)]
        first_line = 2
        if any('"' in t for t in tokens):
            return  # a quote inside a quoted cell is CSV's own escaping, not a value
    elif layout == "trec_eval":
        lines = [f"map\t{i}\t{t}" for i, t in enumerate(tokens)] + ["runid\tall\ta"]
        first_line = 1
    else:
        lines = [f"{i}\tAP\t{t}" for i, t in enumerate(tokens)] + ["all\tAP\t0.5"]
        first_line = 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    undefined = [t.strip().lower() in ("nan", "-nan", "+nan") for t in tokens]
    numbers = [bool(re.match(PLAIN_NUMBER, t)) and (float(t) == 0 or 1e-100 <= abs(float(t))
                                                    <= 1e100) for t in tokens]  # the range
    bad = [i for i, (u, n) in enumerate(zip(undefined, numbers)) if not (u or n)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if bad:
            with pytest.raises(SchemaError) as error:
                read_scores(path, format=None if layout != "csv" else "pdireval")
            if re.match(PLAIN_NUMBER, tokens[bad[0]]) is None:  # not out of the range
                assert f"line {first_line + bad[0]}: the value {tokens[bad[0]]!r}" in str(
                    error.value)
            return
        got = read_scores(path, format=None if layout != "csv" else "pdireval")
    want = [np.nan if u else float(t) for t, u in zip(tokens, undefined)]
    np.testing.assert_array_equal(got["value"].to_numpy(), want)
    assert len(caught) == (1 if any(undefined) else 0)
    if any(undefined):
        assert f"{sum(undefined)} undefined value(s)" in str(caught[0].message)
