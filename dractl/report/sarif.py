"""SARIF 2.1.0 (for GitHub code scanning and other SARIF viewers).

``tool.driver.rules`` lists every registered rule with its documentation; each result points at
its rule by ID and index, carries the file region (1-based line and column, Unicode code points)
and, as properties, the apiserver field path and error type and the object it is about. A
finding with a fix carries it as SARIF ``fixes`` (its applicability, ``safe`` or ``unsafe``, as
a property).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import quote

from dractl import __version__
from dractl.report.escape import json_visible

if TYPE_CHECKING:
    from dractl.diagnostics import Diagnostic, Fix
    from dractl.lint.engine import LintResult
    from dractl.lint.registry import Rule
    from dractl.report import ReportContext

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://github.com/dractl/dractl"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SRCROOT = "SRCROOT"


def report(result: LintResult, ctx: ReportContext, out: IO[str]) -> None:
    # Characters beyond ASCII as they are (code scanning shows them), but nothing invisible.
    out.write(json_visible(json.dumps(sarif_log(result), indent=2, ensure_ascii=False)))
    out.write("\n")


def sarif_log(result: LintResult) -> dict[str, Any]:
    from dractl.lint.registry import all_rules

    rules = all_rules()
    index = {rule.id: i for i, rule in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "dractl",
                "version": __version__,
                "semanticVersion": _semantic(__version__),
                "informationUri": INFORMATION_URI,
                "rules": [_descriptor(rule) for rule in rules],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(d, index) for d in result.diagnostics],
        "invocations": [{"executionSuccessful": not result.input_failed}],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _semantic(version: str) -> str:
    """PEP 440 ``0.1.0.dev0`` → SemVer ``0.1.0-dev0``."""
    head, _, tail = version.partition(".dev")
    return f"{head}-dev{tail}" if _ else version


def _descriptor(rule: Rule) -> dict[str, Any]:
    from dractl.lint.docs import kinds_text, rule_markdown, rule_parts, rule_text, rule_url

    parts = rule_parts(rule)
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": parts["why"] or rule.summary},
        "helpUri": rule_url(rule),
        "help": {"text": rule_text(rule), "markdown": rule_markdown(rule, heading="#")},
        "defaultConfiguration": {"level": LEVELS[rule.severity.value]},
        "properties": {
            "tags": ["kubernetes", "dra"],
            "scope": rule.scope,
            "kinds": kinds_text(rule),
        },
    }


def _result(d: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": d.rule,
        "level": LEVELS[d.severity.value],
        "message": {"text": d.message + (f"\nhelp: {d.hint}" if d.hint else "")},
    }
    if d.rule in index:
        out["ruleIndex"] = index[d.rule]
    location: dict[str, Any] = {}
    if d.position is not None and d.position.file != "<stdin>":
        location["physicalLocation"] = {
            "artifactLocation": _artifact(d.position.file),
            "region": {"startLine": d.position.line, "startColumn": d.position.column},
        }
    if d.obj.kind:
        name = "/".join(p for p in (d.obj.namespace, d.obj.name) if p) or "(unnamed)"
        location["logicalLocations"] = [
            {"name": name, "fullyQualifiedName": f"{d.obj.kind}/{name}", "kind": "object"}
        ]
    if location:
        out["locations"] = [location]
    if d.fix is not None and "physicalLocation" in location:
        assert d.position is not None
        out["fixes"] = [_fix(d.fix, d.position.file)]
    properties = {
        key: value
        for key, value in (
            ("field", d.field),
            ("type", d.type),
            ("kind", d.obj.kind),
            ("name", d.obj.name),
            ("namespace", d.obj.namespace),
            ("apiVersion", d.obj.api_version),
        )
        if value is not None
    }
    if properties:
        out["properties"] = properties
    return out


def _fix(fix: Fix, path: str) -> dict[str, Any]:
    """SARIF's fix: the replacements in the result's file (regions end one column after their
    last character, as the edits do)."""
    replacements = [
        {
            "deletedRegion": {
                "startLine": edit.line,
                "startColumn": edit.column,
                "endLine": edit.end_line,
                "endColumn": edit.end_column,
            },
            "insertedContent": {"text": edit.content},
        }
        for edit in fix.edits
    ]
    return {
        "description": {"text": fix.title},
        "artifactChanges": [{"artifactLocation": _artifact(path), "replacements": replacements}],
        "properties": {"applicability": fix.applicability.value},
    }


def _artifact(path: str) -> dict[str, str]:
    """A relative URI against %SRCROOT% for files below the current folder, else a file URI."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(Path.cwd().resolve())
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": SRCROOT}
