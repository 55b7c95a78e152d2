"""`dractl convert -w` killed at any moment loses no file: each one is either entirely the old
or entirely the new text, and nothing but the writer's own temporary files is left beside them.
The same holds for the files that are not written by renaming a new one over them: hard links
(rewritten in place, so that every name sees the new text, and kept), symlinks (their target is
replaced, the link kept) and files with a byte-order mark (kept).
"""

from __future__ import annotations

import os
import random
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


def _interruptible() -> None:
    # A shell starts background jobs with SIGINT ignored, and Python keeps an ignored SIGINT:
    # run from such a job, convert would never see the Ctrl-C this test sends.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def convert_in_place(folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "dractl", "convert", "-w", str(folder)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_interruptible,
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
            if (
                replaced
                and sum(inodes.get(e.name, e.inode()) != e.inode() for e in entries) >= replaced
            ):
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


# -- odd targets: hard links, symlinks, byte-order marks -----------------------------------------

ODD_COPIES = 2  # of each example and each kind: a run that takes a moment, a test of a few seconds
ODD_SOURCES = [p for p in SOURCES if p.parent.name == "good"]  # each one converts cleanly
KINDS = ("plain", "bom", "linked", "twice", "symlink")


def make_odd_tree(base: Path) -> dict[str, bytes]:
    """In ``base/tree``: each example as a plain file, with a UTF-8 byte-order mark, hard-linked
    to a name outside the tree (``base/links``), hard-linked to a second name in the tree, and
    as a symlink to a file outside (``base/targets``). Returns the bytes of every name, those
    outside the tree included (as ``links/NAME``, ``targets/NAME``)."""
    tree, links, targets = base / "tree", base / "links", base / "targets"
    for folder in (tree, links, targets):
        folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, bytes] = {}
    for copy in range(ODD_COPIES):
        for source in ODD_SOURCES:
            data = source.read_bytes()
            for kind in KINDS:
                name = f"{copy:02d}-{kind}-{source.name}"
                if kind == "bom":
                    data_here = b"\xef\xbb\xbf" + data
                    (tree / name).write_bytes(data_here)
                    files[name] = data_here
                    continue
                if kind == "symlink":
                    (targets / name).write_bytes(data)
                    os.symlink(targets / name, tree / name)
                    files[f"targets/{name}"] = data
                else:
                    (tree / name).write_bytes(data)
                if kind == "linked":
                    os.link(tree / name, links / name)
                    files[f"links/{name}"] = data
                if kind == "twice":
                    os.link(tree / name, tree / f"{name}.alias.yaml")
                    files[f"{name}.alias.yaml"] = data
                files[name] = data
    return files


def read_odd_tree(base: Path, files: dict[str, bytes]) -> dict[str, bytes]:
    return {
        name: (base / name if "/" in name else base / "tree" / name).read_bytes() for name in files
    }


@pytest.fixture(scope="module")
def odd_converted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], float]:
    """Every name as an uninterrupted `convert -w` leaves it, and how long that took."""
    base = tmp_path_factory.mktemp("odd-reference")
    originals = make_odd_tree(base)
    start = time.monotonic()
    process = convert_in_place(base / "tree")
    assert process.wait(timeout=600) == 0
    took = time.monotonic() - start
    after = read_odd_tree(base, originals)
    for name, data in originals.items():
        assert after[name] != data, f"{name} was not converted"
        if "-bom-" in name:
            assert after[name].startswith(b"\xef\xbb\xbf") and not after[name].startswith(
                b"\xef\xbb\xbf" * 2
            )
    return after, took


