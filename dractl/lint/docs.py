"""Rule documentation rendered from the registry's docstrings.

One source, three readers: ``docs/rules.md`` (``scripts/generate_docs.py``), ``dractl rules ID``
in the terminal, and the help text of SARIF rules.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable

from dractl.lint.registry import Rule, doc_sections

RULES_URL = "https://github.com/dractl/dractl/blob/main/docs/rules.md"

# Rule ID prefix -> family; the first digit of the number says what a rule is about.
FAMILIES: dict[str, str] = {
    "DRA0": "Input and schema",
    "DRA1": "Apiserver validation",
    "DRA2": "CEL selectors",
    "DRA3": "Cross-object",
    "DRA4": "Releases, feature gates and API versions",
    "DRA5": "Best practice",
    "DRA9": "Suppression comments",
}

_LIST_ITEM_RE = re.compile(r"^(?:[-*]|\d+\.)\s")

SCOPES = {
    "object": "checks each object",
    "set": "checks all objects together",
    "loader": "reported while reading input",
    "engine": "reported on suppression comments",
}


def rule_url(rule: Rule) -> str:
    return f"{RULES_URL}#{rule.id.lower()}"


def family(rule_id: str) -> str:
    return FAMILIES.get(rule_id[:4], "Other")


def kinds_text(rule: Rule) -> str:
    return ", ".join(sorted(rule.kinds)) if rule.kinds else "all"


# What a rule's fixability means, as its documentation says it.
FIXES = {
    "safe": "fix: safe (`dractl lint --fix`)",
    "unsafe": "fix: unsafe (`dractl lint --fix --unsafe-fixes`)",
}


def fix_text(rule: Rule) -> str | None:
    """``fix: safe (...)`` or ``fix: unsafe (...)``; None for a rule without a fix."""
    return FIXES[rule.fix.value] if rule.fix is not None else None


def rule_parts(rule: Rule) -> dict[str, str]:
    """The docstring's parts, example manifests dedented."""
    sections = doc_sections(rule.doc)
    parts = {
        "summary": sections.get("Summary", "").strip(),
        "description": _paragraphs(sections.get("Description", "")),
        "why": _paragraphs(sections.get("Why", "")),
        "bad": textwrap.dedent(sections.get("Bad", "")).strip("\n"),
        "good": textwrap.dedent(sections.get("Good", "")).strip("\n"),
        "upstream": _paragraphs(sections.get("Upstream", "")),
    }
    return parts


def _paragraphs(text: str) -> str:
    """Docstring prose re-flowed: lines of a paragraph joined (list items kept on their own)."""
    paragraphs = []
    for block in _blocks(text):
        lines: list[str] = []
        for line in block.splitlines():
            stripped = line.strip()
            if lines and not _LIST_ITEM_RE.match(stripped):
                lines[-1] += " " + stripped
            else:
                lines.append(stripped)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(p for p in paragraphs if p)


def _blocks(text: str) -> list[str]:
    blocks: list[list[str]] = [[]]
    for line in textwrap.dedent(text).splitlines():
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return ["\n".join(b) for b in blocks if b]


def rule_markdown(rule: Rule, heading: str = "##") -> str:
    """One rule's section of docs/rules.md (also what ``dractl rules ID`` renders)."""
    parts = rule_parts(rule)
    fix = fix_text(rule)
    out = [
        f"{heading} {rule.id}",
        "",
        f"**`{rule.name}`** · {rule.severity.value} · {SCOPES.get(rule.scope, rule.scope)}"
        f" · kinds: {kinds_text(rule)}" + (f" · {fix}" if fix else ""),
        "",
        parts["summary"],
        "",
    ]
    if parts["description"]:
        out += [parts["description"], ""]
    if parts["why"]:
        out += [f"**Why.** {parts['why']}", ""]
    for label, key in (("Bad", "bad"), ("Good", "good")):
        if parts[key]:
            out += [f"**{label}:**", "", "```yaml", parts[key], "```", ""]
    if parts["upstream"]:
        out += [f"**Upstream:** {parts['upstream']}", ""]
    return "\n".join(out)


def rule_text(rule: Rule) -> str:
    """Plain text for a terminal without colour: the same content as the Markdown."""
    parts = rule_parts(rule)
    width = 100
    fix = fix_text(rule)
    out = [
        f"{rule.id} {rule.name}",
        f"severity: {rule.severity.value}; {SCOPES.get(rule.scope, rule.scope)}; "
        f"kinds: {kinds_text(rule)}" + (f"; {fix.replace('`', '')}" if fix else ""),
        "",
        parts["summary"],
    ]
    for label, key in (("", "description"), ("Why: ", "why")):
        if parts[key]:
            out.append("")
            for i, paragraph in enumerate(parts[key].split("\n\n")):
                if i:
                    out.append("")
                out.append(textwrap.fill((label if i == 0 else "") + paragraph, width))
    for label, key in (("Bad:", "bad"), ("Good:", "good")):
        if parts[key]:
            out += ["", label, textwrap.indent(parts[key], "    ")]
    if parts["upstream"]:
        out += ["", textwrap.fill("Upstream: " + parts["upstream"], width)]
    out += ["", f"Documentation: {rule_url(rule)}"]
    return "\n".join(out) + "\n"


def rules_markdown(rules: Iterable[Rule]) -> str:
    """The whole of docs/rules.md."""
    rules = list(rules)
    out = [
        "# Rules",
        "",
        "<!-- Generated by scripts/generate_docs.py from the rule docstrings; do not edit. -->",
        "<!-- Edit the docstring in dractl/lint/rules/ and run: python scripts/generate_docs.py -->",
        "",
        "Every diagnostic of `dractl lint` belongs to one of these rules. Rule IDs are stable;",
        "the first digit says what a rule is about. Select, ignore, re-rate and suppress rules by",
        "ID or by prefix (`DRA1` is every apiserver validation rule): see [lint.md](lint.md).",
        "`dractl rules ID` prints a rule's section in the terminal.",
        "",
        "Severities: **error**, the apiserver (or kubectl) would reject the object or the input;",
        "**warning**, accepted but most likely not what the author meant; **info**, worth knowing.",
        "",
        "Fixes: `dractl lint --fix` applies the **safe** fixes of the rules that have one, where",
        "the intent of a finding is certain (`--diff` shows them without writing);",
        "**unsafe** fixes, which change what the cluster grants or selects, only with",
        "`--unsafe-fixes`. See [lint.md](lint.md#fixes).",
        "",
    ]
    out += ["## Index", ""]
    by_family: dict[str, list[Rule]] = {}
    for rule in rules:
        by_family.setdefault(family(rule.id), []).append(rule)
    for name, members in by_family.items():
        out += [
            f"### {name}",
            "",
            "| ID | name | severity | fix | summary |",
            "|---|---|---|---|---|",
        ]
        for rule in members:
            summary = rule.summary.replace("|", "\\|")
            fix = rule.fix.value if rule.fix is not None else ""
            out.append(
                f"| [{rule.id}](#{rule.id.lower()}) | `{rule.name}` | "
                f"{rule.severity.value} | {fix} | {summary} |"
            )
        out.append("")
    for rule in rules:
        out.append(rule_markdown(rule))
    return "\n".join(out).rstrip("\n") + "\n"
