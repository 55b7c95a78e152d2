"""`dractl convert -w` killed at any moment loses no file: each one is either entirely the old
or entirely the new text, and nothing but the writer's own temporary files is left beside them.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    p for p in (ROOT / "examples").rglob("*.yaml") if "v1beta1" in p.name or "v1beta2" in p.name
)
COPIES = 12  # of each example: enough files that the writes take a while
TEMPORARY = re.compile(r"^\.(?P<name>.+)\.[^.]+\.tmp$")  # the writer's temporary files


def make_tree(folder: Path) -> dict[str, bytes]:
    folder.mkdir()
    files = {}
    for copy in range(COPIES):
        for source in SOURCES:
            name = f"{copy:02d}-{source.name}"
            data = source.read_bytes()
            (folder / name).write_bytes(data)
            files[name] = data
    return files


def convert_in_place(folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "dractl", "convert", "-w", str(folder)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Every file as an uninterrupted `convert -w` leaves it."""
    folder = tmp_path_factory.mktemp("reference") / "tree"
    originals = make_tree(folder)
    process = convert_in_place(folder)
    assert process.wait(timeout=600) in (0, 1, 2)
    after = {name: (folder / name).read_bytes() for name in originals}
    changed = [name for name in originals if after[name] != originals[name]]
    assert len(changed) >= COPIES * 5, "too few files change for the test to mean anything"
    return after


def interrupt_while_writing(folder: Path, sig: int, replaced: int) -> int:
    """Start `convert -w` and send ``sig`` once ``replaced`` files were replaced (a new inode:
    the writer renames over them) or, for 0, as soon as the first temporary file appears; return
    the exit status."""
    inodes = {entry.name: entry.inode() for entry in os.scandir(folder)}
    process = convert_in_place(folder)
    deadline = time.monotonic() + 600
    try:
        while process.poll() is None and time.monotonic() < deadline:
            entries = list(os.scandir(folder))
            if replaced == 0 and any(TEMPORARY.match(e.name) for e in entries):
                break
            if replaced and sum(inodes.get(e.name, e.inode()) != e.inode() for e in entries) >= replaced:
                break
            time.sleep(0.0005)
        process.send_signal(sig)
    finally:
        status = process.wait(timeout=600)
    return status


@pytest.mark.parametrize(
    ("sig", "replaced"),
    [
        (signal.SIGKILL, 0),  # while the first temporary file is being written
        (signal.SIGKILL, 40),
        (signal.SIGINT, 0),
        (signal.SIGTERM, 0),
    ],
    ids=["SIGKILL-first", "SIGKILL-later", "SIGINT-first", "SIGTERM-first"],
)
def test_every_file_is_old_or_new_after_a_kill(
    sig: int, replaced: int, converted: dict[str, bytes], tmp_path: Path
) -> None:
    folder = tmp_path / "tree"
    originals = make_tree(folder)
    status = interrupt_while_writing(folder, sig, replaced)
    # killed by the signal, or ended through it (Ctrl-C; SIGTERM while a file is written)
    assert status in (-sig, 128 + sig), f"not interrupted: exit status {status}"
    new = 0
    for name in os.listdir(folder):
        if name in originals:
            data = (folder / name).read_bytes()
            assert data in (originals[name], converted[name]), f"{name} is neither old nor new"
            new += data != originals[name]
        else:
            leftover = TEMPORARY.match(name)
            assert leftover and leftover.group("name") in originals, f"unexpected file {name}"
            # only a kill that cannot be caught leaves a temporary file behind
            assert sig == signal.SIGKILL, f"{name} left behind after {signal.Signals(sig).name}"
    assert new >= replaced
    if sig == signal.SIGKILL:
        # a second run finishes the job and leaves the temporary files alone
        process = convert_in_place(folder)
        assert process.wait(timeout=600) in (0, 1, 2)
        for name, data in converted.items():
            assert (folder / name).read_bytes() == data, name


def test_a_refused_file_is_not_touched(run_dractl, tmp_path: Path) -> None:
    path = tmp_path / "loop.yaml"
    text = (
        "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata: {name: a}\n"
        "---\napiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata: &m {name: b, x: *m}\n"
    )
    path.write_text(text)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    out = run_dractl("convert", "-w", str(path))
    assert out.returncode == 2
    assert f"{path}:7:27:" in out.stdout + out.stderr
    assert path.read_text() == text and path.stat().st_mtime_ns == 1_000_000_000
    assert os.listdir(tmp_path) == ["loop.yaml"]
