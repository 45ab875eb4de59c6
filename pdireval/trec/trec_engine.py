"""trec_eval's evaluation loop (``trec_eval.c``, Buckley, NIST; 9.0.8 and 10.0), vectorised.

:func:`evaluate_files` reads the two files, forms every evaluated query's ranking
(``form_res_rels.c``: score descending, ties by document id descending, ``-M``, ``-J``),
computes the marked measures with :mod:`pdireval.trec.trec_kernels`, converts to z-scores
(``-Z``), and prints per-query and summary lines as trec_eval does: names left-justified
to 22 characters, ``%6.4f`` values, counts as integers, averages over the evaluated queries
(``-c``: over every query of the qrels), sums for the counts, geometric means for ``gm_``.

Differences between the versions are all here, keyed by ``Epi.version`` (``"9"`` or
``"10"``): which queries are evaluated (9.0.8: the run's queries that have judgments; 10.0:
the qrels' queries, a judged query missing from the run being an error, or with ``-c`` an
empty ranking printed with ``-q``), scores as C floats (9.0.8) or doubles, comment lines,
interpolated precision's cut-off rounding, gain levels, and the measures each version has.
"""

from __future__ import annotations

import math
from functools import partial
from itertools import repeat
from operator import ne
from typing import Any

import numpy as np

from pdireval.trec import trec_columns
from pdireval.trec import trec_kernels as K
from pdireval.trec.trec_files import (
    ZSCORES_STATUS,
    TrecEvalExit,
    nan_score_error,
    parse_prefs,
    parse_qrels,
    parse_results,
    parse_zscores,
    read_bytes,
)
from pdireval.trec.trec_measures import (
    MEASURES,
    NICKNAMES,
    REL_FORMATS,
    RESULTS_FORMATS,
    BadParameter,
    Column,
    Epi,
    measure_parameters,
)

__all__ = ["evaluate_files"]

# --------------------------------------------------------------------------- the run


class Output:
    """What trec_eval writes: stdout text, an error message (stderr) and the exit status."""

    def __init__(self, stdout: str, status: int = 0, message: str = ""):
        self.stdout, self.status, self.message = stdout, status, message


def _fmt(value: float) -> str:
    if value != value:  # NaN: C prints the sign bit
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def _fmt_all(column: np.ndarray) -> list:
    if np.isnan(column).any():
        return [_fmt(v) for v in column.tolist()]
    return [f"{v:6.4f}" for v in column.tolist()]


def _refuse_nan_scores(files, results_path: str) -> None:
    """A NaN score is an error naming its line (trec_eval's order for it is its C library's)."""
    if files is not None and np.isnan(files.scores).any():
        row = int(np.flatnonzero(np.isnan(files.scores))[0])  # (one line per row there)
        raise nan_score_error(results_path, row + 1, files.results.token(4, row))


def _read_zscores(path: str) -> dict:
    """The ``-Z`` file's z-score parameters (trec_eval's status for a bad one)."""
    return parse_zscores(read_bytes(path, "z-scores", ZSCORES_STATUS), path)


def evaluate_files(epi: Epi, qrels_path: str, results_path: str) -> Output:
    """trec_eval's main() after option parsing."""
    jg_mode = epi.rel_info_format == "qrels_jg"
    data = _Inputs(epi, qrels_path, results_path)
    zscores = None if epi.zscore_file is None else _read_zscores(epi.zscore_file)
    chosen, unreadable, columns, params = _chosen_measures(epi)
    evaluated, bogus, missing = _which_queries(epi, data.qq, data.result_queries())
    if unreadable is not None:
        _refuse_unreadable(epi, unreadable, evaluated, missing)
    if data.prefs is not None:
        return _print_prefs(
            epi, chosen, columns, params, evaluated, bogus, missing, data.runid, zscores,
            data.qq, data.prefs, (data.rq, data.rd, data.rs),
        )  # fmt: skip
    rr, dup, jg_rows = _form_res_rels(epi, data, evaluated, bogus)
    # the evaluation and its printing; the early stops print the queries before the stop
    printed = partial(
        _print, epi, chosen, columns, params, rr, evaluated, bogus, data.runid, zscores,
        data.qq, data.qr, jg_rows,
    )  # fmt: skip
    return _print_until_stop(printed, chosen, rr, dup, evaluated, missing, jg_mode)


