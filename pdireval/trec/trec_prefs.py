"""trec_eval's preference measures (``-R prefs`` / ``-R qrels_prefs``), vectorised.

A transcription of ``form_prefs_counts.c`` and the fourteen ``m_prefs_*.c`` of trec_eval
(Buckley, NIST; 9.0.8 and 10.0) over every evaluated query at once. The C builds, per query:

* **docid ranks.** The run is sorted by score descending, ties by document id ascending
  (strcmp), and cut to ``-M``; its documents that appear in the preferences are numbered
  ``0 .. num_judged_ret - 1`` in rank order, the other judged documents ``num_judged_ret ..
  num_judged - 1`` in document-id order. Unjudged retrieved documents play no part;
  ``-J`` and ``-l`` change nothing.
* **judgment groups (JG).** The lines of one JG with a single sub-group (JSG) form
  equivalence classes by ``rel_level`` (EC): every line of a higher class is preferred to
  every line of each lower class, a line counted once per occurrence. A JG with several
  JSGs is a preference array: within each JSG a document is preferred to the JSG's
  documents at lower levels, and the array is closed transitively (a conflict makes
  trec_eval abort).
* **counts.** A preference ``A > B`` is *retrieved* when both are retrieved (fulfilled when
  A ranks above B), *implied* when exactly one is (fulfilled when it is A), and *not
  occurring* when neither is (never fulfilled). Per JG: fulfilled and possible counts of
  each kind, and the relevant (level > 0) / nonrelevant (level 0) documents, retrieved or
  not; per query the counts array ``c[i][j]``: how many JG preferences put ``i`` above
  ``j`` (an ``unsigned short`` in C, so it wraps at 65536).

Measures: ``prefs_simp`` (fulfilled / possible over all JGs), ``prefs_avgjg`` (the same
ratio per JG, averaged over JGs; 0 unless the sum is positive), ``prefs_pair`` (the ratio
``c[i][j] / (c[i][j] + c[j][i])`` averaged over document pairs), ``prefs_avgjg_Rnonrel``
(per JG, the number of nonrelevant documents set to R, the number of relevant ones: R (R-N)
fulfilled preferences added when N < R, otherwise only the first R nonrelevant documents
kept, with trec_eval's recalculation as written, including its pairs of the last class
with itself), the ``_ret`` variants (retrieved pairs only) and the ``_imp`` variants
(pairs with at least one document retrieved), and the counts ``prefs_num_prefs_poss``,
``prefs_num_prefs_ful``, ``prefs_num_prefs_ful_ret`` (summed, not averaged, over queries).

How it is vectorised: the preference pairs of every JG are enumerated as index arrays (a
line of class k against the lines of the lower classes of its JG is one contiguous range
of the sorted lines), in chunks of whole queries to bound memory; the transitive closure of
preference arrays is a batched boolean matrix power, JGs of similar size together. Counts
are ``np.bincount`` over (query, JG) segments in trec_eval's order, so sums of ratios add
in the C loop's order.

Reference: Buckley, C. trec_eval 9.0.8 / 10.0, ``form_prefs_counts.c``,
https://github.com/usnistgov/trec_eval; preference-based evaluation in the style of
Carterette, B., Bennett, P. N., Chickering, D. M. & Dumais, S. T. (2008). Here or there:
preference judgments for relevance. ECIR 2008.
"""

from __future__ import annotations

import numpy as np

from pdireval.trec.trec_kernels import c_float

__all__ = ["PrefsResult", "prefs_result", "PREFS_MEASURES"]

#: the fourteen preference measures, in trec_eval's table order
PREFS_MEASURES = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)

#: preference pairs enumerated at once (bounds the memory of one chunk of queries)
CHUNK_PAIRS = 1 << 18
#: boolean cells of one batch of preference arrays in the transitive closure
CHUNK_CELLS = 1 << 24
BOGUS_DOCNO = b"ceci_nest_pas_un_docno"


class PrefsResult:
    """The preference measures of every evaluated query: ``values[name]`` is a float64 array
    of shape ``(n,)``; ``error`` is None or ``(query index, message, status)``, the first
    query trec_eval cannot evaluate (it stops there)."""

    def __init__(self, n: int, values: dict, error):
        self.n, self.values, self.error = n, values, error

    def value(self, name: str) -> np.ndarray:
        return self.values[name]


def _segments(*keys: np.ndarray) -> np.ndarray:
    """Segment id (0, 1, ...) of each row of rows sorted by ``keys``: a new segment wherever
    any key changes."""
    n = len(keys[0])
    change = np.zeros(n, dtype=bool)
    if n:
        change[0] = True
    for key in keys:
        change[1:] |= key[1:] != key[:-1]
    return np.cumsum(change) - 1


