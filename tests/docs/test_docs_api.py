"""docs/api.md is generated from the public functions and must stay in sync with them."""


from pdireval.apidoc import api_markdown, numpydoc_sections
from pdireval.public import EXPORTS
from tests.helpers import ROOT

PAGE = ROOT / "docs" / "api.md"


def test_api_page_matches_the_code():
    assert PAGE.read_text(encoding="utf-8") == api_markdown(), (
        "docs/api.md is out of date: run  python -m pdireval.apidoc > docs/api.md"
    )


def test_every_public_function_documents_parameters_and_returns():
    import importlib
    import inspect

    for name, module in EXPORTS.items():
        obj = getattr(importlib.import_module(module), name)
        if not inspect.isfunction(obj):
            continue
        sections = numpydoc_sections(obj.__doc__)
        assert sections["summary"], name
        has_options = len(inspect.signature(obj).parameters) > 0
        assert not has_options or "Parameters" in sections, f"{name}: no Parameters section"
        assert "Returns" in sections or "Yields" in sections or name.startswith("write_"), f"{name}: no Returns section"