class _Inputs:
    """The qrels (or preferences) and results files as trec_eval reads them, refusing what it
    refuses in its order: the qrels lines ``qq, qg, qd, qr`` (lists, or trec_columns'
    arrays), the run's lines ``rq, rd, rs`` and ``runid``, ``prefs`` (``-R prefs`` /
    ``qrels_prefs``: the preference lines, else None) and ``files`` (trec_columns' inputs
    when the common case applies, else None)."""

    def __init__(self, epi: Epi, qrels_path: str, results_path: str) -> None:
        self.version, self.qrels_path, self.results_path = epi.version, qrels_path, results_path
        self.prefs: tuple | None = None
        self.qrels_data = b""
        self.files: Any = None
        self.qq: Any = None  # lists parsed from the files, or trec_columns' arrays
        self.qg: Any = None
        self.qd: Any = None
        self.qr: Any = None
        self.rq: Any = None
        self.rd: Any = None
        self.rs: Any = None
        self.runid: Any = None
        qrels_table = self._read_qrels(epi)
        if epi.results_format not in RESULTS_FORMATS:
            raise TrecEvalExit(
                f"-T {epi.results_format}: trec_eval reads trec_results only "
                f"(trec_eval: Illegal retrieval results format "
                f"'{epi.results_format}').",
                2,
            )
        self.results_data = read_bytes(results_path, "results")
        if qrels_table is not None:
            self.files = trec_columns.inputs(qrels_table, self.results_data, self.version)
        _refuse_nan_scores(self.files, results_path)
        if self.files is None:
            if qrels_table is not None:
                self.parse_qrels()
            self.parse_results()
        else:
            files = self.files
            self.qq, self.qr, self.runid = files.qrels_queries, files.labels, files.runid

    def _read_qrels(self, epi: Epi):
        """Read the qrels (or preference) file; trec_columns' table of it when the common case
        applies (the lines are read later when it does not), else None."""
        if epi.rel_info_format not in REL_FORMATS:
            raise TrecEvalExit(
                f"-R {epi.rel_info_format}: not a rel_info format; trec_eval reads "
                f"{', '.join(REL_FORMATS)} (trec_eval: Illegal rel_format "
                f"'{epi.rel_info_format}').",
                2,
            )
        jg_mode = epi.rel_info_format == "qrels_jg"
        qrels_table = None
        if epi.rel_info_format in ("prefs", "qrels_prefs"):
            what = "prefs" if epi.rel_info_format == "prefs" else "qrels"
            self.prefs = parse_prefs(
                read_bytes(self.qrels_path, what),
                self.qrels_path,
                self.version,
                qrels_prefs=epi.rel_info_format == "qrels_prefs",
            )
            prefs = self.prefs
            self.qq, self.qg, self.qd, self.qr = prefs[0], prefs[1], prefs[3], []
        else:
            self.qrels_data = read_bytes(self.qrels_path, "qrels")
            # the common case is read as numpy columns (trec_columns); the lists below are read
            # when it does not apply (before the results file when the qrels are malformed)
            if not jg_mode and (self.version != "10" or b"#" not in self.qrels_data):
                qrels_table = trec_columns.table(self.qrels_data, 4)
            if qrels_table is None:
                self.parse_qrels()
        if jg_mode and len(set(zip(self.qq, self.qg, self.qd))) != len(self.qq):
            raise TrecEvalExit(
                f"qrels file '{self.qrels_path}': a document is listed twice for the same "
                "query and judgment group (trec_eval.get_qrels: duplicate docs; "
                f"trec_eval: Quit in file '{self.qrels_path}').",
                2,
            )
        return qrels_table

    def parse_qrels(self) -> None:
        """The qrels file's lines as lists."""
        self.qq, self.qg, self.qd, self.qr = parse_qrels(
            self.qrels_data, self.qrels_path, self.version
        )

    def parse_results(self) -> None:
        """The results file's lines as lists."""
        self.rq, self.rd, self.rs, self.runid = parse_results(
            self.results_data, self.results_path, self.version
        )

    def result_queries(self) -> set:
        """The queries of the run."""
        return set(self.rq) if self.files is None else self.files.result_queries


