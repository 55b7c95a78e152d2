"""Hostile input and odd files (issue 25): one test per family, each over the whole class.

Every case runs the real command line in a new process (devices, FIFOs, closed pipes and the
interpreter's own stream encodings exist only there) and holds it to the same contract: exit
code 0, 1 or 2, never a traceback or an "internal error", never a hang, a clear one-line error
with the place for bad input, and no valid file changed.

The families and where their tests are (all in tests/robustness/):

1. writing onto what is not a regular file: here; test_file_safety.py (output files, commands
   that only read); test_interrupted_writes.py (hard links, symlinks, marks under a kill)
2. output that cannot be written: here
3. text that cannot be encoded, and inputs in other encodings: here; test_fuzz.py (reencode,
   lone_surrogate)
4. numbers past the limits: here; test_fuzz.py (numbers_at_limits); test_numbers_at_limits.py
5. configuration values of the wrong type: here
6. CEL selectors that grow at run time: test_cel_runtime_limits.py; benchmarks/fuzz.py
   (mutations.CEL_MEMORY_SELECTORS)
7. files that never end (FIFOs, devices): here; test_file_safety.py (named on the command line)
8. findings hidden by rule selection: here; benchmarks/fuzz.py (a selection per input)
9. control characters: here; test_fuzz.py (control_character)
10. positions: here; test_fuzz.py (every message of every fuzzed input)
11. large inputs: test_large_inputs.py, test_limits.py
"""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest


