"""``dractl rules``: list the lint rules, or print one rule's documentation."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from dractl.cli.options import add_color, use_color

if TYPE_CHECKING:
    from dractl.lint.registry import Rule

DESCRIPTION = """\
List the lint rules, or print the documentation of one rule.
"""

EPILOG = """
Examples:
  dractl rules                  # every rule: ID, name, severity, fix, summary
  dractl rules DRA2             # the CEL rules (an ID prefix)
  dractl rules DRA101           # one rule's documentation
  dractl rules invalid-object-metadata    # the same rule, by name
  dractl rules --format json    # the list as JSON

Exit codes: 0 printed, 2 no rule has that ID, prefix or name.
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "rule",
        metavar="RULE",
        nargs="?",
        help="A rule ID (DRA101), ID prefix (DRA1) or rule name.",
    )
    parser.add_argument(
        "-f",
        "--format",
        metavar="FORMAT",
        choices=("text", "json"),
        default="text",
        help="Output format: text or json.",
    )
    add_color(parser)


def run(args: argparse.Namespace) -> int:
    from dractl.errors import UsageError
    from dractl.lint.docs import rule_markdown, rule_text
    from dractl.lint.registry import all_rules

    every = all_rules()
    chosen = every
    if args.rule is not None:
        wanted = args.rule.strip()
        exact = [r for r in every if r.id == wanted.upper() or r.name == wanted.lower()]
        if exact:
            (one,) = exact
            if args.format == "json":
                _json([_entry(one, with_doc=True)])
            elif use_color(args.color):
                from rich.console import Console
                from rich.markdown import Markdown

                Console().print(Markdown(rule_markdown(one, heading="#")))
            else:
                sys.stdout.write(rule_text(one))
            return 0
        chosen = [r for r in every if r.id.startswith(wanted.upper())]
        if not chosen:
            raise UsageError(
                f"no rule has the ID, prefix or name {args.rule!r}; see `dractl rules`"
            )
    if args.format == "json":
        _json([_entry(r) for r in chosen])
        return 0
    width = max(len(r.name) for r in chosen)
    for r in chosen:
        # "safe" / "unsafe": lint --fix (with --unsafe-fixes) fixes what the rule finds
        fix = r.fix.value if r.fix is not None else "-"
        sys.stdout.write(
            f"{r.id}  {r.name:<{width}}  {r.severity.value:<7}  {fix:<6}  {r.summary}\n"
        )
    return 0


def _entry(rule: Rule, *, with_doc: bool = False) -> dict[str, object]:
    from dractl.lint.docs import rule_url

    entry: dict[str, object] = {
        "id": rule.id,
        "name": rule.name,
        "severity": rule.severity.value,
        "scope": rule.scope,
        "kinds": sorted(rule.kinds) if rule.kinds else None,
        "summary": rule.summary,
        "url": rule_url(rule),
    }
    if rule.fix is not None:  # only rules with a fix have the key: "safe" or "unsafe"
        entry["fix"] = rule.fix.value
    if with_doc:
        entry["doc"] = rule.doc
    return entry


def _json(entries: list[dict[str, object]]) -> None:
    json.dump(entries, sys.stdout, indent=2)
    sys.stdout.write("\n")
