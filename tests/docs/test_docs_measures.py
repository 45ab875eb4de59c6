"""docs/measures.md is generated from the registry and must stay in sync with it."""


from pdireval.measures.docs import measures_markdown
from tests.helpers import ROOT

PAGE = ROOT / "docs" / "measures.md"


def test_measures_page_matches_the_registry():
    assert PAGE.read_text(encoding="utf-8") == measures_markdown(), (
        "docs/measures.md is out of date: run  python -m pdireval.measures.docs > docs/measures.md"
    )


def test_every_registered_measure_has_a_documented_kernel():
    from pdireval.measures import REGISTRY

    for definition in REGISTRY.values():
        assert (definition.kernel.__doc__ or "").strip(), definition.name
        assert definition.citation, definition.name