def _chosen_measures(epi: Epi):
    """``(chosen, unreadable, columns, params)``: the marked measures in trec_eval's order
    (its official set when none is marked), the first that cannot read ``-R``'s input (or
    None), the printed columns and each measure's parameters."""
    version = epi.version
    if not epi.marked:
        epi.marked.update(NICKNAMES[version]["official"])
    chosen = [m for m in MEASURES if version in m.versions and m.name in epi.marked]
    unreadable = next((m for m in chosen if not m.reads(epi.rel_info_format)), None)
    columns: list[Column] = []
    params = {}
    for meas in chosen:
        try:
            values, names = measure_parameters(epi, meas)
        except BadParameter as exc:
            raise TrecEvalExit(
                f"-m {meas.name}: {exc} (trec_eval: Cannot initialize measure '{meas.name}').", 2
            ) from None
        params[meas.name] = values
        columns += [
            Column(n, meas, i if meas.kind.startswith("cut") else -1) for i, n in enumerate(names)
        ]
    return chosen, unreadable, columns, params


def _which_queries(epi: Epi, qq, result_queries: set):
    """``(evaluated, bogus, missing)``: the queries trec_eval evaluates, in its order (9.0.8:
    the run's judged queries; 10.0: the qrels' queries up to the first one missing from the
    run, ``-c``: all of them, the missing ones empty rankings, ``bogus``), and 10.0's first
    judged query missing from the run without ``-c`` (else None)."""
    qrels_queries = sorted(set(qq))
    missing = None
    bogus = set()
    if epi.version == "10":
        evaluated = []
        for q in qrels_queries:
            if epi.debug_query is not None and q != epi.debug_query:
                continue
            if q in result_queries:
                evaluated.append(q)
            elif epi.average_complete_flag:
                evaluated.append(q)
                bogus.add(q)
            else:
                missing = q
                break
    else:
        judged = set(qrels_queries)
        evaluated = [
            q
            for q in sorted(result_queries)
            if q in judged and (epi.debug_query is None or q == epi.debug_query)
        ]
    return evaluated, bogus, missing


def _refuse_unreadable(epi: Epi, unreadable, evaluated: list, missing) -> None:
    """A marked measure that cannot read ``-R``'s input: trec_eval fails at the first query
    it evaluates, before printing anything."""
    if not evaluated and missing is None:
        raise TrecEvalExit(NO_QUERIES, 7)
    needs = "prefs or -R qrels_prefs" if unreadable.needs == "prefs" else unreadable.needs
    raise TrecEvalExit(
        f"-m {unreadable.name}: needs -R {needs} input, not -R {epi.rel_info_format} "
        f"(trec_eval: Can't calculate measure '{unreadable.name}').",
        4,
    )


def _form_res_rels(epi: Epi, data: _Inputs, evaluated: list, bogus: set):
    """``(rr, dup, jg_rows)``: every evaluated query's ranking and judgments (``-R
    qrels_jg``: one virtual query per (query, judgment group), ``jg_rows`` grouping them per
    query, else None) and the first document listed twice (else None)."""
    jg_rows = None
    try:
        if epi.rel_info_format == "qrels_jg":  # averaged per query
            rr, dup, jg_rows = _res_rels_jg(
                epi, evaluated, bogus, data.qq, data.qg, data.qd, data.qr, data.rq, data.rd,
                data.rs,
            )  # fmt: skip
            return rr, dup, jg_rows
        files = data.files
        fast = None if files is None or bogus else files.join(evaluated)
        if fast is not None:
            q_of, rel_of, codes, sims, rel_file, words = fast
            try:
                rr = _ranked(
                    epi, len(evaluated), q_of, rel_of, codes, sims, rel_file,
                    trec_columns.word_rank, words,
                )  # fmt: skip
            except LevelTableTooLarge as exc:
                exc.names = evaluated
                raise
            return rr, None, jg_rows
        if files is not None:  # a duplicate document: read the lists for its message
            data.parse_qrels()
            data.parse_results()
        rr, dup = _res_rels(
            epi, evaluated, bogus, data.qq, data.qd, data.qr, data.rq, data.rd, data.rs
        )
        return rr, dup, jg_rows
    except LevelTableTooLarge as exc:
        raise exc.exit(data.qrels_path) from None


