"""docs/rules.md is what scripts/generate_docs.py makes from the rule docstrings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_rules_md_is_up_to_date() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate_docs.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_every_rule_has_its_anchor_and_example_blocks() -> None:
    from dractl.lint.docs import rule_url
    from dractl.lint.registry import all_rules

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for rule in all_rules():
        assert f"\n## {rule.id}\n" in text, rule.id
        assert rule_url(rule).endswith(f"rules.md#{rule.id.lower()}")
        section = text.split(f"\n## {rule.id}\n", 1)[1].split("\n## ", 1)[0]
        assert f"**`{rule.name}`**" in section
        assert section.count("```yaml") == 2, f"{rule.id}: a Bad and a Good example"


def test_rules_command(run_dractl) -> None:
    from dractl.lint.registry import all_rules

    listing = run_dractl("rules")
    assert listing.returncode == 0
    assert [line.split()[0] for line in listing.stdout.splitlines()] == [r.id for r in all_rules()]
    one = run_dractl("rules", "dra901")
    assert one.returncode == 0
    assert one.stdout.startswith("DRA901 unused-suppression\n")
    assert "Bad:\n    metadata:" in one.stdout
    assert one.stdout.rstrip().endswith("docs/rules.md#dra901")
    assert run_dractl("rules", "unused-suppression").stdout == one.stdout
    family = run_dractl("rules", "DRA9")
    assert [line.split()[0] for line in family.stdout.splitlines()] == ["DRA901", "DRA902", "DRA903"]
    missing = run_dractl("rules", "DRA999")
    assert missing.returncode == 2
    assert "no rule has the ID, prefix or name 'DRA999'" in missing.stderr


def test_rules_json(run_dractl) -> None:
    import json

    entries = json.loads(run_dractl("rules", "--format", "json", "DRA9").stdout)
    assert [e["id"] for e in entries] == ["DRA901", "DRA902", "DRA903"]
    assert entries[0] == {
        "id": "DRA901",
        "name": "unused-suppression",
        "severity": "warning",
        "scope": "engine",
        "kinds": None,
        "summary": "A `# dractl: ignore` comment suppresses nothing.",
        "url": "https://github.com/dractl/dractl/blob/main/docs/rules.md#dra901",
    }
