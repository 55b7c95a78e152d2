"""JUnit XML: one ``testsuite`` per file, one ``testcase`` per object, a ``failure`` per erring one.

Diagnostics that belong to no object (syntax errors, documents that are not objects) go to a
``testcase`` named after the file itself. Warnings and infos never fail a test case; they are
listed in its ``system-out``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from dractl.report.escape import visible

if TYPE_CHECKING:
    from dractl.diagnostics import Diagnostic
    from dractl.lint.engine import LintResult
    from dractl.report import ReportContext

FILE_CASE = "(file)"


def _xml_text(text: str) -> str:
    """XML 1.0 cannot hold most control characters (even escaped) nor lone surrogates; file
    names and values may: they are written visibly escaped, as in the text report."""
    return visible(text)


@dataclass
class _Case:
    name: str
    line: int | None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity.value == "error"]


def _object_key(kind: str | None, namespace: str | None, name: str | None) -> tuple[str, ...]:
    return (kind or "", namespace or "", name or "")


def _case_name(kind: str, namespace: str | None, name: str | None) -> str:
    return f"{kind} {namespace + '/' if namespace else ''}{name or '(unnamed)'}"


def report(result: LintResult, ctx: ReportContext, out: IO[str]) -> None:
    suites: dict[str, dict[tuple[str, ...], _Case]] = {}
    if ctx.loaded is not None:
        for source in ctx.loaded.files:
            suites.setdefault(source.path, {})
        for obj in ctx.loaded.objects:
            cases = suites.setdefault(obj.document.file.path, {})
            key = _object_key(obj.kind, obj.namespace, obj.name)
            if key not in cases:
                cases[key] = _Case(_case_name(obj.kind, obj.namespace, obj.name), obj.position().line)
    for d in result.diagnostics:
        path = d.position.file if d.position else "<input>"
        cases = suites.setdefault(path, {})
        key = _object_key(d.obj.kind, d.obj.namespace, d.obj.name) if d.obj.kind else ()
        if key not in cases:
            name = _case_name(d.obj.kind, d.obj.namespace, d.obj.name) if d.obj.kind else FILE_CASE
            cases[key] = _Case(name, d.position.line if d.position else None)
        cases[key].diagnostics.append(d)

    root = ET.Element("testsuites", name="dractl")
    total_tests = total_failures = 0
    for path, cases in suites.items():
        failures = sum(1 for c in cases.values() if c.errors)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=_xml_text(path),
            tests=str(len(cases)),
            failures=str(failures),
            errors="0",
            skipped="0",
        )
        total_tests += len(cases)
        total_failures += failures
        for case in cases.values():
            attributes = {
                "name": _xml_text(case.name), "classname": _xml_text(path), "file": _xml_text(path)
            }
            if case.line is not None:
                attributes["line"] = str(case.line)
            element = ET.SubElement(suite, "testcase", attributes)
            errors = case.errors
            if errors:
                message = errors[0].message if len(errors) == 1 else f"{len(errors)} errors"
                failure = ET.SubElement(
                    element, "failure", message=_xml_text(message), type=_xml_text(errors[0].rule)
                )
                failure.text = "\n".join(_line(d) for d in errors) + "\n"
            others = [d for d in case.diagnostics if d.severity.value != "error"]
            if others:
                ET.SubElement(element, "system-out").text = "\n".join(_line(d) for d in others) + "\n"
    root.set("tests", str(total_tests))
    root.set("failures", str(total_failures))
    root.set("errors", "0")
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")


def _line(d: Diagnostic) -> str:
    where = str(d.position) if d.position else "<input>"
    text = f"{where}: {d.severity.value} {d.rule} {d.message}"
    if d.field and d.type and d.field not in d.message:
        text += f" [{d.field}: {d.type}]"
    return _xml_text(text)
