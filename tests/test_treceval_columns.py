"""``pdireval trec_eval``'s fast reader (:mod:`pdireval.trec.trec_columns`) against its
list reader (:mod:`pdireval.trec.trec_files`), which the oracle tests in test_treceval.py
hold to the trec_eval binaries.

Every output (stdout, exit status, stderr) with the fast reader must be the one with the
lists, on files of the common shape that stress it (ties, unsorted and split runs, long ids,
odd numbers), and the fast reader must step aside (None) wherever the lists would read the
file differently. The number readers are checked value by value against Python's (correctly
rounded) ``float`` and ``int``, including decimals halfway between two doubles.
"""

from __future__ import annotations

import io
import random
import subprocess
import sys
from decimal import Decimal, getcontext

import numpy as np
import pytest

from pdireval.trec import trec_columns, trec_engine
from pdireval.treceval import command


def run_command(argv, capsys) -> tuple[str, int, str]:
    buffer = io.StringIO()
    status = command([str(a) for a in argv], stdout=buffer)
    return buffer.getvalue(), status, capsys.readouterr().err


def both_readers(argv, capsys, monkeypatch) -> tuple[tuple, tuple]:
    """(output with the fast reader, output with the lists only)."""
    fast = run_command(argv, capsys)
    with monkeypatch.context() as m:
        m.setattr(trec_columns, "table", lambda data, fields: None)
        slow = run_command(argv, capsys)
    return fast, slow


def write(folder, qrels: str, run: str):
    (folder / "qrels").write_text(qrels)
    (folder / "run").write_text(run)
    return folder / "qrels", folder / "run"


