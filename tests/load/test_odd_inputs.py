"""What the loader decides about odd inputs (issue 25): lone surrogates, characters YAML does not
allow, template actions, and folders holding things that are not regular files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dractl.errors import InputError
from dractl.load import load_paths, load_text
from dractl.load.sources import expand_paths

CLAIM = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: {name}\nspec: {{}}\n"


@pytest.mark.parametrize("comments", [True, False])
@pytest.mark.parametrize(
    ("text", "path"),
    [
        ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a\\ud800"}}', "x.json"),
        ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "a\\ud800"\n', "x.yaml"),
        ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "a\\udfff"\n', "x.yaml"),
        ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  "k\\ud800": "a\\ud800"\n', "x.yaml"),
    ],
)
def test_lone_surrogates_become_replacement_characters(text: str, path: str, comments: bool) -> None:
    """As kubectl's decoders (Go's encoding/json, go-yaml) make them."""
    loaded = load_text(text, path, comments=comments)
    assert not loaded.failed
    (obj,) = loaded.objects
    written = repr(obj.raw)
    assert "\\ud8" not in written and "\\udf" not in written
    assert "\ufffd" in written


@pytest.mark.parametrize(
    ("char", "name"),
    [("\x00", "U+0000 (NUL)"), ("\x7f", "U+007F (DEL)"), ("\x0c", "U+000C (form feed)"),
     ("\x1b", "U+001B (ESC)"), ("\x9b", "U+009B"), ("\x08", "U+0008 (backspace)")],
)
@pytest.mark.parametrize("comments", [True, False])
def test_characters_yaml_does_not_allow_are_placed(char: str, name: str, comments: bool) -> None:
    text = CLAIM.format(name="a") + f"# fine\nextra: ab{char}c\n"
    loaded = load_text(text, "x.yaml", comments=comments)
    (problem,) = loaded.diagnostics
    assert problem.rule == "DRA001"
    assert (problem.position.line, problem.position.column) == (7, 10)
    assert name in problem.message and "<unicode string>" not in problem.message


@pytest.mark.parametrize("comments", [True, False])
@pytest.mark.parametrize(
    ("documents", "objects", "skipped"),
    [
        # a template string inside a value: read and checked
        (["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  t: '{{ $x }}'\n"], 1, []),
        # a Helm action where a value goes: skipped, and said which
        ([CLAIM.format(name="a"), "metadata:\n  name: {{ .Values.name }}\n"], 1, [2]),
        ([CLAIM.format(name="a"), "metadata:\n  name: {{ .Values.name }}-x\n"], 1, [2]),
        (["{{- if .Values.on }}\n" + CLAIM.format(name="a") + "{{- end }}\n"], 0, [1]),
        # a commented-out action is no template
        ([CLAIM.format(name="a") + "# {{ .Values.x }}\n"], 1, []),
    ],
)
def test_only_documents_that_are_templates_are_skipped(
    documents: list[str], objects: int, skipped: list[int], comments: bool
) -> None:
    loaded = load_text("---\n".join(documents), "t.yaml", comments=comments)
    assert len(loaded.objects) == objects
    templates = [d for d in loaded.diagnostics if d.rule == "DRA003"]
    assert len(templates) == len(skipped)
    for diagnostic, index in zip(templates, skipped, strict=True):
        assert "render it first" in diagnostic.message
        if len(documents) > 1:
            assert f"document {index} (line {diagnostic.position.line})" in diagnostic.message
    assert not loaded.failed


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_folders_are_walked_for_regular_files_only(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(CLAIM.format(name="a"))
    os.mkfifo(tmp_path / "b.yaml")
    os.symlink("/dev/null", tmp_path / "c.yaml")
    os.symlink(tmp_path / "a.yaml", tmp_path / "d.yaml")
    os.symlink(tmp_path / "missing.yaml", tmp_path / "e.yaml")
    skipped: list[str] = []
    found = [Path(p).name for p in expand_paths([str(tmp_path)], skipped)]
    assert found == ["a.yaml", "d.yaml"]
    assert [s.removeprefix(str(tmp_path) + os.sep) for s in skipped] == [
        "b.yaml: a FIFO, not a regular file; skipped",
        "c.yaml: a character device, not a regular file; skipped",
        # a repository may hold a link whose target is not checked out: told, not a stop
        "e.yaml: a broken symbolic link, not a regular file; skipped",
    ]
    loaded = load_paths([str(tmp_path)])
    assert len(loaded.skipped) == 3 and len(loaded.objects) == 2 and not loaded.unreadable
    # named on the command line, it is an error as any missing file is
    with pytest.raises(InputError, match=r"e\.yaml: no such file or directory"):
        list(expand_paths([str(tmp_path / "e.yaml")]))