def check_odd_tree(
    base: Path, originals: dict[str, bytes], converted: dict[str, bytes], sig: int
) -> int:
    """Every name old or new, links and symlinks kept, only the writer's temporary files left
    (by SIGKILL only); returns how many names hold the new text."""
    tree = base / "tree"
    now = read_odd_tree(base, originals)
    new = 0
    for name, data in now.items():
        assert data in (originals[name], converted[name]), f"{name} is neither old nor new"
        new += data != originals[name]
    for name in originals:
        if name.startswith("links/"):  # the same file under both names
            assert os.path.samefile(base / name, tree / name.removeprefix("links/")), name
            assert (tree / name.removeprefix("links/")).stat().st_nlink == 2, name
        elif name.endswith(".alias.yaml"):
            assert os.path.samefile(tree / name, tree / name.removesuffix(".alias.yaml")), name
        elif name.startswith("targets/"):
            link = tree / name.removeprefix("targets/")
            assert link.is_symlink() and os.readlink(link) == str(base / name), name
    for folder in ("tree", "links", "targets"):
        for name in os.listdir(base / folder):
            key = name if folder == "tree" else f"{folder}/{name}"
            if key in originals:
                continue
            leftover = TEMPORARY.match(name)
            assert leftover, f"unexpected file {folder}/{name}"
            assert sig == signal.SIGKILL, (
                f"{folder}/{name} left behind after {signal.Signals(sig).name}"
            )
    return new


# Moments in the reference run's duration (a fraction of it, drawn once from a fixed seed: the
# same moments on every run), SIGKILL at most of them, Ctrl-C and SIGTERM at some.
_MOMENTS = random.Random(25)
ODD_CASES = [
    *((signal.SIGKILL, round(_MOMENTS.uniform(0.3, 1.0), 3)) for _ in range(6)),
    (signal.SIGINT, round(_MOMENTS.uniform(0.5, 1.0), 3)),
    (signal.SIGTERM, round(_MOMENTS.uniform(0.5, 1.0), 3)),
]


@pytest.mark.parametrize(
    ("sig", "moment"), ODD_CASES, ids=[f"{signal.Signals(s).name}-at-{m}" for s, m in ODD_CASES]
)
def test_hard_links_symlinks_and_marks_survive_a_kill(
    sig: int, moment: float, odd_converted: tuple[dict[str, bytes], float], tmp_path: Path
) -> None:
    converted, took = odd_converted
    originals = make_odd_tree(tmp_path)
    process = convert_in_place(tmp_path / "tree")
    time.sleep(took * moment)
    if process.poll() is None:
        process.send_signal(sig)
    status = process.wait(timeout=600)
    # interrupted, or done before the signal came (a busy machine makes the run longer)
    assert status in (0, -sig, 128 + sig), f"exit status {status}"
    check_odd_tree(tmp_path, originals, converted, sig if status else signal.SIGKILL)
    # a second run finishes the job, through every kind of name
    process = convert_in_place(tmp_path / "tree")
    assert process.wait(timeout=600) == 0
    assert read_odd_tree(tmp_path, originals) == converted
    check_odd_tree(tmp_path, originals, converted, signal.SIGKILL)


def test_hard_links_symlinks_and_marks_after_each_write(
    odd_converted: tuple[dict[str, bytes], float], tmp_path: Path
) -> None:
    """SIGKILL right after the first, a middle and the last but one name changed (watched as it
    happens, so the moments do not depend on the machine's speed)."""
    converted, _ = odd_converted
    for after in (1, len(converted) // 3, len(converted) - 2):
        base = tmp_path / f"after-{after}"
        originals = make_odd_tree(base)
        process = convert_in_place(base / "tree")
        deadline = time.monotonic() + 600
        while process.poll() is None and time.monotonic() < deadline:
            changed = sum(data != originals[name] for name, data in _peek(base, originals).items())
            if changed >= after:
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.0005)
        process.wait(timeout=600)
        new = check_odd_tree(base, originals, converted, signal.SIGKILL)
        assert new >= min(after, len(converted))


def _peek(base: Path, originals: dict[str, bytes]) -> dict[str, bytes]:
    """The names' bytes as they are now (a name between two states reads as it is)."""
    seen = {}
    for name in originals:
        try:
            seen[name] = (base / name if "/" in name else base / "tree" / name).read_bytes()
        except OSError:
            seen[name] = originals[name]
    return seen
