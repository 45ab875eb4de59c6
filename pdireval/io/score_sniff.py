"""Which format a scores file is in, told from its content (:func:`sniff_format`): a format
is chosen only when the content says which, else the error lists the candidates and
``format=``."""

from __future__ import annotations

import json
import warnings

from pdireval.errors import PdirevalError, SchemaError
from pdireval.io.score_formats import (
    SCORES_FORMATS,
    SCORES_WHAT,
    SUMMARY,
    TEXT_MEASURES,
    is_beir_results,
    is_mteb_model_meta,
    scores_label,
    text_lines,
)

__all__ = ["sniff_format"]


#: How much of a text :func:`sniff_format` reads at its start and at its end (in characters)
SNIFF_CHARS = 65536

#: The two whitespace-separated layouts of three fields, as the messages name them
_LAYOUTS = {
    "trec_eval": "trec_eval -q output (measure query value)",
    "ir_measures": "ir_measures TSV (query measure value)",
}


def _complete_lines(text: str, tail: bool = False) -> list[str]:
    """The whole lines of the first (or last) :data:`SNIFF_CHARS` characters of ``text``: a
    line the cut splits is left out (the first line always counts, however long)."""
    if len(text) <= SNIFF_CHARS:
        return text_lines(text)
    if tail:
        part = text[-SNIFF_CHARS:]
        return text_lines(part.split("\n", 1)[1]) if "\n" in part else []
    part = text[:SNIFF_CHARS]
    cut = part.rfind("\n")
    return text_lines(part[:cut]) if cut >= 0 else [text.split("\n", 1)[0]]


def _looks_like_measure(token: str) -> bool:
    """Whether ``token`` names a measure: trec_eval's output names (``num_ret``, ``P_10``,
    ``runid``), ir_measures' and pdireval's (``nDCG@10``, ``AP(rel=2)``); a number never."""
    if token in ("runid", "num_q", *TEXT_MEASURES):
        return True
    try:
        float(token)  # query ids such as 301 or 1.2 (but 11pt_avg is a measure)
        return False
    except ValueError:
        pass
    from pdireval.measures import parse_measure

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a deprecated spelling still names a measure
            parse_measure(token)
    except (PdirevalError, ValueError, TypeError):
        return False
    return True


def _all_measures(tokens: set[str]) -> bool:
    return all(_looks_like_measure(t) for t in sorted(tokens))  # stops at the first other


def _sniff_columns(rows: list[list[str]]) -> str | None:
    """trec_eval (``measure query value``) or ir_measures (``query measure value``) for rows
    of three fields, when the content says which; None when it does not."""
    second_all = any(r[1] == SUMMARY and r[0] != SUMMARY for r in rows)  # trec_eval's means
    first_all = any(r[0] == SUMMARY and r[1] != SUMMARY for r in rows)  # ir_measures' means
    if second_all != first_all:
        return "trec_eval" if second_all else "ir_measures"
    if second_all:
        return None
    # no summary line: the column of measure names tells (query ids are not measure names)
    first = _all_measures({r[0] for r in rows})
    second = _all_measures({r[1] for r in rows})
    if first != second:
        return "trec_eval" if first else "ir_measures"
    return None


def _ambiguous(name: str, candidates: list[str], why: str) -> SchemaError:
    listed = "; ".join(f"format={c!r}: {_LAYOUTS.get(c, c)}" for c in candidates)
    return SchemaError(
        f"cannot tell the format of {scores_label(name)}: {why}. It could be {listed}. "
        "Pass format= to say which."
    )


def _sniff_json(text: str, head: list[str], name: str) -> str:
    first = head[0].strip() if head else ""
    if first.startswith("{") and first.endswith("}") and '"measure"' in first:
        return "ir_measures_jsonl"
    try:
        data = json.loads(text)
    except ValueError:
        raise SchemaError(
            f"{scores_label(name)} starts like JSON but is not valid JSON; {SCORES_WHAT} is "
            "expected."
        ) from None
    if (
        isinstance(data, list)
        and data
        and isinstance(data[0], dict)
        and {"system", "query", "measure"} <= set(data[0])
    ):
        return "pdireval"
    if isinstance(data, dict) and "model_names" in data and "metrics" in data:
        return "ranx"
    if isinstance(data, dict) and ("mteb_version" in data or "task_name" in data):
        return "mteb"
    if is_beir_results(data):  # beir.util.save_results: {"ndcg": {"NDCG@10": ...}}
        return "mteb"
    if is_mteb_model_meta(data):  # refused by the mteb reader
        return "mteb"
    if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        return "ranx"
    parts = data if isinstance(data, list) else [data]
    if parts and all(isinstance(p, dict) and p and all("@" in str(k) for k in p) for p in parts):
        return "mteb"  # EvaluateRetrieval.evaluate()'s dicts: {"NDCG@10": ...}
    shape = (
        f"an object with keys {sorted(map(str, data))[:5]}"
        if isinstance(data, dict)
        else f"a JSON {type(data).__name__}"
    )
    raise SchemaError(
        f"cannot tell the format of {scores_label(name)}: it is {shape}, none of the JSON layouts "
        "read_scores knows (ir_measures JSONL records, pdireval's records, ranx's per-query "
        "or Report JSON, MTEB result JSON, BEIR's results). Pass format= one of "
        f"{', '.join(SCORES_FORMATS)}."
    )


def sniff_format(text: str, name: str = "") -> str:
    """The format of ``text`` (one of SCORES_FORMATS) when its content says which, or a
    SchemaError that names the candidate formats and ``format=``. Only whole lines of the first
    and the last :data:`SNIFF_CHARS` characters are read (the JSON formats: the whole text)."""
    stripped = text.lstrip()
    if not stripped:
        raise SchemaError(f"{scores_label(name)} is empty; {SCORES_WHAT} is expected.")
    head = _complete_lines(stripped)
    if stripped[0] in "[{":
        return _sniff_json(stripped, head, name)
    first = head[0]
    if "," in first:
        header = {c.strip().strip('"') for c in first.split(",")}
        if {"qid", "measure", "value"} <= header or ("name" in header and "qid" not in header):
            return "pyterrier"
        if {"system", "query", "measure", "value"} <= header:
            return "pdireval"
    rows = [line.split() for line in head[:2000] if line.strip()]
    rows += [line.split() for line in _complete_lines(stripped, tail=True)[-2000:] if line.strip()]
    widths = {len(r) for r in rows}
    if widths == {2}:
        return "ir_measures"
    if widths == {3}:
        found = _sniff_columns(rows)
        if found is None:
            raise _ambiguous(
                name,
                ["trec_eval", "ir_measures"],
                "lines of three fields, and neither their summary lines (query 'all') nor "
                "their measure names tell which column holds the measures",
            )
        return found
    raise SchemaError(
        f"cannot tell the format of {scores_label(name)} (first line: {first[:80]!r}); "
        f"{SCORES_WHAT} is expected. Pass format= one of {', '.join(SCORES_FORMATS)}."
    )
