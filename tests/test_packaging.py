"""The release files agree with each other and with the code: version, licence, extras versus
dependency groups, the lower bounds CI installs, CITATION.cff against its schema.

What the built wheel holds and that it runs outside the source tree is checked by .ci/run
(step 3, ``.ci/installed.py``), which builds and installs it."""

from __future__ import annotations

import json
import re

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

import pdireval
from tests.helpers import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_one_version_everywhere():
    version = PROJECT["version"]
    assert pdireval.__version__ == version
    assert re.search(rf"^version: {re.escape(version)}$", (ROOT / "CITATION.cff").read_text(), re.M)
    assert f"## [{version}]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_licence_is_mit_and_shipped():
    assert PROJECT["license"] == "MIT"  # a PEP 639 expression, not the old table
    assert PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]  # PEP 639: none
    requires = PYPROJECT["build-system"]["requires"]
    assert any(re.fullmatch(r"setuptools>=(\d+).*", r) and int(r.split(">=")[1].split(".")[0]) >= 77 for r in requires)
    assert (ROOT / "pdireval" / "py.typed").exists()


def test_extras_are_for_users_and_groups_for_contributors():
    extras = PROJECT["optional-dependencies"]
    assert set(extras) == {"plot", "excel", "dask", "ir_measures", "all"}
    users = {_name(r) for key in ("plot", "excel", "dask", "ir_measures") for r in extras[key]}
    assert {_name(r) for r in extras["all"]} == users
    groups = PYPROJECT["dependency-groups"]
    assert {"test", "docs", "bench"} <= set(groups)
    test = {_name(r) for r in groups["test"] if isinstance(r, str)}
    assert users <= test, "the tests need every extra's packages"
    assert {"pytest", "hypothesis", "ranx"} <= test and not {"pytest", "hypothesis", "ranx"} & users


def test_lower_bounds_of_ci_are_the_declared_ones():
    declared = {}
    for requirement in PROJECT["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", requirement)
        assert match, f"{requirement}: declare a lower bound (name>=version)"
        declared[match.group(1).lower()] = match.group(2)
    pinned = {}
    for line in (ROOT / ".ci" / "lower-bounds.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pinned[name.lower()] = version.removesuffix(".*")
    assert pinned == declared


def test_citation_file_is_valid_citation_file_format():
    yaml = pytest.importorskip("yaml")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "tests" / "data" / "citation-file-format-1.2.0.schema.json").read_text())
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    citation = json.loads(json.dumps(citation, default=str))  # dates as strings, as cffconvert reads them
    jsonschema.validate(citation, schema)
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "MIT"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## How to cite" in readme and citation["title"] in readme
