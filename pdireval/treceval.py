"""``pdireval trec_eval``: the trec_eval command, option for option and line for line.

``pdireval trec_eval [options] QRELS RUN`` reads its arguments as trec_eval's ``getopt_long``
does (short options clustered or not, ``-M100``, ``-mP.5``; every long option and any
unambiguous prefix of it, ``--measure=map``; options after the files) and prints what
trec_eval 9.0.8 prints, or with ``--v10`` what trec_eval 10.0 prints. The evaluation is
:mod:`pdireval.trec`, a transcription of trec_eval's C code that imports numpy only, not
pandas (a call on one 100,000-line Robust run takes 1.4-1.7x the C binary's wall time on a
quiet machine, about half of it Python's and numpy's start-up:
benchmarks/results/trec_eval_command.md).
Measures that are not trec_eval's (pdireval measure strings such as ``nDCG@10``) are computed
with :func:`pdireval.evaluate` and printed after trec_eval's own.

Exit status and messages: trec_eval's exit status (1 usage or measure, 2 files or
parameters, 4 a query that cannot be evaluated, 7 no query with results and judgments);
the message on stderr is one line, ``pdireval trec_eval: ...``, naming the option or the
file line, and ends with trec_eval's own message in parentheses.
"""

from __future__ import annotations

import sys

__all__ = ["add_trec_eval", "command", "OPTIONS", "USAGE"]

#: trec_eval's long options: name -> (short letter, takes an argument)
OPTIONS = {
    "help": ("h", False),
    "version": ("v", False),
    "query_eval_wanted": ("q", False),
    "measure": ("m", True),
    "complete_rel_info_wanted": ("c", False),
    "level_for_rel": ("l", True),
    "nosummary": ("n", False),
    "Debug_level": ("D", True),
    "Judged_docs_only": ("J", False),
    "Number_docs_in_coll": ("N", True),
    "Max_retrieved_per_topic": ("M", True),
    "Rel_info_format": ("R", True),
    "Results_format": ("T", True),
    "Output_old_results_format": ("o", True),  # sic: the long form takes an argument
    "Zscore": ("Z", True),
}
#: trec_eval's short options (getopt string "hvqm:cl:nD:JN:M:R:T:oZ:")
SHORT = {
    "h": False,
    "v": False,
    "q": False,
    "m": True,
    "c": False,
    "l": True,
    "n": False,
    "D": True,
    "J": False,
    "N": True,
    "M": True,
    "R": True,
    "T": True,
    "o": False,
    "Z": True,
}
#: pdireval's own long options
EXTRA = {"v10": False}

VERSION_ID = {"9": "9.0.7", "10": "10.0-rc3"}  # what each binary's -v prints (sic for 9.0.8)

USAGE = """\
Usage: pdireval trec_eval [--v10] [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_qrels' prints all qrels measures, '-m official' is default)
   --v10: trec_eval 10.0 (default: 9.0.8)
"""

HELP = """\
pdireval trec_eval: trec_eval 9.0.8 (default) or 10.0 (--v10), line for line.

trec_eval [-h] [-q] [-m measure[.params] [-c] [-n] [-l <num>]
   [-D debug_level] [-N <num>] [-M <num>] [-R rel_format] [-T results_format]
   rel_info_file  results_file

 --help, -h                     this help
 --version, -v                  print trec_eval's version and exit
 --query_eval_wanted, -q        also print each query's values
 --measure, -m name[.params]    a measure, a measure with parameters (P.5,10,
                                ndcg.1=3,2=9, utility.1,-1,0,0) or a nickname:
                                official (default), all_trec, set, prefs, all_prefs,
                                qrels_jg; a pdireval measure string also works (nDCG@10)
 --complete_rel_info_wanted, -c average over every query of the qrels
 --level_for_rel, -l num        minimum label counted as relevant (default 1)
 --nosummary, -n                no summary ('all') lines
 --Debug_level, -D num[.qid]    0 only (no debugging printout); .qid evaluates one query
 --Number_docs_in_coll, -N num  documents in the collection (utility's 4th coefficient)
 --Max_retrieved_per_topic, -M num   evaluate only the top num documents of each query
 --Judged_docs_only, -J         drop unjudged documents before evaluating
 --Rel_info_format, -R format   qrels, qrels_jg, prefs or qrels_prefs
 --Results_format, -T format    trec_results
 --Output_old_results_format X, -o   obsolete, ignored (as in trec_eval)
 --Zscore, -Z file              print z-scores from a file of 'qid measure mean stddev'
 --v10                          trec_eval 10.0's behaviour (default: 9.0.8's)

Measures: see trec_eval's documentation; 'pdireval trec_eval -h -m NAME' is not trec_eval's
per-measure help, use docs/coming-from.md.
"""


