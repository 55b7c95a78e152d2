"""The atomic writer: encodings and byte-order marks kept, no stray files, no lost updates."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dractl.convert.writer import encode_like, write_atomic
from dractl.errors import InputError


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        (b"a: 1\n", b"b: 2\n"),
        (b"\xef\xbb\xbfa: 1\n", b"\xef\xbb\xbfb: 2\n"),
        ("\ufeffa: 1\n".encode("utf-16-le"), b"\xff\xfe" + "b: 2\n".encode("utf-16-le")),
        ("\ufeffa: 1\n".encode("utf-16-be"), b"\xfe\xff" + "b: 2\n".encode("utf-16-be")),
    ],
    ids=["utf-8", "utf-8-bom", "utf-16-le", "utf-16-be"],
)
def test_encoding_follows_the_original(original: bytes, expected: bytes) -> None:
    assert encode_like("b: 2\n", original) == expected


def test_replaces_the_file_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "claim.yaml"
    target.write_bytes(b"\xef\xbb\xbfold\n")
    os.chmod(target, 0o604)
    write_atomic(str(target), "new\n", expected_original="old\n")
    assert target.read_bytes() == b"\xef\xbb\xbfnew\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o604
    assert [p.name for p in tmp_path.iterdir()] == ["claim.yaml"]


def test_new_file_gets_the_usual_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    mask = os.umask(0o022)
    try:
        write_atomic(str(target), "x\n")
    finally:
        os.umask(mask)
    assert target.read_text() == "x\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_a_file_changed_since_it_was_read_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "claim.yaml"
    target.write_text("edited meanwhile\n")
    with pytest.raises(InputError, match="changed on disk while it was being converted"):
        write_atomic(str(target), "new\n", expected_original="old\n")
    assert target.read_text() == "edited meanwhile\n"
    assert [p.name for p in tmp_path.iterdir()] == ["claim.yaml"]


def test_unwritable_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot write in"):
        write_atomic(str(tmp_path / "missing" / "out.yaml"), "x\n")
