"""``pdireval trec_eval -R prefs`` / ``-R qrels_prefs``: trec_eval's preference input and its
fourteen ``prefs_*`` measures, against the 9.0.8 and 10.0 binaries (tests taking ``te9`` /
``te10`` are marked slow by ``conftest.py``) and, without a binary, against the preference
counts trec_eval's own documentation works out (``get_prefs.c``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pdireval.trec import trec_prefs
from tests.test_treceval import DATA, assert_same, ours, theirs

ALL = ("-m", "all_prefs")


def _write(tmp_path: Path, prefs: str, run: str, name: str = "p"):
    (tmp_path / name).write_text(prefs)
    (tmp_path / "r").write_text(run)
    return tmp_path / name, tmp_path / "r"


def _values(out: str) -> dict:
    """{(measure, query): text value} of trec_eval's output."""
    return {
        (name.strip(), query): value
        for name, query, value in (line.split("\t") for line in out.splitlines())
    }


# --------------------------------------------------------------------------- without a binary


def test_documented_preference_counts(tmp_path):
    """The worked examples of get_prefs.c's header: 13 preferences from one complete ranking,
    two sub-groups (a duplicate counted once), transitivity, and the judgment groups of
    several users. (The header counts 5 for the two sub-groups, forgetting the transitive
    4>3 that trec_eval's closure adds: the binary counts 6, as here.)"""
    prefs = (
        # one JSG ranking six documents: 13 preferences
        "q1 u1 s1 d1 3.0\nq1 u1 s1 d2 2.0\nq1 u1 s1 d3 0.0\nq1 u1 s1 d4 6.0\n"
        "q1 u1 s1 d5 0.0\nq1 u1 s1 d6 2.0\n"
        # two JSGs: 1>2, 1>3, 2>3, 4>1, 4>2 (1>2 twice, counted once) and 4>3 by transitivity
        "q2 u1 s1 d1 3.0\nq2 u1 s1 d2 2.0\nq2 u1 s1 d3 1.0\n"
        "q2 u1 s2 d1 2.0\nq2 u1 s2 d2 1.0\nq2 u1 s2 d4 3.0\n"
        # transitive: 1>2, 1>3, 2>3, 2>4 and the implied 1>4
        "q3 u1 s1 d1 3.0\nq3 u1 s1 d2 2.0\nq3 u1 s1 d3 1.0\nq3 u1 s2 d2 5.0\nq3 u1 s2 d4 4.0\n"
        # two users: 1>2 (u1); 3>1, 4>1, 3>4, 2>1 (u2)
        "q4 u1 s1 d1 3.0\nq4 u1 s1 d2 2.0\nq4 u2 s1 d1 0.0\nq4 u2 s1 d3 6.0\n"
        "q4 u2 s1 d4 2.0\nq4 u2 s2 d1 0.0\nq4 u2 s2 d2 8.0\n"
    )
    run = "".join(f"q{q} Q0 d{d} {d} {10 - d} r\n" for q in (1, 2, 3, 4) for d in (1, 2, 3, 4))
    p, r = _write(tmp_path, prefs, run)
    out, status = ours("-q", "-R", "prefs", "-m", "prefs_num_prefs_poss", "-m", "prefs_pair", p, r)
    assert status == 0
    values = _values(out)
    poss = {q: values[("prefs_num_prefs_poss", q)] for q in ("q1", "q2", "q3", "q4")}
    assert poss == {"q1": "13", "q2": "6", "q3": "5", "q4": "5"}
    assert values[("prefs_num_prefs_poss", "all")] == "29"
    # q4: pairs {1,2} (u1 says 1>2, u2 says 2>1: ratio 1/2), {1,3}, {1,4}, {3,4}; the run ranks
    # d1 > d2 > d3 > d4: ratios 1/2, 0, 0, 1 over 4 pairs
    assert values[("prefs_pair", "q4")] == "0.3750"