def _cumcount(groups: np.ndarray) -> np.ndarray:
    """Position of each row within its run of equal (sorted) ``groups``."""
    n = len(groups)
    if not n:
        return np.zeros(0, dtype=np.int64)
    start = np.ones(n, dtype=bool)
    start[1:] = groups[1:] != groups[:-1]
    first = np.flatnonzero(start)
    return np.arange(n) - np.repeat(first, np.diff(np.append(first, n)))


def _ranges(starts: np.ndarray, lengths: np.ndarray):
    """``(owner, index)``: for each i, ``index`` runs over ``starts[i] .. starts[i] +
    lengths[i] - 1`` and ``owner`` is ``i``."""
    lengths = np.maximum(lengths, 0)
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(starts)), lengths)
    offsets = np.cumsum(lengths) - lengths
    index = np.repeat(starts - offsets, lengths) + np.arange(total)
    return owner, index


def _codes(values: list) -> np.ndarray:
    """Integer codes of byte strings in strcmp order."""
    if not values:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.array(values, dtype=object), return_inverse=True)[1].reshape(-1)


def prefs_result(epi, evaluated, bogus, pq, pg, ps, pd, pr, rq, rd, rs) -> PrefsResult:
    """The preference measures of the ``evaluated`` queries (bytes ids, in evaluation order)
    from the preference lines ``pq, pg, ps, pd, pr`` (query, JG, JSG, docno, rel_level) and
    the run lines ``rq, rd, rs`` (query, docno, score); ``bogus``: 10.0's ``-c`` queries
    without results (ranked as one bogus document)."""
    n = len(evaluated)
    if n == 0:
        return PrefsResult(0, {name: np.zeros(0) for name in PREFS_MEASURES}, None)
    index = {q: i for i, q in enumerate(evaluated)}
    vocab, prefs, run = _coded_lines(epi, index, bogus, (pq, pg, ps, pd, pr), (rq, rd, rs))
    p_code, p_jg, p_jsg, p_doc, rel = prefs
    v = max(len(vocab), 1)
    errors: dict[int, str] = {}  # query code -> message (duplicates in the run)
    jg_errors: dict[int, str] = {}  # judgment group -> message
    r_code, r_key = _run_keys(epi, run, v, vocab, errors)
    p_rank, njr, num_judged = _docid_ranks(n, v, p_code, p_doc, r_code, r_key)
    lines = _Lines(p_code, p_jg, p_jsg, rel, p_rank, p_doc, njr)
    judged = _ec_judged(lines)
    num_rel, num_rel_ret, num_nonrel, num_nonrel_ret = judged
    pa_docs = _pa_documents(lines, njr, vocab, judged, jg_errors)
    pa_pairs = _closure(
        jg_errors, pa_docs[0], pa_docs[1], pa_docs[3], lines.g_of, lines.e_end_of,
        lines.s_end_of, lines.line_pa,
    )  # fmt: skip
    counter = _PairCounter(n, lines, njr, num_judged, judged, pa_docs, pa_pairs)
    for lo, hi in counter.bounds:
        counter.count(lo, hi)
    for g, line in counter.same_doc.items():
        jg_errors.setdefault(
            g,
            f"document {vocab[int(lines.doc[line])].decode(errors='replace')} has two "
            "rel_levels in one judgment sub-group; give it one level there (trec_eval."
            "form_prefs_counts: Internal docid occurs with different rel_level in same jsg)",
        )
    counter.add_simple()
    g_code = lines.g_code
    for g, message in sorted(jg_errors.items()):
        errors.setdefault(int(g_code[g]), message)
    values = _measures(
        n,
        g_code,
        counter.cnt,
        counter.rec,
        num_rel,
        num_rel_ret,
        num_nonrel,
        num_nonrel_ret,
        counter.pair_sum,
        counter.pair_num,
    )
    error = None
    if errors:
        first = min(errors)
        error = (first, f"query {evaluated[first].decode(errors='replace')}: {errors[first]}", 4)
    return PrefsResult(n, values, error)