def _print_until_stop(printed, chosen, rr, dup, evaluated, missing, jg_mode) -> Output:
    """The printed evaluation (``printed``: :func:`_print` but for where it stops), stopping
    where trec_eval stops: a first query whose labels are all negative, a document listed
    twice, 10.0's judged query missing from the run."""
    if dup is None and not jg_mode and evaluated and not rr.levels[0].any():
        # form_res_rels.c sizes its label table by the query's largest label: for a first
        # query whose labels are all negative that is 0 entries, and the allocation fails
        first = next((m.name for m in chosen if m.needs), chosen[0].name)
        stop = (
            f"query {evaluated[0].decode(errors='replace')}: every qrels label is negative "
            f"(pooled but unjudged); trec_eval cannot evaluate such a query when it comes "
            f"first (trec_eval: Can't calculate measure '{first}')",
            4,
        )
        return printed(upto=0, stop=stop)
    if dup is not None:
        q_index, docno, where = dup
        evaluated_before = evaluated[:q_index]
        first = next((m.name for m in chosen if m.needs), chosen[0].name)
        twice = (
            f"query {evaluated[q_index].decode(errors='replace')}: document "
            f"{docno.decode(errors='replace')} is listed twice in the {where} "
            "(trec_eval.form_res_rels: duplicate docs; trec_eval: Can't calculate measure "
            f"'{first}')"
        )
        return printed(upto=len(evaluated_before), stop=(twice, 4))
    if missing is not None:
        stop = (
            f"query {missing.decode(errors='replace')} is judged in the qrels but absent from "
            "the "
            "run; trec_eval 10.0 stops there (trec_eval: result qid "
            f"'{missing.decode(errors='replace')}' not found in qrels). Use -c to evaluate it "
            "as "
            "an empty ranking.",
            4,
        )
        if not evaluated:
            return Output("", 4, stop[0])
        return printed(upto=len(evaluated), stop=stop)
    if not evaluated:
        raise TrecEvalExit(NO_QUERIES, 7)
    return printed()


BOGUS_DOCNO = b"ceci_nest_pas_un_docno"
NO_QUERIES = (
    "no queries with both results and relevance information: the run's query ids and the "
    "qrels' share none (trec_eval: No queries with both results and relevance info)."
)


def _print_prefs(epi, chosen, columns, params, evaluated, bogus, missing, runid, zscores, qq,
                 prefs, results) -> Output:  # fmt: skip
    """-R prefs / qrels_prefs: the preference measures of every evaluated query
    (:mod:`pdireval.trec.trec_prefs`), stopping where trec_eval stops."""
    from pdireval.trec.trec_prefs import prefs_result

    pq, pg, ps, pd, pr = prefs
    rr = prefs_result(epi, evaluated, bogus, pq, pg, ps, pd, pr, *results)
    printed = partial(
        _print, epi, chosen, columns, params, rr, evaluated, bogus, runid, zscores, qq, []
    )
    if rr.error is not None:
        upto, message, status = rr.error
        first = next(m.name for m in chosen if m.needs == "prefs")
        stop = f"{message}; trec_eval: Can't calculate measure '{first}'"
        return printed(upto=upto, stop=(stop, status))
    if missing is not None:
        name = missing.decode(errors="replace")
        stop = (
            f"query {name} has preferences but is absent from the run; trec_eval 10.0 stops "
            f"there (trec_eval: result qid '{name}' not found in qrels). Use -c to evaluate "
            "it as an empty ranking."
        )
        if not evaluated:
            return Output("", 4, stop)
        return printed(upto=len(evaluated), stop=(stop, 4))
    if not evaluated:
        raise TrecEvalExit(
            "no queries with both results and preferences: the run's query ids and the "
            "preference file's share none (trec_eval: No queries with both results and "
            "relevance info).",
            7,
        )
    return printed()


def _first_duplicate(items) -> bytes | None:
    """The first document listed twice in ``strcmp`` order (trec_eval sorts the documents, then
    compares neighbours); None when every document is listed once."""
    ordered = sorted(items)
    return next((a for a, b in zip(ordered, ordered[1:]) if a == b), None)


def _ranked_twice(chunk: list, sims: np.ndarray, epi) -> bytes | None:
    """The document a query's results list twice among the ones trec_eval keeps: under ``-M``
    only the first ``max_num_docs_per_topic`` by score descending, then document id descending
    (form_res_rels.c truncates before it checks for duplicates); None when there is none."""
    maximum = epi.max_num_docs_per_topic
    if maximum is not None and maximum < len(chunk):
        if epi.version != "10":
            sims = K.c_float(sims)  # 9.0.8 stores scores as C floats
        by_doc = sorted(range(len(chunk)), key=chunk.__getitem__, reverse=True)
        ranked = sorted(by_doc, key=lambda i: -sims[i])  # stable: ties keep docno descending
        chunk = [chunk[i] for i in ranked[:maximum]]
    return _first_duplicate(chunk)


