"""What dractl writes, and what it must leave alone (issue 25): commands that only read never
change a file of the tree they read (content, inode, mtime, links), whatever is in it (hard
links, symlinks, FIFOs, sockets, devices) and whatever is named on the command line; output
files (``-o``, ``--output-file``) are written where they are, as what they are, with nothing
left beside them. ``convert -w`` killed while it writes is in test_interrupted_writes.py.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "examples" / "good"
OLD_CLAIM = (GOOD / "claim-gpu-v1beta1.yaml").read_bytes()
OLD_SLICE = (GOOD / "resourceslice-gpu-node-v1beta1.yaml").read_bytes()
POD_EXAMPLE = ROOT / "examples" / "explain" / "gpu-pod"
TIMEOUT = 60  # seconds: a command that takes longer hangs

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")

Entry = tuple[int, int, int, int, bytes | str | None]


def dractl(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    for name in ("DRACTL_DEBUG", "DRACTL_NO_CACHE", "DRACTL_CACHE_DIR"):
        environment.pop(name, None)
    result = subprocess.run(
        [sys.executable, "-m", "dractl", *map(str, args)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=cwd,
        env=environment,
        timeout=TIMEOUT,
        check=False,
    )
    err = result.stderr.decode("utf-8", "backslashreplace")
    assert result.returncode in (0, 1, 2), (result.returncode, err)
    assert "Traceback" not in err and "internal error" not in err, err
    return result


def snapshot(folder: Path) -> dict[str, Entry]:
    """Every entry under ``folder`` (symlinks not followed): type and mode, inode, mtime in
    nanoseconds, number of links, and a regular file's bytes or a symlink's target."""
    entries: dict[str, Entry] = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        content: bytes | str | None = None
        if stat.S_ISREG(info.st_mode):
            content = path.read_bytes()
        elif stat.S_ISLNK(info.st_mode):
            content = os.readlink(path)
        key = str(path.relative_to(folder))
        entries[key] = (info.st_mode, info.st_ino, info.st_mtime_ns, info.st_nlink, content)
    return entries


def odd_tree(base: Path) -> Path:
    """A tree of manifests that convert would change, beside everything a folder can hold."""
    tree = base / "tree"
    (tree / "nested").mkdir(parents=True)
    (tree / "claim.yaml").write_bytes(OLD_CLAIM)
    (tree / "bom.yaml").write_bytes(b"\xef\xbb\xbf" + OLD_SLICE)
    (tree / "utf16.yaml").write_bytes(b"\xff\xfe" + OLD_CLAIM.decode().encode("utf-16-le"))
    (tree / "nested" / "slice.yaml").write_bytes(OLD_SLICE)
    (tree / "broken.yaml").write_bytes(OLD_CLAIM + b"  extra: [\n")
    os.link(tree / "claim.yaml", tree / "hard-link.yaml")
    outside = base / "outside.yaml"
    outside.write_bytes(OLD_SLICE)
    os.link(outside, tree / "linked-outside.yaml")
    os.symlink("claim.yaml", tree / "symlink.yaml")
    os.symlink(outside, tree / "symlink-outside.yaml")
    os.symlink("missing.yaml", tree / "nested" / "dangling.yml")
    os.symlink("/dev/null", tree / "null.yaml")
    os.symlink("/dev/zero", tree / "zero.yaml")
    os.mkfifo(tree / "fifo.yaml")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(tree / "socket.yaml"))
    readonly = tree / "readonly.yaml"
    readonly.write_bytes(OLD_CLAIM)
    readonly.chmod(0o444)
    for path in tree.rglob("*"):  # an old mtime: a rewrite in the same tick would show too
        os.utime(path, ns=(1_000_000_000, 1_000_000_000), follow_symlinks=False)
    return tree


READERS = {
    "convert --check": ("convert", "--check"),
    "convert --check --diff": ("convert", "--check", "--diff"),
    "convert (to stdout)": ("convert",),
    "convert --to v1beta1": ("convert", "--to", "v1beta1"),
    "lint --no-cache": ("lint", "--no-cache"),
    "lint -f json": ("lint", "--no-cache", "-f", "json"),
    "explain": ("explain",),
    "select": ("select", "true"),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_commands_that_only_read_change_nothing(tmp_path: Path, reader: str) -> None:
    tree = odd_tree(tmp_path)
    outside = (tmp_path / "outside.yaml").read_bytes()
    before = snapshot(tree)
    result = dractl(*READERS[reader], tree, cwd=tmp_path)
    assert snapshot(tree) == before
    assert (tmp_path / "outside.yaml").read_bytes() == outside
    assert sorted(os.listdir(tmp_path)) == ["outside.yaml", "tree"]
    if reader.startswith("convert --check"):
        assert result.returncode == 2  # the broken file; the others listed as to be converted
        assert b"would convert" in result.stdout + result.stderr


def test_lint_writes_its_cache_and_nothing_else(tmp_path: Path) -> None:
    tree = odd_tree(tmp_path)
    before = snapshot(tree)
    for _ in range(2):  # a miss that stores the run, then a hit that prints it again
        dractl("lint", ".", cwd=tree)
        after = snapshot(tree)
        assert {k: v for k, v in after.items() if not k.startswith(".dractl_cache")} == before
        assert any(k.startswith(".dractl_cache") for k in after)


def _feed(fifo: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        try:
            with open(fifo, "wb") as fh:
                fh.write(data)
        except OSError:  # the command refused to read it: nothing more to do
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _release(fifo: Path, thread: threading.Thread) -> None:
    """A writer still waiting for a reader (the command never opened the FIFO) is let go."""
    if thread.is_alive():
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    thread.join(TIMEOUT)


NAMED = [
    ("lint", "--no-cache"),
    ("convert", "--check"),
    ("convert", "-w"),
    ("convert",),
    ("explain",),
    ("select", "true"),
]


@pytest.mark.parametrize("target", ["fifo", "/dev/null", "/dev/zero", "symlink to /dev/zero"])
@pytest.mark.parametrize("args", NAMED, ids=" ".join)
def test_fifos_and_devices_named_on_the_command_line(
    tmp_path: Path, args: tuple[str, ...], target: str
) -> None:
    """Read (a device within --max-file-size), never written, never replaced: no command, not
    even convert -w, writes back to what is not a regular file."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "claim.yaml").write_bytes(OLD_CLAIM)
    feeder = None
    if target == "fifo":
        path = tree / "input.yaml"
        os.mkfifo(path)
        feeder = _feed(path, OLD_CLAIM)
    elif target == "symlink to /dev/zero":
        path = tree / "zero.yaml"
        os.symlink("/dev/zero", path)
    else:
        path = Path(target)
        if not path.exists():
            pytest.skip(f"no {target} here")
    devices = {t: os.stat(t) for t in ("/dev/null", "/dev/zero") if os.path.exists(t)}
    before = snapshot(tree)
    try:
        result = dractl(*args, "--max-file-size", "1M", path, cwd=tmp_path)
    finally:
        if feeder is not None:
            _release(path, feeder)
    after = snapshot(tree)
    if feeder is not None:  # the test's own write into the FIFO sets its mtime
        for entries in (before, after):
            mode, inode, _, links, content = entries["input.yaml"]
            entries["input.yaml"] = (mode, inode, 0, links, content)
    assert after == before
    for device, info in devices.items():
        now = os.stat(device)
        assert (now.st_ino, now.st_mode, now.st_rdev) == (info.st_ino, info.st_mode, info.st_rdev)
    err = result.stderr.decode()
    if "zero" in target:  # it never ends: refused at the size limit, on one line
        assert result.returncode == 2
        assert "larger than the limit of 1048576 bytes" in err and err.count("\n") == 1
    elif target == "fifo" and args[0] == "convert":
        assert result.returncode == (1 if "--check" in args else 0), err
        if "--check" not in args:  # printed, as stdin would be, instead of written back
            assert b"apiVersion: resource.k8s.io/v1\n" in result.stdout


