"""Shared docstring paragraphs (pdireval.docstrings): written once, filled in where used."""

import importlib
import inspect

import pytest

from pdireval.docstrings import SHARED_DOCS, shared_docs
from pdireval.public import EXPORTS


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