class Usage(Exception):
    """A command-line mistake (trec_eval prints its usage and exits 1)."""


def getopt(argv: list[str]):
    """GNU ``getopt_long`` with trec_eval's options, permuting: ``(options, operands)`` where
    options are ``(letter or long name, argument or None)`` in command-line order."""
    opts: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            operands += argv[i + 1 :]
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            key = _long(name)
            if key in EXTRA:
                if eq:
                    raise Usage(f"option '--{key}' takes no argument; got '{arg}'")
                opts.append((key, None))
            else:
                letter, needs = OPTIONS[key]
                if needs and not eq:
                    if i + 1 >= len(argv):
                        raise Usage(f"option '--{key}' requires an argument")
                    i += 1
                    value = argv[i]
                elif not needs and eq:
                    raise Usage(f"option '--{key}' doesn't allow an argument")
                opts.append((letter, value if needs else None))
        elif arg.startswith("-") and arg != "-":
            j = 1
            while j < len(arg):
                letter = arg[j]
                if letter not in SHORT:
                    raise Usage(f"unknown option -{letter} (in '{arg}')")
                if SHORT[letter]:
                    value = arg[j + 1 :]
                    if not value:
                        if i + 1 >= len(argv):
                            raise Usage(f"option -{letter} requires an argument")
                        i += 1
                        value = argv[i]
                    opts.append((letter, value))
                    break
                opts.append((letter, None))
                j += 1
        else:
            operands.append(arg)
        i += 1
    return opts, operands


def _long(name: str) -> str:
    if name in OPTIONS or name in EXTRA:
        return name
    matches = [k for k in OPTIONS if k.startswith(name)] if name else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        matches = [k for k in EXTRA if k.startswith(name)] if name else []
        if len(matches) == 1:
            return matches[0]
        raise Usage(f"unknown option '--{name}'")
    raise Usage(f"option '--{name}' is ambiguous: {', '.join('--' + m for m in matches)}")


def _atol(text: str) -> int:
    from pdireval.trec.trec_files import atol

    return atol(text.encode())


def _error(message: str) -> None:
    sys.stderr.write(f"pdireval trec_eval: {message}\n")


def command(argv: list[str], stdout=None) -> int:
    """Run ``pdireval trec_eval`` with ``argv`` (the arguments after ``trec_eval``); returns
    trec_eval's exit status."""
    from pdireval.trec.trec_measures import Epi, IllegalMeasure, mark, measure_names

    out = stdout if stdout is not None else sys.stdout
    try:
        opts, operands = getopt(list(argv))
    except Usage as exc:
        _error(f"{exc}.")
        sys.stderr.write(USAGE)
        return 1
    version = "10" if any(o == "v10" for o, _ in opts) else "9"
    epi = Epi(version=version)
    help_wanted = False
    extra_measures: list[str] = []
    for letter, value in opts:
        if letter == "v10":
            continue
        if letter == "h":
            help_wanted = True
        elif letter == "v":
            sys.stderr.write(f"trec_eval version {VERSION_ID[version]}\n")
            return 0
        elif letter == "m":
            try:
                mark(epi, value)
            except IllegalMeasure as exc:
                problem = _measure_problem(value, version, measure_names, str(exc))
                if problem is None:
                    extra_measures.append(value)
                    continue
                _error(problem)
                return 1
        else:
            _set_option(epi, letter, value)
    if help_wanted:
        out.write(HELP)
        return 0
    problem = _operands_problem(operands, epi)
    if problem is not None:
        _error(problem)
        if len(operands) != 2:
            sys.stderr.write(USAGE)
        return 1
    qrels, run = operands
    if extra_measures and not epi.marked:
        epi.marked.add("runid")  # only pdireval measures requested: print the run id too
    return _evaluate(epi, qrels, run, extra_measures, out)


