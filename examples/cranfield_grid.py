"""A small real retrieval experiment: the Cranfield collection and two parameterised rankers.

Seed 004's training methodology needs *systems that are parameter settings of one
retrieval model*. This module builds them on a real collection, fast enough for a test:

* :func:`read_cranfield` parses the Cranfield 1400 collection (documents, queries, graded
  judgments), minding its quirks;
* :class:`TermIndex` is a compact bag-of-words index (a scipy.sparse document × term
  matrix);
* :func:`grid_run` ranks every query under every setting of a parameter grid of BM25
  (Robertson et al. 1994) or a Dirichlet-smoothed query-likelihood language model (Zhai &
  Lafferty 2001), one system per setting, as one run frame with the parameter columns;
* :func:`pooled_qrels` adds the documents of a depth-k pool that nobody judged as judged
  non-relevant (TREC-style pooling), so that bpref and infAP see non-relevant judgments.

Scoring is vectorized: one sparse weight matrix per setting and one sparse product with
the query matrix; no Python loop over queries or documents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import product

import numpy as np
import pandas as pd
from scipy import sparse

from pdireval.core.schema import ID_DTYPE, canonical_qrels, canonical_run
from pdireval.errors import OptionError, SchemaError

__all__ = ["TermIndex", "grid_run", "pooled_qrels", "STOPWORDS", "MODELS"]

MODELS = ("bm25", "lm")

# A short English stop list (function words), enough for Cranfield's abstracts.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    may me might more most must my no nor not of off on once only or other ou our out over own
    same shall she should so some such than that the their them then there these they this
    those through to too under until up upon very was we were what when where which while who
    whom why will with would you your""".split()
)