def _load(name: str) -> ModuleType:
    path = Path(__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"dractl_robustness_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


harness = _load("harness")  # its rule for messages: FILE:LINE:COLUMN

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
    *args: str | Path,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    stdout: int | None = subprocess.PIPE,
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
@pytest.mark.parametrize(
    "target", ["/dev/null", "/dev/zero", "/dev/full", "fifo", "/dev/stdout", "hard link"]
)
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
    assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (
        before.st_ino,
        stat.S_IFMT(before.st_mode),
    )
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
        assert (
            (tmp_path / "other-name.txt").read_bytes() == path.read_bytes() != b"earlier report\n"
        )


def test_convert_in_place_keeps_hard_links_and_the_bom_as_stdout_does(tmp_path: Path) -> None:
    for name, head in (
        ("plain.yaml", b""),
        ("bom.yaml", b"\xef\xbb\xbf"),
        ("utf16.yaml", b"\xff\xfe"),
    ):
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
        [sys.executable, "-m", "dractl", *map(str, args)],
        cwd=ROOT,
        capture_output=False,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(1),
        env={**os.environ, "DRACTL_NO_CACHE": "1"},
        timeout=TIMEOUT,
        check=False,
    )
    err = assert_handled(closed)
    assert closed.returncode == 2
    assert err.splitlines() == ["dractl: error: cannot write the output: standard output is closed"]

    # a reader that goes away (`| head -c 1`): no word on stderr
    process = subprocess.Popen(
        [sys.executable, "-m", "dractl", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
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
            [os.fsencode(sys.executable), b"-m", b"dractl", *args],
            cwd=tmp_path,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        err = assert_handled(result)
        assert result.returncode == 2 and "expression:1:" in err and "not valid UTF-8" in err
        return
    result = dractl(*args, cwd=tmp_path, env={"PYTHONPATH": str(ROOT), **env})
    assert_handled(result)
    if args[0] == "lint" and "claim.json" in args:  # read and reported on, the place named
        assert b"claim.json" in result.stdout and b"DRA101" in result.stdout


# -- 3. (input) encodings that are not UTF-8 -------------------------------------------------

_NAME_LINE = CLAIM[: CLAIM.index("two-gpus")].count("\n") + 1
_NAME_BYTE = len(CLAIM.splitlines()[_NAME_LINE - 1].split("two-gpus")[0].encode()) + 1
_UTF16 = b"\xff\xfe" + CLAIM.encode("utf-16-le")
ENCODINGS = [
    # (bytes, lint's exit code, a text every message holds or None)
    pytest.param(b"\xef\xbb\xbf" + CLAIM.encode(), 0, None, id="UTF-8 with its mark"),
    pytest.param(_UTF16, 0, None, id="UTF-16 LE with its mark"),
    pytest.param(b"\xfe\xff" + CLAIM.encode("utf-16-be"), 0, None, id="UTF-16 BE with its mark"),
    pytest.param(
        CLAIM.replace("two-gpus", "twö-gpus").encode("latin-1"),
        2,
        f"(line {_NAME_LINE}, byte {_NAME_BYTE + 2} of the line, 0xf6)",
        id="Latin-1",
    ),
    pytest.param(
        CLAIM.replace("two-gpus", "two\udcc0\udcafgpus").encode("utf-8", "surrogateescape"),
        2,
        f"(line {_NAME_LINE}, byte {_NAME_BYTE + 3} of the line, 0xc0)",
        id="overlong UTF-8",
    ),
    pytest.param(
        CLAIM.replace("two-gpus", "two\ud800gpus").encode("utf-8", "surrogatepass"),
        2,
        f"(line {_NAME_LINE}, byte {_NAME_BYTE + 3} of the line, 0xed)",
        id="an encoded surrogate",
    ),
    pytest.param(
        b"\xef\xbb\xbf\xff\xfe" + CLAIM.encode(),
        2,
        "(line 1, byte 1 of the line, 0xff)",
        id="UTF-8's mark, then UTF-16's",
    ),
    pytest.param(
        (CLAIM + "---\n\ufeff" + CLAIM).encode(), 2, None, id="a mark after the first line"
    ),
    pytest.param(CLAIM.encode("utf-16-le"), 2, None, id="UTF-16 without its mark"),
    pytest.param(CLAIM.encode("utf-32"), 2, None, id="UTF-32 with its mark"),
    pytest.param(_UTF16[:-1], 2, None, id="UTF-16 cut after an odd byte"),
    pytest.param(
        _UTF16[:40] + b"\x00\xd8" + _UTF16[40:],
        2,
        None,
        id="UTF-16 with half a surrogate pair",
    ),
]


@pytest.mark.parametrize(("data", "code", "text"), ENCODINGS)
def test_inputs_in_other_encodings(
    tmp_path: Path, data: bytes, code: int, text: str | None
) -> None:
    """Read where dractl reads it (UTF-8, UTF-16 after its mark, as kubectl), refused otherwise
    with the place of the first byte it cannot read, never passed as a file without objects."""
    path = tmp_path / "claim.yaml"
    path.write_bytes(data)
    for command in ("lint", "convert", "explain"):
        result = dractl(command, path)
        err = assert_handled(result)
        out = result.stdout.decode("utf-8", "backslashreplace")
        outcome = harness.Outcome(command, result.returncode, 0.0, stdout=out, stderr=err)
        assert harness.unplaced(outcome) == [], (command, err, out[:2000])
        if command == "lint":
            assert result.returncode == code, (err, out[:2000])
        elif code == 2:
            assert result.returncode == 2, (command, err)
        if text is not None:
            assert text in err, (command, err)


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
    path.write_text(
        SLICE.replace("memory: {value: 80Gi}", "memory: {value: " + "9" * 4301 + "}", 1)
    )
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
        (
            "exclude: !!timestamp 2020-99-99\n",
            ":1:10: exclude: '2020-99-99' is not a valid !!timestamp",
        ),
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
    "args",
    [("lint",), ("convert",), ("convert", "-w"), ("explain",), ("select", "true")],
    ids=" ".join,
)
def test_files_that_never_end(tmp_path: Path, args: tuple[str, ...]) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "slice.yaml").write_text(SLICE)
    os.mkfifo(folder / "never.yaml")
    os.symlink("/dev/zero", folder / "zero.yaml")
    os.symlink("gone.yaml", folder / "dangling.yaml")
    result = dractl(*args, folder)
    err = assert_handled(result)
    assert "never.yaml: a FIFO, not a regular file; skipped" in err
    assert "zero.yaml: a character device, not a regular file; skipped" in err
    assert "dangling.yaml: a broken symbolic link, not a regular file; skipped" in err
    assert stat.S_ISFIFO(os.stat(folder / "never.yaml").st_mode)
    # the slice was read all the same
    assert "no such file" not in err.lower()
    if args[0] == "select":
        assert result.returncode == 0 and b"gpu" in result.stdout


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