def collection(
    seed: int,
    *,
    n_queries=6,
    depth=40,
    long_ids=False,
    shuffle=False,
    split=False,
    decimals=2,
    crlf=False,
    trailing_newline=True,
    tabs=True,
):
    """Qrels and run text: graded and negative labels, unjudged documents, score ties."""
    rng = random.Random(seed)
    qids = [f"{'topic-number-' if long_ids else ''}{rng.randint(1, 999)}" for _ in range(n_queries)]
    qids = list(dict.fromkeys(qids))
    qrels, run = [], []
    for q in qids:
        docs = [
            f"{'LONG-DOCUMENT-ID-' * (2 if long_ids else 0)}D{rng.randint(0, 10**6)}"
            for _ in range(depth * 2)
        ]
        docs = list(dict.fromkeys(docs))
        for d in docs[: depth + depth // 2]:
            if rng.random() < 0.7:
                qrels.append(f"{q} 0 {d} {rng.choice([-1, 0, 0, 1, 1, 2, 3, 12])}")
        rows = []
        for rank, d in enumerate(docs[:depth]):
            score = round(rng.uniform(-5, 20), decimals)
            rows.append(f"{q} Q0 {d} {rank} {score} sys{seed}")
        if shuffle:
            rng.shuffle(rows)
        run += rows
    if split:  # a query's rows in two blocks of the file
        run = (
            run[: len(run) // 3] + run[len(run) * 2 // 3 :] + run[len(run) // 3 : len(run) * 2 // 3]
        )
    sep = "\t" if tabs else " "
    end = "\r\n" if crlf else "\n"
    q_text = end.join(x.replace(" ", sep) for x in qrels) + end
    r_text = end.join(x.replace(" ", sep) for x in run) + (end if trailing_newline else "")
    return q_text, r_text


CASES = {
    "plain": {},
    "long ids": {"long_ids": True},
    "unsorted": {"shuffle": True},
    "split queries": {"split": True},
    "many ties": {"decimals": 0},
    "crlf, no final newline, spaces": {"crlf": True, "trailing_newline": False, "tabs": False},
}
FLAGS = [
    (),
    ("-q", "-m", "all_trec"),
    ("-c", "-q"),
    ("-J", "-q"),
    ("-M", "7", "-q"),
    ("-l", "2", "-q"),
    ("-D", "0.X"),
    ("-m", "relstring.10", "-q"),
]


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_fast_reader_prints_what_the_lists_print(case, tmp_path, capsys, monkeypatch):
    q_text, r_text = collection(len(case), **CASES[case])
    q, r = write(tmp_path, q_text, r_text)
    assert trec_columns.table(q.read_bytes(), 4) is not None  # the fast path is tested
    for flags in FLAGS:
        for mode in ((), ("--v10",)):
            fast, slow = both_readers([*mode, *flags, q, r], capsys, monkeypatch)
            assert fast == slow, (case, flags, mode)


@pytest.mark.parametrize(
    "scores",
    [
        ["1e3", "2.5E-2", "inf", "-inf", "nan", "1_0", "0x10", "3.", ".5", "+2", "-0", "12abc"],
        [
            "49.19109429178723",
            "48.709379764952565",
            "48.709379764952566",
            "1234567890123456789",
            "0.1234567890123456789",
            "12345678901234567890",
            "9007199254740993",
            "1.2.3",
            "-",
            ".",
        ],
    ],
)
def test_odd_scores_read_as_the_lists_read_them(scores, tmp_path, capsys, monkeypatch):
    run = "".join(f"1 Q0 d{i} {i} {s} r\n" for i, s in enumerate(scores))
    qrels = "".join(f"1 0 d{i} {i % 3}\n" for i in range(0, len(scores), 2))
    q, r = write(tmp_path, qrels, run)
    for mode in ((), ("--v10",)):
        fast, slow = both_readers([*mode, "-q", "-m", "all_trec", q, r], capsys, monkeypatch)
        assert fast == slow


@pytest.mark.parametrize(
    "qrels, run",
    [
        ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 0 1 r\n"),  # a document judged twice
        ("1 0 a 1\n", "1 Q0 a 0 1 r\n1 Q0 a 1 2 r\n"),  # a document retrieved twice
        ("1 0 a 1\n2 0 b 1\n", "1 Q0 a 0 1 r\n2 Q0 b 0 1 r\n1 Q0 a 1 3 r\n"),  # twice, two blocks
        ("1 0 a 1\n\n1 0 b 0\n", "1 Q0 a 0 1 r\n"),  # a blank qrels line
        ("1 0 a 1\n1 0 b\n", "1 Q0 a 0 1 r\n"),  # three fields
        ("1 0 a 1\n", "1 Q0 a 0 r\n"),  # five fields
        ("1 0 a 1\n", "\n1 Q0 a 0 1 r\n  \n"),  # blank run lines
        (
            "1 0 a 1.5\n1 0 b 2x\n1 0 c x\n1 0 d +2\n1 0 e -0\n",
            "1 Q0 a 0 3 r\n1 Q0 b 0 2 r\n1 Q0 c 0 1 r\n",
        ),
        ("#1 0 a 1\n1 0 a 1\n1 0 b 0\n", "1 Q0 a 0 2 r\n1 Q0 b 0 1 r\n#1 Q0 a 0 1 r\n"),  # '#'
        ("1 0 a\x001 1\n", "1 Q0 a\x001 0 1 r\n"),  # a NUL byte
        ("1 0 a\x01 1\n", "1 Q0 a\x01 0 1 r\n"),  # a control byte
        ("1 0 a 1\n", "2 Q0 a 0 1 r\n"),  # no query in common
    ],
)
def test_duplicates_and_odd_files_give_the_lists_answer(qrels, run, tmp_path, capsys, monkeypatch):
    q, r = write(tmp_path, qrels, run)
    for argv in (("-q",), ("-c", "-q"), ("-q", "-m", "all_trec")):
        for mode in ((), ("--v10",)):
            fast, slow = both_readers([*mode, *argv, q, r], capsys, monkeypatch)
            assert fast == slow, (qrels, run, argv, mode)


def test_common_files_take_the_fast_path(tmp_path, monkeypatch):
    """A run of the common shape is not read into lists (the start-up budget of issue 30)."""
    q, r = write(tmp_path, *collection(3))

    def refuse(*args, **kwargs):
        raise AssertionError("the list reader was used")

    monkeypatch.setattr(trec_engine, "parse_qrels", refuse)
    monkeypatch.setattr(trec_engine, "parse_results", refuse)
    for argv in ((q, r), ("--v10", "-q", "-m", "all_trec", q, r), ("-c", q, r)):
        assert command([str(a) for a in argv], stdout=io.StringIO()) == 0


# --------------------------------------------------------------------------- the readers


def halfway_decimals(seed: int, n: int) -> list[str]:
    """Decimals within a digit of the midpoint between two neighbouring doubles (the hard
    cases of correct rounding), plain decimals of 1-19 digits, and Python's reprs."""
    getcontext().prec = 60
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.4:
            x = rng.uniform(1e-4, 1e4) * 10.0 ** rng.randint(-2, 2)
            middle = (Decimal(x) + Decimal(float(np.nextafter(x, np.inf)))) / 2
            text = format(middle, f".{rng.randint(15, 19)}g")
            if "e" in text:
                text = format(middle, "f")[:20]
        elif kind < 0.7:
            digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 19)))
            cut = rng.randint(0, len(digits))
            text = digits[:cut] + "." + digits[cut:]
        else:
            text = repr(rng.uniform(-1e4, 1e4))
        if text.strip(".") == "" or "e" in text:
            text = "0"
        out.append(("-" if rng.random() < 0.2 else "") + text.lstrip("-"))
    return out


