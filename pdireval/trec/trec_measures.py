"""trec_eval's measures as the command knows them (9.0.8 and 10.0): the measure table in print
order, the nicknames of ``-m``, the EPI options of one run and the grammar of ``-m
name[.params]`` (``trec_eval.c``'s mark_measure and the te_init_meas_* parameter readers).
"""

from __future__ import annotations

from pdireval.trec import trec_kernels as K
from pdireval.trec.trec_prefs import PREFS_MEASURES

__all__ = [
    "MEASURES",
    "NICKNAMES",
    "REL_FORMATS",
    "RESULTS_FORMATS",
    "BadParameter",
    "Column",
    "Epi",
    "IllegalMeasure",
    "Meas",
    "mark",
    "measure_names",
    "measure_parameters",
]

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_RMULT = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


class Meas:
    """One entry of trec_eval's measure table (``measures.c``).

    ``kind``: how values are named, initialised, printed and averaged --
    ``s_double`` / ``s_long`` (one value; %6.4f / %ld), ``gm`` (one value, summary only,
    geometric mean), ``cut_long`` / ``cut_double`` (one value per cut-off, ``name_10`` /
    ``name_0.10``), ``p_double`` / ``p_pair`` (one value, parameters appended to the name as
    typed), ``relstring``, ``runid``, ``num_q``. ``avg``: ``mean`` or ``sum``.
    """

    __slots__ = ("name", "kernel", "kind", "default", "avg", "versions", "needs")

    def __init__(
        self,
        name: str,
        kernel,
        kind: str,
        default: tuple = (),
        avg: str = "mean",
        versions: tuple = ("9", "10"),
        needs: str = "qrels",
    ):
        self.name, self.kernel, self.kind, self.default = name, kernel, kind, default
        self.avg, self.versions = avg, versions
        self.needs = needs  # the rel_info format whose RES_RELS it reads

    def reads(self, rel_info_format: str) -> bool:
        """Whether the measure can be computed from ``-R rel_info_format`` input (the
        preference measures read prefs and qrels_prefs alike)."""
        if self.needs in ("", rel_info_format):
            return True
        return self.needs == "prefs" and rel_info_format == "qrels_prefs"

    def __repr__(self) -> str:
        return f"Meas({self.name!r})"


def _prefs(name: str):
    """The kernel of a preference measure: its values, computed for all fourteen at once by
    :func:`pdireval.trec.trec_prefs.prefs_result` (``rr`` is its PrefsResult)."""

    def kernel(rr, params=None):
        return rr.value(name)

    kernel.__name__ = name
    return kernel


