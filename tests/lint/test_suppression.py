"""Inline suppressions: which lines each directive covers, and DRA901-DRA903 for idle or wrong ones."""

from __future__ import annotations

import pytest

from dractl.diagnostics import Diagnostic, Position, Severity
from dractl.lint.config import PathPattern
from dractl.lint.engine import Settings
from dractl.lint.suppression import apply_suppressions, comments
from dractl.load import LoadResult, load_text
from dractl.load.documents import Document, SourceFile, split_documents

PATH = "manifest.yaml"


def _diag(rule: str, line: int, column: int = 3) -> Diagnostic:
    return Diagnostic(rule, Severity.ERROR, f"{rule} fired", Position(PATH, line, column))


def _split(text: str) -> LoadResult:
    """A file split into documents as the loader splits it (parsing is not needed here)."""
    source = SourceFile(PATH, text, "yaml")
    source.documents = [
        Document(source, i, chunk, start) for i, (start, chunk) in enumerate(split_documents(text))
    ]
    return LoadResult(files=[source])


def _run(
    text: str, found: list[tuple[str, int]], settings: Settings | None = None
) -> list[tuple[str, int]]:
    loaded = _split(text)
    kept = apply_suppressions(
        [_diag(rule, line) for rule, line in found], loaded, settings or Settings()
    )
    return sorted((d.rule, d.position.line) for d in kept if d.position is not None)


# (id, manifest, diagnostics the rules found (rule, line), what remains (rule, line))
CASES = [
    (
        "a directive on a block scalar's first line covers the whole scalar",
        "e: >-  # dractl: ignore[DRA200]\n  device.driver == 'x' &&\n  device.nosuch\nf: 2\n",
        [("DRA200", 3), ("DRA200", 4)],
        [("DRA200", 4)],
    ),
    (
        "a directive before a block scalar covers the whole scalar",
        "# dractl: ignore[DRA2]\ne: |\n  a &&\n\n  b\nf: 2\n",
        [("DRA200", 5), ("DRA210", 3), ("DRA200", 6)],
        [("DRA200", 6)],
    ),
    (
        "a directive before a multi-line quoted scalar covers the whole scalar",
        '# dractl: ignore[DRA200]\ne: "a &&  # not a comment\n  b"\nf: "c &&\n  d"\n',
        [("DRA200", 2), ("DRA200", 3), ("DRA200", 5)],
        [("DRA200", 5)],
    ),
    (
        "end-of-line covers its line",
        "a: 1  # dractl: ignore[DRA001]\nb: 2\n",
        [("DRA001", 1), ("DRA001", 2)],
        [("DRA001", 2)],
    ),
    (
        "own line covers the next line with content",
        "# dractl: ignore[DRA001]\n\n# a note\nb: 2\nc: 3\n",
        [("DRA001", 4), ("DRA001", 5)],
        [("DRA001", 5)],
    ),
    (
        "prefixes and lists, any case",
        "a: 1  # dractl: ignore[dra00, DRA002]\n",
        [("DRA001", 1), ("DRA002", 1), ("DRA004", 1)],
        [],
    ),
    (
        "other rules on the line stay",
        "a: 1  # dractl: ignore[DRA001]\n",
        [("DRA001", 1), ("DRA004", 1)],
        [("DRA004", 1)],
    ),
    (
        "without brackets: every rule on the line",
        "a: 1  # dractl: ignore -- generated file, fixed upstream\n",
        [("DRA001", 1), ("DRA004", 1)],
        [],
    ),
    (
        "ignore-document covers only its document",
        "a: 1\n# dractl: ignore-document[DRA004]\nb: 2\n---\nc: 3\n",
        [("DRA004", 1), ("DRA004", 3), ("DRA004", 5)],
        [("DRA004", 5)],
    ),
    (
        "ignore-file covers every document, wherever it is",
        "a: 1\n---\nb: 2\n# dractl: ignore-file[DRA004]\n",
        [("DRA004", 1), ("DRA004", 3)],
        [],
    ),
    (
        "unused code is reported where the comment is",
        "a: 1  # dractl: ignore[DRA001, DRA004]\n",
        [("DRA004", 1)],
        [("DRA901", 1)],
    ),
    (
        "unused blanket suppression",
        "a: 1\n# dractl: ignore\nb: 2\n",
        [("DRA004", 1)],
        [("DRA004", 1), ("DRA901", 2)],
    ),
    (
        "own-line directive at the end of a document covers nothing",
        "a: 1\n# dractl: ignore[DRA004]\n---\nb: 2\n",
        [("DRA004", 4)],
        [("DRA004", 4), ("DRA901", 2)],
    ),
    (
        "unknown codes",
        "a: 1  # dractl: ignore[DRA7, E501]\n",
        [],
        [("DRA902", 1), ("DRA902", 1)],
    ),
    (
        "unknown and known code together: the known one still works",
        "a: 1  # dractl: ignore[DRA77, DRA004]\n",
        [("DRA004", 1)],
        [("DRA902", 1)],
    ),
    (
        "not a directive",
        "a: 1  # dractl: disable[DRA004]\nb: 2  # dractl: ignore[DRA004]x\n",
        [("DRA004", 1)],
        [("DRA004", 1), ("DRA903", 1), ("DRA903", 2)],
    ),
    (
        "a meta diagnostic yields to a directive naming its family",
        "# dractl: ignore-file[DRA9]\na: 1  # dractl: ignore[DRA001]\n",
        [],
        [],
    ),
    (
        "a blanket directive does not hide its own unused report",
        "a: 1  # dractl: ignore\n",
        [],
        [("DRA901", 1)],
    ),
    (
        "text that only looks like a directive is not one",
        'a: "x # dractl: ignore[DRA004]"\nb: |\n  # dractl: ignore[DRA004]\n  text\nc: 3\n',
        [("DRA004", 1), ("DRA004", 3), ("DRA004", 5)],
        [("DRA004", 1), ("DRA004", 3), ("DRA004", 5)],
    ),
]