def float32_halfway_decimals(seed: int, n: int) -> list[str]:
    """Decimals within a digit of the midpoint between two neighbouring float32s, where a
    double a few ulps off would round to the other float32."""
    getcontext().prec = 60
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        x = np.float32(rng.uniform(1e-3, 1e4))
        middle = (Decimal(float(x)) + Decimal(float(np.nextafter(x, np.float32(np.inf))))) / 2
        middle += Decimal(rng.choice([-1, 0, 0, 1])) * Decimal(10) ** (middle.adjusted() - 18)
        out.append(format(middle, "f")[: rng.randint(17, 21)])
    return out


def test_floats_are_correctly_rounded():
    texts = halfway_decimals(5, 20000)
    data = "".join(f"1 Q0 d{i} {i} {t} r\n" for i, t in enumerate(texts)).encode()
    got = trec_columns.table(data, 6).floats(4)
    expected = np.array([float(t) for t in texts])
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))


def test_single_precision_scores_round_as_the_exact_double_does():
    texts = halfway_decimals(6, 5000) + float32_halfway_decimals(7, 20000)
    data = "".join(f"1 Q0 d{i} {i} {t} r\n" for i, t in enumerate(texts)).encode()
    got = trec_columns.table(data, 6).floats(4, single=True).astype(np.float32)
    expected = np.array([float(t) for t in texts]).astype(np.float32)
    assert np.array_equal(got.view(np.int32), expected.view(np.int32))


def test_ints_and_words():
    labels = ["0", "1", "-1", "+7", "123456789012345678", "007"]
    data = "".join(
        f"q{i % 2}xxxxxxxxxx 0 {'d' * (i + 1)} {x}\n" for i, x in enumerate(labels)
    ).encode()
    tab = trec_columns.table(data, 4)
    assert tab.ints(3).tolist() == [int(x) for x in labels]
    docs = [tab.token(2, i) for i in range(tab.n)]
    words = tab.words(2)
    order = np.lexsort(words[::-1])
    assert [docs[i] for i in order] == sorted(docs)
    assert trec_columns.table(b"1 0 a 1.5\n", 4).ints(3) is None
    assert trec_columns.table(b"1 0 a 1234567890123456789\n", 4).ints(3) is None


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"1 0 a 1\n\n",
        b"\n1 0 a 1\n",
        b"1 0 a\n",
        b"1 0 a 1 2\n",
        b"1 0 a 1\n  ",
        b"1 0 a\x00 1\n",
        b"1 0 a\x1f 1\n",
        b"1 0\na 1\n",
    ],
)
def test_table_steps_aside(data):
    assert trec_columns.table(data, 4) is None


def test_table_accepts_the_common_shapes():
    for data in (b"1 0 a 1\n", b"1 0 a 1", b"  1\t0 a  1 \r\n2 0 b 0\r\n", b"1 0 a 1\n2 0 b 0"):
        tab = trec_columns.table(data, 4)
        assert tab is not None and [tab.token(0, i) for i in range(tab.n)] == data.split()[0::4]


def test_command_imports_numpy_only():
    """The trec_eval command, run as installed, never imports pandas or scipy."""
    probe = (
        "import sys, io; sys.argv = ['pdireval', 'trec_eval', '-h']; import pdireval.cli; "
        "from pdireval.treceval import command; command(['-h'], io.StringIO()); "
        "from pdireval.trec import trec_engine, trec_columns; "
        "print(sorted(m for m in ('pandas', 'scipy', 'pyarrow') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
