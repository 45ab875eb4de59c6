"""The package's internal API: no import cycle and no private name used across modules.

Every ``import`` and ``from ... import`` of pdireval's own modules is read from the source, at
module level and inside functions alike (an import inside a function that closes a cycle is
still a cycle: it only moves the failure to run time), plus ``importlib.import_module`` of a
literal module name. Private names are modelled on pandas' ``scripts/
validate_unwanted_patterns.py`` (``private_import_across_module`` and
``private_function_across_module``): a module may not import another module's ``_name``, nor
read ``module._name`` through a module it imported. A name meant for other modules gets a
plain name (``view_for``, ``check_frame``), or moves where it belongs.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pdireval

ROOT = Path(pdireval.__file__).parent
PACKAGE = ROOT.name

# Offenders inside pdireval/measures/ that exist on main while the measure layer is being
# rebuilt (issue 22). They are listed, not skipped: the tests fail on any offender not listed
# here, and also on a listed one that is gone, so this list can only shrink. It must be empty
# when issue 22 is done; remove an entry in the change that fixes it.
MEASURES_CYCLES_PENDING: list[tuple[str, ...]] = [
    (
        "pdireval.measures.registry",
        "pdireval.measures.trec_eval.names",
    ),
    (
        "pdireval.measures.standard.kernels",
        "pdireval.measures.trec_eval.kernels",
    ),
]
MEASURES_PRIVATE_PENDING: list[str] = [
    "pdireval.measures.bounds <- pdireval.measures.registry._thaw",
    "pdireval.measures.bounds <- pdireval.measures.standard.kernels._dcg",
    "pdireval.measures.bounds <- pdireval.measures.standard.kernels._relevant",
    "pdireval.measures.bounds <- pdireval.measures.standard.kernels._view",
    "pdireval.measures.cwl.kernels <- pdireval.measures.view._padded_accumulate",
    "pdireval.measures.cwl.kernels <- pdireval.measures.view._segment_bounds",
    "pdireval.measures.cwl.ties <- pdireval.measures.cwl.kernels._exclusive_product",
    "pdireval.measures.cwl.ties <- pdireval.measures.cwl.kernels._insq_base",
    "pdireval.measures.cwl.ties <- pdireval.measures.cwl.kernels._max_rel",
    "pdireval.measures.cwl.ties <- pdireval.measures.cwl.kernels._positive_gains",
    "pdireval.measures.cwl.ties <- pdireval.measures.standard.kernels._safe_div",
    "pdireval.measures.cwl.ties <- pdireval.measures.tie_closed_forms._exclusive_in_segment",
    "pdireval.measures.cwl.ties <- pdireval.measures.view._segment_bounds",
    "pdireval.measures.diversity.ties <- pdireval.measures.diversity.kernels._log_discount",
    "pdireval.measures.diversity.ties <- pdireval.measures.diversity.kernels._nnrbp_normalised",
    "pdireval.measures.diversity.ties <- pdireval.measures.diversity.kernels._normalised",
    "pdireval.measures.diversity.ties <- pdireval.measures.diversity.kernels._nrbp_normalised",
    "pdireval.measures.diversity.ties <- pdireval.measures.diversity.kernels._pairs",
    "pdireval.measures.diversity.ties <- pdireval.measures.diversity.kernels._ratio",
    "pdireval.measures.diversity.ties <- pdireval.measures.diversity.kernels._rr_discount",
    "pdireval.measures.diversity.ties <- pdireval.measures.diversity.kernels._view",
    "pdireval.measures.pairs.compat <- pdireval.measures.view._segment_bounds",
    "pdireval.measures.pairs.ties <- pdireval.measures.pairs.compat._higher_labelled",
    "pdireval.measures.pairs.ties <- pdireval.measures.pairs.compat._ideal_weights",
    "pdireval.measures.pairs.ties <- pdireval.measures.pairs.compat._same_level_above",
    "pdireval.measures.pairs.ties <- pdireval.measures.view._segment_bounds",
    "pdireval.measures.ric <- pdireval.measures.view._segment_bounds",
    "pdireval.measures.sakai.kernels <- pdireval.measures.standard.kernels._R",
    "pdireval.measures.sakai.kernels <- pdireval.measures.standard.kernels._max_grade",
    "pdireval.measures.sakai.kernels <- pdireval.measures.standard.kernels._relevant",
    "pdireval.measures.sakai.kernels <- pdireval.measures.standard.kernels._safe_div",
    "pdireval.measures.sakai.kernels <- pdireval.measures.standard.kernels._view",
    "pdireval.measures.sakai.kernels <- pdireval.measures.view._segment_bounds",
    "pdireval.measures.standard.ties <- pdireval.measures.standard.kernels._R",
    "pdireval.measures.standard.ties <- pdireval.measures.standard.kernels._safe_div",
    "pdireval.measures.standard.ties <- pdireval.measures.standard.kernels._view",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.sakai.kernels._ideal_err",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.standard.kernels._R",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.standard.kernels._max_grade",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.standard.kernels._safe_div",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.standard.kernels._view",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.trec_eval.kernels._MAX_LEVEL_PASSES",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.trec_eval.kernels._ideal",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.trec_eval.kernels._ideal_dcg",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.trec_eval.kernels._levels",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.trec_eval.kernels._recall_cut",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.trec_eval.kernels._rel_ret",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.trec_eval.kernels._uniform_ideal",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.view._integral_and_small",
    "pdireval.measures.tie_closed_forms <- pdireval.measures.view._segment_bounds",
    "pdireval.measures.tie_maximum <- pdireval.measures.standard.kernels._view",
    "pdireval.measures.tie_maximum <- pdireval.measures.tie_orderings._random_slots",
    "pdireval.measures.tie_maximum <- pdireval.measures.tie_orderings._segment_keys",
    "pdireval.measures.trec_eval.kernels <- pdireval.measures.registry._freeze",
    "pdireval.measures.trec_eval.kernels <- pdireval.measures.standard.kernels._R",
    "pdireval.measures.trec_eval.kernels <- pdireval.measures.standard.kernels._relevant",
    "pdireval.measures.trec_eval.kernels <- pdireval.measures.standard.kernels._safe_div",
    "pdireval.measures.trec_eval.kernels <- pdireval.measures.standard.kernels._view",
    "pdireval.measures.trec_eval.kernels <- pdireval.measures.view._segment_bounds",
    "pdireval.measures.trec_eval.ties <- pdireval.measures.standard.kernels._R",
    "pdireval.measures.trec_eval.ties <- pdireval.measures.standard.kernels._safe_div",
    "pdireval.measures.trec_eval.ties <- pdireval.measures.standard.kernels._view",
]


def _modules() -> dict[str, tuple[Path, bool]]:
    """{dotted module name: (file, is a package __init__)} for every module of pdireval."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    return out


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module named by a (possibly relative) ``from`` import."""
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _ours(name: str) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _walk():
    """(edges {module: {imported module: line}}, private uses ["importer <- module._name"])."""
    modules = _modules()
    edges: dict[str, dict[str, int]] = defaultdict(dict)
    private: list[str] = []
    for module, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bound: dict[str, str] = {}  # local name -> pdireval module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _absolute(module, is_package, node.level, node.module)
                if not _ours(target):
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in modules:  # a module: an edge to it, and a name bound to it
                        edges[module].setdefault(sub, node.lineno)
                        bound[alias.asname or alias.name] = sub
                        continue
                    if target != module:
                        edges[module].setdefault(target, node.lineno)
                        if _private(alias.name):
                            private.append(f"{module} <- {target}.{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if _ours(alias.name) and alias.name in modules and alias.name != module:
                        edges[module].setdefault(alias.name, node.lineno)
                        if alias.asname:
                            bound[alias.asname] = alias.name
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value in modules
                and node.args[0].value != module
            ):
                edges[module].setdefault(node.args[0].value, node.lineno)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and _private(node.attr)
                and f"{bound[node.value.id]}.{node.attr}" not in modules
            ):
                private.append(f"{module} <- {bound[node.value.id]}.{node.attr}")
    return edges, sorted(set(private))


def _cycles(edges: dict[str, dict[str, int]]) -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []
    counter = 0
    nodes = sorted(set(edges) | {t for targets in edges.values() for t in targets})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return sorted(found)


def _describe(cycle: tuple[str, ...], edges) -> str:
    links = [
        f"{a} -> {b} (line {edges[a][b]})" for a in cycle for b in cycle if b in edges.get(a, {})
    ]
    return "\n  ".join(links)


EDGES, PRIVATE = _walk()


def test_the_walker_sees_imports_inside_functions_and_private_names():
    # a sanity check of the walker itself on a known module: pdireval.cli imports the
    # evaluation inside a handler (so that `pdireval --help` stays fast)
    assert "pdireval.evaluation" in EDGES["pdireval.cli"]
    assert "pdireval.core.schema" in EDGES["pdireval.io.readers"]
    assert _cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [
        ("a", "b", "c")
    ]


def test_no_import_cycle():
    cycles = _cycles(EDGES)
    new = [c for c in cycles if c not in MEASURES_CYCLES_PENDING]
    assert not new, "import cycles (module level or inside functions):\n  " + "\n  ".join(
        _describe(c, EDGES) for c in new
    )
    gone = [c for c in MEASURES_CYCLES_PENDING if c not in cycles]
    assert not gone, (
        f"these cycles are gone: remove them from MEASURES_CYCLES_PENDING in {__file__}: {gone}"
    )


def test_no_private_name_imported_across_modules():
    new = [p for p in PRIVATE if p not in MEASURES_PRIVATE_PENDING]
    assert not new, (
        "private names used across modules (give them a plain name in their module, or move "
        "them where they are used):\n  " + "\n  ".join(new)
    )
    gone = [p for p in MEASURES_PRIVATE_PENDING if p not in PRIVATE]
    assert not gone, (
        f"these private imports are gone: remove them from MEASURES_PRIVATE_PENDING in "
        f"{__file__}:\n  " + "\n  ".join(gone)
    )