@pytest.mark.parametrize(
    "selection",
    [("--select", "DRA1"), ("--select", "DRA9"), ("--ignore", "DRA0"), ("--ignore", "DRA001")],
)
@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_findings_hidden_by_rule_selection(
    tmp_path: Path, broken: str, selection: tuple[str, str]
) -> None:
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

    for args in (
        ("explain", "--pod", "p\x1b[2J\x9b\x08", POD_EXAMPLE),
        ("lint", "-o", "out\x1b.txt", "missing\x1b[2J.yaml"),
        ("convert", path.name),
    ):
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
        text = (
            '{"apiVersion": "resource.k8s.io/v1",\n "kind": "ResourceClaim",\n "x": "a'
            + char
            + 'b"}\n'
        )
    line = text[: text.index(char)].count("\n") + 1
    path = tmp_path / f"doc.{fmt}"
    path.write_text(text)
    for command in ("lint", "convert", "explain"):
        result = dractl(command, path)
        output = assert_handled(result) + result.stdout.decode()
        assert result.returncode == 2
        assert f"doc.{fmt}:{line}:" in output, output
        assert "<unicode string>" not in output and "position " not in output


NEWLINE_IN_A_NAME = (
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n"
    '  name: "two\\nlines"\n  namespace: "ml\\e[2J"\nspec:\n  metadata: "x"\n  spec: {}\n'
)


@pytest.mark.parametrize(
    "args",
    [
        ("explain", "template.yaml"),  # a decode error naming the object
        ("explain", "--pod", "a\nb", POD_EXAMPLE),  # an input error naming the argument
        ("lint", "-o", "x\ny/out.txt", "template.yaml"),  # a write error naming the file
        ("convert", "-o", "x\ny/out.yaml", "template.yaml"),
    ],
    ids=lambda a: a[0] + " " + a[1],
)
def test_a_newline_in_a_name_does_not_split_a_message(tmp_path: Path, args: tuple) -> None:
    """An error is one line, whatever the names in it hold: a second line would name no place."""
    (tmp_path / "template.yaml").write_text(NEWLINE_IN_A_NAME)
    result = dractl(*args, cwd=tmp_path, env={"PYTHONPATH": str(ROOT)})
    err = assert_handled(result)
    assert result.returncode == 2
    (line,) = err.splitlines()
    assert line.startswith("dractl: error: ") and "\\x0a" in line and "\x1b" not in line
    outcome = harness.Outcome(args[0], 2, 0.0, stdout="", stderr=err)
    if args[1] == "template.yaml":  # the input's own place
        assert harness.unplaced(outcome) == [] and "template.yaml:7:13: " in line


def test_a_newline_in_a_value_does_not_split_a_diagnostic(tmp_path: Path) -> None:
    path = tmp_path / "class.json"
    path.write_text(
        '{"apiVersion": "resource.k8s.io/v1", "kind": "Device\\nClass", "metadata": {}}\n'
    )
    result = dractl("lint", path)
    err = assert_handled(result)
    out = result.stdout.decode()
    assert result.returncode == 1 and "DRA403" in out
    assert harness.unplaced(harness.Outcome("lint", 1, 0.0, stdout=out, stderr=err)) == [], out


POD = (POD_EXAMPLE / "pod.yaml").read_text()
def _value_at(text: str, reference: str) -> str:
    """``:LINE:COLUMN:`` of the value of ``reference`` (``key: value``) in ``text``."""
    at = text.index(reference) + reference.index(": ") + 2
    return f":{text[:at].count(chr(10)) + 1}:{at - text.rindex(chr(10), 0, at)}:"


@pytest.mark.parametrize(
    "reference",
    ["resourceClaimTemplateName: two-gpus-same-numa", "resourceClaimName: two-gpus-same-numa"],
)
def test_a_reference_to_what_is_not_in_the_input(tmp_path: Path, reference: str) -> None:
    """explain stops at a claim that a Pod references and the input lacks: the message says
    where the reference is."""
    text = POD.replace("resourceClaimTemplateName: two-gpus-same-numa", reference)
    path = tmp_path / "pod.yaml"
    path.write_text(text.replace("name: two-gpus-same-numa", "name: another-template", 1))
    result = dractl("explain", path, POD_EXAMPLE / "cluster.yaml")
    err = assert_handled(result)
    assert result.returncode == 2 and "is not in the input" in err
    assert f"{path}{_value_at(text, reference)}" in err, err


def test_a_template_string_hides_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "alerts.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alerts\ndata:\n"
        "  summary: '{{ $labels.instance }} is down'\n"
        "---\n"
        + CLAIM.replace("name: two-gpus", "name: Not_Valid")
        + "---\nmetadata:\n  name: {{ .Values.name }}-x\n"
    )
    result = dractl("lint", path)
    assert_handled(result)
    out = result.stdout.decode()
    assert result.returncode == 1
    assert "DRA101" in out and "Not_Valid" in out  # the claim was checked
    assert "DRA003" in out and "document 3 (line" in out  # the template document was not
