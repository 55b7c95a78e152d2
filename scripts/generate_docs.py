#!/usr/bin/env python3
"""Generate ``docs/rules.md`` from the rule registry's docstrings.

Usage::

    python scripts/generate_docs.py           # (re)write docs/rules.md
    python scripts/generate_docs.py --check   # exit 1 (with a diff) if docs/rules.md is stale
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
RULES_MD = REPO_ROOT / "docs" / "rules.md"


def render() -> str:
    sys.path.insert(0, str(REPO_ROOT))
    from dractl.lint.docs import rules_markdown
    from dractl.lint.registry import all_rules

    return rules_markdown(all_rules())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 if docs/rules.md is stale"
    )
    args = parser.parse_args(argv)
    expected = render()
    current = RULES_MD.read_text(encoding="utf-8") if RULES_MD.exists() else ""
    if args.check:
        if current == expected:
            return 0
        diff = difflib.unified_diff(
            current.splitlines(keepends=True),
            expected.splitlines(keepends=True),
            "docs/rules.md (committed)",
            "docs/rules.md (generated)",
        )
        sys.stdout.writelines(list(diff)[:200])
        print("\ndocs/rules.md is stale: run `python scripts/generate_docs.py` and commit it.")
        return 1
    if current != expected:
        RULES_MD.write_text(expected, encoding="utf-8")
        print(f"wrote {RULES_MD.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