def _blocks(ids: list):
    """Runs of equal ids: ``[(id, start, stop)]`` (files are grouped by query)."""
    if not ids:
        return []
    change = np.fromiter(map(ne, ids[1:], ids[:-1]), dtype=bool, count=len(ids) - 1)
    starts = [0, *(np.flatnonzero(change) + 1).tolist()]
    stops = [*starts[1:], len(ids)]
    return [(ids[a], a, b) for a, b in zip(starts, stops)]


def _res_rels(epi, evaluated, bogus, qq, qd, qr, rq, rd, rs):
    """te_form_res_rels() for every evaluated query; returns (ResRels, duplicate or None)."""
    n = len(evaluated)
    index = {q: i for i, q in enumerate(evaluated)}
    dup = None
    # qrels: one dict document -> label per evaluated query, and the label counts
    lookups: dict[int, dict] = {}
    listed = np.zeros(n, dtype=np.int64)
    qblocks = _blocks(qq)
    block_codes = np.array([index.get(q, -1) for q, _a, _b in qblocks], dtype=np.int64)
    block_sizes = np.array([b - a for _q, a, b in qblocks], dtype=np.int64)
    for (_q, a, b), code in zip(qblocks, block_codes.tolist()):
        if code >= 0:
            lookups.setdefault(code, {}).update(zip(qd[a:b], qr[a:b]))
    np.add.at(listed, block_codes[block_codes >= 0], block_sizes[block_codes >= 0])
    for code in np.flatnonzero(listed != np.array([len(lookups.get(c, ())) for c in range(n)])):
        dup = dup or (
            int(code),
            _first_duplicate([d for q, d in zip(qq, qd) if index.get(q) == code]) or b"?",
            "qrels",
        )
        break
    line_codes = np.repeat(block_codes, block_sizes)
    keep = line_codes >= 0
    q_of = line_codes[keep]
    rel_of = np.fromiter(qr, dtype=np.int64, count=len(qr))[keep]
    # results of the evaluated queries (+ the bogus document of 10.0's -c)
    absent = -(1 << 62)
    docs: list = []
    code_parts, sim_parts, rel_parts = [], [], []
    seen_codes: dict[int, int] = {}
    sims_all = np.asarray(rs, dtype=np.float64)
    blocks = [(index.get(q), a, b) for q, a, b in _blocks(rq)]
    blocks = [blk for blk in blocks if blk[0] is not None]
    blocks += [(index[q], None, None) for q in sorted(bogus, key=index.get)]
    for code, a, b in blocks:
        if a is None:
            chunk, sim = [BOGUS_DOCNO], np.ones(1)
        else:
            chunk, sim = rd[a:b], sims_all[a:b]
        seen_codes[code] = seen_codes.get(code, 0) + 1
        table = lookups.get(code, {})
        rel_parts.append(
            np.fromiter(map(table.get, chunk, repeat(absent)), dtype=np.int64, count=len(chunk))
        )
        code_parts.append(np.full(len(chunk), code, dtype=np.int64))
        sim_parts.append(sim)
        if len(set(chunk)) != len(chunk) and (dup is None or code < dup[0]):
            twice = _ranked_twice(chunk, sim, epi)
            dup = dup if twice is None else (code, twice, "run")
        docs += chunk
    for code, times in seen_codes.items():  # a query in several blocks of the run file
        if times > 1:
            mine = np.concatenate(code_parts) == code
            chunk = [d for d, m in zip(docs, mine.tolist()) if m]
            if len(set(chunk)) != len(chunk) and (dup is None or code < dup[0]):
                twice = _ranked_twice(chunk, np.concatenate(sim_parts)[mine], epi)
                dup = dup if twice is None else (code, twice, "run")
    codes = np.concatenate(code_parts) if code_parts else np.zeros(0, np.int64)
    sims = np.concatenate(sim_parts) if sim_parts else np.zeros(0)
    rel_file = np.concatenate(rel_parts) if rel_parts else np.zeros(0, np.int64)
    try:
        return _ranked(epi, n, q_of, rel_of, codes, sims, rel_file, _list_rank, docs), dup
    except LevelTableTooLarge as exc:
        exc.names = evaluated
        raise


def _list_rank(docs: list, rows: np.ndarray) -> np.ndarray:
    """The ``strcmp`` order of the documents ``docs[rows]`` (equal documents: equal codes)."""
    return np.unique(np.array([docs[i] for i in rows.tolist()]), return_inverse=True)[1].reshape(-1)


