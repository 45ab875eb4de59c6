"""``# ir_metadata`` headers of run files: kept by read_run in ``frame.attrs``, written back
by write_run (round trip), and skipped as comments by trec_eval 10.0 and ``pdireval
trec_eval --v10`` (compared with the 10.0 binary in the slow test)."""

from __future__ import annotations

import gzip
import io
import subprocess

import pandas as pd
import pytest

import pdireval
from pdireval.treceval import command

HEADER = """# ir_metadata.start
# tag: bm25
# research goal:
#   description: a baseline
# platform:
#   software:
#     libraries:
#       - pyterrier
#
#   hardware: {cpu: x86}
# ir_metadata.end
"""
BODY = "1 Q0 a 1 2.5 bm25\n1 Q0 b 2 1.5 bm25\n2 Q0 c 1 0.5 bm25\n2 Q0 a 2 0.25 bm25\n"
TEXT = ("tag: bm25\nresearch goal:\n  description: a baseline\nplatform:\n  software:\n"
        "    libraries:\n      - pyterrier\n\n  hardware: {cpu: x86}")


def test_read_keeps_the_header_and_write_puts_it_back(tmp_path):
    path = tmp_path / "bm25.txt"
    path.write_text(HEADER + BODY)
    run = pdireval.read_run(path)
    assert run.attrs == {"ir_metadata": {"bm25": TEXT}}
    plain = tmp_path / "plain.txt"
    plain.write_text(BODY)
    pd.testing.assert_frame_equal(run, pdireval.read_run(plain))  # the data are unchanged
    assert "ir_metadata" not in pdireval.read_run(plain).attrs
    for name in ("out.txt", "out.txt.gz"):
        out = tmp_path / name
        pdireval.write_run(run, out)
        text = gzip.open(out, "rt").read() if name.endswith(".gz") else out.read_text()
        assert text == HEADER + BODY  # the header as read, then the lines
        again = pdireval.read_run(out)
        assert again.attrs == run.attrs
        pd.testing.assert_frame_equal(again, run)


def test_several_systems_keep_their_own_metadata(tmp_path):
    run, _ = pdireval.datasets.simulate(n_systems=3, n_queries=2, depth=3, rng=0)
    systems = sorted(run["system"].unique())
    run.attrs["ir_metadata"] = {systems[0]: "tag: first", systems[2]: "tag: third\nlist: [1, 2]"}
    path = tmp_path / "all.txt"
    pdireval.write_run(run, path)
    back = pdireval.read_run(path)
    assert back.attrs["ir_metadata"] == run.attrs["ir_metadata"]
    # a folder: each file's header goes to the systems of that file
    folder = tmp_path / "runs"
    folder.mkdir()
    for system in systems:
        one = run[run["system"] == system].copy()
        one.attrs["ir_metadata"] = {system: f"tag: {system}"}
        pdireval.write_run(one, folder / f"{system}.txt")
    assert pdireval.read_run(folder).attrs["ir_metadata"] == {s: f"tag: {s}" for s in systems}


def test_evaluate_and_the_command_read_such_files(tmp_path):
    (tmp_path / "with.txt").write_text(HEADER + BODY)
    (tmp_path / "without.txt").write_text(BODY)
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 a 1\n")
    qrels = pdireval.read_qrels(tmp_path / "qrels.txt")
    a = pdireval.evaluate(tmp_path / "with.txt", ["AP", "nDCG@10"], qrels=qrels)
    b = pdireval.evaluate(tmp_path / "without.txt", ["AP", "nDCG@10"], qrels=qrels)
    pd.testing.assert_frame_equal(a, b)
    outputs = []
    for name in ("with.txt", "without.txt"):
        buffer = io.StringIO()
        status = command(["--v10", "-q", str(tmp_path / "qrels.txt"), str(tmp_path / name)], stdout=buffer)
        outputs.append((buffer.getvalue(), status))
    assert outputs[0] == outputs[1] and outputs[0][1] == 0


def test_the_ten_binary_reads_the_written_file(te10, tmp_path):
    (tmp_path / "in.txt").write_text(HEADER + BODY)
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 a 1\n")
    pdireval.write_run(pdireval.read_run(tmp_path / "in.txt"), tmp_path / "out.txt")
    for name in ("in.txt", "out.txt"):
        argv = ["-q", "-m", "all_trec", str(tmp_path / "qrels.txt"), str(tmp_path / name)]
        theirs = subprocess.run([te10, *argv], capture_output=True, text=True, check=True).stdout
        buffer = io.StringIO()
        assert command(["--v10", *argv], stdout=buffer) == 0
        assert buffer.getvalue() == theirs
        assert "num_ret               \tall\t4" in theirs


@pytest.mark.parametrize("bad", ["# ir_metadata.start\n# tag: x\n", "# just a comment\n"])
def test_unclosed_or_other_comments_give_no_metadata(tmp_path, bad):
    path = tmp_path / "r.txt"
    path.write_text(bad + BODY)
    assert "ir_metadata" not in pdireval.read_run(path).attrs
