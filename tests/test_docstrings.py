"""Shared docstring paragraphs (pdireval.docstrings): written once, filled in where used."""

import ast
import importlib
import inspect
import pkgutil
import re
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

import pdireval
from pdireval.docstrings import SHARED_DOCS, shared_docs
from pdireval.public import EXPORTS, FRAME_FUNCTIONS


def test_placeholder_is_replaced_with_its_indentation():
    @shared_docs
    def f(scores, *, columns=None):
        """Summary.

        Parameters
        ----------
        {columns}

        Returns
        -------
        DataFrame
        """

    lines = inspect.getdoc(f).splitlines()
    at = lines.index("columns")
    assert lines[at + 1].startswith("    Optional mapping ``{canonical name: your column name}``")
    assert "{columns}" not in f.__doc__


def test_an_unknown_placeholder_fails_at_definition():
    with pytest.raises(KeyError, match="colums"):

        @shared_docs
        def f():
            """Summary.

            {colums}
            """


def test_no_public_docstring_keeps_a_placeholder():
    # a function given a placeholder but not the decorator would show the raw '{columns}'
    for name, module in EXPORTS.items():
        doc = getattr(importlib.import_module(module), name).__doc__ or ""
        left = [key for key in SHARED_DOCS if f"{{{key}}}" in doc.split()]
        assert not left, f"{module}.{name}: placeholder(s) {left} not filled: add @shared_docs"


def test_shared_paragraphs_are_numpydoc_entries():
    for name, text in SHARED_DOCS.items():
        first, *rest = text.split("\n")
        assert first == name and rest and all(line.startswith("    ") for line in rest)
        assert max(len(line) for line in rest) <= 92  # fits 100 characters at 8 spaces indent


ROOT = Path(pdireval.__file__).parent


def _docstring_literals(path: Path):
    """(line, source text) of every module, class and function docstring literal of a file."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        if not isinstance(node, kinds) or not node.body:
            continue
        first = node.body[0]
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            yield first.lineno, ast.get_source_segment(source, first.value)


def _escape_left(literal: str) -> str | None:
    r"""The first backslash escape of a non-raw string literal (``\\`` excepted), else None.

    In a non-raw docstring ``\frac`` is a form feed + "rac", ``\rho`` a carriage return +
    "ho", ``\beta`` a backspace: LaTeX goes in a raw (r-prefixed) docstring.
    """
    prefix = re.match(r"[A-Za-z]*", literal).group(0)
    if "r" in prefix.lower():
        return None
    body = literal[len(prefix) :].replace("\\\\", "")
    at = body.find("\\")
    return None if at < 0 else body[at : at + 12]


def test_the_escape_scan_finds_latex_in_a_plain_docstring():
    assert _escape_left('"""Φ = \\frac{a}{b}."""') == "\\frac{a}{b}."
    assert _escape_left('"""E\\rho^2"""') == "\\rho^2\"\"\""
    assert _escape_left('r"""\\frac{a}{b}"""') is None
    assert _escape_left('"""a \\\\sum b"""') is None


def test_no_docstring_holds_a_backslash_escape_outside_a_raw_string():
    found = [
        f"{path.relative_to(ROOT.parent)}:{line}: {escape!r}"
        for path in sorted(ROOT.rglob("*.py"))
        for line, literal in _docstring_literals(path)
        if (escape := _escape_left(literal)) is not None
    ]
    assert not found, "make these docstrings raw (r\"\"\"...\"\"\"):\n" + "\n".join(found)


def _control_characters(text: str) -> list[str]:
    return sorted({hex(ord(c)) for c in text if unicodedata.category(c) == "Cc" and c != "\n"})


def _documented(module):
    """(name, docstring) of a module, its functions and classes and their methods."""
    yield module.__name__, module.__doc__
    for name, obj in vars(module).items():
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield f"{module.__name__}.{name}", obj.__doc__
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                doc = getattr(member, "__doc__", None)
                if inspect.isfunction(member) or isinstance(
                    member, (property, classmethod, staticmethod)
                ):
                    yield f"{module.__name__}.{name}.{attr}", doc


def test_no_docstring_holds_a_control_character():
    # the docstrings as help() and the API pages show them: after @shared_docs, the
    # generated accessor methods and any docstring assembled at run time
    modules = [pdireval] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(pdireval.__path__, "pdireval.")
    ]
    found = [
        f"{name}: {bad}"
        for module in modules
        for name, doc in _documented(module)
        if isinstance(doc, str) and (bad := _control_characters(doc))
    ]
    accessor = pd.DataFrame().ireval
    found += [
        f"DataFrame.ireval.{name}: {bad}"
        for name in FRAME_FUNCTIONS
        if (bad := _control_characters(getattr(accessor, name).__doc__ or ""))
    ]
    assert len(modules) > 100 and not found, "\n".join(found)