def test_quicktest_files_without_binary():
    """The quicktest preference lines against the expected outputs of trec_eval's test folder
    (the tarball's own files, no binary needed)."""
    import tarfile

    from tests.helpers import SHARED

    tarball = SHARED / "oracles" / "trec_eval-10.0.tar.gz"
    if not tarball.exists():
        pytest.skip(f"{tarball} is absent: needs the project's ../shared folder")
    with tarfile.open(tarball) as tar:
        files = {
            Path(m.name).name: tar.extractfile(m).read()
            for m in tar.getmembers()
            if "/test/" in m.name and m.isfile()
        }
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        for name, data in files.items():
            (Path(folder) / name).write_bytes(data)
        f = Path(folder)
        cases = [
            (("-R", "prefs", f / "prefs.test", f / "prefs.results.test"), "out.test.prefs"),
            (("-R", "qrels_prefs", f / "qrels.test", f / "results.test"), "out.test.qrels_prefs"),
        ]
        for argv, expected in cases:
            for mode in ((), ("--v10",)):
                out, status = ours(*mode, "-q", *ALL, *argv)
                assert (out, status) == (files[expected].decode(), 0), (mode, argv)
        out, status = ours("--v10", "-q", *ALL, "-R", "prefs", f / "prefs.comment.test",
                           f / "prefs.results.test")  # fmt: skip
        assert (out, status) == (files["out.test.prefs"].decode(), 0)


def test_bad_prefs_input_is_explained(tmp_path, capsys):
    run = "q1 Q0 d1 1 1 r\n"
    cases = [
        ("q1 a s d1 1\n\nq1 a s d2 0\n", ("-R", "prefs"), "malformed line 2", "get_prefs"),
        ("q1 a s d1 1\nq1 a d2 0\n", ("-R", "prefs"), "malformed line 2", "get_prefs"),
        ("q1 a s d1 1 extra\n", ("-R", "prefs"), "malformed line 1", "get_prefs"),
        ("q1 a d1 1\nq1 a s d2 0\n", ("-R", "qrels_prefs"), "malformed line 2", "get_qrels_prefs"),
    ]
    for prefs, fmt, where, reader in cases:
        p, r = _write(tmp_path, prefs, run)
        assert ours(*fmt, p, r) == ("", 2)
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and where in err and f"trec_eval.{reader}" in err, err
        assert "fields" in err and str(p) in err
    # 10.0 skips comment lines, and counts the malformed line among the lines it reads
    p, r = _write(tmp_path, "# a comment\nq1 a s d1 1\nq1 a s\n", run)
    assert ours("--v10", "-R", "prefs", p, r) == ("", 2)
    assert "malformed line 2 (file line 3" in capsys.readouterr().err
    assert ours("-R", "prefs", p, r) == ("", 2)  # 9.0.8: the comment is a malformed line 1
    assert "malformed line 1 (file line 1" in capsys.readouterr().err
    # an empty file
    p, r = _write(tmp_path, "", run)
    assert ours("-R", "prefs", p, r) == ("", 2)
    assert "empty" in capsys.readouterr().err
    # qrels measures cannot read preferences, preference measures cannot read qrels
    p, r = _write(tmp_path, "q1 a s d1 1\nq1 a s d2 0\n", run)
    assert ours("-R", "prefs", "-m", "map", p, r) == ("", 4)
    assert "Can't calculate measure 'map'" in capsys.readouterr().err
    q, r = _write(tmp_path, "q1 0 d1 1\n", run, name="q")
    assert ours("-m", "prefs_simp", q, r) == ("", 4)
    assert "-R prefs" in capsys.readouterr().err


def test_inconsistent_preferences_stop(tmp_path, capsys):
    """A document at two levels of one sub-group, 0 and non-0 levels in one group, and a
    cycle: trec_eval cannot evaluate the query (the lines of the queries before it are
    printed, as trec_eval prints them)."""
    run = "q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\nq2 Q0 d1 1 2 r\n"
    good = "q1 a s d1 1\nq1 a s d2 0\n"
    for bad, words in (
        ("q2 a s d1 2\nq2 a s d1 1\n", "two rel_levels"),
        ("q2 a s d1 1\nq2 a s d2 0\nq2 a t d1 0\nq2 a t d3 1\n", "both a 0 and a non-0"),
        ("q2 a s d1 2\nq2 a s d2 1\nq2 a t d2 2\nq2 a t d1 1\n", "contradict"),
    ):
        p, r = _write(tmp_path, good + bad, run)
        out, status = ours("-q", "-R", "prefs", "-m", "prefs_simp", p, r)
        assert (out, status) == ("prefs_simp            \tq1\t1.0000\n", 4)
        err = capsys.readouterr().err
        assert words in err and "query q2" in err and "prefs_simp" in err, err


