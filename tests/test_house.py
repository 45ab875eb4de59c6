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
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pdireval

ROOT = Path(pdireval.__file__).parent


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """{dotted module name: (file, is a package __init__)} for every module under ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
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


def _ours(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _walk(root: Path = ROOT):
    """(edges {module: {imported module: line}}, private uses ["importer <- module._name"])."""
    package = root.name
    modules = _modules(root)
    edges: dict[str, dict[str, int]] = defaultdict(dict)
    private: list[str] = []
    for module, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bound: dict[str, str] = {}  # local name -> pdireval module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _absolute(module, is_package, node.level, node.module)
                if not _ours(target, package):
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
                    if (
                        _ours(alias.name, package)
                        and alias.name in modules
                        and alias.name != module
                    ):
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


def test_the_walker_finds_cycles_in_functions_and_private_names(tmp_path):
    # a package with a cycle closed by an import inside a function, a private name imported
    # from a sibling, one read through a module alias, and one used only in its own module
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n_own = 1\nx = _own\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import a\n    return a\n_hidden = 2\n")
    (pkg / "c.py").write_text(
        "from pkg.sub.b import _hidden\nimport pkg.a as alias\ny = alias._own\n"
    )
    edges, private = _walk(pkg)
    assert _cycles(edges) == [("pkg.a", "pkg.sub.b")]
    assert private == ["pkg.c <- pkg.a._own", "pkg.c <- pkg.sub.b._hidden"]
    # and on pdireval itself: cli imports the evaluation inside a handler
    assert "pdireval.evaluation" in EDGES["pdireval.cli"]


def test_no_import_cycle():
    cycles = _cycles(EDGES)
    assert not cycles, "import cycles (module level or inside functions):\n  " + "\n  ".join(
        _describe(c, EDGES) for c in cycles
    )


def test_no_private_name_imported_across_modules():
    assert not PRIVATE, (
        "private names used across modules (give them a plain name in their module, or move "
        "them where they are used):\n  " + "\n  ".join(PRIVATE)
    )


def test_ruff_check_is_clean():
    # the style rules of pyproject.toml ([tool.ruff]: lines of at most 100 characters, imports
    # sorted, pyflakes, bugbear...) hold on the whole package, as DEVELOPING.md asks
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)],
        capture_output=True,
        text=True,
        cwd=ROOT.parent,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-1000:]


def test_ruff_format_is_clean():
    # the package is laid out by `ruff format` (DEVELOPING.md): one layout, no diffs about it
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", str(ROOT)],
        capture_output=True,
        text=True,
        cwd=ROOT.parent,
    )
    assert out.returncode == 0, (
        "run `ruff format pdireval`:\n" + out.stdout[-4000:] + out.stderr[-1000:]
    )


def test_no_line_over_100_characters():
    # ruff's E501 lets a line of one long "word" pass (a URL, a regular expression); the
    # house rule is plain: no line longer than 100 characters. Modules have no length limit:
    # a concept lives in one module however long (functions are limited, below)
    long_lines = []
    for path, _ in _modules(ROOT).values():
        lines = path.read_text(encoding="utf-8").splitlines()
        long_lines += [f"{path.name}:{i}" for i, line in enumerate(lines, 1) if len(line) > 100]
    assert not long_lines, f"lines over 100 characters: {long_lines[:20]}"


def _code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> int:
    body = node.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:]  # the docstring
    spans = {i for stmt in body for i in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)}
    return sum(1 for i in spans if lines[i - 1].strip() and not lines[i - 1].strip().startswith("#"))


def test_no_function_over_100_code_lines():
    """Short functions instead of short files: a function of over 100 code lines (not blank,
    not a comment, the docstring left out) is split by what its parts do."""
    found = {}
    for module, (path, _) in _modules(ROOT).items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = _code_lines(node, lines)
                if n > 100:
                    found[f"{module}.{node.name}"] = n
    assert not found, f"functions over 100 code lines (split them by what their parts do): {found}"