def _set_option(epi, letter: str, value: str) -> None:
    """Set the run options of the single-letter flag ``letter`` (all but -h, -v and -m)."""
    if letter == "q":
        epi.query_flag = True
    elif letter == "c":
        epi.average_complete_flag = True
    elif letter == "l":
        epi.relevance_level = _atol(value)
    elif letter == "n":
        epi.summary_flag = False
    elif letter == "D":
        level, dot, query = value.partition(".")
        epi.debug_level = _atol(level)
        if dot:
            epi.debug_query = query.encode()
    elif letter == "J":
        epi.judged_docs_only_flag = True
    elif letter == "N":
        epi.num_docs_in_coll = _atol(value)
    elif letter == "M":
        epi.max_num_docs_per_topic = _atol(value)
    elif letter == "R":
        epi.rel_info_format = value
    elif letter == "T":
        epi.results_format = value
    elif letter == "o":
        pass  # obsolete in trec_eval, a no-op
    elif letter == "Z":
        epi.zscore_file = value


def _operands_problem(operands: list[str], epi) -> str | None:
    """Why the command cannot run with these file operands and options; None when it can."""
    if len(operands) != 2:
        return (
            f"needs exactly two files, QRELS then RUN; got {len(operands)} "
            f"({' '.join(operands) or 'none'})."
        )
    if epi.debug_level > 0:
        return (
            f"-D {epi.debug_level}: trec_eval's debugging printout (level > 0) is not "
            "supported; -D 0.QID evaluates query QID alone."
        )
    if epi.max_num_docs_per_topic is not None and epi.max_num_docs_per_topic < 0:
        return (
            f"-M {epi.max_num_docs_per_topic}: a negative maximum is not supported (trec_eval "
            "would evaluate a negative number of documents); use -M 0 for empty rankings."
        )
    return None


def _evaluate(epi, qrels: str, run: str, extra_measures: list[str], out) -> int:
    """Evaluate the run ``run`` against ``qrels``, write the table to ``out`` (with the
    pdireval measures ``extra_measures`` after trec_eval's) and return the exit status."""
    from pdireval.trec.trec_files import TrecEvalExit

    try:
        from pdireval.trec.trec_engine import evaluate_files

        result = evaluate_files(epi, qrels, run)
    except TrecEvalExit as exc:
        _error(exc.message)
        return exc.status
    text = result.stdout
    if extra_measures and result.status == 0:
        try:
            text = _with_pdireval_measures(text, epi, qrels, run, extra_measures)
        except Exception as exc:  # a pdireval error: its own explanation, one line
            from pdireval.errors import PdirevalError

            if not isinstance(exc, (PdirevalError, OSError)):
                raise
            _error(" ".join(str(exc).split()))
            return 1
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:
        return 0
    if result.status:
        _error(result.message)
    return result.status


def _measure_problem(spec: str, version: str, measure_names, reason: str = "") -> str | None:
    """Why ``-m spec`` is refused, in pdireval's words; None when it is a pdireval measure
    string the registry accepts (printed after trec_eval's measures). ``reason``: what
    :func:`~pdireval.trec.trec_measures.mark` said."""
    from pdireval.trec.trec_measures import MEASURES, NICKNAMES

    name, dot, params = spec.partition(".")
    other = "10" if version == "9" else "9"
    known = name in measure_names(version) or name in NICKNAMES[version]
    if known and dot and not params:  # a measure of this release, with nothing after the dot
        theirs = f"(trec_eval: improper measure in parameter '{name}'; illegal measure '{name}')."
        if name in NICKNAMES[version]:
            return f"-m {spec}: a measure set takes no parameters; write -m {name} {theirs}"
        kind = next(m.kind for m in MEASURES if m.name == name)
        example = {"cut_long": "5,10", "cut_double": "0.5,2", "p_pair": "1=3,2=9"}.get(kind)
        example = example or {"utility": "1,-1,0,0", "set_F": "0.5", "relstring": "20"}.get(name)
        example = example or ("0.25,0.5,0.75" if kind == "p_double" else None)
        if example is None:
            return f"-m {spec}: {name} takes no parameters; leave the dot out (-m {name}) {theirs}"
        return (
            f"-m {spec}: nothing after the dot; give {name}'s parameters after it "
            f"(-m {name}.{example}) or leave the dot out (-m {name}) {theirs}"
        )
    if not known and name in measure_names(other):
        if version == "9":
            return (
                f"-m {spec}: {name} is a trec_eval 10.0 measure, not a 9.0.8 one; add --v10 "
                f"(trec_eval: illegal measure '{spec}')."
            )
        return (
            f"-m {spec}: {name} is a trec_eval 9.0.8 measure that 10.0 dropped; remove --v10 "
            f"(trec_eval: illegal measure '{spec}')."
        )
    from pdireval.errors import MeasureError
    from pdireval.measures import parse_measure

    try:
        parse_measure(spec)
    except MeasureError as exc:
        reason = " ".join(str(exc).split())
        names = ", ".join(measure_names(version))
        return (
            f"-m {spec}: not a trec_eval {'10.0' if version == '10' else '9.0.8'} measure "
            f"({names}; nicknames official, all_trec, set, prefs, all_prefs, qrels_jg) "
            f"nor a pdireval measure: {reason} (trec_eval: illegal measure '{spec}')."
        )
    return None


