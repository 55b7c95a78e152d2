"""Hostile input and odd files (issue 25): one test per family, each over the whole class.

Every case runs the real command line in a new process (devices, FIFOs, closed pipes and the
interpreter's own stream encodings exist only there) and holds it to the same contract: exit
code 0, 1 or 2, never a traceback or an "internal error", never a hang, a clear one-line error
with the place for bad input, and no valid file changed.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "examples" / "good"
CLAIM = (GOOD / "claim-gpu-v1.yaml").read_text()
OLD_CLAIM = (GOOD / "claim-gpu-v1beta1.yaml").read_text()
SLICE = (GOOD / "resourceslice-gpu-node-v1.yaml").read_text()
POD_EXAMPLE = ROOT / "examples" / "explain" / "gpu-pod"
TIMEOUT = 60  # seconds: a case that takes longer hangs

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
needs_dev = pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")


def dractl(
    *args: str | Path, input: bytes | None = None, env: dict[str, str] | None = None,
    cwd: Path | None = None, stdout: int | None = subprocess.PIPE,
) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, "DRACTL_NO_CACHE": "1", "NO_COLOR": "1", **(env or {})}
    environment.pop("DRACTL_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "dractl", *map(str, args)],
        input=input if input is not None else b"",
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=environment,
        cwd=cwd or ROOT,
        timeout=TIMEOUT,
        check=False,
    )


def assert_handled(result: subprocess.CompletedProcess[bytes]) -> str:
    """The contract every case shares; returns stderr."""
    err = result.stderr.decode("utf-8", "backslashreplace")
    assert result.returncode in (0, 1, 2), (result.returncode, err)
    assert "Traceback" not in err and "internal error" not in err, err
    return err


def _drain(path: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as fh:
            into.append(fh.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


# -- 1. writing onto something that is not a regular file ------------------------------------

WRITERS = {
    "lint -o": lambda target, src: ("lint", "-o", target, src),
    "convert -o": lambda target, src: ("convert", "-o", target, src),
    "explain --output-file": lambda target, src: ("explain", "--output-file", target, POD_EXAMPLE),
}


@needs_dev
@needs_fifo
@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("target", ["/dev/null", "/dev/zero", "/dev/full", "fifo", "/dev/stdout", "hard link"])
def test_writing_onto_what_is_not_a_regular_file(tmp_path: Path, writer: str, target: str) -> None:
    source = tmp_path / "claim.yaml"
    source.write_text(OLD_CLAIM)
    received: list[bytes] = []
    reader = None
    if target == "fifo":
        path = tmp_path / "out.fifo"
        os.mkfifo(path)
        reader = _drain(path, received)
    elif target == "hard link":
        path = tmp_path / "report.txt"
        path.write_text("earlier report\n")
        os.link(path, tmp_path / "other-name.txt")
    else:
        path = Path(target)
    before = path.stat()
    result = dractl(*WRITERS[writer](path, source))
    err = assert_handled(result)
    after = path.stat()
    # never replaced: the same device, FIFO or file (its inode, so its other names), same type
    assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (before.st_ino, stat.S_IFMT(before.st_mode))
    if target == "/dev/full":
        assert result.returncode == 2 and "No space left on device" in err and err.count("\n") == 1
    else:
        assert result.returncode in (0, 1), err
    if target == "fifo":
        assert reader is not None
        reader.join(TIMEOUT)
        assert received and received[0]
    elif target == "/dev/stdout":
        assert result.stdout  # written where the caller's stdout goes
    elif target == "hard link":
        assert (tmp_path / "other-name.txt").read_bytes() == path.read_bytes() != b"earlier report\n"


def test_convert_in_place_keeps_hard_links_and_the_bom_as_stdout_does(tmp_path: Path) -> None:
    for name, head in (("plain.yaml", b""), ("bom.yaml", b"\xef\xbb\xbf"),
                       ("utf16.yaml", b"\xff\xfe")):
        path = tmp_path / name
        data = head + (OLD_CLAIM.encode("utf-16-le") if head == b"\xff\xfe" else OLD_CLAIM.encode())
        path.write_bytes(data)
        os.link(path, tmp_path / f"link-{name}")
        printed = dractl("convert", path)
        assert_handled(printed)
        result = dractl("convert", "-w", path)
        assert_handled(result)
        assert result.returncode == 0
        written = path.read_bytes()
        assert (tmp_path / f"link-{name}").read_bytes() == written  # the link kept
        assert written.startswith(head) and written != data
        if head != b"\xff\xfe":  # stdout is UTF-8: the same bytes, the same mark
            assert printed.stdout == written


# -- 2. output that cannot be written --------------------------------------------------------

OUTPUT_COMMANDS = [
    ("lint", GOOD),
    ("convert", GOOD),
    ("select", "true", GOOD / "resourceslice-gpu-node-v1.yaml"),
    ("explain", POD_EXAMPLE),
    ("rules",),
    # written outside the repository: the files are not what is tested, the summary line is
    ("schema", "--out", os.path.join(tempfile.gettempdir(), "dractl-test-schemas")),
]


@needs_dev
@pytest.mark.parametrize("args", OUTPUT_COMMANDS, ids=lambda a: a[0])
def test_output_that_cannot_be_written(args: tuple[str | Path, ...]) -> None:
    with open("/dev/full", "wb") as full:
        result = dractl(*args, stdout=full.fileno())
    err = assert_handled(result)
    assert result.returncode == 2
    assert err.splitlines() == ["dractl: error: cannot write the output: No space left on device"]

    # stdout closed (`>&-`): the same, in other words
    closed = subprocess.run(
        [sys.executable, "-m", "dractl", *map(str, args)], cwd=ROOT, capture_output=False,
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(1),
        env={**os.environ, "DRACTL_NO_CACHE": "1"}, timeout=TIMEOUT, check=False,
    )
    err = assert_handled(closed)
    assert closed.returncode == 2
    assert err.splitlines() == ["dractl: error: cannot write the output: standard output is closed"]

    # a reader that goes away (`| head -c 1`): no word on stderr
    process = subprocess.Popen(
        [sys.executable, "-m", "dractl", *map(str, args)], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        env={**os.environ, "DRACTL_NO_CACHE": "1"},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(1)
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(TIMEOUT) in (0, 1, 2)
    assert stderr == ""


# -- 3. text that cannot be encoded ----------------------------------------------------------

SURROGATE_CLAIM = (
    '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"a\\ud800"},'
    '"spec":{"devices":{"requests":[{"name":"r\\udfff","exactly":{"deviceClassName":"gpu",'
    '"selectors":[{"cel":{"expression":"device.driver == \\"\\ud800\\""}}]}}]}}}'
)
UNENCODABLE = [
    (("lint", "-f", fmt, "claim.json"), {}) for fmt in ("text", "json", "sarif", "github", "junit")
] + [
    (("convert", "claim.json"), {}),
    (("explain", "claim.json"), {}),
    (("lint", "claim.json"), {"PYTHONIOENCODING": "ascii"}),
    (("lint", "ünïcode.yaml"), {"PYTHONIOENCODING": "ascii"}),
    (("explain", "ünïcode.yaml"), {"PYTHONIOENCODING": "ascii"}),
    (("select", "device.driver == 'é'", "ünïcode.yaml"), {"PYTHONIOENCODING": "ascii"}),
    ((b"select", b"device.driver == '\xff\xfe'", "ünïcode.yaml".encode()), {}),
]


@pytest.mark.parametrize(("args", "env"), UNENCODABLE, ids=lambda v: repr(v)[:40])
def test_text_that_cannot_be_encoded(tmp_path: Path, args: tuple, env: dict[str, str]) -> None:
    (tmp_path / "claim.json").write_text(SURROGATE_CLAIM)
    (tmp_path / "ünïcode.yaml").write_text(SLICE.replace("gpu-node-1", "gpu-nödé-1", 1))
    if isinstance(args[0], bytes):  # an argument that is not UTF-8 at all
        result = subprocess.run(
            [os.fsencode(sys.executable), b"-m", b"dractl", *args], cwd=tmp_path,
            capture_output=True, timeout=TIMEOUT, check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        err = assert_handled(result)
        assert result.returncode == 2 and "expression:1:" in err and "not valid UTF-8" in err
        return
    result = dractl(*args, cwd=tmp_path, env={"PYTHONPATH": str(ROOT), **env})
    assert_handled(result)
    if args[0] == "lint" and "claim.json" in args:  # read and reported on, the place named
        assert b"claim.json" in result.stdout and b"DRA101" in result.stdout


# -- 4. numbers past the language's limits ---------------------------------------------------

@pytest.mark.parametrize("size", ["9999999999999999999G", "9" * 5000, "9" * 400 + ".5k"])
@pytest.mark.parametrize("command", ["lint", "convert", "explain", "select"])
def test_sizes_past_the_limits(tmp_path: Path, command: str, size: str) -> None:
    path = tmp_path / "slice.yaml"
    path.write_text(SLICE)
    extra = ("true",) if command == "select" else ()
    assert_handled(dractl(command, *extra, "--max-file-size", size, path))
    assert_handled(dractl(command, *extra, "--max-file-size", size, "-", input=SLICE.encode()))


def test_a_quantity_of_4301_digits(tmp_path: Path) -> None:
    path = tmp_path / "slice.yaml"
    path.write_text(SLICE.replace("memory: {value: 80Gi}", "memory: {value: " + "9" * 4301 + "}", 1))
    assert "9" * 4301 in path.read_text()
    assert_handled(dractl("lint", path))
    assert_handled(dractl("explain", path))
    assert_handled(dractl("select", "true", path))


# -- 5. configuration values of the wrong type -----------------------------------------------

@pytest.mark.parametrize(
    ("config", "where"),
    [
        ("strict: !!bool maybe\n", ":1:9: strict: 'maybe' is not a valid !!bool"),
        ("strict: true\nselect: [!!int x]\n", ":2:10: select[0]: 'x' is not a valid !!int"),
        ("severity:\n  DRA1: !!float abc\n", ":2:9: severity.DRA1: 'abc' is not a valid !!float"),
        ("exclude: !!timestamp 2020-99-99\n", ":1:10: exclude: '2020-99-99' is not a valid !!timestamp"),
        ("strict: !!set 3\n", ":1:9: strict: '3' is not a valid !!set"),
    ],
)
def test_configuration_values_of_the_wrong_type(tmp_path: Path, config: str, where: str) -> None:
    (tmp_path / ".dractl.yaml").write_text(config)
    (tmp_path / "claim.yaml").write_text(CLAIM)
    result = dractl("lint", "claim.yaml", cwd=tmp_path, env={"PYTHONPATH": str(ROOT)})
    err = assert_handled(result)
    assert result.returncode == 2
    (line,) = err.splitlines()
    assert line.startswith("dractl: error: ") and line.endswith(f"{os.sep}.dractl.yaml{where}")


# -- 7. files that never end -----------------------------------------------------------------

@needs_fifo
@pytest.mark.parametrize(
    "args", [("lint",), ("convert",), ("convert", "-w"), ("explain",), ("select", "true")],
    ids=" ".join,
)
def test_files_that_never_end(tmp_path: Path, args: tuple[str, ...]) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "slice.yaml").write_text(SLICE)
    os.mkfifo(folder / "never.yaml")
    os.symlink("/dev/zero", folder / "zero.yaml")
    result = dractl(*args, folder)
    err = assert_handled(result)
    assert "never.yaml: a FIFO, not a regular file; skipped" in err
    assert "zero.yaml: a character device, not a regular file; skipped" in err
    assert stat.S_ISFIFO(os.stat(folder / "never.yaml").st_mode)


@needs_fifo
def test_convert_in_place_on_a_named_fifo_prints_instead(tmp_path: Path) -> None:
    fifo = tmp_path / "claim.yaml"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as fh:
            fh.write(OLD_CLAIM)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    result = dractl("convert", "-w", fifo)
    assert_handled(result)
    assert result.returncode == 0 and b"resource.k8s.io/v1\n" in result.stdout
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_named_device_is_read_within_the_size_limit() -> None:
    result = dractl("lint", "--max-file-size", "1M", "/dev/zero")
    err = assert_handled(result)
    assert result.returncode == 2 and "larger than the limit of 1048576 bytes" in err


# -- 8. findings hidden by rule selection ----------------------------------------------------

BROKEN = {
    "syntax": CLAIM + "  extra: [\n",
    "duplicate key": CLAIM.replace("metadata:\n", "metadata:\n  name: a\n", 1),
    "merge key of a scalar": CLAIM.replace("metadata:\n", "metadata:\n  <<: 1\n", 1),
    "too deep": CLAIM + "x: " + "[" * 150 + "]" * 150 + "\n",
}


@pytest.mark.parametrize("selection", [("--select", "DRA1"), ("--select", "DRA9"),
                                       ("--ignore", "DRA0"), ("--ignore", "DRA001")])
@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_findings_hidden_by_rule_selection(tmp_path: Path, broken: str, selection: tuple[str, str]) -> None:
    path = tmp_path / "claim.yaml"
    path.write_text(BROKEN[broken])
    for fmt in ("text", "json"):
        result = dractl("lint", "-f", fmt, *selection, path)
        assert_handled(result)
        assert result.returncode == 2
        assert b"DRA00" in result.stdout and b"0 errors" not in result.stdout


# -- 9. control characters -------------------------------------------------------------------

RAW = ("\x1b", "\x9b", "\x08", "\x00", "\x07")


@pytest.mark.parametrize("fmt", ["text", "github", "junit"])
def test_control_characters_are_made_visible(tmp_path: Path, fmt: str) -> None:
    name = "bad\x1b]0;title\x07\x9b2J\x08.yaml"
    path = tmp_path / name
    path.write_text(CLAIM.replace("name: two-gpus", 'name: "x\\e[2J\\x9b\\b\\0y"'))
    result = dractl("lint", "-f", fmt, path.name, cwd=tmp_path, env={"PYTHONPATH": str(ROOT)})
    err = assert_handled(result)
    out = result.stdout.decode("utf-8")
    assert result.returncode == 1
    for char in RAW:
        assert char not in out and char not in err, repr(char)
    assert "\\x1b" in out and "\\x9b" in out
    if fmt == "junit":
        ET.fromstring(result.stdout)  # valid XML

    for args in (("explain", "--pod", "p\x1b[2J\x9b\x08", POD_EXAMPLE),
                 ("lint", "-o", "out\x1b.txt", "missing\x1b[2J.yaml"),
                 ("convert", path.name)):
        result = dractl(*args, cwd=tmp_path, env={"PYTHONPATH": str(ROOT)})
        err = assert_handled(result)
        for char in RAW:
            assert char not in err, (args, repr(char))


# -- 10. positions ---------------------------------------------------------------------------

@pytest.mark.parametrize("char", ["\x00", "\x7f", "\x0c", "\x1b", "\x9b", "\x08"])
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_every_message_points_at_a_file_and_line(tmp_path: Path, char: str, fmt: str) -> None:
    if fmt == "json" and char in "\x7f\x9b":
        pytest.skip("JSON strings may hold DEL and C1 controls as they are")
    if fmt == "yaml":
        text = CLAIM.rstrip("\n") + f"\n# comment\nextra: a{char}b\n"
    else:
        text = '{"apiVersion": "resource.k8s.io/v1",\n "kind": "ResourceClaim",\n "x": "a' + char + 'b"}\n'
    line = text[: text.index(char)].count("\n") + 1
    path = tmp_path / f"doc.{fmt}"
    path.write_text(text)
    for command in ("lint", "convert", "explain"):
        result = dractl(command, path)
        output = assert_handled(result) + result.stdout.decode()
        assert result.returncode == 2
        assert f"doc.{fmt}:{line}:" in output, output
        assert "<unicode string>" not in output and "position " not in output


def test_a_template_string_hides_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "alerts.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alerts\ndata:\n"
        "  summary: '{{ $labels.instance }} is down'\n"
        "---\n" + CLAIM.replace("name: two-gpus", "name: Not_Valid")
        + "---\nmetadata:\n  name: {{ .Values.name }}-x\n"
    )
    result = dractl("lint", path)
    assert_handled(result)
    out = result.stdout.decode()
    assert result.returncode == 1
    assert "DRA101" in out and "Not_Valid" in out  # the claim was checked
    assert "DRA003" in out and "document 3 (line" in out  # the template document was not
