"""The documentation site (mkdocs.yml): every page in the navigation, the API reference pages
generated from the code and complete. `mkdocs build --strict` itself runs in CI (.ci/run)."""

from __future__ import annotations

import importlib
import inspect
import re

import pdireval
from pdireval.apidoc import REFERENCE_PAGES, SUBPACKAGE_PAGES, reference_pages
from pdireval.public import EXPORTS, FRAME_FUNCTIONS
from tests.helpers import ROOT

DOCS = ROOT / "docs"


def test_reference_pages_match_the_code():
    pages = reference_pages()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (DOCS / "reference").glob("*.md")}
    assert on_disk == pages, "docs/reference is out of date: python -m pdireval.apidoc --reference docs/reference"


def test_every_public_name_is_on_exactly_one_reference_page():
    listed = [name for _, _, _, names in REFERENCE_PAGES for name in names]
    assert sorted(listed) == sorted(EXPORTS)
    accessor = reference_pages()["accessor.md"]
    for name in FRAME_FUNCTIONS:
        assert f"| `ireval.{name}` |" in accessor, name
    titles = {title for _, title, _, _ in SUBPACKAGE_PAGES}
    from pdireval.public import SUBMODULES

    assert {f"pdireval.{m}" for m in SUBMODULES} | {"pdireval.dask"} <= titles


def test_every_documented_object_has_a_docstring():
    for name, module in EXPORTS.items():
        assert inspect.getdoc(getattr(importlib.import_module(module), name)), name
    for _, _, module, names in SUBPACKAGE_PAGES:
        mod = importlib.import_module(module)
        for name in names if names is not None else mod.__all__:
            obj = getattr(mod, name)
            if inspect.isroutine(obj) or inspect.isclass(obj):
                assert inspect.getdoc(obj), f"{module}.{name}"


def test_every_docs_page_is_in_the_navigation():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    in_nav = set(re.findall(r"^\s+- (?:[^:\n]+: )?([\w/.-]+\.md)$", config, re.M))
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert pages == in_nav, (pages - in_nav, in_nav - pages)


def test_stats_lists_its_public_names_and_keeps_helpers_private():
    import pkgutil

    stats = pdireval.stats
    assert len(stats.__all__) >= 25
    for name in stats.__all__:
        assert getattr(stats, name) is not None
    modules = {m.name for m in pkgutil.iter_modules(stats.__path__)}
    assert "_adapters" in modules and "adapters" not in modules