def test_chunks_do_not_change_values(tmp_path, monkeypatch):
    """The pairs enumerated a few at a time (many chunks of queries, closures one group at a
    time) give the same output as all at once."""
    prefs, run = generate(random.Random(5), qrels_prefs=False, queries=6)
    p, r = _write(tmp_path, prefs, run)
    argv = ("-q", "-c", *ALL, "-R", "prefs", p, r)
    whole = ours(*argv)
    monkeypatch.setattr(trec_prefs, "CHUNK_PAIRS", 1)
    monkeypatch.setattr(trec_prefs, "CHUNK_CELLS", 1)
    assert ours(*argv) == whole
    assert whole[1] == 0 and whole[0].count("\n") > 50


# --------------------------------------------------------------------------- against the binaries


def generate(rng: random.Random, qrels_prefs: bool, queries: int = 5):
    """A preference file and a run: judgment groups of one sub-group (equivalence classes, a
    repeated line now and then) and of several (preference arrays, transitive), levels 0 and
    above with many nonrelevant documents, score ties, unjudged retrieved documents, a query
    the run does not answer and a run query without preferences."""
    lines, run = [], []
    for qi in range(queries):
        q = f"q{qi}"
        pool = sorted({f"d{rng.randint(0, 40)}" for _ in range(rng.randint(2, 25))})
        for jg in rng.sample(["a", "b", "c", "0"], rng.randint(1, 3)):
            truth = {d: rng.choice([0, 0, 0, 1, 2, 3, 0.5]) for d in pool}
            subs = 1 if (qrels_prefs or rng.random() < 0.5) else rng.randint(2, 3)
            for s in range(subs):
                for d in rng.sample(pool, rng.randint(1, len(pool))):
                    fields = (q, jg, d, truth[d]) if qrels_prefs else (q, jg, f"s{s}", d, truth[d])
                    lines.append(" ".join(map(str, fields)))
                    if subs == 1 and rng.random() < 0.05:
                        lines.append(lines[-1])
        if qi != 1:  # q1: judged, not retrieved
            docs = rng.sample(pool, rng.randint(0, len(pool))) + [f"u{i}" for i in range(3)]
            for i, d in enumerate(docs):
                run.append(f"{q} Q0 {d} {i} {rng.choice([1, 2, 2, 3, 0.5, 1.25])} run1")
    run.append("qx Q0 d1 1 1.0 run1")
    rng.shuffle(lines)
    return "\n".join(lines) + "\n", "\n".join(run) + "\n"


FLAGS = [("-q",), ("-c", "-q"), ("-M", "3", "-q"), ("-M", "0", "-q"), ("-n",), ("-J", "-l", "2")]


@pytest.mark.parametrize("fmt", ["prefs", "qrels_prefs"])
@pytest.mark.parametrize("seed", range(6))
def test_generated_preferences(te9, te10, tmp_path, fmt, seed):
    prefs, run = generate(random.Random(seed), qrels_prefs=fmt == "qrels_prefs")
    p, r = _write(tmp_path, prefs, run)
    for flags in FLAGS:
        assert_same(te9, "-R", fmt, *ALL, *flags, p, r)
        if "-c" in flags:
            assert_same(te10, "-R", fmt, *ALL, *flags, p, r, v10=True)
        else:  # 10.0 stops at q1, judged but absent from the run (exit 4)
            out = assert_same(te10, "-R", fmt, *ALL, *flags, p, r, v10=True)
            assert ours("--v10", "-R", fmt, *ALL, *flags, p, r)[1] == 4
            assert "\tq2\t" not in out


