"""examples/: every good manifest lints clean; every bad one prints exactly its golden output.

``examples/bad/NAME.yaml`` has ``examples/bad/NAME.expected.txt``: the output of
``dractl lint --no-config --color never bad/NAME.yaml`` run in ``examples/``. A folder
``examples/bad/NAME/`` is one example too, its files linted together as one set, with
``--context bad/NAME.context.yaml`` when that file exists. One bad example also has
``NAME.expected.json`` (``--format json``), pinning the machine format. After a change in rules
or reporters, ``pytest tests/test_examples.py --update-golden`` rewrites the goldens; read the
diff before committing it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _infixes(path: Path) -> set[str]:
    return {f".{part}." for part in path.name.split(".")[1:-1]}


EXAMPLES = ROOT / "examples"
GOOD = sorted(p for p in (EXAMPLES / "good").glob("*") if p.suffix in (".yaml", ".yml", ".json"))
BAD = sorted(
    p
    for p in (EXAMPLES / "bad").glob("*")
    if p.is_dir()
    or (p.suffix in (".yaml", ".yml", ".json") and not {".expected.", ".context."} & _infixes(p))
)
JSON_GOLDEN = "claim-gpu-request-mistakes-v1"  # the example whose JSON output is pinned too


def _lint(run_dractl, *args: str):
    return run_dractl("lint", "--no-config", "--color", "never", *args, cwd=EXAMPLES)


def _check_golden(path: Path, actual: str, update: bool, example: Path) -> None:
    if update:
        path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(
            f"{example.relative_to(ROOT)} has no golden file {path.relative_to(ROOT)}; run "
            "`pytest tests/test_examples.py --update-golden`, then read the new file and check "
            "by eye that every diagnostic in it is one the example means to show",
            pytrace=False,
        )
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, (
        f"output differs from {path.relative_to(ROOT)} "
        "(if the change is intended: pytest tests/test_examples.py --update-golden)"
    )


# Good examples are written in every API version on purpose (for `dractl convert`), so the notes
# that an API version is deprecated or not served by default are expected there.
VERSION_NOTES = {"DRA400", "DRA401"}
# Known findings in good examples, each with its reason; the test fails when one disappears.
KNOWN_IN_GOOD: dict[tuple[str, str], str] = {}


def test_good_examples_lint_clean(run_dractl) -> None:
    assert GOOD, "examples/good/ is empty"
    out = _lint(run_dractl, "--format", "json", "good")
    assert "Traceback" not in out.stderr
    payload = json.loads(out.stdout)
    found = {
        (d["file"], d["rule"]): f"{d['file']}:{d['line']}:{d['column']}: {d['rule']} {d['message']}"
        for d in payload["diagnostics"]
        if d["rule"] not in VERSION_NOTES
    }
    unexpected = [text for key, text in found.items() if key not in KNOWN_IN_GOOD]
    assert not unexpected, "good examples must lint clean:\n" + "\n".join(unexpected)
    gone = [f"{f} {r}" for f, r in KNOWN_IN_GOOD if (f, r) not in found]
    assert not gone, f"no longer found, remove from KNOWN_IN_GOOD: {gone}"
    assert payload["summary"]["errors"] == 0
    # examples/README.md says which good examples carry the deprecation warning: exactly the
    # v1beta1 and v1beta2 ones.
    deprecated = {d["file"] for d in payload["diagnostics"] if d["rule"] == "DRA400"}
    assert deprecated == {f"good/{p.name}" for p in GOOD if "-v1beta" in p.name}


@pytest.mark.parametrize("example", BAD, ids=[p.name for p in BAD])
def test_bad_example_matches_golden(example: Path, run_dractl, update_golden: bool) -> None:
    relative = example.relative_to(EXAMPLES).as_posix()
    context = example.with_name(example.name + ".context.yaml")
    options = ["--context", context.relative_to(EXAMPLES).as_posix()] if context.exists() else []
    out = _lint(run_dractl, *options, relative)
    # Best-practice and capacity findings are warnings: exit 0, yet the example is not clean.
    summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    findings = out.returncode in (1, 2) or not summary.startswith("0 errors, 0 warnings")
    assert findings, f"{relative} is in bad/ but lints clean:\n{out.stdout}"
    assert "Traceback" not in out.stderr
    golden = example.with_name(
        (example.name if example.is_dir() else example.stem) + ".expected.txt"
    )
    _check_golden(golden, out.stdout, update_golden, example)


def test_json_golden(run_dractl, update_golden: bool) -> None:
    example = EXAMPLES / "bad" / f"{JSON_GOLDEN}.yaml"
    if not example.exists():
        pytest.skip(f"examples/bad/{JSON_GOLDEN}.yaml is gone; pin another example's JSON")
    out = _lint(run_dractl, "--format", "json", f"bad/{example.name}")
    payload = json.loads(out.stdout)
    assert payload["summary"]["errors"] == sum(
        d["severity"] == "error" for d in payload["diagnostics"]
    )
    _check_golden(example.with_name(f"{JSON_GOLDEN}.expected.json"), out.stdout, update_golden, example)


def test_no_orphan_goldens() -> None:
    names = {p.name if p.is_dir() else p.stem for p in BAD}
    orphans = [
        p.name
        for pattern, infix in (("*.expected.*", ".expected."), ("*.context.yaml", ".context."))
        for p in (EXAMPLES / "bad").glob(pattern)
        if p.name.split(infix)[0] not in names
        or (infix == ".context." and not (EXAMPLES / "bad" / p.name.split(infix)[0]).is_dir())
    ]
    assert not orphans, f"golden or context files without their example: {orphans}"