MEASURES = (
    Meas("runid", None, "runid", needs=""),
    Meas("num_q", K.num_q, "num_q", needs=""),
    Meas("num_ret", K.num_ret, "s_long", avg="sum"),
    Meas("num_rel", K.num_rel, "s_long", avg="sum"),
    Meas("num_rel_ret", K.num_rel_ret, "s_long", avg="sum"),
    Meas("map", K.map_, "s_double"),
    Meas("gm_map", K.gm_map, "gm"),
    Meas("Rprec", K.rprec, "s_double"),
    Meas("bpref", K.bpref, "s_double"),
    Meas("recip_rank", K.recip_rank, "s_double"),
    Meas("iprec_at_recall", K.iprec_at_recall, "cut_double", _RECALL),
    Meas("P", K.precision, "cut_long", _CUTS),
    Meas("relstring", K.relstring, "relstring", (10.0,)),
    Meas("recall", K.recall, "cut_long", _CUTS),
    Meas("infAP", K.infap, "s_double"),
    Meas("gm_bpref", K.gm_bpref, "gm"),
    Meas("Rprec_mult", K.rprec_mult, "cut_double", _RMULT),
    Meas("utility", K.utility, "p_double", (1.0, -1.0, 0.0, 0.0)),
    Meas("11pt_avg", K.pt11_avg, "p_double", _RECALL),
    Meas("binG", K.bin_g, "s_double"),
    Meas("G", K.g_measure, "p_pair"),
    Meas("dcg", K.dcg, "p_pair", versions=("10",)),
    Meas("ideal_dcg", K.ideal_dcg, "p_pair", versions=("10",)),
    Meas("ndcg", K.ndcg, "p_pair"),
    Meas("ndcg_rel", K.ndcg_rel, "p_pair"),
    Meas("Rndcg", K.rndcg, "p_pair"),
    Meas("ndcg_cut", K.ndcg_cut, "cut_long", _CUTS),
    Meas("map_cut", K.map_cut, "cut_long", _CUTS),
    Meas("relative_P", K.relative_p, "cut_long", _CUTS),
    Meas("success", K.success, "cut_long", (1, 5, 10)),
    Meas("set_P", K.set_p, "s_double"),
    Meas("set_relative_P", K.set_relative_p, "s_double"),
    Meas("set_recall", K.set_recall, "s_double"),
    Meas("set_map", K.set_map, "s_double"),
    Meas("set_F", K.set_f, "p_double", (1.0,)),
    Meas("num_nonrel_judged_ret", K.num_nonrel_judged_ret, "s_long", avg="sum"),
    Meas(
        "prefs_num_prefs_poss", _prefs("prefs_num_prefs_poss"), "s_long", avg="sum", needs="prefs"
    ),
    Meas("prefs_num_prefs_ful", _prefs("prefs_num_prefs_ful"), "s_long", avg="sum", needs="prefs"),
    Meas(
        "prefs_num_prefs_ful_ret",
        _prefs("prefs_num_prefs_ful_ret"),
        "s_long",
        avg="sum",
        needs="prefs",
    ),
    Meas("prefs_simp", _prefs("prefs_simp"), "s_double", needs="prefs"),
    Meas("prefs_pair", _prefs("prefs_pair"), "s_double", needs="prefs"),
    Meas("prefs_avgjg", _prefs("prefs_avgjg"), "s_double", needs="prefs"),
    Meas("prefs_avgjg_Rnonrel", _prefs("prefs_avgjg_Rnonrel"), "s_double", needs="prefs"),
    Meas("prefs_simp_ret", _prefs("prefs_simp_ret"), "s_double", needs="prefs"),
    Meas("prefs_pair_ret", _prefs("prefs_pair_ret"), "s_double", needs="prefs"),
    Meas("prefs_avgjg_ret", _prefs("prefs_avgjg_ret"), "s_double", needs="prefs"),
    Meas("prefs_avgjg_Rnonrel_ret", _prefs("prefs_avgjg_Rnonrel_ret"), "s_double", needs="prefs"),
    Meas("prefs_simp_imp", _prefs("prefs_simp_imp"), "s_double", needs="prefs"),
    Meas("prefs_pair_imp", _prefs("prefs_pair_imp"), "s_double", needs="prefs"),
    Meas("prefs_avgjg_imp", _prefs("prefs_avgjg_imp"), "s_double", needs="prefs"),
    Meas("map_avgjg", K.map_, "s_double", needs="qrels_jg"),
    Meas("P_avgjg", K.precision, "cut_long", _CUTS, needs="qrels_jg"),
    Meas("Rprec_mult_avgjg", K.rprec_mult, "cut_double", _RMULT, needs="qrels_jg"),
    Meas("yaap", K.yaap, "s_double"),
    Meas("rbp", K.rbp, "p_pair", versions=("10",)),
    Meas("rbp_resid", K.rbp_resid, "p_pair", versions=("10",)),
    Meas("unj", K.unj, "cut_long", (5, 10, 20), versions=("10",)),
)

# fmt: off  (name tables: one row per line of trec_eval's nickname lists, as in its source)
_OFFICIAL = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
#: the measures of all_trec after the official ones, in both releases (10.0 adds unj, rbp and
#: rbp_resid after recall)
_ALL_TREC_REST = (
    "infAP",
    "gm_bpref",
    "utility",
    "11pt_avg",
    "ndcg",
    "relative_P",
    "Rprec_mult",
    "success",
    "map_cut",
    "ndcg_cut",
    "ndcg_rel",
    "Rndcg",
    "binG",
    "G",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
)
_ALL_TREC_9 = _OFFICIAL + ("relstring", "recall") + _ALL_TREC_REST
_ALL_TREC_10 = _OFFICIAL + ("relstring", "recall", "unj", "rbp", "rbp_resid") + _ALL_TREC_REST
_SET = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "utility",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
)
_ALL_PREFS = ("runid", "num_q", *PREFS_MEASURES)  # -m all_prefs
_PREFS = (
    "runid",
    "num_q",
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
)
_QRELS_JG = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")

#: trec_eval's nicknames (``-m official``, ...) per version
NICKNAMES = {
    "9": {
        "official": _OFFICIAL,
        "set": _SET,
        "all_trec": _ALL_TREC_9,
        "all_prefs": _ALL_PREFS,
        "prefs": _PREFS,
        "qrels_jg": _QRELS_JG,
    },
    "10": {
        "official": _OFFICIAL,
        "set": _SET,
        "all_trec": _ALL_TREC_10,
        "all_prefs": _ALL_PREFS,
        "prefs": _PREFS,
        "qrels_jg": _QRELS_JG,
    },
}
# fmt: on

#: trec_eval 10.0's rel_info formats (-R) and results formats (-T)
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
RESULTS_FORMATS = ("trec_results",)