def test_generated_preferences_measures_and_options(te9, te10, tmp_path):
    prefs, run = generate(random.Random(11), qrels_prefs=False)
    p, r = _write(tmp_path, prefs, run)
    # (trec_eval's binary search reads one entry past the end: 'zzz' rows keep it inside)
    (tmp_path / "z").write_text(
        "q0 prefs_simp 0.5 0.25\nq0 zzz 0 1\nq1 zzz 0 1\nq2 prefs_num_prefs_ful 3 2\n"
        "q2 zzz 0 1\nq3 zzz 0 1\nq4 prefs_avgjg 0.1 0.5\nq4 zzz 0 1\nqz zzz 0 1\n"
    )
    for argv in (
        ("-m", "prefs", "-q"),
        ("-m", "prefs_avgjg_Rnonrel", "-m", "prefs_pair_imp", "-m", "num_q", "-q", "-c"),
        ("-m", "all_prefs", "-D", "0.q2", "-q"),
        ("-m", "all_prefs", "-Z", tmp_path / "z", "-q", "-c"),
    ):
        assert_same(te9, "-R", "prefs", *argv, p, r)
        assert_same(te10, "-R", "prefs", *argv, p, r, v10=True)


def test_prefs_versions_differ_as_documented(te9, te10, tmp_path):
    """9.0.8 reads levels and scores as C floats: levels 1.00000001 and 1.0 are one class
    there (no preference between d1 and d2), two in 10.0 (d1 > d2)."""
    p, r = _write(tmp_path, "q1 a s d1 1.00000001\nq1 a s d2 1.0\nq1 a s d3 0\n",
                  "q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2 r\n")  # fmt: skip
    argv = ("-q", "-R", "prefs", "-m", "prefs_num_prefs_poss", "-m", "prefs_simp", p, r)
    nine = _values(assert_same(te9, *argv))
    ten = _values(assert_same(te10, *argv, v10=True))
    assert nine[("prefs_num_prefs_poss", "q1")] == "2" and nine[("prefs_simp", "q1")] == "1.0000"
    assert ten[("prefs_num_prefs_poss", "q1")] == "3" and ten[("prefs_simp", "q1")] == "0.6667"


def test_robust_qrels_prefs(te9, te10, tmp_path):
    """A real qrels file read as preferences (100 queries, 8.7 million preference pairs)."""
    import gzip

    qrels = DATA / "robust03" / "qrels.txt"
    if not qrels.exists():
        pytest.skip(f"{qrels} is absent: the real-data tests need the project's ../shared folder")
    runs = {}
    for name in ("input.InexpC2", "input.Sel50"):
        runs[name] = tmp_path / name
        runs[name].write_bytes(gzip.decompress((qrels.parent / "runs" / f"{name}.gz").read_bytes()))
        assert_same(te9, "-q", "-R", "qrels_prefs", *ALL, qrels, runs[name])
    assert_same(te10, "-c", "-R", "qrels_prefs", *ALL, qrels, runs["input.InexpC2"], v10=True)


def test_error_statuses_match(te9, te10, tmp_path):
    """Where trec_eval stops with status 4 (a document at two levels of one sub-group, a
    duplicate document in the run), pdireval prints what it prints and stops alike."""
    good = "q1 a s d1 1\nq1 a s d2 0\n"
    run = "q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\nq2 Q0 d1 1 2 r\nq2 Q0 d1 1 3 r\n"
    for bad in ("q2 a s d1 2\nq2 a s d1 1\n", "q2 a s d1 2\nq2 a s d2 1\n"):
        p, r = _write(tmp_path, good + bad, run)
        assert_same(te9, "-q", *ALL, "-R", "prefs", p, r)
        assert_same(te10, "-q", *ALL, "-R", "prefs", p, r, v10=True)
        assert theirs(te9, "-q", *ALL, "-R", "prefs", p, r)[1] == 4
    # measures of the other input: exit 4 at the first query, exit 7 when there is none
    p, r = _write(tmp_path, good, "q1 Q0 d1 1 1 r\n")
    q, elsewhere = tmp_path / "q", tmp_path / "elsewhere"
    q.write_text("q1 0 d1 1\n")
    elsewhere.write_text("q9 Q0 d1 1 1 r\n")
    for argv in (("-R", "prefs", p, r), ("-R", "prefs", p, elsewhere), ("-m", "prefs_simp", q, r),
                 ("-m", "prefs_simp", q, elsewhere), ("-R", "qrels_jg", "-m", "map", q, elsewhere)):
        assert_same(te9, *argv)
        assert_same(te10, *argv, v10=True)
    assert ours("-R", "prefs", p, elsewhere)[1] == 7
