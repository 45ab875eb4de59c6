"""Write the RAG tools' sample files of tests/data/rag with the tools' own code (see
PROVENANCE.md beside this script for each file's source and licence).

Rerun (from the repository root; the tools stay outside the repository and outside pdireval's
dependencies: nothing here is imported by pdireval or its tests)::

    pip download nuggetizer==0.0.5 open-rag-eval==0.3.0 --no-deps -d /tmp/wheels
    unzip -q /tmp/wheels/nuggetizer-0.0.5-py3-none-any.whl -d /tmp/nuggetizer
    unzip -q /tmp/wheels/open_rag_eval-0.3.0-py3-none-any.whl -d /tmp/open-rag-eval
    git clone https://github.com/trec-auto-judge/auto-judge-base /tmp/auto-judge-base
    git -C /tmp/auto-judge-base checkout d58f174eed047ff9a49cc51badd5632eb199c0ce
    python tests/data/rag/make_samples.py /tmp/nuggetizer /tmp/open-rag-eval \\
        /tmp/auto-judge-base/src

Needs pandas, numpy, matplotlib and pydantic 2 (open-rag-eval's and AutoJudge's own imports);
no model, no LLM call and no download. ``nuggetizer_nuggets.jsonl``,
``nuggetizer_assignments.jsonl`` (examples of nuggetizer's docs) and ``trec_rag_support.jsonl``
(NIST's schema, invented values) are written by hand and read here; ``autojudge_leaderboard.
tot.txt`` is AutoJudge's file, copied.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path
from statistics import mean

HERE = Path(__file__).resolve().parent


def nuggetizer_metrics(root: str) -> None:
    """``nuggetizer metrics``' output, one file per run: its per-answer records, then the
    global means, each a ``json.dumps`` line as its CLI writes them."""
    sys.path.insert(0, root)
    from nuggetizer.core.metrics import calculate_global_metrics, calculate_nugget_scores

    records = [json.loads(line) for line in open(HERE / "nuggetizer_assignments.jsonl")]
    for run in ("run-123", "demo-run"):
        mine = [r for r in records if r["run_id"] == run]
        with open(HERE / f"nuggetizer_metrics.{run}.jsonl", "w") as out:
            for record in mine:
                m = calculate_nugget_scores(record["qid"], record["nuggets"])
                row = {
                    "qid": m.qid,
                    "strict_vital_score": m.strict_vital_score,
                    "strict_all_score": m.strict_all_score,
                    "vital_score": m.vital_score,
                    "all_score": m.all_score,
                }
                out.write(json.dumps(row) + "\n")
            out.write(json.dumps(calculate_global_metrics(mine)) + "\n")


def autojudge(src: str) -> None:
    """A NuggetBank JSONL (the Machu Picchu example of AutoJudge's nugget_data README) and the
    spot-check leaderboard in AutoJudge's other column orders, by AutoJudge's own code."""
    spec = importlib.util.spec_from_file_location(
        "nugget_data", f"{src}/autojudge_base/nugget_data/nugget_data.py"
    )
    nd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nd)
    answer = nd.Answer.from_lazy
    a1, a2 = (
        answer(answer="UNESCO provides guidelines"),
        answer(answer="visitor numbers are restricted"),
    )
    a3 = answer(answer="restoration uses traditional methods")
    subs = [
        nd.NuggetQuestion(query_id="1", question="Who sets guidelines?").add_answers(a1),
        nd.NuggetQuestion(query_id="1", question="How is wear reduced?").add_answers(a2),
    ]
    nug1 = nd.NuggetQuestion(
        question="What conservation efforts exist at Machu Picchu?",
        query_id="1",
        sub_nuggets=subs,
        aggregator_type=nd.AggregatorType.AND,
        importance="vital",
    ).add_answers([a1, a2, a3])
    nug2 = nd.NuggetQuestion(
        query_id="1",
        question="When was Machu Picchu built?",
        aggregator_type=nd.AggregatorType.OR,
        importance="vital",
    ).add_answers([answer(answer="15th century", references=["doc123", "doc456"])])
    claim = nd.NuggetClaim(query_id="1", claim="There are unicorns in the world", importance="okay")
    bank1 = nd.NuggetBank(
        query_id="1", title_query="Machu Picchu facts", test_collection="neuclir24"
    )
    bank1.add_nuggets([nug1, nug2, claim])
    nug3 = nd.NuggetQuestion.from_lazy(
        query_id="q42",
        question="What is the elevation of Machu Picchu?",
        gold_answers=["2430 meters"],
        importance="vital",
    )
    nug4 = nd.NuggetQuestion.from_lazy(
        query_id="q42", question="In which mountains does it stand?", gold_answers=["the Andes"]
    )
    bank2 = nd.NuggetBank(query_id="q42", title_query="Machu Picchu facts")
    bank2.add_nuggets([nug3, nug4])
    with open(HERE / "nuggetbank.jsonl", "w") as out:
        for bank in (bank1, bank2):
            out.write(bank.model_dump_json(exclude_none=True) + "\n")

    # the leaderboard package without autojudge_base/__init__ (which imports the LLM stack)
    package = types.ModuleType("autojudge_base")
    package.__path__ = [f"{src}/autojudge_base"]
    sys.modules["autojudge_base"] = package
    from autojudge_base.leaderboard.leaderboard import (
        Leaderboard,
        LeaderboardBuilder,
        LeaderboardSpec,
        MeasureSpec,
    )

    board = Leaderboard.load(HERE / "autojudge_leaderboard.tot.txt", format="tot")
    board.write(HERE / "autojudge_leaderboard.ir_measures.txt", format="ir_measures")
    board.write(HERE / "autojudge_leaderboard.rag4reports.txt", format="rag4reports")

    def mean_of_bools(values):
        return mean(1.0 if bool(v) else 0.0 for v in values)

    spec = LeaderboardSpec(
        measures=(
            MeasureSpec("GRADE", aggregate=mean, cast=float),
            MeasureSpec("IS_MATCH", aggregate=mean_of_bools, cast=bool),
        )
    )
    builder = LeaderboardBuilder(spec)
    builder.add(run_id="runA", topic_id="t1", values={"GRADE": 0.9, "IS_MATCH": True})
    builder.add(run_id="runA", topic_id="t2", values={"GRADE": 0.4, "IS_MATCH": False})
    builder.add(run_id="runB", topic_id="t1", values={"GRADE": 0.7, "IS_MATCH": True})
    builder.add(run_id="runB", topic_id="t2", values={"GRADE": 0.6, "IS_MATCH": True})
    builder.build().write(HERE / "autojudge_readme.tot.txt", format="tot")


def open_rag_eval(root: str) -> None:
    """open-rag-eval's results CSV, written by its ``TRECEvaluator.to_csv`` (its LLM and torch
    modules stubbed: ``to_csv`` uses neither) from the score dictionaries its
    ``TRECEvaluator.evaluate`` assembles; queries and passages of its tests' csv_results.csv."""
    for name in ("open_rag_eval.metrics", "open_rag_eval.models.llm_judges"):
        sys.modules[name] = types.ModuleType(name)
    for name in ("AutoNuggetMetric", "CitationMetric", "HallucinationMetric", "NoAnswerMetric"):
        setattr(sys.modules["open_rag_eval.metrics"], name, object)
    sys.modules["open_rag_eval.metrics"].UMBRELAMetric = object
    sys.modules["open_rag_eval.models.llm_judges"].LLMJudgeModel = object
    sys.path.insert(0, root)
    import open_rag_eval  # noqa: F401

    evaluators = types.ModuleType("open_rag_eval.evaluators")
    evaluators.__path__ = [f"{root}/open_rag_eval/evaluators"]
    sys.modules["open_rag_eval.evaluators"] = evaluators
    from open_rag_eval.data_classes.eval_scores import (
        AugmentedGenerationScores,
        MultiScoredRAGResult,
        RAGScores,
        RetrievalScores,
        ScoredRAGResult,
    )
    from open_rag_eval.data_classes.rag_results import (
        AugmentedGenerationResult,
        GeneratedAnswerPart,
        RAGResult,
        RetrievalResult,
    )
    from open_rag_eval.evaluators.trec_evaluator import TRECEvaluator

    value = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}

    def scored(query, passages, parts, umbrela, labels, assignments, citations, hhem, answered):
        result = RAGResult(
            RetrievalResult(query, passages),
            AugmentedGenerationResult(query, [GeneratedAnswerPart(t, c) for t, c in parts]),
        )
        pairs = list(zip(labels, assignments))
        vital = [value[a] for lab, a in pairs if lab == "vital"]
        okay = [value[a] for lab, a in pairs if lab == "okay"]
        strict_vital = [float(a == "support") for lab, a in pairs if lab == "vital"]
        strict_okay = [float(a == "support") for lab, a in pairs if lab == "okay"]
        nv, no, n = max(len(vital), 1), max(len(okay), 1), max(len(labels), 1)
        # AutoNuggetMetric._evaluate_answer's six scores
        nuggetizer = {
            "All": (sum(vital) + sum(okay)) / n,
            "All Strict": (sum(strict_vital) + sum(strict_okay)) / n,
            "Vital": sum(vital) / nv,
            "Vital Strict": sum(strict_vital) / nv,
            "Weighted": (sum(vital) + 0.5 * sum(okay)) / (nv + 0.5 * no),
            "Weighted Strict": (sum(strict_vital) + 0.5 * sum(strict_okay)) / (nv + 0.5 * no),
        }
        auto = {
            "nuggetizer_scores": nuggetizer,
            "nuggets": [f"nugget {i}" for i in range(len(labels))],
            "labels": labels,
            "assignments": assignments,
            "assignment_scores": [value[a] for a in assignments],
        }
        relevant = [1 if umbrela[p] >= 2 else 0 for p in passages]
        precision = {
            "precision@": {str(k): sum(relevant[:k]) / k for k in (1, 3)},
            "AP@": {str(k): 0.0 for k in (1, 3)},
            "MRR": 1.0 if relevant and relevant[0] else 0.0,
        }
        p, r = citations
        cite = {"weighted_precision": p, "weighted_recall": r, "f1": 2 * p * r / (p + r)}
        scores = RAGScores(
            RetrievalScores(
                {
                    "umbrela_scores": umbrela,
                    "precision_metrics": precision,
                    "mean_umbrela_score": sum(umbrela.values()) / len(umbrela),
                }
            ),
            AugmentedGenerationScores(
                {
                    "autonugget_scores": auto,
                    "mean_nugget_assignment_score": mean(auto["assignment_scores"]),
                    "vital_nuggetizer_score": nuggetizer["Vital"],
                    "hallucination_score": hhem,
                    "citation_scores": cite,
                    "citation_f1_score": cite["f1"],
                    "no_answer_score": {"query_answered": answered},
                }
            ),
        )
        return ScoredRAGResult(result, scores)

    def blackhole(hhem):
        return scored(
            "What is a blackhole?",
            {
                "[1]": "Blackholes are big.",
                "[2]": "Blackholes are dense.",
                "[3]": "The earth is round.",
            },
            [("Black holes are dense", ["[1]"]), ("They are also big and round", ["[2]", "[3]"])],
            {"[1]": 3, "[2]": 2, "[3]": 0},
            ["vital", "vital", "okay"],
            ["support", "partial_support", "not_support"],
            (0.75, 0.5),
            hhem,
            "yes",
        )

    def sun(answered):
        return scored(
            "How big is the sun?",
            {"[1]": "The sun is several million kilometers in diameter."},
            [("The sun is several million kilometers in diameter", ["[1]"])],
            {"[1]": 3},
            ["vital", "okay"],
            ["support", "support"],
            (1.0, 1.0),
            0.97,
            answered,
        )

    for suffix, runs in (("", [(0.82, "yes")]), (".repeats", [(0.82, "yes"), (0.64, "no")])):
        results = [
            MultiScoredRAGResult(
                query_id="query_1",
                query="What is a blackhole?",
                scored_rag_results=[blackhole(h) for h, _ in runs],
            ),
            MultiScoredRAGResult(
                query_id="query_2",
                query="How big is the sun?",
                scored_rag_results=[sun(a) for _, a in runs],
            ),
        ]
        evaluator = TRECEvaluator.__new__(TRECEvaluator)  # to_csv needs no judge model
        evaluator.to_repeat = 1
        evaluator.to_csv(results, str(HERE / f"open_rag_eval_results{suffix}.csv"))


if __name__ == "__main__":
    nuggetizer_root, open_rag_eval_root, autojudge_src = sys.argv[1:4]
    nuggetizer_metrics(nuggetizer_root)
    autojudge(autojudge_src)
    open_rag_eval(open_rag_eval_root)
