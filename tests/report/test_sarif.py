"""SARIF output validates against the official SARIF 2.1.0 schema and says what dractl found."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from dractl.lint.registry import all_rules

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())

MANIFEST = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
---
kind: [unclosed
---
- not an object
"""


def _validate(log: dict) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA)
    errors = sorted(validator.iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_real_output_is_valid_sarif(tmp_path: Path, run_dractl) -> None:
    manifest = tmp_path / "bad manifests" / "claim.yaml"
    manifest.parent.mkdir()
    manifest.write_text(MANIFEST)
    out = run_dractl("lint", "--no-config", "-f", "sarif", "bad manifests", cwd=tmp_path)
    assert out.returncode == 2, out.stderr  # a syntax error: unreadable input
    log = json.loads(out.stdout)
    _validate(log)
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "dractl"
    assert [r["id"] for r in driver["rules"]] == [r.id for r in all_rules()]
    results = run["results"]
    found = {(r["ruleId"], r["level"]) for r in results}
    assert {("DRA001", "error"), ("DRA004", "error")} <= found
    first = next(r for r in results if r["ruleId"] == "DRA001")
    assert driver["rules"][first["ruleIndex"]]["id"] == "DRA001"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "bad%20manifests/claim.yaml", "uriBaseId": "SRCROOT"}
    assert location["region"] == {"startLine": 7, "startColumn": 1}
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert run["invocations"] == [{"executionSuccessful": False}]


def test_rule_metadata() -> None:
    from dractl.lint.engine import LintResult
    from dractl.report.sarif import sarif_log

    log = sarif_log(LintResult([], 0, 0, False))
    _validate(log)
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    unused = rules["DRA901"]
    assert unused["name"] == "unused-suppression"
    assert unused["defaultConfiguration"] == {"level": "warning"}
    assert unused["helpUri"].endswith("docs/rules.md#dra901")
    assert "```yaml" in unused["help"]["markdown"]
    assert unused["shortDescription"]["text"] == "A `# dractl: ignore` comment suppresses nothing."


@pytest.mark.parametrize("folder", ["good", "bad"])
def test_examples_give_valid_sarif(folder: str, run_dractl) -> None:
    if not any((ROOT / "examples" / folder).glob("*.y*ml")):
        pytest.skip(f"no examples/{folder} yet")
    out = run_dractl("lint", "--no-config", "-f", "sarif", f"examples/{folder}")
    log = json.loads(out.stdout)
    _validate(log)
    levels = {r["level"] for r in log["runs"][0]["results"]}
    assert levels <= {"error", "warning", "note"}