def _coded_lines(epi, index: dict, bogus, prefs: tuple, run: tuple):
    """``(vocab, (p_code, p_jg, p_jsg, p_doc, rel), (r_code, r_doc, sims))``: the preference
    lines and run lines of the evaluated queries (``index``: query -> code), documents as
    codes into ``vocab`` (their ids in strcmp order), the bogus queries as one bogus document
    each; 9.0.8's levels and scores as C floats."""
    pq, pg, ps, pd, pr = prefs
    rq, rd, rs = run
    f32 = epi.version != "10"  # 9.0.8 stores scores and levels as C floats
    pcode_all = np.fromiter((index.get(q, -1) for q in pq), dtype=np.int64, count=len(pq))
    pkeep = np.flatnonzero(pcode_all >= 0)
    rcode_all = np.fromiter((index.get(q, -1) for q in rq), dtype=np.int64, count=len(rq))
    rkeep = np.flatnonzero(rcode_all >= 0)
    pick = pkeep.tolist()
    rpick = rkeep.tolist()
    bogus_codes = sorted(index[q] for q in bogus)
    pdocs = [pd[i] for i in pick]
    rdocs = [rd[i] for i in rpick] + [BOGUS_DOCNO] * len(bogus_codes)
    vocab, doc_codes = np.unique(np.array(pdocs + rdocs, dtype=object), return_inverse=True)
    doc_codes = doc_codes.reshape(-1).astype(np.int64)
    p_doc = doc_codes[: len(pdocs)]
    r_doc = doc_codes[len(pdocs) :]
    p_code = pcode_all[pkeep]
    r_code = np.concatenate([rcode_all[rkeep], np.array(bogus_codes, dtype=np.int64)])
    sims = np.concatenate([np.asarray(rs, dtype=np.float64)[rkeep], np.ones(len(bogus_codes))])
    if f32:
        sims = c_float(sims)
    rel = np.asarray(pr, dtype=np.float64)[pkeep]
    if f32:
        rel = c_float(rel).astype(np.float64)
    p_jg = _codes([pg[i] for i in pick])
    p_jsg = _codes([ps[i] for i in pick])
    return vocab, (p_code, p_jg, p_jsg, p_doc, rel), (r_code, r_doc, sims)


def _run_keys(epi, run: tuple, v: int, vocab, errors: dict):
    """``(r_code, r_key)``: the run's lines in rank order (score descending, docno
    ascending), cut to ``-M``, with keys ``query * v + document``; a document ranked twice
    is left out, the first query with one recorded in ``errors`` (trec_eval stops there)."""
    r_code, r_doc, sims = run
    order = np.lexsort((r_doc, -sims.astype(np.float64), r_code))
    r_code, r_doc = r_code[order], r_doc[order]
    pos = _cumcount(r_code)
    if epi.max_num_docs_per_topic is not None:
        cut = pos < epi.max_num_docs_per_topic
        r_code, r_doc = r_code[cut], r_doc[cut]
    r_key = r_code * v + r_doc
    by_key = np.argsort(r_key, kind="stable")
    dup_rows = np.zeros(len(r_key), dtype=bool)
    dup_rows[by_key[1:]] = r_key[by_key[1:]] == r_key[by_key[:-1]]
    if dup_rows.any():
        stop = int(r_code[dup_rows].min())  # the first such query: trec_eval stops there
        name = vocab[int(r_doc[dup_rows & (r_code == stop)].min())]
        errors[stop] = (
            f"document {name.decode(errors='replace')} is ranked twice in the run; keep "
            "one line per document (trec_eval.form_prefs_counts: duplicate docs)"
        )
        keep = ~dup_rows
        r_code, r_key = r_code[keep], r_key[keep]
    return r_code, r_key