def _fifo_reader(path: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as fh:
            into.append(fh.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


WRITERS: dict[str, Callable[[Path, Path], tuple[str | Path, ...]]] = {
    "lint -o": lambda target, src: ("lint", "--no-cache", "-o", target, src),
    "lint -f sarif -o": lambda target, src: (
        "lint",
        "--no-cache",
        "-f",
        "sarif",
        "-o",
        target,
        src,
    ),
    "convert -o": lambda target, src: ("convert", "-o", target, src),
    "explain --output-file": lambda target, src: ("explain", "--output-file", target, POD_EXAMPLE),
}


@pytest.mark.parametrize(
    "target", ["/dev/null", "fifo", "hard link", "symlink", "read-only file", "new file"]
)
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_output_files_are_written_where_they_are(tmp_path: Path, writer: str, target: str) -> None:
    """The output goes into the file, FIFO or device named, which stays what it is: a device
    or FIFO is written in place (its inode and type kept), a file with other hard links too (so
    that they see the report), a symlink's target is replaced (the link kept), a file keeps its
    permissions; nothing is left beside it; the inputs are unchanged."""
    source = tmp_path / "inputs" / "claim.yaml"
    source.parent.mkdir()
    source.write_bytes(OLD_CLAIM)
    out = tmp_path / "out"
    out.mkdir()
    received: list[bytes] = []
    reader = None
    if target == "/dev/null":
        path = Path("/dev/null")
    elif target == "fifo":
        path = out / "report.fifo"
        os.mkfifo(path)
        reader = _fifo_reader(path, received)
    elif target == "hard link":
        path = out / "report.txt"
        path.write_text("earlier report\n")
        os.link(path, out / "other-name.txt")
    elif target == "symlink":
        (out / "real.txt").write_text("earlier report\n")
        path = out / "report.txt"
        os.symlink("real.txt", path)
    elif target == "read-only file":
        path = out / "report.txt"
        path.write_text("earlier report\n")
        path.chmod(0o444)
    else:
        path = out / "report.txt"
    inputs = snapshot(source.parent)
    before = path.stat() if path.exists() else None
    names = set(os.listdir(out))
    result = dractl(*WRITERS[writer](path, source), cwd=tmp_path)
    err = result.stderr.decode()
    assert result.returncode in (0, 1), err
    assert snapshot(source.parent) == inputs
    assert set(os.listdir(out)) == names | ({"report.txt"} if target == "new file" else set())
    after = path.stat()
    if before is not None:
        assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
        assert stat.S_IMODE(after.st_mode) == stat.S_IMODE(before.st_mode)
    if target in ("/dev/null", "fifo", "hard link"):
        assert before is not None and after.st_ino == before.st_ino
    if target == "fifo":
        assert reader is not None
        reader.join(TIMEOUT)
        assert received and received[0]
    elif target == "hard link":
        written = path.read_bytes()
        assert written != b"earlier report\n" and (out / "other-name.txt").read_bytes() == written
        assert after.st_nlink == 2
    elif target == "symlink":
        assert path.is_symlink() and os.readlink(path) == "real.txt"
        assert (out / "real.txt").read_text() != "earlier report\n"
    elif target != "/dev/null":
        assert path.read_bytes() not in (b"", b"earlier report\n")


def test_convert_in_place_through_every_name_of_a_file(tmp_path: Path) -> None:
    """One file named three times among the inputs (itself, a hard link, a symlink) is converted
    once: the other names find it done, not "changed on disk"."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.yaml").write_bytes(OLD_CLAIM)
    os.link(tree / "a.yaml", tree / "b.yaml")
    os.symlink("a.yaml", tree / "c.yaml")
    result = dractl("convert", "-w", tree)
    err = result.stderr.decode()
    assert result.returncode == 0, err
    (line,) = err.splitlines()  # under the name read first
    assert line in {f"converted {tree / name}" for name in ("a.yaml", "b.yaml", "c.yaml")}
    new = (tree / "a.yaml").read_bytes()
    assert new != OLD_CLAIM and b"apiVersion: resource.k8s.io/v1\n" in new
    assert (tree / "b.yaml").read_bytes() == new and os.path.samefile(
        tree / "a.yaml", tree / "b.yaml"
    )
    assert (tree / "c.yaml").is_symlink() and os.readlink(tree / "c.yaml") == "a.yaml"
    assert sorted(os.listdir(tree)) == ["a.yaml", "b.yaml", "c.yaml"]