@pytest.mark.parametrize(("text", "found", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_suppression(text: str, found: list[tuple[str, int]], expected: list[tuple[str, int]]) -> None:
    assert _run(text, found) == sorted(expected)


def test_disabled_rule_is_not_reported_as_unused() -> None:
    text = "a: 1  # dractl: ignore[DRA001]\n"
    assert _run(text, [], Settings(ignore=("DRA001",))) == []
    assert _run(text, [], Settings(select=("DRA004",))) == []
    assert _run(text, [], Settings()) == [("DRA901", 1)]


def test_per_file_ignores_apply_first() -> None:
    from pathlib import Path

    ignores = ((PathPattern("*.yaml", Path.cwd()), ("DRA001",)),)
    settings = Settings(per_file_ignores=ignores)
    # ignored for the file: gone, and the inline directive for it is not "unused" either
    assert _run("a: 1  # dractl: ignore[DRA001]\n", [("DRA001", 1)], settings) == []
    assert _run("a: 1\n", [("DRA001", 1), ("DRA004", 1)], settings) == [("DRA004", 1)]


def test_meta_rules_follow_severity_overrides_and_select() -> None:
    loaded = _split("a: 1  # dractl: ignore[DRA001]\n")
    kept = apply_suppressions([], loaded, Settings(severity_overrides={"DRA901": Severity.ERROR}))
    assert [(d.rule, d.severity) for d in kept] == [("DRA901", Severity.ERROR)]
    assert apply_suppressions([], loaded, Settings(ignore=("DRA9",))) == []


def test_unused_message_names_code_and_place() -> None:
    loaded = _split("# dractl: ignore[DRA004]\na: 1\n")
    (meta,) = apply_suppressions([], loaded, Settings())
    assert meta.message == "unused suppression: no DRA004 diagnostic on the next line to suppress"
    assert meta.position == Position(PATH, 1, 1)


# (line of YAML, the comment found or None)
COMMENT_CASES = [
    ("key: value  # note", "# note"),
    ("# whole line", "# whole line"),
    ("key: a#b", None),
    ("key: 'a # b'", None),
    ("key: 'it''s # x' # y", "# y"),
    ('key: "a \\" # b" # c', "# c"),
    ("description: it's # here", "# here"),
    ("list: [a, 'b # c', d] # e", "# e"),
    ("url: http://x#frag", None),
    ("- 'x' # after a sequence item", "# after a sequence item"),
]


@pytest.mark.parametrize(("line", "expected"), COMMENT_CASES)
def test_comment_on_one_line(line: str, expected: str | None) -> None:
    found = [c.text for c in comments(line)]
    assert found == ([expected] if expected else [])


def test_comments_skip_block_scalars_and_multiline_quotes() -> None:
    text = (
        "a: |\n"  # 1
        "  # inside a literal\n"  # 2
        "  text  # still inside\n"  # 3
        "b: 1  # real\n"  # 4
        "c:\n"  # 5
        "- key: >-\n"  # 6
        "    # folded content\n"  # 7
        "  other: x  # real too\n"  # 8
        'd: "multi\n'  # 9
        '  # not a comment\n'  # 10
        '  line" # real again\n'  # 11
        "- |\n"  # 12
        "  # item content\n"  # 13
        "# top-level comment ends the block\n"  # 14
    )
    assert [(c.line, c.text, c.own_line) for c in comments(text)] == [
        (4, "# real", False),
        (8, "# real too", False),
        (11, "# real again", False),
        (14, "# top-level comment ends the block", True),
    ]


def test_other_yaml_is_not_reported_on() -> None:
    loaded = load_text("steps:\n- run: x  # dractl: ignore[DRA004]\n", "workflow.yaml")
    assert apply_suppressions([], loaded, Settings()) == []


def test_lint_end_to_end(run_dractl) -> None:
    manifest = "metadata: {}  # dractl: ignore[DRA004]\n---\nmetadata: {}\n"
    out = run_dractl("lint", "--no-config", "-", stdin=manifest)
    assert out.returncode == 1
    assert "<stdin>:1:" not in out.stdout
    assert out.stdout.startswith("<stdin>:3:1: error DRA004")