#: the most entries of the per-query label-count table (n_queries x (largest label + 1)) when
#: a label is above 255 (smaller labels are always taken, however many queries there are)
MAX_LEVEL_TABLE = 2**25


class LevelTableTooLarge(Exception):
    """A qrels label too large for trec_eval's table of counts per label (see
    :data:`MAX_LEVEL_TABLE`): the query index, the label and the number of queries."""

    def __init__(self, query: int, label: int, n_queries: int):
        super().__init__(query, label, n_queries)
        self.query, self.label, self.n_queries = query, label, n_queries
        self.names: list = []  # the evaluated (or judgment groups' virtual) query ids

    def exit(self, qrels_path: str) -> TrecEvalExit:
        name = self.names[self.query].split(b"\x00")[0].decode(errors="replace")
        return TrecEvalExit(
            f"qrels file '{qrels_path}': query {name} has the label {self.label}; trec_eval "
            "keeps, for each query, a table of counts for every label from 0 to the largest, "
            f"here {self.n_queries} queries x {self.label + 1:,} labels, above pdireval's "
            f"limit of {MAX_LEVEL_TABLE:,} entries for labels above 255 (trec_eval itself runs "
            "out of memory or hangs). Relabel the qrels with small grades (e.g. 0 to 4).",
            2,
        )


