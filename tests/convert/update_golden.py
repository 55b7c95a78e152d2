"""Rewrite the golden files of ``test_golden.py`` from the current examples.

Run from the repository root: ``python tests/convert/update_golden.py [EXAMPLE...]`` (default:
every example that already has golden files). Check every changed golden file by eye.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from dractl.convert.engine import Options, convert_file  # noqa: E402
from dractl.convert.output import unified_diff  # noqa: E402
from dractl.load import load_paths  # noqa: E402

GOLDEN = Path(__file__).parent / "golden"


def golden_stem(example: Path) -> str:
    """``examples/good/claim.yaml`` → ``good__claim``."""
    relative = example.resolve().relative_to(ROOT / "examples").with_suffix("")
    return relative.as_posix().replace("/", "__")


def example_of(diff: Path) -> Path:
    stem = diff.stem.replace("__", "/")
    (example,) = [p for p in (ROOT / "examples").glob(f"{stem}.*") if p.suffix != ".txt"]
    return example


def update(example: Path) -> None:
    relative = example.resolve().relative_to(ROOT).as_posix()
    source = load_paths([relative]).files[0]
    result = convert_file(source, Options("v1"))
    stem = golden_stem(example)
    converted = GOLDEN / f"{stem}.v1{example.suffix}"
    converted.write_text(result.text, encoding="utf-8", newline="")
    (GOLDEN / f"{stem}.diff").write_text(
        unified_diff(relative, source.text, result.text), encoding="utf-8", newline=""
    )
    print(f"wrote {converted.relative_to(ROOT)} and its .diff")


def main(args: list[str]) -> None:
    import os

    os.chdir(ROOT)
    examples = [Path(a) for a in args] or [example_of(d) for d in sorted(GOLDEN.glob("*.diff"))]
    for example in examples:
        update(example)


if __name__ == "__main__":
    main(sys.argv[1:])