def _docid_ranks(n: int, v: int, p_code, p_doc, r_code, r_key):
    """``(p_rank, njr, num_judged)``: the docid rank of each preference line (the judged
    retrieved documents in rank order, then the others by docno), and per query the number
    of judged retrieved documents and of judged documents."""
    p_key = p_code * v + p_doc
    judged_keys = np.unique(p_key)
    retrieved = np.isin(r_key, judged_keys)
    ret_keys, ret_code = r_key[retrieved], r_code[retrieved]  # already in (query, rank) order
    njr = np.bincount(ret_code, minlength=n)
    ret_rank = _cumcount(ret_code)
    unret_keys = judged_keys[~np.isin(judged_keys, ret_keys)]
    unret_code = unret_keys // v
    unret_rank = njr[unret_code] + _cumcount(unret_code)
    num_judged = np.bincount(judged_keys // v, minlength=n)
    table_keys = np.concatenate([ret_keys, unret_keys])
    table_rank = np.concatenate([ret_rank, unret_rank])
    by = np.argsort(table_keys)
    table_keys, table_rank = table_keys[by], table_rank[by]
    p_rank = table_rank[np.searchsorted(table_keys, p_key)]
    return p_rank, njr, num_judged


class _Lines:
    """The preference lines sorted by query, JG, JSG, rel_level descending and docid rank,
    with their judgment groups (``g_of``; ``g_code``: each JG's query), the ends of their
    sub-groups and classes (a run of one level within a sub-group), which lines belong to a
    preference array (a JG of several sub-groups) and which are retrieved."""

    def __init__(self, p_code, p_jg, p_jsg, rel, p_rank, p_doc, njr) -> None:
        order = np.lexsort((p_rank, -rel, p_jsg, p_jg, p_code))
        code, jg, jsg = p_code[order], p_jg[order], p_jsg[order]
        lvl, rank = rel[order], p_rank[order]
        self.code, self.lvl, self.rank, self.doc = code, lvl, rank, p_doc[order]
        g_of = _segments(code, jg)  # judgment group of each line
        s_of = _segments(code, jg, jsg)  # sub-group
        e_of = _segments(code, jg, jsg, lvl)  # class (run of one level within a sub-group)
        n_g = int(g_of[-1]) + 1 if len(g_of) else 0
        g_start = np.searchsorted(g_of, np.arange(n_g))
        g_end = np.append(g_start[1:], len(g_of))
        self.g_of, self.n_g = g_of, n_g
        self.g_code = code[g_start] if n_g else np.zeros(0, dtype=np.int64)
        self.s_end_of = np.searchsorted(s_of, s_of, side="right")
        self.e_start_of = np.searchsorted(e_of, e_of, side="left")
        self.e_end_of = np.searchsorted(e_of, e_of, side="right")
        n_sub = np.bincount(g_of[np.append(True, s_of[1:] != s_of[:-1])], minlength=n_g)
        self.is_pa = n_sub > 1
        self.line_pa = self.is_pa[g_of]
        self.line_ret = rank < njr[code]
        # EC groups: each line's position in its class, and whether it is in its JG's last
        self.ec_line = ~self.line_pa
        self.pos_in_e = np.arange(len(e_of)) - self.e_start_of
        last_e = np.zeros(n_g, dtype=np.int64)
        if n_g:
            last_e[:] = e_of[g_end - 1]
        self.in_last = e_of == last_e[g_of]


def _ec_judged(lines: _Lines) -> tuple:
    """``(num_rel, num_rel_ret, num_nonrel, num_nonrel_ret)`` per JG: the relevant (level >
    0) and nonrelevant lines of the EC groups, all and retrieved (0 for preference arrays,
    counted by :func:`_pa_documents`)."""
    n_g, g_of, ec_line, line_ret = lines.n_g, lines.g_of, lines.ec_line, lines.line_ret
    num_rel = np.zeros(n_g, dtype=np.int64)
    num_rel_ret = np.zeros(n_g, dtype=np.int64)
    num_nonrel = np.zeros(n_g, dtype=np.int64)
    num_nonrel_ret = np.zeros(n_g, dtype=np.int64)
    positive = lines.lvl > 0.0
    _add(num_rel, g_of[ec_line & positive])
    _add(num_rel_ret, g_of[ec_line & positive & line_ret])
    _add(num_nonrel, g_of[ec_line & ~positive])
    _add(num_nonrel_ret, g_of[ec_line & ~positive & line_ret])
    return num_rel, num_rel_ret, num_nonrel, num_nonrel_ret


def _pa_documents(lines: _Lines, njr, vocab, judged: tuple, jg_errors: dict) -> tuple:
    """``(doc_g, doc_rank, discard, local_of_line)``: the documents of the preference-array
    JGs (each with the level last set for it), the ones beyond the first R nonrelevant ones
    of their JG (``prefs_avgjg_Rnonrel``) and each line's document within its JG; adds the
    documents to the ``judged`` counts and records a document at both 0 and a non-0 level
    in ``jg_errors``."""
    g_of, rank, lvl, doc = lines.g_of, lines.rank, lines.lvl, lines.doc
    num_rel, num_rel_ret, num_nonrel, num_nonrel_ret = judged
    pa_idx = np.flatnonzero(lines.line_pa)
    local_of_line = np.full(len(g_of), -1, dtype=np.int64)
    if not len(pa_idx):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=bool), local_of_line
    gk = g_of[pa_idx]
    rk = rank[pa_idx]
    seq = np.lexsort((pa_idx, rk, gk))
    gs, rs_, ls = gk[seq], rk[seq], lvl[pa_idx][seq]
    same = np.zeros(len(seq), dtype=bool)
    same[1:] = (gs[1:] == gs[:-1]) & (rs_[1:] == rs_[:-1])
    prev = np.append(-1.0, ls[:-1])
    bad = same & (((prev > 0.0) & (ls == 0.0)) | ((prev == 0.0) & (ls > 0.0)))
    for g in np.unique(gs[bad]).tolist():
        first = pa_idx[seq][bad & (gs == g)].min()
        jg_errors.setdefault(
            g,
            f"document {vocab[int(doc[first])].decode(errors='replace')} has both a 0 "
            "and a non-0 rel_level in one judgment group; a document judged nonrelevant "
            "in one sub-group cannot be relevant in another: put those judgments in "
            "separate judgment groups (trec_eval.form_prefs_counts: doc has both 0 and "
            "non-0 rel_level assigned)",
        )
    last = np.append(~same[1:], True)
    pa_doc_g, pa_doc_rank, pa_doc_level = gs[last], rs_[last], ls[last]
    local = _cumcount(pa_doc_g)
    local_of_line[pa_idx[seq]] = local[_segments(gs, rs_)]
    doc_ret = pa_doc_rank < njr[lines.g_code[pa_doc_g]]
    rel_doc = pa_doc_level > 0.0
    zero_doc = pa_doc_level == 0.0
    _add(num_rel, pa_doc_g[rel_doc])
    _add(num_rel_ret, pa_doc_g[rel_doc & doc_ret])
    _add(num_nonrel, pa_doc_g[zero_doc])
    _add(num_nonrel_ret, pa_doc_g[zero_doc & doc_ret])
    zero_count = np.zeros(len(pa_doc_g), dtype=np.int64)
    zero_count[zero_doc] = _cumcount(pa_doc_g[zero_doc])
    discard_doc = zero_doc & (zero_count >= num_rel[pa_doc_g])
    return pa_doc_g, pa_doc_rank, discard_doc, local_of_line