_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric tokens, stop words and 1-character tokens removed, plural 's'
    stripped from tokens longer than 3 characters (a minimal, documented normalisation)."""
    out = []
    for tok in _TOKEN.findall(text.lower()):
        if len(tok) < 2 or tok in STOPWORDS:
            continue
        if len(tok) > 3 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        out.append(tok)
    return out


# --------------------------------------------------------------------------- Cranfield






# --------------------------------------------------------------------------- index and scoring


class TermIndex:
    """Bag-of-words index: a documents × terms count matrix (scipy.sparse CSR).

    Parameters
    ----------
    docs
        Frame with ``doc`` and a text column.
    text
        Name of the text column(s); several are joined with a space (e.g.
        ``("title", "text")``).

    Attributes
    ----------
    doc_ids, vocabulary, tf (CSR docs × terms, float64), doc_len, avg_len, df (documents
    containing each term), cf (collection frequency of each term), n_docs.
    """

    def __init__(self, docs: pd.DataFrame, text: str | Sequence[str] = "text"):
        cols = [text] if isinstance(text, str) else list(text)
        missing = [c for c in ["doc", *cols] if c not in docs.columns]
        if missing:
            raise SchemaError(f"the documents frame lacks column(s) {missing}; it has {list(docs.columns)}")
        joined = docs[cols].fillna("").astype(str).agg(" ".join, axis=1)
        self.doc_ids = pd.Index(docs["doc"].astype(str).to_numpy(), name="doc")
        self.vocabulary: dict[str, int] = {}
        self.tf = self._count(joined.tolist(), grow=True)
        self.n_docs = self.tf.shape[0]
        self.doc_len = np.asarray(self.tf.sum(axis=1)).ravel()
        self.avg_len = float(self.doc_len.mean()) if self.n_docs else 0.0
        self.df = np.bincount(self.tf.indices, minlength=len(self.vocabulary)).astype(np.float64)
        self.cf = np.asarray(self.tf.sum(axis=0)).ravel()

    def _count(self, texts: list[str], grow: bool) -> sparse.csr_matrix:
        rows, cols = [], []
        for i, t in enumerate(texts):  # tokenisation is per text; scoring below is vectorized
            for tok in tokenize(t):
                j = self.vocabulary.get(tok)
                if j is None:
                    if not grow:
                        continue
                    j = self.vocabulary[tok] = len(self.vocabulary)
                rows.append(i)
                cols.append(j)
        data = np.ones(len(rows))
        m = sparse.csr_matrix((data, (rows, cols)), shape=(len(texts), len(self.vocabulary)))
        m.sum_duplicates()
        return m

    def queries(self, queries: pd.DataFrame, text: str = "text") -> sparse.csr_matrix:
        """Query × term count matrix (terms outside the vocabulary dropped)."""
        return self._count(queries[text].fillna("").astype(str).tolist(), grow=False)

    # -- weighting models ----------------------------------------------------------------

    def bm25_weights(self, k1: float = 1.2, b: float = 0.75) -> sparse.csr_matrix:
        r"""BM25 document-term weights (Robertson et al. 1994; seed 004 appendix eq. 1)

        .. math:: w(t, d) = \mathrm{idf}(t)\,\frac{(k_1 + 1)\,tf}{tf + k_1\,(1 - b + b\,l/\bar l)},
                  \qquad \mathrm{idf}(t) = \ln\left(1 + \frac{N - n_t + 0.5}{n_t + 0.5}\right)

        (the +1 keeps idf positive for common terms); the query side multiplies by qtf
        (k3 → ∞).
        """
        tf = self.tf.tocoo()
        idf = np.log1p((self.n_docs - self.df + 0.5) / (self.df + 0.5))
        norm = k1 * (1.0 - b + b * self.doc_len[tf.row] / self.avg_len)
        w = idf[tf.col] * tf.data * (k1 + 1.0) / (tf.data + norm)
        return sparse.csr_matrix((w, (tf.row, tf.col)), shape=self.tf.shape)

    def lm_weights(self, mu: float = 1000.0) -> tuple[sparse.csr_matrix, np.ndarray]:
        r"""Dirichlet-smoothed query likelihood (Zhai & Lafferty 2001), rank-equivalent form:

        .. math:: \mathrm{score}(d, q) = \sum_{t \in q \cap d} qtf\,
                  \ln\left(1 + \frac{tf}{\mu\,p(t \mid C)}\right) + |q| \ln\frac{\mu}{l + \mu}

        Returns the sparse term part and the per-document factor ln(μ/(l + μ)).
        """
        tf = self.tf.tocoo()
        p_c = self.cf / self.cf.sum()
        w = np.log1p(tf.data / (mu * p_c[tf.col]))
        return sparse.csr_matrix((w, (tf.row, tf.col)), shape=self.tf.shape), np.log(mu / (self.doc_len + mu))


def _grid(params: Mapping[str, Sequence[float]]) -> list[dict]:
    names = list(params)
    for name in names:
        values = params[name]
        if isinstance(values, (int, float)):
            params = {**params, name: [values]}
    return [dict(zip(names, combo)) for combo in product(*(list(params[n]) for n in names))]


def grid_run(
    index: TermIndex,
    queries: pd.DataFrame,
    *,
    model: str = "bm25",
    params: Mapping[str, Sequence[float]] | None = None,
    depth: int = 100,
    text: str = "text",
) -> pd.DataFrame:
    """Rank every query under every parameter setting: one system per setting.

    Parameters
    ----------
    index
        A :class:`TermIndex`.
    queries
        Frame with ``query`` and a ``text`` column.
    model
        ``"bm25"`` (parameters ``k1``, ``b``; defaults 1.2 and 0.75) or ``"lm"`` (Dirichlet
        ``mu``; default 1000).
    params
        ``{parameter: values}``; the grid is their Cartesian product, e.g.
        ``{"b": np.linspace(0, 1, 11)}``. Unlisted parameters keep their default.
    depth
        Documents kept per query (the top ``depth`` among those matching a query term).

    Returns
    -------
    DataFrame
        ``system`` (str, e.g. ``"bm25(b=0.3,k1=1.2)"``), ``query``, ``doc`` (str),
        ``score`` (float64), ``rank`` (int64, 1-based), then one float64 column per model
        parameter (``k1``, ``b`` or ``mu``) holding the setting. Systems in grid order, then
        query order, then rank.
    """
    if model not in MODELS:
        raise OptionError(f"model= must be one of {MODELS}, got {model!r}")
    defaults = {"bm25": {"k1": 1.2, "b": 0.75}, "lm": {"mu": 1000.0}}[model]
    params = dict(params or {})
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise OptionError(f"unknown parameter(s) {unknown} for model={model!r}; it has {sorted(defaults)}")
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise OptionError(f"depth= must be a positive integer, got {depth!r}")
    settings = _grid({**{k: [v] for k, v in defaults.items()}, **params})
    Q = index.queries(queries, text)
    q_ids = queries["query"].astype(str).to_numpy(dtype=object)
    q_len = np.asarray(Q.sum(axis=1)).ravel()
    matched = (Q @ (index.tf > 0).T.astype(np.float64)).toarray() > 0  # queries × docs
    parts = []
    for s in settings:  # loop over parameter settings; each is one sparse product
        if model == "bm25":
            scores = (Q @ index.bm25_weights(s["k1"], s["b"]).T).toarray()
        else:
            w, doc_factor = index.lm_weights(s["mu"])
            scores = (Q @ w.T).toarray() + q_len[:, None] * doc_factor[None, :]
        scores = np.where(matched, scores, -np.inf)
        k = min(depth, scores.shape[1])
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < scores.shape[1] else np.tile(np.arange(scores.shape[1]), (scores.shape[0], 1))
        top_scores = np.take_along_axis(scores, top, axis=1)
        doc_ids = index.doc_ids.to_numpy(dtype=object)[top]
        qi, _ = np.indices(top.shape)
        frame = pd.DataFrame({"qi": qi.ravel(), "doc": doc_ids.ravel(), "score": top_scores.ravel()})
        frame = frame[np.isfinite(frame["score"].to_numpy())]
        # within each query: score descending, ties by doc id descending (trec_eval's order)
        frame = frame.sort_values(["qi", "score", "doc"], ascending=[True, False, False], kind="stable")
        frame["rank"] = frame.groupby("qi").cumcount().to_numpy() + 1
        name = model + "(" + ",".join(f"{k}={_fmt(v)}" for k, v in sorted(s.items())) + ")"
        frame.insert(0, "system", name)
        frame["query"] = q_ids[frame["qi"].to_numpy()]
        for key, value in s.items():
            frame[key] = float(value)
        parts.append(frame.drop(columns="qi"))
    out = pd.concat(parts, ignore_index=True)
    out = out[["system", "query", "doc", "score", "rank", *defaults]]
    for c in ("system", "query", "doc"):
        out[c] = pd.array(out[c].to_numpy(dtype=object), dtype=ID_DTYPE)
    return out


def _fmt(v: float) -> str:
    v = float(v)
    return repr(int(v)) if v.is_integer() else f"{v:g}"


# --------------------------------------------------------------------------- pooling


def pooled_qrels(run: pd.DataFrame, qrels: pd.DataFrame, *, depth: int = 50) -> pd.DataFrame:
    """Judgments completed over a depth-k pool: TREC-style pooling on top of given qrels.

    Every document in the top ``depth`` (by rank/score order of :func:`pdireval.evaluate`) of
    any system for a judged query that the qrels do not list is added as judged
    non-relevant (label 0). Cranfield lists (almost) only relevant documents; without
    non-relevant judgments bpref degenerates to recall and subsampling has no non-relevant
    stratum.

    Returns
    -------
    DataFrame
        Canonical qrels ``query, doc, label``: the given rows plus the added zeros, sorted by
        query then doc.
    """
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise OptionError(f"depth= must be a positive integer, got {depth!r}")
    q = canonical_qrels(qrels)
    r = canonical_run(run)
    if "score" in r.columns:
        r = r.sort_values(["system", "query", "score", "doc"], ascending=[True, True, False, False], kind="stable")
    else:
        r = r.sort_values(["system", "query", "rank", "doc"], kind="stable")
    top = r[r.groupby(["system", "query"], sort=False).cumcount().to_numpy() < depth]
    top = top[top["query"].isin(set(q["query"]))]
    pool = top[["query", "doc"]].drop_duplicates()
    merged = pool.merge(q[["query", "doc"]], on=["query", "doc"], how="left", indicator=True)
    new = merged.loc[merged["_merge"] == "left_only", ["query", "doc"]].assign(label=0.0)
    out = pd.concat([q, new], ignore_index=True)
    return canonical_qrels(out)