def _ranked(epi, n, q_of, rel_of, codes, sims, rel_file, doc_rank, docs) -> K.ResRels:
    """te_form_res_rels() from the rows of the evaluated queries: the qrels' (query index
    ``q_of``, label ``rel_of``) and the results' (query index, score, qrels label or
    ``absent``); ``doc_rank(docs, rows)`` orders the documents of tied rows."""
    judged = rel_of >= 0
    width_levels = int(rel_of[judged].max(initial=-1)) + 1
    width_levels = max(width_levels, 1)
    if width_levels > 256 and n * width_levels > MAX_LEVEL_TABLE:  # (labels <= 255: always)
        top = int(np.argmax(np.where(judged, rel_of, -1)))
        raise LevelTableTooLarge(int(q_of[top]), int(rel_of[top]), n)
    levels = np.bincount(
        q_of[judged] * width_levels + rel_of[judged], minlength=n * width_levels
    ).reshape(n, width_levels)
    present = levels > 0
    num_rel_levels = np.where(
        present.any(axis=1), levels.shape[1] - np.argmax(present[:, ::-1], axis=1), 0
    )
    lvl = epi.relevance_level
    cols = np.arange(levels.shape[1])[None, :]
    num_rel = (levels * (cols >= lvl)).sum(axis=1)
    empty = ~np.asarray(present.any(axis=1))
    if empty[1:].any():
        # form_res_rels.c keeps its label table and num_rel_levels in static memory and
        # counts into a table of max_rel + 1 = 0 entries for a query whose labels are all
        # negative: such a query keeps the table of the query evaluated before it (the gain
        # measures read it: ideal_dcg, rbp); the first query is refused below
        source = np.maximum.accumulate(np.where(empty, 0, np.arange(n)))
        levels, num_rel_levels = levels[source], num_rel_levels[source]

    if epi.version != "10":
        sims = K.c_float(sims).astype(np.float64)  # 9.0.8 stores scores as C floats
    sims = sims + 0.0
    # trec_eval's order: query, score descending, document id descending (strcmp); a run
    # file is usually in that order already (then the stable sort would keep it)
    # (scores compared, never subtracted: two infinite scores are equal, their difference NaN)
    step_code = codes[1:] - codes[:-1]
    same_code = step_code == 0
    order = None  # None: the rows are in that order
    if ((step_code > 0) | (same_code & (sims[1:] <= sims[:-1]))).all():
        sc, ss = codes, sims
        same = same_code & (sims[1:] == sims[:-1])
    else:
        order = np.lexsort((-sims, codes))
        sc, ss = codes[order], sims[order]
        same = (sc[1:] == sc[:-1]) & (ss[1:] == ss[:-1])
    if same.any():
        tied = np.zeros(len(sc), dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        order = np.arange(len(codes)) if order is None else order
        at = np.flatnonzero(tied)
        sub = order[at]
        doc_code = doc_rank(docs, sub)
        inner = np.lexsort((-doc_code, -ss[at], sc[at]))
        order[at] = sub[inner]
    codes = codes if order is None else codes[order]
    counts = np.bincount(codes, minlength=n)
    starts = np.cumsum(counts) - counts
    pos = np.arange(len(codes)) - starts[codes]
    absent = -(1 << 62)
    rel = rel_file if order is None else rel_file[order]
    rel = np.where(rel == absent, K.NONPOOL, np.where(rel < 0, K.UNJUDGED, rel))
    maximum = epi.max_num_docs_per_topic
    if maximum is not None:
        cut = pos < maximum
        codes, pos, rel = codes[cut], pos[cut], rel[cut]
    if epi.judged_docs_only_flag:
        keep_j = rel >= 0
        codes, rel = codes[keep_j], rel[keep_j]
        counts = np.bincount(codes, minlength=n)
        starts = np.cumsum(counts) - counts
        pos = np.arange(len(codes)) - starts[codes]
    num_ret = np.bincount(codes, minlength=n)
    width = max(int(num_ret.max(initial=0)), 1)
    matrix = np.zeros((n, width), dtype=np.int64)
    valid = np.zeros((n, width), dtype=bool)
    matrix[codes, pos] = rel
    valid[codes, pos] = True
    num_rel_ret = np.bincount(codes[(rel >= 0) & (rel >= lvl)], minlength=n)
    num_nonpool = np.bincount(codes[rel == K.NONPOOL], minlength=n)
    num_unjudged = np.bincount(codes[rel == K.UNJUDGED], minlength=n)
    rr = K.ResRels(
        matrix,
        valid,
        num_ret,
        num_rel,
        num_rel_ret,
        num_nonpool,
        num_unjudged,
        levels,
        num_rel_levels,
        lvl,
        epi.version,
        epi.num_docs_in_coll,
    )
    return rr


def _res_rels_jg(epi, evaluated, bogus, qq, qg, qd, qr, rq, rd, rs):
    """te_form_res_rels_jg(): the ranking of each query once per judgment group of its qrels
    (groups in strcmp order); returns (ResRels of the virtual queries, duplicate, rows)."""
    groups: dict[bytes, set] = {}
    for q, g in zip(qq, qg):
        groups.setdefault(q, set()).add(g)
    wanted = set(evaluated)
    virtual, rows = [], []
    for q in evaluated:
        rows.append(list(range(len(virtual), len(virtual) + len(groups[q]))))
        virtual += [q + b"\x00" + g for g in sorted(groups[q])]
    vq = [q + b"\x00" + g for q, g in zip(qq, qg)]
    rq2, rd2, rs2 = [], [], []
    for q, a, b in _blocks(rq):
        if q in wanted:
            for g in sorted(groups[q]):
                rq2 += [q + b"\x00" + g] * (b - a)
                rd2 += rd[a:b]
                rs2 += rs[a:b]
    vbogus = {v for v in virtual if v.split(b"\x00")[0] in bogus}
    rr, dup = _res_rels(epi, virtual, vbogus, vq, qd, qr, rq2, rd2, rs2)
    if dup is not None:
        real = next(i for i, r in enumerate(rows) if dup[0] in r)
        dup = (real, dup[1], dup[2])
    return rr, dup, rows


def _average_jg(values: np.ndarray, rows: list) -> np.ndarray:
    """Sum over each query's judgment groups in order, divided by their number when > 1."""
    out = np.zeros((len(rows), values.shape[1]))
    count = np.array([len(r) for r in rows])
    for j in range(int(count.max(initial=0))):
        has = count > j
        index = [r[j] for r, h in zip(rows, has) if h]
        out[has] += values[index]
    return np.where(count[:, None] > 1, out / np.maximum(count, 1)[:, None], out)


def _print(
    epi,
    chosen,
    columns,
    params,
    rr,
    evaluated,
    bogus,
    runid,
    zscores,
    qq,
    qr,
    jg_rows=None,
    upto=None,
    stop=None,
) -> Output:
    n = len(evaluated)
    values = {}  # measure name -> (n, k) float array, or list of strings for relstring
    with np.errstate(all="ignore"):
        for meas in chosen:
            if meas.kernel is None or meas.kind == "num_q":
                continue
            try:
                out = meas.kernel(rr, params[meas.name])
            except ValueError as exc:
                raise TrecEvalExit(
                    f"-m {meas.name}: {exc} (trec_eval: Can't calculate measure '{meas.name}').", 4
                ) from None
            if meas.kind == "relstring":
                values[meas.name] = out
            elif jg_rows is not None:
                out = np.asarray(out, dtype=np.float64).reshape(rr.n, -1)
                values[meas.name] = _average_jg(out, jg_rows)
            else:
                values[meas.name] = np.asarray(out, dtype=np.float64).reshape(n, -1)
    # per-query value table in column order
    table = np.zeros((n, len(columns)))
    for j, col in enumerate(columns):
        meas = col.meas
        if meas.kind == "num_q":
            table[:, j] = 1.0
        elif meas.kind in ("runid", "relstring"):
            table[:, j] = 0.0
        else:
            table[:, j] = values[meas.name][:, max(col.index, 0)]
    relstrings = {}
    for meas in chosen:
        if meas.kind == "relstring":
            relstrings[meas.name] = list(values[meas.name])
    if bogus:  # 10.0 -c: clean up the empty ranking's leftovers (trec_eval.c)
        rows = [i for i, q in enumerate(evaluated) if q in bogus]
        for j, col in enumerate(columns):
            if col.name in ("num_ret", "utility", "rbp_resid") or col.name.startswith("unj"):
                table[rows, j] = 0.0
            if col.name == "relstring":
                for i in rows:
                    relstrings["relstring"][i] = ""
    if zscores is not None:
        table = _zscores(table, columns, evaluated, zscores)
    z = "Z" if zscores is not None else ""
    lines = []
    limit = n if upto is None else upto
    if epi.query_flag and limit:
        qids = [q.decode("utf-8", "surrogateescape") for q in evaluated[:limit]]
        blocks = []  # (prefix, formatted values) per printed column
        for j, col in enumerate(columns):
            kind = col.meas.kind
            if kind in ("runid", "num_q", "gm"):
                continue
            if kind == "relstring":
                blocks.append(
                    (f"{col.name:<22}\t", [f"'{v}'" for v in relstrings[col.meas.name][:limit]])
                )
            elif kind == "s_long" and not z:
                blocks.append(
                    (
                        f"{col.name:<22}\t",
                        list(map(str, table[:limit, j].astype(np.int64).tolist())),
                    )
                )
            else:
                blocks.append((f"{z}{col.name:<22}\t", _fmt_all(table[:limit, j])))
        for i, qid in enumerate(qids):
            lines += [f"{prefix}{qid}\t{vals[i]}" for prefix, vals in blocks]
    if stop is not None:
        return Output(_join(lines), stop[1], stop[0])
    if epi.summary_flag:
        num_queries = n if not epi.average_complete_flag else len(set(qq))
        sums = np.cumsum(table, axis=0)[-1] if n else np.zeros(len(columns))
        for j, col in enumerate(columns):
            meas = col.meas
            kind = meas.kind
            if kind == "runid":
                lines.append(f"{'runid':<22}\tall\t{runid.decode('utf-8', 'surrogateescape')}")
                continue
            if kind == "relstring":
                continue
            value = sums[j]
            if kind == "num_q":
                value = float(num_queries)
            elif meas.name == "num_rel" and epi.average_complete_flag:
                value = float(np.count_nonzero(np.asarray(qr) > 0))
            elif kind == "gm":
                total = value
                if epi.average_complete_flag:
                    total += (num_queries - n) * math.log(K.MIN_GEO_MEAN)
                value = math.exp(total / num_queries)
            elif meas.avg == "mean":
                value = value / num_queries
            if kind in ("s_long", "num_q") and not z:
                lines.append(f"{col.name:<22}\tall\t{int(value)}")
            else:
                lines.append(f"{z}{col.name:<22}\tall\t{_fmt(value)}")
    return Output(_join(lines))


def _join(lines) -> str:
    lines = list(lines)
    return "\n".join(lines) + "\n" if lines else ""


MISSING_ZSCORE_VALUE = -1000000.0


def _zscores(table, columns, evaluated, zscores):
    out = table.copy()
    qids = {q for q, _ in zscores}
    for i, q in enumerate(evaluated):
        if q not in qids:
            out[i, :] = MISSING_ZSCORE_VALUE
            continue
        for j, col in enumerate(columns):
            if col.meas.kind == "runid":
                continue
            entry = zscores.get((q, col.name.encode()))
            if entry is None:
                out[i, j] = MISSING_ZSCORE_VALUE
                continue
            mean, std = entry
            if std:
                out[i, j] = (table[i, j] - mean) / std
            else:
                out[i, j] = 0.0 if table[i, j] == mean else MISSING_ZSCORE_VALUE
    return out