class _PairCounter:
    """The counts per JG (``cnt``: fulfilled and possible retrieved / implied pairs and the
    pairs not occurring; ``rec``: ``prefs_avgjg_Rnonrel``'s recalculated ones) and per query
    the pair sums and counts of ``c[i][j]``, chunk by chunk of whole queries (``bounds``)."""

    def __init__(self, n, lines: _Lines, njr, num_judged, judged: tuple, pa_docs, pa_pairs):
        n_g, g_code, code = lines.n_g, lines.g_code, lines.code
        self.n, self.lines, self.njr, self.num_judged = n, lines, njr, num_judged
        self.num_rel, self.num_rel_ret = judged[0], judged[1]
        self.pa_doc_g, self.pa_doc_rank, self.discard_doc = pa_docs[:3]
        self.cnt = {k: np.zeros(n_g, dtype=np.int64) for k in ("fr", "pr", "fi", "pi", "no")}
        self.rec = {k: np.zeros(n_g, dtype=np.int64) for k in ("f", "p", "fret", "pret")}
        self.same_doc: dict[int, int] = {}  # judgment group -> a line of a doc at two levels
        self.pair_sum = {k: np.zeros(n) for k in ("ret", "imp")}
        self.pair_num = {k: np.zeros(n, dtype=np.int64) for k in ("ret", "imp", "all")}
        one_jg = np.bincount(g_code, minlength=n) == 1
        g_of, rank, line_pa = lines.g_of, lines.rank, lines.line_pa
        by_doc = np.lexsort((rank, g_of))
        repeated = np.zeros(n, dtype=bool)
        twice = (g_of[by_doc][1:] == g_of[by_doc][:-1]) & (rank[by_doc][1:] == rank[by_doc][:-1])
        repeated[code[by_doc][1:][twice & ~line_pa[by_doc][1:]]] = True
        self.simple = one_jg & ~repeated
        self.recalc = judged[0] < judged[2]
        self.recalc_ret = judged[1] < judged[3]
        self.ec_lengths = np.where(lines.ec_line, lines.s_end_of - lines.e_end_of, 0)
        self.line_code_start = np.searchsorted(code, np.arange(n + 1))
        per_query = np.bincount(code, weights=self.ec_lengths, minlength=n)
        self.pa_g, self.pa_a, self.pa_b = pa_pairs
        pa_g = self.pa_g
        self.pa_code = g_code[pa_g] if len(pa_g) else np.zeros(0, dtype=np.int64)
        per_query += np.bincount(self.pa_code, minlength=n)
        self.bounds = _chunks(per_query, CHUNK_PAIRS)

    def count(self, lo: int, hi: int) -> None:
        """Count the pairs of the queries ``lo .. hi - 1``: each EC line against the lines of
        the lower classes of its JG, then the preference-array pairs."""
        lines = self.lines
        rows = np.arange(self.line_code_start[lo], self.line_code_start[hi])
        owner, other = _ranges(lines.e_end_of[rows], self.ec_lengths[rows])
        x, y = rows[owner], other
        g, a, b = lines.g_of[x], lines.rank[x], lines.rank[y]
        k0, k1 = np.searchsorted(self.pa_code, [lo, hi])
        pg_, pa_, pb_ = self.pa_g[k0:k1], self.pa_a[k0:k1], self.pa_b[k0:k1]
        for where in np.flatnonzero(a == b)[:1].tolist():  # the first only: an error stops
            self.same_doc.setdefault(int(g[where]), int(x[where]))
        ga = np.concatenate([g, pg_])
        aa = np.concatenate([a, pa_])
        bb = np.concatenate([b, pb_])
        nj = self.njr[lines.g_code[ga]] if len(ga) else np.zeros(0, dtype=np.int64)
        a_ret, b_ret = aa < nj, bb < nj
        both = a_ret & b_ret
        one = a_ret ^ b_ret
        cnt = self.cnt
        _add(cnt["pr"], ga[both])
        _add(cnt["fr"], ga[both & (aa < bb)])
        _add(cnt["pi"], ga[one])
        _add(cnt["fi"], ga[one & a_ret])
        _add(cnt["no"], ga[~a_ret & ~b_ret])
        self._recalculated(g, y, (pg_, pa_, pb_), (ga, aa, bb), a_ret, both)
        self._last_class(rows)
        # the counts array c[i][j] of each query, and its pairs (queries of one judgment
        # group without repeated documents: every pair once, one way, from add_simple)
        hard = ~self.simple[lines.g_code[ga]]
        _pairs(
            ga[hard], aa[hard], bb[hard], lines.g_code, self.njr, self.num_judged,
            self.pair_sum, self.pair_num,
        )  # fmt: skip

    def _recalculated(self, g, y, pa_part, pairs, a_ret, both) -> None:
        """``prefs_avgjg_Rnonrel``'s recalculation: the kept pairs (EC: the lower class's
        first R lines; preference arrays: the first R nonrelevant documents)."""
        lines, rec = self.lines, self.rec
        pg_, pa_, pb_ = pa_part
        ga, aa, bb = pairs
        m = len(g)
        kept = np.ones(len(ga), dtype=bool)
        kept_ret = both.copy()
        y_last = lines.in_last[y]
        kept[:m] = ~y_last | (lines.pos_in_e[y] < self.num_rel[g])
        kept_ret[:m] &= ~y_last | (lines.pos_in_e[y] < self.num_rel_ret[g])
        if len(pg_):
            da = _doc_index(self.pa_doc_g, self.pa_doc_rank, pg_, pa_)
            db = _doc_index(self.pa_doc_g, self.pa_doc_rank, pg_, pb_)
            keep_pa = ~self.discard_doc[da] & ~self.discard_doc[db]
            kept[m:] = keep_pa
            kept_ret[m:] &= keep_pa
        ful_rule = a_ret & (aa < bb)
        sel = kept & self.recalc[ga]
        _add(rec["p"], ga[sel])
        _add(rec["f"], ga[sel & ful_rule])
        sel = kept_ret & self.recalc_ret[ga]
        _add(rec["pret"], ga[sel])
        _add(rec["fret"], ga[sel & (aa < bb)])

    def _last_class(self, rows) -> None:
        """``prefs_avgjg_Rnonrel``'s recalculation: the EC's last class against itself (its
        first R lines), as trec_eval writes it."""
        lines, rec = self.lines, self.rec
        g_of, rank, line_ret = lines.g_of, lines.rank, lines.line_ret
        e_start_of, e_end_of = lines.e_start_of, lines.e_end_of
        last_rows = rows[lines.ec_line[rows] & lines.in_last[rows]]
        for variant, limit, flag in (
            ("", self.num_rel, self.recalc),
            ("ret", self.num_rel_ret, self.recalc_ret),
        ):
            xs = last_rows[flag[g_of[last_rows]]]
            if variant:
                xs = xs[line_ret[xs]]
            size = e_end_of[xs] - e_start_of[xs]
            own, ys = _ranges(e_start_of[xs], np.minimum(limit[g_of[xs]], size))
            xq = xs[own]
            qg = g_of[xq]
            if variant:
                ok = line_ret[ys]
                xq, ys, qg = xq[ok], ys[ok], qg[ok]
                _add(rec["pret"], qg)
                _add(rec["fret"], qg[rank[xq] < rank[ys]])
            else:
                _add(rec["p"], qg)
                _add(rec["f"], qg[line_ret[xq] & (rank[xq] < rank[ys])])

    def add_simple(self) -> None:
        """The pairs of the simple queries: ``c[i][j]`` is 0 or 1 and never both ways, so each
        pair's ratio is 1 when the preferred document ranks first: the pair sums are the
        fulfilled counts."""
        n, g_code, cnt, simple = self.n, self.lines.g_code, self.cnt, self.simple
        ful_q = np.bincount(g_code, weights=cnt["fr"], minlength=n)
        imp_q = np.bincount(g_code, weights=cnt["fi"], minlength=n)
        self.pair_sum["ret"] += np.where(simple, ful_q, 0.0)
        self.pair_sum["imp"] += np.where(simple, ful_q + imp_q, 0.0)
        for key, parts in (("ret", ("pr",)), ("imp", ("pr", "pi")), ("all", ("pr", "pi", "no"))):
            total = sum(np.bincount(g_code, weights=cnt[k], minlength=n) for k in parts)
            self.pair_num[key] += np.where(simple, total, 0.0).astype(np.int64)


