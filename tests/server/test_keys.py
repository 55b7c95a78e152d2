"""How the server names documents: files by absolute path, anything else by its URI."""

from __future__ import annotations

import os

import pytest

from dractl.server.keys import inside, is_file, key_of, uri_of

ROOT = os.path.abspath(os.sep)  # "/" (a drive's root on Windows)
FOLDER = os.path.join(ROOT, "work", "infra")
FILE = os.path.join(FOLDER, "claim.yaml")


@pytest.mark.parametrize(
    ("uri", "key", "file"),
    [
        (uri_of(FILE), FILE, True),
        ("untitled:Untitled-1", "untitled:Untitled-1", False),
        (
            "vscode-vfs://github/org/repo/claim.yaml",
            "vscode-vfs://github/org/repo/claim.yaml",
            False,
        ),
        ("git:/work/infra/claim.yaml?%7B%7D", "git:/work/infra/claim.yaml?%7B%7D", False),
    ],
)
def test_key_of(uri: str, key: str, file: bool) -> None:
    assert key_of(uri) == key
    assert is_file(key) is file
    assert key_of(uri_of(key)) == key


@pytest.mark.parametrize(
    ("key", "root", "expected"),
    [
        (FILE, FOLDER, True),
        (FOLDER, FOLDER, True),
        (FOLDER + "-old" + os.sep + "claim.yaml", FOLDER, False),  # a sibling with the same start
        (FILE, ROOT, True),
        ("untitled:Untitled-1", FOLDER, False),
    ],
)
def test_inside(key: str, root: str, expected: bool) -> None:
    assert inside(key, root) is expected
