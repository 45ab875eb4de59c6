"""`import pdireval` stays light: no heavy or analysis module is loaded until it is used."""

import subprocess
import sys

HEAVY = ("scipy.stats", "matplotlib", "openpyxl", "tqdm", "pingouin", "dask", "pdireval.meta",
         "pdireval.runs", "pdireval.stats", "pdireval.evaluation", "pdireval.measures")


def _loaded(code: str) -> set[str]:
    probe = code + f"; import sys; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return {m for m in out.stdout.strip().split(",") if m}


def test_import_pdireval_loads_no_heavy_module():
    assert _loaded("import pandas as pd, pdireval; pd.DataFrame({'a': [1]}).ireval") == set()


def test_first_use_loads_what_it_needs():
    loaded = _loaded("import pdireval; pdireval.compare")
    assert {"pdireval.meta", "pdireval.stats"} <= loaded
    assert "matplotlib" not in loaded and "openpyxl" not in loaded


def test_cli_help_loads_no_analysis_module():
    assert _loaded("import pdireval.cli") & {"scipy.stats", "matplotlib", "pdireval.meta", "pdireval.runs"} == set()


def test_cli_help_runs_without_loading_the_measures():
    # main() loads user measure plugins first; with none configured that must import nothing
    run_help = (
        "import contextlib, io, pdireval.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    pdireval.cli.main(['--help'])\n"
    )
    assert _loaded(f"exec({run_help!r})") == set()
