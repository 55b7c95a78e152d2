"""``dractl lint --fix --unsafe-fixes`` on every bad example (a copy): each file it changes reads
as its golden ``tests/lint/fixes/NAME.fixed.yaml`` (for a folder example ``NAME/FILE.fixed.yaml``);
linted again, the findings that had a fix are gone, no finding is new, and every other one is
still there but those :data:`ALSO_RESOLVED` names (a fix that removes their cause as well).

After a change in a fix, ``pytest tests/lint/test_fix_examples.py --update-golden`` rewrites the
goldens; read the diff before committing it.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).parent / "fixes"
VERSION_RULES = {"DRA400", "DRA401", "DRA402"}  # their fix (a conversion) is worked out by --fix


def _bad_examples() -> list[Path]:
    out = []
    for path in sorted((EXAMPLES / "bad").iterdir()):
        infixes = {f".{part}." for part in path.name.split(".")[1:-1]}
        if path.is_dir() or (
            path.suffix in (".yaml", ".yml", ".json") and not {".expected.", ".context."} & infixes
        ):
            out.append(path)
    return out


BAD = _bad_examples()
# Findings that a fix of another finding resolves too, each with the reason; checked both ways.
ALSO_RESOLVED: dict[tuple[str, str], str] = {
    ("admin-access-namespace-v1.yaml", "DRA310"): (
        "the namespace with the old label key gets the new one (DRA311's unsafe fix), which "
        "allows the claim's admin access"
    ),
    ("best-practice-v1.yaml", "DRA110"): (
        "`cel:` was empty (Required value) until the expression was indented under it (DRA010)"
    ),
    ("claim-gpu-flat-fields-v1beta1.yaml", "DRA120"): (
        "v1beta1 defaults allocationMode only for a request with a deviceClassName; v1, which "
        "the conversion (DRA400) writes, defaults it for every `exactly` request"
    ),
}
# "other.yaml:12:3" and "other.yaml:12" in messages name places that a fix may move
_PLACE_RE = re.compile(r"[\w./-]+\.(?:yaml|yml|json):\d+(?::\d+)?")


def _key(d: dict) -> tuple:
    """A diagnostic without its position (a fix moves text): what it says about what."""
    message = _PLACE_RE.sub("<place>", d["message"])
    return (
        d["file"],
        d["rule"],
        d["severity"],
        d["field"],
        d["type"],
        d["kind"],
        d["name"],
        message,
    )


def _lint_json(run_dractl, cwd: Path, options: list[str], target: str) -> list[dict]:
    out = run_dractl("lint", "--no-config", "-f", "json", *options, target, cwd=cwd)
    assert "Traceback" not in out.stderr
    return json.loads(out.stdout)["diagnostics"]


def _golden(example: Path, relative: Path) -> Path:
    name = relative.relative_to("bad")
    return GOLDEN / name.with_name(name.name.rsplit(".", 1)[0] + ".fixed.yaml")


@pytest.mark.parametrize("example", BAD, ids=[p.name for p in BAD])
def test_fix_of_a_bad_example(
    example: Path, run_dractl, tmp_path: Path, update_golden: bool
) -> None:
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy)
    target = example.relative_to(EXAMPLES).as_posix()
    context = example.with_name(example.name + ".context.yaml")
    options = ["--context", context.relative_to(EXAMPLES).as_posix()] if context.exists() else []
    before = _lint_json(run_dractl, copy, options, target)

    out = run_dractl(
        "lint",
        "--no-config",
        "--color",
        "never",
        "--fix",
        "--unsafe-fixes",
        *options,
        target,
        cwd=copy,
    )
    assert "Traceback" not in out.stderr
    files = [example] if example.is_file() else sorted(example.rglob("*.y*ml"))
    changed = [f for f in files if (copy / f.relative_to(EXAMPLES)).read_text() != f.read_text()]
    for original in files:
        relative = original.relative_to(EXAMPLES)
        golden = _golden(example, relative)
        if original not in changed:
            assert not golden.exists(), f"{relative} is not changed by --fix: remove {golden.name}"
            continue
        fixed = (copy / relative).read_text()
        if update_golden:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(fixed)
        assert golden.exists(), f"no golden {golden.relative_to(ROOT)}: run with --update-golden"
        assert fixed == golden.read_text(), f"{relative} (update with --update-golden)"

    # What had a fix is gone, nothing is new, everything else is still there (or listed).
    fixable = [d for d in before if d["fix"] is not None or d["rule"] in VERSION_RULES]
    after = _lint_json(run_dractl, copy, options, target)
    left = Counter(_key(d) for d in before) - Counter(_key(d) for d in fixable)
    now = Counter(_key(d) for d in after)
    assert not now - left, "new findings after --fix"
    resolved = {key[1] for key in left - now}
    listed = {rule for name, rule in ALSO_RESOLVED if name == example.name}
    assert resolved == listed, "findings gone without a fix of their own: see ALSO_RESOLVED"
    assert all(d["fix"] is None for d in after)
    if fixable:
        files_fixed = len(changed)
        noun = "finding" if len(fixable) == 1 else "findings"
        assert f"Fixed {len(fixable)} {noun} in {files_fixed} file" in out.stdout
    else:
        assert not changed
        assert "Fixed" not in out.stdout


def test_no_orphan_goldens() -> None:
    names = {p.name if p.is_dir() else p.name.rsplit(".", 1)[0] for p in BAD}
    orphans = [
        p.relative_to(GOLDEN).as_posix()
        for p in GOLDEN.rglob("*.fixed.yaml")
        if p.relative_to(GOLDEN).parts[0].removesuffix(".fixed.yaml") not in names
    ]
    assert not orphans, f"goldens without their example: {orphans}"
