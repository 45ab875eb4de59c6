"""Checks of the package as users install it, run by .ci/run with the Python of a fresh virtual
environment that holds the built wheel and nothing of the source tree.

    python .ci/installed.py wheel WHEEL REPO     # the wheel holds LICENSE, py.typed, data files
    python .ci/installed.py tour README          # pdireval comes from the venv; the README's tour
                                                 # prints what the README shows

Exit status 1 with a message on the first failed check.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import zipfile
from pathlib import Path


def fail(message: str) -> None:
    print(f"installed.py: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def check_wheel(wheel: Path, repo: Path) -> None:
    """LICENSE in the dist-info, py.typed, and every file of the package that is not Python
    source (data the package reads, templates, stubs) in the wheel."""
    names = set(zipfile.ZipFile(wheel).namelist())
    if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
        fail(f"{wheel.name} holds no .dist-info/licenses/LICENSE")
    tracked = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "pdireval"], capture_output=True, text=True, check=True
    ).stdout.split()
    needed = [n for n in tracked if not n.endswith(".py")]
    if "pdireval/py.typed" not in needed:
        fail("the source tree has no pdireval/py.typed")
    missing = [n for n in needed if n not in names]
    if missing:
        fail(f"{wheel.name} lacks {missing}: list them in [tool.setuptools.package-data]")
    sources = [n for n in tracked if n.endswith(".py")]
    lost = [n for n in sources if n not in names]
    if lost:
        fail(f"{wheel.name} lacks the modules {lost[:5]} (a package without __init__.py?)")
    print(f"installed.py: {wheel.name}: LICENSE, {len(needed)} data file(s) {needed}, "
          f"{len(sources)} modules")


BLOCK = re.compile(r"^```python\n(.*?)^```\n\n(?:[^`]*?\n\n)?```text\n(.*?)^```", re.S | re.M)


def check_tour(readme: Path) -> None:
    """Run the README's python blocks in one namespace; each must print its text block."""
    import pdireval

    where = Path(pdireval.__file__).resolve()
    if "site-packages" not in where.parts:
        fail(f"pdireval was imported from {where}, not from the installed wheel")
    pairs = BLOCK.findall(readme.read_text(encoding="utf-8"))
    if len(pairs) < 2:
        fail(f"{readme} shows fewer than 2 python blocks with their output")
    namespace: dict = {"__name__": "__readme__"}
    for number, (code, shown) in enumerate(pairs, start=1):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, f"README.md[block {number}]", "exec"), namespace)
        if printed.getvalue() != shown:
            fail(f"README block {number} printed\n{printed.getvalue()}\ninstead of\n{shown}")
    print(f"installed.py: the README tour ({len(pairs)} blocks) prints what the README shows, "
          f"with pdireval {pdireval.__version__} from {where.parent}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["wheel"] and len(sys.argv) == 4:
        check_wheel(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1:2] == ["tour"] and len(sys.argv) == 3:
        check_tour(Path(sys.argv[2]))
    else:
        fail(f"usage: {__doc__}")
