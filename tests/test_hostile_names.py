"""Hostile names (issue 40): what pdireval writes never runs a stranger's text.

One small simulated collection, renamed: its systems, queries and documents carry formula
starters (``=HYPERLINK(...)``, ``+``, ``-``, ``@``, tab), HTML (``<script>``), LaTeX
(``\\input{x}``, ``$...$``), Markdown (pipes, backticks, emphasis), a line break, a very
long name, non-ASCII text and a whitespace-only name. It goes through ``report``,
``paper_table`` in every format, the Excel workbook and every writer; each output is read
back by an independent reader (openpyxl, html.parser, a CommonMark reading of the pipe
table, csv, pandas) and must hold every name as text, exactly.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.cli import main
from pdireval.errors import OptionError, SchemaError

SYSTEMS = [
    '=HYPERLINK("http://x","y")',
    "<script>alert(1)</script> | `x` *b* _u_",
    "$\\input{x}$ & 100% #1 \\\\",
    "+cmd|' /C calc'!A0",
]
QUERIES = [
    "=1+1",
    "-2+3",
    "@SUM(A1)",
    "\t=tab",
    "é中文 🙂",
    "L" * 300,
    "   ",
    "line\nbreak|#N/A",
]
DOC_PREFIX = "=d|<b>`\\"  # doc ids hold no whitespace, so TREC files can hold them
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
MEASURES = ["AP", "P@5"]


def hostile(run: pd.DataFrame, qrels: pd.DataFrame, systems, queries):
    systems_of = dict(zip(sorted(pd.unique(run["system"])), systems))
    queries_of = dict(zip(sorted(pd.unique(run["query"]), key=int), queries))
    run = run.assign(
        system=run["system"].map(systems_of),
        query=run["query"].map(queries_of),
        doc=DOC_PREFIX + run["doc"],
    )
    qrels = qrels.assign(query=qrels["query"].map(queries_of), doc=DOC_PREFIX + qrels["doc"])
    return run, qrels


@pytest.fixture(scope="module")
def collection():
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=8, depth=10, rng=7)
    return hostile(run, qrels, SYSTEMS, QUERIES)


@pytest.fixture(scope="module")
def scores(collection):
    run, qrels = collection
    return pdireval.evaluate(run, MEASURES, qrels=qrels)


@pytest.fixture(scope="module")
def hostile_report(collection, tmp_path_factory):
    run, qrels = collection
    out = tmp_path_factory.mktemp("hostile") / "report"
    return pdireval.report(
        run, qrels=qrels, measures=MEASURES, out=out, n_resamples=20, rng=0, progress=False
    )


def test_the_collection_keeps_every_hostile_name(scores):
    assert sorted(pd.unique(scores["system"])) == sorted(SYSTEMS)
    assert sorted(pd.unique(scores["query"])) == sorted(QUERIES)


# --------------------------------------------------------------------------- the workbook


@pytest.mark.slow  # the report takes 3 to 8 s; CI's second step runs it
def test_workbook_holds_every_name_as_a_string_cell_never_a_formula(hostile_report):
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.load_workbook(hostile_report.workbook)
    cells = [c for ws in wb.worksheets for row in ws.iter_rows() for c in row]
    # pdireval writes no formula on purpose: no cell is a formula or an error value
    assert not [c.coordinate for c in cells if c.data_type in ("f", "e")]
    texts = [c for c in cells if isinstance(c.value, str)]
    assert all(c.data_type == "s" for c in texts)
    # a text a spreadsheet would read as a formula is also shown (and edited) as text
    assert all(c.quotePrefix for c in texts if c.value.startswith(FORMULA_STARTS))
    tag = [c for c in texts if c.value == SYSTEMS[0]]
    assert len(tag) > 20 and all(c.data_type == "s" and c.quotePrefix for c in tag)
    sheets = {ws.title: ws for ws in wb.worksheets}
    seen = set()
    for name, frame in hostile_report.tables.items():
        rows = list(sheets[name[:31]].iter_rows(values_only=True))
        assert list(rows[0]) == [str(c) for c in frame.columns], name
        body = pd.DataFrame(rows[1:], columns=list(frame.columns), dtype=object)
        for col in frame.columns:
            if frame[col].dtype == object or isinstance(frame[col].dtype, pd.StringDtype):
                is_text = [isinstance(v, str) for v in frame[col]]
                texts_in = frame[col][is_text].tolist()
                # an empty text is an empty cell, read as None
                texts_out = ["" if v is None else v for v in body[col][is_text]]
                assert texts_out == texts_in, f"{name}.{col}"  # exactly, in order
                seen |= set(texts_out)
    assert set(SYSTEMS) | set(QUERIES) <= seen
    wb.close()


@pytest.mark.slow  # the report takes 3 to 8 s; CI's second step runs it
def test_workbook_reads_back_with_pandas(hostile_report):
    pytest.importorskip("openpyxl")
    per_query = pd.read_excel(
        hostile_report.workbook, sheet_name="per_query", keep_default_na=False, na_values=[""]
    )
    assert sorted(pd.unique(per_query["system"])) == sorted(SYSTEMS)
    assert sorted(pd.unique(per_query["query"])) == sorted(QUERIES)


def test_workbook_edge_texts(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    from pdireval.reporting.excel import MAX_CELL_CHARS, write_workbook

    frame = pd.DataFrame(
        {
            "=name": ["#N/A", "a\x01b", "-inf", "@x", "_x0041_"],
            "value": [1.0, np.inf, -np.inf, np.nan, 0.5],
        }
    )
    path = tmp_path / "edge.xlsx"
    write_workbook({"t": frame}, path, notes={"t": "=HYPERLINK(1)"})
    wb = openpyxl.load_workbook(path)
    ws = wb["t"]
    head = ws["A1"]
    assert (head.value, head.data_type, head.quotePrefix) == ("=name", "s", True)
    got = [(c.value, c.data_type) for c in ws["A"][1:]]
    # XML cannot hold U+0001: written as Excel writes it, "_x0001_" (Excel shows the character)
    assert got == [
        ("#N/A", "s"),
        ("a_x0001_b", "s"),
        ("-inf", "s"),
        ("@x", "s"),
        ("_x0041_", "s"),
    ]
    assert [c.value for c in ws["B"][1:]] == [1.0, "inf", "-inf", None, 0.5]
    note = wb["Notes"]["B2"]
    assert (note.value, note.data_type) == ("=HYPERLINK(1)", "s")
    # missing texts (pd.NA in a "string" column) are empty cells, not an error
    with_na = pd.DataFrame({"name": pd.array(["a", None], dtype="string"), "v": [1.0, 2.0]})
    write_workbook({"t": with_na}, tmp_path / "na.xlsx")
    assert [c.value for c in openpyxl.load_workbook(tmp_path / "na.xlsx")["t"]["A"]] == [
        "name",
        "a",
        None,
    ]
    too_long = frame.assign(**{"=name": "x" * (MAX_CELL_CHARS + 1)})
    with pytest.raises(SchemaError, match="32,767"):
        write_workbook({"t": too_long}, tmp_path / "long.xlsx")
    assert not (tmp_path / "long.xlsx").exists()


def test_report_refuses_a_name_longer_than_a_cell_before_writing(tmp_path):
    pytest.importorskip("openpyxl")
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=5, rng=1)
    run["system"] = run["system"].replace({"sys01": "s" * 40_000})
    out = tmp_path / "report"
    with pytest.raises(SchemaError, match="an Excel cell holds at most 32,767"):
        pdireval.report(run, qrels=qrels, measures=["AP"], out=out, n_resamples=10, rng=0)
    assert not out.exists()


@pytest.mark.slow  # the report takes 3 to 8 s; CI's second step runs it
def test_report_paper_table_files_keep_their_columns(hostile_report):
    n_columns = 2 + len(MEASURES)
    folder = hostile_report.directory
    md = (folder / "paper_table.md").read_text(encoding="utf-8").rstrip("\n").split("\n")
    rows = [markdown_cells(line) for line in md[: 2 + len(SYSTEMS)]]
    assert all(len(row) == n_columns for row in rows)
    assert sorted(row[1] for row in rows[2:]) == sorted(SYSTEMS)
    tex = (folder / "paper_table.tex").read_text(encoding="utf-8")
    assert r"\input{" not in tex
    assert len(tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().split("\n")) == len(
        SYSTEMS
    )


def test_workbook_of_the_hostile_tables_without_the_report(scores, tmp_path):
    """The default suite's check of the workbook (the report's is slow): the scores and the
    paper table of the hostile collection, through the report's workbook writer."""
    openpyxl = pytest.importorskip("openpyxl")
    from pdireval.reporting.excel import write_workbook

    tables = {"per_query": scores, "paper_table": pdireval.paper_table(scores, method="t")}
    path = tmp_path / "hostile.xlsx"
    write_workbook(tables, path, notes={"per_query": SYSTEMS[0]})
    wb = openpyxl.load_workbook(path)
    cells = [c for ws in wb.worksheets for row in ws.iter_rows() for c in row]
    assert not [c.coordinate for c in cells if c.data_type in ("f", "e")]
    tag = [c for c in cells if c.value == SYSTEMS[0]]
    assert len(tag) == 2 * len(QUERIES) + len(MEASURES) + 1
    assert all(c.data_type == "s" and c.quotePrefix for c in tag)
    for name, frame in tables.items():
        rows = list(wb[name].iter_rows(values_only=True))
        for col in ["system", "measure"] + (["query"] if "query" in frame else []):
            k = list(frame.columns).index(col)
            assert [row[k] for row in rows[1:]] == frame[col].tolist(), f"{name}.{col}"
    wb.close()


