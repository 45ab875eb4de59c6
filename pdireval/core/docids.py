"""Doc ids that do not match the qrels: the evidence and the warnings.

A retrieved document counts only if its id is, as an exact string, a judged document of its
query. Ids spelled differently from the qrels (``fbis3-1`` vs ``FBIS3-1``, a trailing space,
full-width characters) silently score 0, so :func:`pdireval.evaluate` (and
:func:`pdireval.dask.evaluate`) look for two signatures of that mistake:

* **the whole run**: no retrieved document of the run is in the qrels at all (at least
  :data:`MIN_UNMATCHED_DOCS` distinct run doc ids, so a tiny hand-made run is not flagged);
* **single ranked lists**: a (system, judged query) list of at least :data:`MIN_LIST_DOCS`
  documents retrieves no judged document, *and* one of its doc ids equals a judged document
  of that query once both are normalised (Unicode NFKC, lower case, surrounding whitespace
  removed). A list without a judged document is normal with shallow pools and unpooled
  systems; a near-miss spelling of a judged document is not, so only such lists are
  reported, in one warning that counts them and names the first few.

Everything here is computed on the (system, query) segments and only for the lists without a
judged document, so a run whose lists all hold a judged document pays one ``bincount``. The
evidence of partitions (pdireval.dask) merges into the same warnings, examples included, as
on the whole run: the examples are the smallest ids, not the first seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "DocIdEvidence",
    "doc_id_evidence",
    "merge_evidence",
    "doc_id_messages",
    "MIN_UNMATCHED_DOCS",
    "MIN_LIST_DOCS",
]

#: The whole-run warning needs at least this many distinct run doc ids.
MIN_UNMATCHED_DOCS = 20
#: A ranked list is checked for near-miss doc ids from this many retrieved documents on.
MIN_LIST_DOCS = 10
#: Lists named in the per-list warning.
SHOW_LISTS = 3


@dataclass
class DocIdEvidence:
    """What one run (or one partition of it) shows about its doc ids.

    Attributes
    ----------
    matched
        Some retrieved doc id occurs in the qrels (any query).
    sample
        When not ``matched``: the smallest distinct run doc ids, at most
        :data:`MIN_UNMATCHED_DOCS` of them (sorted).
    lists
        The suspect lists: ``system, query, run_doc`` (the smallest of the list's doc ids
        that match a judged document of the query only after normalisation).
    """

    matched: bool
    sample: np.ndarray = field(default_factory=lambda: np.array([], dtype=object))
    lists: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(
            {"system": [], "query": [], "run_doc": []}, dtype=object
        )
    )


def _normalised(array: pa.Array) -> pa.Array:
    """NFKC, lower case, surrounding whitespace removed (pyarrow kernels; ASCII-only ids, the
    usual case, take the cheaper ASCII kernels, which give the same result on them)."""
    if pc.all(pc.string_is_ascii(array)).as_py() is not False:
        return pc.ascii_trim_whitespace(pc.ascii_lower(array))
    return pc.utf8_trim_whitespace(pc.utf8_lower(pc.utf8_normalize(array, "NFKC")))


def normalise(docs) -> np.ndarray:
    """Doc ids as compared for a near miss: NFKC, lower case, surrounding whitespace removed."""
    array = pa.array(np.asarray(docs, dtype=object), type=pa.string())
    return np.asarray(_normalised(array).to_pylist(), dtype=object)


def _smallest(values, n: int) -> np.ndarray:
    unique = pd.unique(np.asarray(values, dtype=object))
    return np.sort(unique)[:n]


def doc_id_evidence(segments, keys, judgments) -> DocIdEvidence:
    """The doc-id evidence of a run whose judged rows are ``keys`` (a
    :class:`~pdireval.core.keys.RunKeys`) and reduced to ``segments``."""
    matched = len(segments.hit_seg) > 0
    sample = np.array([], dtype=object)
    if not matched:
        run_docs = np.asarray(pd.unique(keys.doc.to_numpy()), dtype=object)
        matched = bool(np.isin(run_docs, judgments.doc).any())
        if not matched:
            sample = np.sort(run_docs)[:MIN_UNMATCHED_DOCS]
    hits = np.bincount(segments.hit_seg, minlength=segments.n_segments)
    suspect = (hits == 0) & (segments.seg_len >= MIN_LIST_DOCS)
    if not suspect.any():
        return DocIdEvidence(matched, sample)
    # the run rows of the suspect lists (segments and keys number lists differently)
    n_q = judgments.n_queries
    key_system = segments.systems.get_indexer(keys.systems)[keys.seg_system]
    key_query = judgments.queries.get_indexer(keys.queries)[keys.seg_query]
    code = segments.seg_system[suspect].astype(np.int64) * n_q + segments.seg_query[suspect]
    key_suspect = np.isin(key_system.astype(np.int64) * n_q + key_query, code)
    rows = np.flatnonzero(key_suspect[keys.seg])
    run_query = key_query[keys.seg[rows]]
    in_query = np.isin(judgments.row_query, np.unique(run_query))
    qrels_norm = _normalised(pa.array(judgments.doc[in_query], type=pa.string()))
    # a hash lookup against the (few) judged documents of those queries, in pyarrow, keeps
    # only the rows that can be near misses; the query is matched on those rows only
    run_docs = keys.doc.take(pa.array(rows))
    run_norm = _normalised(
        run_docs.combine_chunks() if isinstance(run_docs, pa.ChunkedArray) else run_docs
    )
    maybe = np.flatnonzero(
        pc.is_in(run_norm, value_set=pc.unique(qrels_norm)).to_numpy(zero_copy_only=False)
    )
    if len(maybe) == 0:
        return DocIdEvidence(matched, sample)
    take = pa.array(maybe)
    run_side = pd.DataFrame(
        {
            "s": key_system[keys.seg[rows[maybe]]],
            "q": run_query[maybe],
            "run_doc": np.asarray(run_docs.take(take).to_pylist(), dtype=object),
            "norm": np.asarray(run_norm.take(take).to_pylist(), dtype=object),
        }
    )
    qrels_side = pd.DataFrame(
        {
            "q": judgments.row_query[in_query],
            "norm": np.asarray(qrels_norm.to_pylist(), dtype=object),
        }
    ).drop_duplicates()
    near = run_side.merge(qrels_side, on=["q", "norm"], how="inner")
    if len(near) == 0:
        return DocIdEvidence(matched, sample)
    first = near.groupby(["s", "q"], sort=True)["run_doc"].min().reset_index()
    lists = pd.DataFrame(
        {
            "system": segments.systems.to_numpy(dtype=object)[first["s"].to_numpy()],
            "query": judgments.queries.to_numpy(dtype=object)[first["q"].to_numpy()],
            "run_doc": first["run_doc"].to_numpy(dtype=object),
        }
    )
    return DocIdEvidence(matched, sample, lists)


def merge_evidence(parts) -> DocIdEvidence:
    """The evidence of a whole run from that of its partitions (each list whole in one)."""
    parts = list(parts)
    if not parts:
        return DocIdEvidence(True)
    matched = any(p.matched for p in parts)
    sample = np.array([], dtype=object)
    if not matched:
        sample = _smallest(np.concatenate([p.sample for p in parts]), MIN_UNMATCHED_DOCS)
    lists = pd.concat([p.lists for p in parts], ignore_index=True)
    return DocIdEvidence(matched, sample, lists)


def doc_id_messages(evidence: DocIdEvidence, judgments) -> list[str]:
    """The warnings the evidence calls for (none, the whole-run one, or the per-list one)."""
    if not evidence.matched and len(evidence.sample) >= MIN_UNMATCHED_DOCS:
        return [_whole_run_message(evidence, judgments)]
    if len(evidence.lists) == 0:
        return []
    return [_lists_message(evidence.lists, judgments)]


def _whole_run_message(evidence: DocIdEvidence, judgments) -> str:
    return (
        "none of the run's retrieved documents is in the qrels (in any judged query the run "
        "answers); every score will be 0. Run doc ids look like "
        f"{list(evidence.sample[:3])}, qrels doc ids like {list(_smallest(judgments.doc, 3))}: "
        "check "
        "that both use the same collection and the same spelling (doc ids are compared as exact "
        "strings, case included)."
    )


def _lists_message(lists: pd.DataFrame, judgments) -> str:
    lists = lists.assign(_q=judgments.queries.get_indexer(lists["query"].to_numpy(dtype=object)))
    lists = lists.sort_values(["system", "_q"], kind="stable", ignore_index=True)
    shown = lists.iloc[:SHOW_LISTS]
    examples = []
    for system, query, run_doc in shown[["system", "query", "run_doc"]].itertuples(index=False):
        q = judgments.queries.get_loc(query)
        docs = judgments.doc[judgments.start[q] : judgments.start[q + 1]]
        same = docs[normalise(docs) == normalise([run_doc])[0]]
        examples.append(
            f"system {system!r}, query {query!r}: {run_doc!r} in the run, "
            f"{min(same)!r} in the qrels"
        )
    n = len(lists)
    more = f"; {n - SHOW_LISTS} more" if n > SHOW_LISTS else ""
    return (
        f"{n} ranked list{'s' if n != 1 else ''} of at least {MIN_LIST_DOCS} documents retrieve"
        f"{'' if n != 1 else 's'} no judged document, although some of their doc ids match a "
        "judged "
        "document of the query once case, Unicode forms and surrounding whitespace are ignored "
        f"({'; '.join(examples)}{more}). Doc ids are compared as exact strings, so these lists "
        "score 0: write the run's doc ids as the qrels do (e.g. the same case)."
    )