def _add(counts: np.ndarray, groups: np.ndarray) -> None:
    if len(groups):
        counts += np.bincount(groups, minlength=len(counts))


def _chunks(per_query: np.ndarray, limit: int) -> list:
    """Contiguous ranges of queries holding about ``limit`` pairs each (one query at least)."""
    n = len(per_query)
    if n == 0:
        return []
    total = np.cumsum(per_query)
    cuts = np.unique(np.searchsorted(total, np.arange(limit, total[-1] + limit, limit)))
    bounds = [0, *[min(int(c) + 1, n) for c in cuts]]
    bounds = sorted(set(bounds) | {n})
    return list(zip(bounds[:-1], bounds[1:]))


def _doc_index(doc_g, doc_rank, g, r) -> np.ndarray:
    """Row of (JG, docid rank) in the sorted preference-array documents."""
    width = int(doc_rank.max(initial=0)) + 1
    return np.searchsorted(doc_g * width + doc_rank, g * width + r)


def _closure(jg_errors, doc_g, doc_rank, local_of_line, g_of, e_end_of, s_end_of, line_pa):
    """Preference pairs ``(JG, preferred rank, other rank)`` of the preference-array JGs:
    within each sub-group a line is preferred to the lines at lower levels, closed
    transitively (batched boolean matrix powers over JGs of similar size)."""
    empty = (np.zeros(0, dtype=np.int64),) * 3
    if not len(doc_g):
        return empty
    rows = np.flatnonzero(line_pa)
    owner, other = _ranges(e_end_of[rows], s_end_of[rows] - e_end_of[rows])
    x = rows[owner]
    eg, ea, eb = g_of[x], local_of_line[x], local_of_line[other]
    groups, first = np.unique(doc_g, return_index=True)
    size = np.diff(np.append(first, len(doc_g)))
    out = []
    bucket = np.ceil(np.log2(np.maximum(size, 1))).astype(np.int64)
    for level in np.unique(bucket).tolist():
        members = np.flatnonzero(bucket == level)
        width = int(size[members].max())
        per_batch = max(1, CHUNK_CELLS // (width * width))
        for start in range(0, len(members), per_batch):
            batch = members[start : start + per_batch]
            gs = groups[batch]
            slot = np.full(int(groups.max()) + 1, -1, dtype=np.int64)
            slot[gs] = np.arange(len(gs))
            sel = slot[eg] >= 0
            reach = np.zeros((len(gs), width, width), dtype=bool)
            reach[slot[eg[sel]], ea[sel], eb[sel]] = True
            diag = np.arange(width)
            reach[:, diag, diag] = True
            while True:
                f = reach.astype(np.float32)
                nxt = np.matmul(f, f) > 0
                if np.array_equal(nxt, reach):
                    break
                reach = nxt
            reach[:, diag, diag] = False
            cycle = (reach & reach.transpose(0, 2, 1)).any(axis=(1, 2))
            for b in np.flatnonzero(cycle).tolist():
                jg_errors.setdefault(
                    int(gs[b]),
                    "the preferences of one judgment group contradict each other (a cycle "
                    "through its sub-groups); put the contradicting sub-groups in separate "
                    "judgment groups. trec_eval aborts here (trec_eval.form_prefs_counts: "
                    "Pref inconsistency found)",
                )
            bi, ai, ci = np.nonzero(reach)
            base = first[batch][bi]
            out.append((gs[bi], doc_rank[base + ai], doc_rank[base + ci]))
    if not out:
        return empty
    g = np.concatenate([o[0] for o in out])
    a = np.concatenate([o[1] for o in out])
    b = np.concatenate([o[2] for o in out])
    order = np.argsort(g, kind="stable")
    return g[order], a[order], b[order]


def _pairs(ga, aa, bb, g_code, njr, num_judged, pair_sum, pair_num) -> None:
    """Fold the pairs of some queries into their pair sums and counts: ``c[i][j]`` (wrapping
    at 65536 as trec_eval's unsigned short), per unordered pair the ratio
    ``c[lo][hi] / (c[lo][hi] + c[hi][lo])``, summed in trec_eval's loop order (pairs of
    retrieved documents, then a retrieved with an unretrieved one, each by rank)."""
    ok = aa != bb
    if not ok.any():
        return
    q = g_code[ga[ok]]
    a, b = aa[ok], bb[ok]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    square = num_judged.astype(np.int64) ** 2
    key = lo * num_judged[q] + hi + (np.cumsum(square) - square)[q]
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    forward = np.bincount(inverse, weights=(a < b), minlength=len(uniq)).astype(np.int64)
    backward = np.bincount(inverse, weights=(a > b), minlength=len(uniq)).astype(np.int64)
    forward %= 65536
    backward %= 65536
    uq, ulo, uhi = q[first], lo[first], hi[first]
    present = (forward + backward) > 0
    lim = njr[uq]
    cat = np.where(uhi < lim, 0, np.where(ulo < lim, 1, 2))
    sel = np.flatnonzero(present)
    order = sel[np.lexsort((uhi[sel], ulo[sel], cat[sel], uq[sel]))]
    n = len(pair_num["all"])
    ratio = forward[order] / (forward[order] + backward[order])
    c, qq = cat[order], uq[order]
    pair_num["all"] += np.bincount(qq, minlength=n)
    pair_num["ret"] += np.bincount(qq[c == 0], minlength=n)
    pair_num["imp"] += np.bincount(qq[c <= 1], minlength=n)
    pair_sum["ret"] += np.bincount(qq[c == 0], weights=ratio[c == 0], minlength=n)
    pair_sum["imp"] += np.bincount(qq[c <= 1], weights=ratio[c <= 1], minlength=n)


def _measures(n, g_code, cnt, rec, num_rel, num_rel_ret, num_nonrel, num_nonrel_ret, ps, pn):
    """The fourteen measures from the per-JG counts (trec_eval's m_prefs_*.c)."""
    num_jgs = np.bincount(g_code, minlength=n).astype(np.float64)
    ful_ret, poss_ret = cnt["fr"], cnt["pr"]
    ful_imp, poss_imp, notoccur = cnt["fi"], cnt["pi"], cnt["no"]
    ful = ful_ret + ful_imp
    poss = poss_ret + poss_imp + notoccur
    poss_ri = poss_ret + poss_imp

    def qsum(x):
        return np.bincount(g_code, weights=x.astype(np.float64), minlength=n)

    def ratio(num, den):
        num, den = qsum(num), qsum(den)
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)

    def avgjg(num, den, skip_empty=True):
        with np.errstate(invalid="ignore", divide="ignore"):
            r = num / den.astype(np.float64)
        if skip_empty:
            r = np.where(den > 0, r, 0.0)
        total = np.bincount(g_code, weights=r, minlength=n)
        with np.errstate(invalid="ignore"):
            return np.where(total > 0.0, total / np.maximum(num_jgs, 1.0), 0.0)

    r_, n_ = num_rel, num_nonrel
    extra = np.where(r_ >= n_, r_ - n_, 0)
    rn_ful = np.where(r_ >= n_, ful + num_rel_ret * extra, rec["f"])
    rn_poss = np.where(r_ >= n_, poss + num_rel * extra, rec["p"])
    rr_, nr_ = num_rel_ret, num_nonrel_ret
    extra = np.where(rr_ >= nr_, rr_ - nr_, 0)
    rnr_ful = np.where(rr_ >= nr_, ful_ret + num_rel_ret * extra, rec["fret"])
    rnr_poss = np.where(rr_ >= nr_, poss_ret + num_rel * extra, rec["pret"])

    def pair(total, count):
        return np.where(count > 0, total / np.maximum(count, 1), 0.0)

    return {
        "prefs_num_prefs_poss": qsum(poss),
        "prefs_num_prefs_ful": qsum(ful),
        "prefs_num_prefs_ful_ret": qsum(ful_ret),
        "prefs_simp": ratio(ful, poss),
        "prefs_pair": pair(ps["imp"], pn["all"]),
        "prefs_avgjg": avgjg(ful, poss),
        "prefs_avgjg_Rnonrel": avgjg(rn_ful, rn_poss, skip_empty=False),
        "prefs_simp_ret": ratio(ful_ret, poss_ret),
        "prefs_pair_ret": pair(ps["ret"], pn["ret"]),
        "prefs_avgjg_ret": avgjg(ful_ret, poss_ret),
        "prefs_avgjg_Rnonrel_ret": avgjg(rnr_ful, rnr_poss, skip_empty=False),
        "prefs_simp_imp": ratio(ful, poss_ri),
        "prefs_pair_imp": pair(ps["imp"], pn["imp"]),
        "prefs_avgjg_imp": avgjg(ful, poss_ri),
    }