# --------------------------------------------------------------------------- HTML


class Page(HTMLParser):
    """The tags and the text of an HTML document, as a browser parses them."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.data: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.data.append(data)


@pytest.mark.slow  # the report takes 3 to 8 s; CI's second step runs it
def test_report_page_shows_the_names_as_text_with_no_tag_of_theirs(hostile_report):
    source = hostile_report.html.read_text(encoding="utf-8")
    page = Page(source)
    # the page's one script of its own (it counts the decoded figures), and no other
    assert page.tags.count("script") == 1
    assert "<script>alert" not in source
    # every tag is one of the page's own
    assert set(page.tags) <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "ul", "li", "a",
        "section", "div", "table", "caption", "thead", "tbody", "tr", "th", "td", "details",
        "summary", "figure", "img", "figcaption", "b", "sup", "nav", "script",
    }  # fmt: skip
    text = "\n".join(page.data)
    for name in SYSTEMS:
        assert name in text  # shown as the text it is


# --------------------------------------------------------------------------- paper_table


def markdown_cells(line: str) -> list[str]:
    """The cells of a GFM pipe-table row, read as CommonMark reads them: a backslash before
    ASCII punctuation is that character, an unescaped pipe ends a cell, entities decode."""
    cells, cell, i = [], "", 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            nxt = line[i + 1]
            assert nxt in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", line  # an escape, never literal
            cell += nxt
            i += 2
        elif char == "|":
            cells.append(cell)
            cell, i = "", i + 1
        else:
            cell += char
            i += 1
    cells.append(cell)
    assert cells[0].strip() == "" and cells[-1].strip() == "", line
    return [html.unescape(c.strip()) for c in cells[1:-1]]


def latex_cells(line: str) -> list[str]:
    row = line.removesuffix(r"\\").rstrip()
    return re.split(r"(?<!\\)&", row)


def test_paper_table_in_every_format_keeps_its_columns_and_names(scores):
    systems = sorted(SYSTEMS)
    n_columns = 2 + len(MEASURES)
    frame = pdireval.paper_table(scores, method="t")
    assert sorted(pd.unique(frame["system"])) == systems

    md = pdireval.paper_table(scores, method="t", format="markdown")
    lines = md.rstrip("\n").split("\n")
    assert len(lines) == 2 + len(systems) + 2  # no name broke a row
    rows = [markdown_cells(line) for line in lines[:2] + lines[2 : 2 + len(systems)]]
    assert all(len(row) == n_columns for row in rows)
    assert [row[1] for row in rows[2:]] == systems
    assert "<script" not in md and "<b>" not in md
    assert lines[-1].startswith("Table: ")

    tex = pdireval.paper_table(scores, method="t", format="latex")
    body = tex[tex.index(r"\toprule") : tex.index(r"\bottomrule")].split("\n")[1:-1]
    body = [line for line in body if line != r"\midrule"]
    assert len(body) == 1 + len(systems)
    assert all(len(latex_cells(line)) == n_columns for line in body)
    assert r"\input{" not in tex  # the backslash is \textbackslash{}, the braces \{ \}
    assert not any(re.search(r"(?<!\\)[$#%]", line) for line in body)

    table = pdireval.paper_table(scores, method="t", format="html")
    page = Page(table)
    assert set(page.tags) <= {"table", "caption", "thead", "tbody", "tr", "th", "td", "b", "sup"}
    assert all(name in page.data for name in systems)


# --------------------------------------------------------------------------- writers


def test_write_scores_reads_back_every_name_or_refuses(scores, tmp_path):
    def back(path, **options):
        out = pdireval.read_scores(path, **options)
        return out.sort_values(["system", "query", "measure"], ignore_index=True)

    expected = scores.sort_values(["system", "query", "measure"], ignore_index=True)
    path = tmp_path / "scores.csv"
    pdireval.write_scores(scores, path, format="csv", digits=None)
    pd.testing.assert_frame_equal(back(path), expected, check_dtype=False)
    for system in SYSTEMS:
        one = scores[scores["system"] == system]
        path = tmp_path / "one.jsonl"
        pdireval.write_scores(one, path, format="ir_measures_jsonl", digits=None)
        got = back(path, format="ir_measures_jsonl")
        assert sorted(got["query"]) == sorted(one["query"])
    # the whitespace-separated formats cannot hold a name with whitespace: refused, not lost
    for fmt in ("trec_eval", "ir_measures"):
        one = scores[scores["system"] == SYSTEMS[0]]
        with pytest.raises(SchemaError, match="empty or holds a blank"):
            pdireval.write_scores(one, tmp_path / "x.txt", format=fmt)
        assert not (tmp_path / "x.txt").exists()
    # without whitespace every name reads back, formula starters and all
    plain = scores[scores["system"].isin([SYSTEMS[0]])].assign(
        query=scores["query"].str.replace(r"\s", "_", regex=True)
    )
    expected = plain.sort_values(["system", "query", "measure"], ignore_index=True)
    path = tmp_path / "scores.trec"
    pdireval.write_scores(plain, path, format="trec_eval", digits=None)
    got = back(path, format="trec_eval")  # measures by trec_eval's names (map, P_5)
    key = ["system", "query", "value"]
    pd.testing.assert_frame_equal(
        got[key].sort_values(key, ignore_index=True),
        expected[key].sort_values(key, ignore_index=True),
        check_dtype=False,
    )
    path = tmp_path / "scores.tsv"
    pdireval.write_scores(plain, path, format="ir_measures", digits=None)
    got = back(path, format="ir_measures")
    assert sorted(got["query"]) == sorted(plain["query"])


def test_run_and_qrels_writers_read_back_or_refuse(collection, tmp_path):
    run, qrels = collection
    with pytest.raises(SchemaError, match="whitespace"):
        pdireval.write_run(run, tmp_path / "run.txt")
    # Parquet holds any name
    pdireval.write_run(run, tmp_path / "run.parquet")
    back = pdireval.read_run(tmp_path / "run.parquet")
    assert sorted(pd.unique(back["system"])) == sorted(SYSTEMS)
    assert sorted(pd.unique(back["query"])) == sorted(QUERIES)
    # TREC text: ids without whitespace read back exactly (formula starters, HTML, pipes)
    spaced = {name: re.sub(r"\s", "_", name) for name in SYSTEMS + QUERIES}
    run2 = run.assign(system=run["system"].map(spaced), query=run["query"].map(spaced))
    qrels2 = qrels.assign(query=qrels["query"].map(spaced))
    pdireval.write_run(run2, tmp_path / "run.txt")
    pdireval.write_qrels(qrels2, tmp_path / "qrels.txt")
    back = pdireval.read_run(tmp_path / "run.txt")
    assert set(back["system"]) == set(run2["system"])
    assert set(back["doc"]) == set(run2["doc"])
    assert set(pdireval.read_qrels(tmp_path / "qrels.txt")["doc"]) == set(qrels2["doc"])


def test_cli_csv_reads_back_and_excel_safe_quotes_formula_starters(collection, tmp_path, capsys):
    run, qrels = collection
    spaced = {name: re.sub(r"\s", "_", name) for name in SYSTEMS + QUERIES}
    pdireval.write_run(
        run.assign(system=run["system"].map(spaced), query=run["query"].map(spaced)),
        tmp_path / "run.txt",
    )
    pdireval.write_qrels(qrels.assign(query=qrels["query"].map(spaced)), tmp_path / "q.txt")
    args = ["evaluate", str(tmp_path / "run.txt"), "--qrels", str(tmp_path / "q.txt")]
    args += ["-m", "AP", "--per-query", "--format", "csv"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    frame = pd.read_csv(
        io.StringIO(plain), dtype={"system": str, "query": str}, keep_default_na=False
    )
    assert set(frame["system"]) == {spaced[s] for s in SYSTEMS}
    assert set(frame["query"]) == {spaced[q] for q in QUERIES}

    assert main([*args, "--excel-safe"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    body = [dict(zip(rows[0], row)) for row in rows[1:]]
    assert len(body) == len(frame)
    for row, (system, query) in zip(body, zip(frame["system"], frame["query"])):
        for shown, name in ((row["system"], system), (row["query"], query)):
            assert shown == ("'" + name if name.startswith(FORMULA_STARTS) else name)
    assert not [r for row in body for r in row.values() if r.startswith(FORMULA_STARTS)]

    assert main([*args[:-1], "table", "--excel-safe"]) == 1
    assert "--excel-safe applies to --format csv" in capsys.readouterr().err


# --------------------------------------------------------------------------- excel_safe


def test_excel_safe_prefixes_formula_starters_only_and_leaves_the_input_alone():
    frame = pd.DataFrame(
        {
            "system": pd.array(["=1+1", "+x", "-y", "@z", "\tq", "\rr", "ok", "a=b"], "string"),
            "mean": [-0.5, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
            "=col": pd.Categorical(["-a", "b"] * 4),
            "flag": [True, False] * 4,
        }
    )
    before = frame.copy()
    safe = pdireval.excel_safe(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert safe["system"].tolist() == ["'=1+1", "'+x", "'-y", "'@z", "'\tq", "'\rr", "ok", "a=b"]
    assert isinstance(safe["system"].dtype, pd.StringDtype)
    assert safe["mean"].tolist() == frame["mean"].tolist()  # a negative number is a number
    assert list(safe.columns) == ["system", "mean", "'=col", "flag"]
    assert safe["'=col"].tolist() == ["'-a", "b"] * 4
    assert safe["flag"].tolist() == frame["flag"].tolist()
    with pytest.raises(TypeError, match="DataFrame"):
        pdireval.excel_safe(frame["system"])


def test_write_scores_excel_safe(scores, tmp_path):
    path = tmp_path / "safe.csv"
    pdireval.write_scores(scores, path, format="csv", excel_safe=True)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    fields = [f for row in rows for f in row]
    assert not [f for f in fields if f.startswith(FORMULA_STARTS)]
    assert "'" + SYSTEMS[0] in fields
    one = scores[scores["system"] == SYSTEMS[0]].assign(
        query=lambda f: f["query"].str.replace(r"\s", "_", regex=True)
    )
    path = tmp_path / "safe.trec"
    pdireval.write_scores(one, path, format="trec_eval", excel_safe=True)
    fields = [f for line in path.read_text(encoding="utf-8").splitlines() for f in line.split()]
    assert "'" + SYSTEMS[0] in fields and "'=1+1" in fields
    values = [f for f in fields[2::3]]
    assert not [v for v in values if v.startswith(FORMULA_STARTS) and v != "-nan"]
    with pytest.raises(OptionError, match="excel_safe"):
        pdireval.write_scores(
            one, tmp_path / "x.jsonl", format="ir_measures_jsonl", excel_safe=True
        )
    # the default writes the names as they are: JSON lines, as a check of what was written
    pdireval.write_scores(one, tmp_path / "x.jsonl", format="ir_measures_jsonl")
    first = json.loads((tmp_path / "x.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["query_id"] in set(one["query"])