def _with_pdireval_measures(text, epi, qrels_path, run_path, specs) -> str:
    """Append pdireval measures (not trec_eval's) to trec_eval's output: per query after
    trec_eval's lines of that query, and in the summary after trec_eval's lines (mean over
    the queries trec_eval averaged over)."""
    import warnings

    from pdireval import accessor  # noqa: F401  (pandas is loaded: register DataFrame.ireval)
    from pdireval.errors import PdirevalWarning
    from pdireval.evaluation import evaluate
    from pdireval.io import read_qrels, read_run
    from pdireval.measures import parse_measure
    from pdireval.measures.trec_eval.names import trec_eval_name

    measures = [parse_measure(s) for s in specs]
    run = read_run(run_path)
    qrels = read_qrels(qrels_path)
    run = run.assign(system=str(run["system"].iloc[-1]))
    if epi.relevance_level != 1:
        measures = [
            m.replace(rel=float(epi.relevance_level))
            if any(p.name == "rel" for p in m.definition.params)
            else m
            for m in measures
        ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        scores = evaluate(
            run,
            measures,
            qrels=qrels,
            missing="zero",
            score_precision="float64" if epi.version == "10" else "float32",  # 10 reads doubles
        )
    table = scores.pivot(index="query", columns="measure", values="value")
    names = [trec_eval_name(m) or str(m) for m in measures]
    lines = text.splitlines()
    per_query = [ln for ln in lines if ln.split("\t")[1:2] != ["all"]]
    summary = [ln for ln in lines if ln.split("\t")[1:2] == ["all"]]
    queries = list(dict.fromkeys(ln.split("\t")[1] for ln in per_query))
    out = []
    for q in queries:
        out += [ln for ln in per_query if ln.split("\t")[1] == q]
        for m, name in zip(measures, names):
            value = table[str(m)].get(q, 0.0) if str(m) in table else 0.0
            out.append(f"{name:<22}\t{q}\t{value:6.4f}")
    if epi.summary_flag:
        out += summary
        judged = set(qrels["query"])
        averaged = (
            sorted(judged) if epi.average_complete_flag else sorted(set(run["query"]) & judged)
        )
        for m, name in zip(measures, names):
            column = table[str(m)] if str(m) in table else None
            total = 0.0
            for q in averaged:
                total += float(column.get(q, 0.0)) if column is not None else 0.0
            out.append(f"{name:<22}\tall\t{total / max(len(averaged), 1):6.4f}")
    return "".join(line + "\n" for line in out)


# --------------------------------------------------------------------------- argparse entry


def add_trec_eval(subparsers) -> None:
    """``pdireval trec_eval``: listed in ``pdireval --help``; :func:`pdireval.cli.main` hands
    the arguments to :func:`command` before argparse sees them (trec_eval's own parsing)."""
    import argparse

    p = subparsers.add_parser(
        "trec_eval",
        help="drop-in for the trec_eval command (9.0.8, or 10.0 with --v10): same options, same "
        "output",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda args: command(args.args))
