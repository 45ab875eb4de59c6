"""README promises: the set-up commands, CI running exactly the test command, and the tour's
output pasted from a real run."""

from __future__ import annotations

import contextlib
import io
import re

from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
VENV = "python3 -m venv .venv && . .venv/bin/activate && "  # a fresh machine has python3, not python
MAIN_COMMAND = VENV + 'python -m pip install -U pip && python -m pip install -e ".[all]" && pdireval'
TEST_COMMAND = VENV + "python -m pip install -U pip && python -m pip install -e . --group test && python -m pytest -q"


def _setup_section() -> str:
    match = re.search(r"^## Set-up on a fresh machine\n(.*?)(?=^## )", README, re.S | re.M)
    assert match, "README needs a '## Set-up on a fresh machine' section"
    return match.group(1)


def test_two_setup_commands():
    commands = re.findall(r"^```bash\n(.*?)\n```", _setup_section(), re.S | re.M)
    assert len(commands) == 2, commands
    assert commands[0].startswith(MAIN_COMMAND)
    assert commands[1] == TEST_COMMAND


def test_ci_runs_exactly_the_readme_test_command():
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert TEST_COMMAND in lines


def test_tour_output_is_what_the_code_prints():
    """Each python block of the tour followed by a text block prints exactly that text."""
    pairs = re.findall(r"^```python\n(.*?)^```\n\n(?:[^`]*?\n\n)?```text\n(.*?)^```", README, re.S | re.M)
    assert len(pairs) >= 2
    namespace: dict = {"__name__": "__readme__"}
    for code, expected in pairs:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), namespace)
        assert out.getvalue() == expected, "re-paste the README output:\n" + out.getvalue()


def test_cli_output_in_readme_is_real(capsys):
    from pdireval.cli import main

    assert main(["evaluate", "-m", "nDCG@10", "-m", "AP"]) == 0
    out, err = capsys.readouterr()
    block = re.search(r"^```text\n\$ pdireval evaluate.*?\n(pdireval: no RUN.*?)\n\.\.\.\n```", README, re.S | re.M)
    assert block, "README shows `pdireval evaluate` output"
    shown = block.group(1).splitlines()
    assert shown[0] == err.strip()
    assert shown[1:] == out.splitlines()[: len(shown) - 1]
