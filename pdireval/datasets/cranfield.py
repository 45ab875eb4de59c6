"""The Cranfield 1400 test collection: documents, queries and graded judgments, minding its
quirks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE
from pdireval.errors import SchemaError

if TYPE_CHECKING:
    from pdireval.types import PathArg

__all__ = ["read_cranfield"]


def _records(path: Path) -> list[dict]:
    """Split a SMART-format file into records {"I": id, "T": ..., "W": ...}."""
    records: list[dict] = []
    field = None
    for lineno, line in enumerate(path.read_text(encoding="latin-1").splitlines(), start=1):
        if line.startswith(".I"):
            parts = line.split()
            if len(parts) != 2:
                raise SchemaError(f"{path}, line {lineno}: expected '.I <number>', got {line!r}")
            records.append({"I": parts[1]})
            field = None
        elif len(line) == 2 and line[0] == "." and line[1] in "TABW":
            if not records:
                raise SchemaError(
                    f"{path}, line {lineno}: field {line!r} before the first '.I' line"
                )
            field = line[1]
            records[-1].setdefault(field, [])
        elif field is not None:
            records[-1][field].append(line)
    for rec in records:
        for key in "TABW":
            rec[key] = " ".join(" ".join(rec.get(key, [])).split())
    return records


def read_cranfield(
    path: PathArg | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Read the Cranfield 1400 collection (documents, queries, graded judgments).

    Quirks handled (``../shared/README.md``):

    * the queries' ``.I`` numbers (1, 2, 4, 8, ...) are not the ids the judgments use: the
      judgments number the queries 1..225 **in file order**, so ``query`` here is the
      position in ``cran.qry`` (as a string) and ``qid_in_file`` keeps the ``.I`` number;
    * relevance codes are inverted — 1 = "complete answer", 2 = "high degree of relevance",
      3 = "useful background", 4 = "minimum interest" (Cleverdon) — so they become graded
      labels ``label = 5 − code``: 4 (complete answer) … 1 (minimum interest);
    * code −1 is not on Cleverdon's scale: it occurs exactly once per query (225 lines, not
      "a few"), and for query 1 it marks doc 486, the document the question was written
      from (the Cranfield questions came from the authors of source papers). It is no
      relevance judgment, so it becomes a NaN label: pooled but unjudged (trec_eval also
      reads negative labels as unjudged). ``code`` keeps the original value.

    Only listed pairs are judged; see :func:`pooled_qrels` for adding non-relevant
    judgments from a pool.

    Parameters
    ----------
    path
        Folder holding ``cran.all.1400``, ``cran.qry`` and ``cranqrel``; default
        ``../shared/data/cranfield``.

    Returns
    -------
    docs : DataFrame
        ``doc`` (str, the ``.I`` number), ``title``, ``author``, ``biblio``, ``text`` (the
        ``.W`` abstract), one row per document in file order.
    queries : DataFrame
        ``query`` (str, 1..225 in file order), ``qid_in_file`` (str), ``text``.
    qrels : DataFrame
        ``query, doc, label`` (float64: 1–4, NaN for code −1), ``code`` (the original code,
        int64); sorted by query then doc.
    """
    folder = Path("../shared/data/cranfield" if path is None else path)
    files = {name: folder / name for name in ("cran.all.1400", "cran.qry", "cranqrel")}
    absent = [str(p) for p in files.values() if not p.exists()]
    if absent:
        raise FileNotFoundError(
            f"Cranfield files not found: {absent}. Pass path= the folder holding cran.all.1400, "
            "cran.qry and cranqrel."
        )
    docs = _records(files["cran.all.1400"])
    docs = pd.DataFrame(
        {
            "doc": pd.array([d["I"] for d in docs], dtype=ID_DTYPE),
            "title": [d["T"] for d in docs],
            "author": [d["A"] for d in docs],
            "biblio": [d["B"] for d in docs],
            "text": [d["W"] for d in docs],
        }
    )
    queries = _records(files["cran.qry"])
    queries = pd.DataFrame(
        {
            "query": pd.array([str(i + 1) for i in range(len(queries))], dtype=ID_DTYPE),
            "qid_in_file": pd.array([q["I"] for q in queries], dtype=ID_DTYPE),
            "text": [q["W"] for q in queries],
        }
    )
    raw = pd.read_csv(
        files["cranqrel"], sep=r"\s+", header=None, names=["query", "doc", "code"], dtype=str
    )
    code = pd.to_numeric(raw["code"], errors="coerce")
    bad = code.isna() | ~code.isin([-1, 1, 2, 3, 4])
    if bad.any():
        raise SchemaError(
            f"{files['cranqrel']}: {int(bad.sum())} line(s) with a code outside -1, 1..4, e.g. "
            "line "
            f"{int(np.flatnonzero(bad.to_numpy())[0]) + 1}: {raw[bad].iloc[0].tolist()}"
        )
    code = code.astype(np.int64)
    qrels = pd.DataFrame(
        {
            "query": pd.array(raw["query"].to_numpy(dtype=object), dtype=ID_DTYPE),
            "doc": pd.array(raw["doc"].to_numpy(dtype=object), dtype=ID_DTYPE),
            "label": np.where(code > 0, 5 - code, np.nan).astype(np.float64),
            "code": code.to_numpy(),
        }
    )
    # a pair listed twice keeps its most relevant code (the files differ in a few lines)
    qrels = qrels.sort_values(
        ["query", "doc", "label"], ascending=[True, True, False], kind="stable", na_position="last"
    )
    qrels = qrels.drop_duplicates(["query", "doc"]).reset_index(drop=True)
    return docs, queries, qrels