def measure_names(version: str) -> list[str]:
    """trec_eval's measure names in its print order, for ``version`` ("9" or "10")."""
    return [m.name for m in MEASURES if version in m.versions]


class Epi:
    """trec_eval's EPI: the options of one run (``trec_eval.h``); keyword arguments set them."""

    def __init__(self, **options):
        self.version = "9"
        self.query_flag = False
        self.summary_flag = True
        self.average_complete_flag = False
        self.judged_docs_only_flag = False
        self.relevance_level = 1
        self.num_docs_in_coll = 0
        self.max_num_docs_per_topic: int | None = None
        self.rel_info_format = "qrels"
        self.results_format = "trec_results"
        self.zscore_file: str | None = None
        self.debug_level = 0
        self.debug_query: bytes | None = None
        self.meas_args: list = []  # [(measure name, parameter string)]
        self.marked: set = set()
        for key, value in options.items():
            if not hasattr(self, key):
                raise TypeError(f"Epi has no option {key!r}")
            setattr(self, key, value)


class IllegalMeasure(Exception):
    """``-m`` names no measure of this trec_eval version (trec_eval: illegal measure)."""


def mark(epi: Epi, spec: str) -> None:
    """trec_eval's mark_measure(): ``name[.params]``, a nickname or a measure name."""
    name, dot, params = spec.partition(".")
    if dot:
        if not params:
            raise IllegalMeasure(
                f"'{spec}': nothing after the dot (trec_eval: improper measure "
                f"in parameter '{name}')"
            )
        epi.meas_args.append((name, params))
    names = measure_names(epi.version)
    nick = NICKNAMES[epi.version].get(name)
    if nick is not None:
        epi.marked.update(nick)
        return
    if name not in names:
        raise IllegalMeasure(spec)
    epi.marked.add(name)


# --------------------------------------------------------------------------- parameters


class BadParameter(Exception):
    """A measure's parameters cannot be used (trec_eval: Cannot initialize measure)."""


def _long_cutoffs(text: str) -> tuple:
    from pdireval.trec.trec_files import atol

    values = sorted(atol(part.encode()) for part in text.split(","))
    if values[0] <= 0:
        raise BadParameter("a cut-off is 0 or negative (trec_eval: Negative cutoff detected)")
    if len(set(values)) != len(values):
        raise BadParameter("two cut-offs are equal (trec_eval: duplicate cutoffs detected)")
    return tuple(values)


def _double_cutoffs(text: str) -> tuple:
    from pdireval.trec.trec_files import atof

    values = sorted(atof(part.encode()) for part in text.split(","))
    if len(set(values)) != len(values):
        raise BadParameter("two cut-offs are equal (trec_eval: duplicate cutoffs detected)")
    return tuple(values)


def _doubles(text: str) -> tuple:
    from pdireval.trec.trec_files import atof

    return tuple(atof(part.encode()) for part in text.split(","))


def _pairs(text: str) -> tuple:
    """get_param_pairs(): ``name=value,name=value`` (trec_eval's own validity check)."""
    from pdireval.trec.trec_files import atof

    last = ","
    for ch in text:
        if ch == ",":
            if last == ",":
                break
            last = ","
        elif ch == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if last != "=":
        raise BadParameter(
            f"malformed pair parameters in '{text}' (trec_eval: malformed pair "
            "parameters), e.g. '1=3,2=9' or 'p=0.8'"
        )
    out = []
    for part in text.split(","):
        name, _eq, value = part.partition("=")
        out.append((name, atof(value.encode())))
    return tuple(out)


class Column:
    """One printed value: its name, its measure and its column of the kernel's output (-1:
    a single value)."""

    __slots__ = ("name", "meas", "index")

    def __init__(self, name: str, meas: Meas, index: int):
        self.name, self.meas, self.index = name, meas, index


def measure_parameters(epi: Epi, meas: Meas):
    """The measure's parameters and printed names (te_init_meas_*)."""
    text = next((p for n, p in epi.meas_args if n == meas.name), None)
    kind = meas.kind
    if kind == "cut_long":
        params = _long_cutoffs(text) if text is not None else meas.default
        return params, [f"{meas.name}_{c}" for c in params]
    if kind == "cut_double":
        params = _double_cutoffs(text) if text is not None else meas.default
        return params, [f"{meas.name}_{c:3.2f}" for c in params]
    if kind in ("p_double", "relstring"):
        params = _doubles(text) if text is not None else meas.default
        return params, [f"{meas.name}_{text}" if text is not None else meas.name]
    if kind == "p_pair":
        params = _pairs(text) if text is not None else ()
        return params, [f"{meas.name}_{text}" if text is not None else meas.name]
    return (), [meas.name]
