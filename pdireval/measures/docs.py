"""Generate docs/measures.md from the registry:
``python -m pdireval.measures.docs > docs/measures.md``.

``tests/docs/test_docs_measures.py`` fails when the committed page differs from the registry.
"""

from __future__ import annotations

from pdireval.measures import REGISTRY

HEADER = """# Measures

*Generated from the registry by `python -m pdireval.measures.docs > docs/measures.md`; do not
edit by hand.* `pdireval.measures()` returns the same information as a DataFrame.

Spelling: `Name(param=value,...)@cutoff`, case-insensitive; the canonical spelling
(`str(pdireval.parse_measure(name))`) sorts parameters and leaves defaults out. trec_eval
spellings such as `map`, `P_10`, `ndcg_cut_10`, `recip_rank`, `recall_1000` are accepted.
`evaluate` writes each name in the `measure` column as you gave it (`map` stays `map`).
Every measure trec_eval has gives trec_eval's number with its default parameters.
Score ties: every measure takes `ties=expected`, the expectation over all orderings of tied
documents (McSherry & Najork 2008), instead of trec_eval's doc-id tie-break (`ties=break`, the
default); the column *ties=expected* says how it is computed (see [ties.md](ties.md)). Your
own measures: `pdireval.register_measure` (see docs/api.md).
The summary column says how trec_eval summarises a measure over queries: `mean`, `sum`
(counts), or `gm` (the per-query values are ln(max(x, 1e-5)) and the summary is exp(mean), the
geometric mean).

"""


def _param_rows(definition) -> str:
    if not definition.params:
        return "No parameters.\n"
    lines = ["| parameter | default | meaning |", "|---|---|---|"]
    for p in definition.params:
        default = "—" if p.default is None else f"`{p.default}`"
        meaning = p.description
        if p.choices:
            meaning += " Choices: " + ", ".join(f"`{c}`" for c in p.choices) + "."
        lines.append(f"| `{p.name}` | {default} | {meaning.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def measures_markdown() -> str:
    """The measures page as Markdown."""
    out = [HEADER]
    out.append(
        "| measure | cut-off | trec_eval | empty value | summary | ties=expected | description "
        "|\n|---|---|---|---|---|---|---|\n"
    )
    defs = sorted(REGISTRY.values(), key=lambda d: d.name.lower())
    for d in defs:
        out.append(
            f"| [`{d.name}`](#{d.name.lower()}) | {d.cutoff} | {d.trec_eval or '—'} | {d.empty} | "
            f"{d.summary} | {d.describe_ties()} | {d.description} |\n"
        )
    for d in defs:
        doc = d.doc.strip()
        out.append(f"\n## {d.name}\n\n{d.description}\n\n")
        if doc:
            out.append(
                "```text\n" + "\n".join(line.strip() for line in doc.splitlines()) + "\n```\n\n"
            )
        out.append(
            f"Cut-off: {d.cutoff}. Empty value (query not answered): {d.empty}. Summary over "
            f"queries: {d.summary}. "
        )
        if d.trec_eval:
            out.append(f"trec_eval: `{d.trec_eval}`. ")
        if d.citation:
            out.append(f"Source: {d.citation}.")
        out.append("\n\n" + _param_rows(d))
    return "".join(out)


if __name__ == "__main__":  # pragma: no cover
    print(measures_markdown(), end="")
