"""Write MTEB and BEIR result files with the real libraries' own code, for
tests/test_io_scores.py (read_scores reads them; the tests recompute the values from the TREC
run and qrels written next to them).

Rerun (from the repository root; mteb and beir pull torch, so they live in a throwaway virtual
environment outside the repository, never in pdireval's own dependencies)::

    python -m venv /work/venv-mteb
    /work/venv-mteb/bin/pip install mteb beir
    /work/venv-mteb/bin/python tests/data/tools/make_mteb_beir.py

Versions that wrote the committed files: mteb 2.26.24, beir 2.2.0, pytrec_eval-terrier 0.5.11
(Python 3.11.7). Nothing is downloaded: no model and no dataset. The scores come from a tiny
in-memory qrels / results pair, evaluated by the libraries themselves:

* MTEB: a retrieval task's metadata (NFCorpus: split ``test``, subset ``default``;
  MIRACLRetrieval: split ``dev``, subsets ``de`` and ``fr``; their data are not loaded), the
  scores of one subset computed as ``AbsTaskRetrieval._evaluate_subset`` computes them once the
  model has searched (``calculate_retrieval_scores``, ``make_score_dict``, then
  ``AbsTask._add_main_score``), and the files ``ResultCache.save_to_cache`` writes, as
  ``mteb.evaluate`` saves a ``TaskResult.from_task_results(...)`` in its results cache:
  ``mteb/results/<model>/<revision>/<task>.json`` (``TaskResult.to_disk``; the file does not
  name the model), ``model_meta.json`` beside it (which does: ``"name"``; the model is
  sentence-transformers/all-MiniLM-L6-v2's entry of mteb's registry, no weights) and
  ``run_settings.jsonl``.
* BEIR: ``EvaluateRetrieval.evaluate(qrels, results, k_values)`` returns four dicts (NDCG,
  MAP, Recall, P); ``beir.util.save_results`` writes them (with ``evaluate_custom``'s MRR) as
  ``{"ndcg": {"NDCG@10": ...}, ...}`` (beir/bm25.json), and beir/bm25-evaluate.json is
  ``json.dump`` of exactly the tuple ``evaluate`` returns (a list of four dicts), as scripts
  that do not call save_results store it. ``beir.util.save_runfile`` writes the run.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mteb
from beir import util
from beir.retrieval.evaluation import EvaluateRetrieval
from mteb._evaluators.retrieval_metrics import calculate_retrieval_scores, make_score_dict
from mteb.cache import ResultCache
from mteb.results import TaskResult

DATA = Path(__file__).resolve().parents[1]

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
QRELS = {
    "q1": {"d1": 2, "d2": 1, "d7": 1},
    "q2": {"d3": 1},
    "q3": {"d4": 3, "d5": 0, "d6": 2},
}
# two systems' rankings (scores), e.g. two subsets' or two models' outputs
RESULTS = {
    "a": {
        "q1": {"d2": 9.0, "d9": 8.5, "d1": 8.0, "d8": 7.0, "d7": 1.5},
        "q2": {"d8": 3.0, "d9": 2.0, "d3": 1.0},
        "q3": {"d5": 6.0, "d6": 5.0, "d4": 4.0, "d1": 3.5},
    },
    "b": {
        "q1": {"d1": 5.0, "d3": 4.0, "d2": 3.0},
        "q2": {"d3": 7.0, "d1": 6.0},
        "q3": {"d6": 2.0, "d9": 1.0, "d4": 0.5, "d5": 0.25},
    },
}


def copy(results):
    return {q: dict(docs) for q, docs in results.items()}


def mteb_scores(task, results):
    """One subset's scores, as AbsTaskRetrieval._evaluate_subset + AbsTask.evaluate make them."""
    r = calculate_retrieval_scores(copy(results), QRELS, task.k_values)
    scores = make_score_dict(
        ndcg=r.ndcg,
        _map=r.map,
        recall=r.recall,
        precision=r.precision,
        mrr=r.mrr,
        naucs=r.naucs,
        naucs_mrr=r.naucs_mrr,
        hit_rate=r.hit_rate,
        task_scores=task.task_specific_scores(r.all_scores, QRELS, copy(results), "", ""),
    )
    task._add_main_score(scores)
    return scores


def main():
    (DATA / "mteb").mkdir(exist_ok=True)
    (DATA / "beir").mkdir(exist_ok=True)
    with open(DATA / "beir" / "qrels.txt", "w") as out:  # TREC qrels for the tests' oracle
        for q, docs in QRELS.items():
            for d, rel in docs.items():
                out.write(f"{q} 0 {d} {rel}\n")
    for name, results in RESULTS.items():
        util.save_runfile(os.fspath(DATA / "beir" / f"run-{name}.txt"), copy(results), name)

    # mteb.evaluate saves each TaskResult in its cache with ResultCache.save_to_cache, which
    # writes results/<model>/<revision>/<task>.json (TaskResult.to_disk) and model_meta.json
    cache = ResultCache(DATA / "mteb")
    model = mteb.get_model_meta(MODEL)  # mteb's registry entry: no download
    nfcorpus = mteb.get_task("NFCorpus")  # metadata only: load_data() is never called
    scores = {"test": {"default": mteb_scores(nfcorpus, RESULTS["a"])}}
    cache.save_to_cache(TaskResult.from_task_results(nfcorpus, scores, evaluation_time=1.25), model)
    miracl = mteb.get_task("MIRACLRetrieval", languages=["deu", "fra"])
    scores = {
        "dev": {"de": mteb_scores(miracl, RESULTS["a"]), "fr": mteb_scores(miracl, RESULTS["b"])}
    }
    cache.save_to_cache(TaskResult.from_task_results(miracl, scores, evaluation_time=2.5), model)

    k_values = [1, 3, 5, 10]
    evaluation = EvaluateRetrieval.evaluate(QRELS, copy(RESULTS["a"]), k_values)
    with open(DATA / "beir" / "bm25-evaluate.json", "w") as out:
        json.dump(evaluation, out)  # no BEIR function writes this tuple: json.dump of it
    mrr = EvaluateRetrieval.evaluate_custom(QRELS, copy(RESULTS["a"]), k_values, "mrr")
    util.save_results(os.fspath(DATA / "beir" / "bm25.json"), *evaluation, mrr=mrr)
    print("mteb", mteb.__version__, "wrote", sorted(map(str, (DATA / "mteb").rglob("*.json"))))


if __name__ == "__main__":
    # model_meta.json lists sets (e.g. training_datasets) in hash order: a fixed hash seed makes
    # the files the same on every run
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])
    main()
