"""The habits of a well-behaved command line: --version, completion, help with examples, quiet and
colour switches, results on stdout and errors on stderr, a start-up without heavy imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dractl.cli import COMMANDS
from dractl.cli.options import DEFAULT_MAX_FILE_SIZE, parse_size

ROOT = Path(__file__).resolve().parents[2]
COMMAND_NAMES = [name for name, _, _ in COMMANDS]
CLEAN = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
BROKEN = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu\n"
HEAVY_MODULES = ("jsonschema", "cel_expr_python", "celpy", "ruamel", "rich", "yaml")


def dractl(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dractl", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_version_names_the_package_releases_and_cel_engine() -> None:
    from dractl import __version__
    from dractl.api.releases import DEFAULT_RELEASE, RELEASES

    out = dractl("--version")
    assert out.returncode == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[0] == f"dractl {__version__}"
    assert lines[1] == f"Kubernetes releases: {', '.join(RELEASES)} (default {DEFAULT_RELEASE})"
    from importlib.metadata import version

    from dractl.cel.engines import resolve_engine_name

    in_use = resolve_engine_name(None)
    assert lines[2].startswith(f"CEL engine: {in_use} {version(in_use)}")
    assert dractl("-V").stdout == out.stdout


@pytest.mark.parametrize("name", COMMAND_NAMES)
def test_every_command_help_has_examples_and_exit_codes(name: str) -> None:
    out = dractl(name, "--help")
    assert out.returncode == 0, out.stderr
    assert "Examples" in out.stdout
    examples = [
        line.strip() for line in out.stdout.splitlines() if line.strip().startswith("dractl ")
    ]
    assert any(line.startswith(f"dractl {name}") for line in examples), out.stdout
    assert "Exit codes" in out.stdout


def test_root_help_lists_every_command() -> None:
    out = dractl("--help")
    assert out.returncode == 0
    for name in COMMAND_NAMES:
        assert f" {name} " in out.stdout
    assert dractl().returncode in (0, 2)  # no arguments: help, not a traceback


@pytest.mark.parametrize("args", [["--help"], *[[name, "--help"] for name in COMMAND_NAMES]])
def test_help_does_not_import_heavy_modules(args: list[str]) -> None:
    probe = (
        "import sys\n"
        f"sys.argv = ['dractl', *{args!r}]\n"
        "from dractl.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stdout = sys.__stderr__\n"
        "import json\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.__stdout__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    # the last stdout line is the module list (help text comes before it)
    modules = json.loads(out.stdout.strip().splitlines()[-1])
    loaded = sorted({m.split(".")[0] for m in modules} & set(HEAVY_MODULES))
    assert loaded == [], f"`dractl {' '.join(args)}` imports {loaded}"


SLICE = "examples/good/resourceslice-gpu-node-v1.yaml"


@pytest.mark.parametrize(
    ("args", "unneeded"),
    [
        # the pre-commit case: no CEL selector, no CEL engine either
        (["lint", SLICE], {"cel_expr_python", "celpy"}),
        # dataclasses (with inspect, ast, dis, tokenize) compile every class's methods at import;
        # protobuf's Python runtime is for message values handed to Python, hashlib loads OpenSSL
        (["lint", "examples/good/claim-gpu-v1.yaml"],
         {"celpy", "dataclasses", "inspect", "google.protobuf.message", "hashlib", "decimal"}),
        # the CEL engine's format library imports the validation package when a selector uses it
        (["select", "device.driver == 'gpu.example.com'", SLICE], {"celpy", "dractl.lint", "dractl.api.validation"}),
        # uuid (with platform): only for the IDs of consumed capacity shares
        (["explain", "-o", "json", "examples/explain/gpu-pod"], {"celpy", "dractl.lint", "uuid", "dataclasses", "inspect"}),
    ],
)
def test_a_command_on_valid_input_imports_only_what_it_needs(args: list[str], unneeded: set[str]) -> None:
    """jsonschema explains rejected objects only, rich colours help only, ruamel.yaml reads
    files that are to be rewritten (convert) or that libyaml's reader leaves to it."""
    probe = (
        "import json, sys\n"
        f"sys.argv = ['dractl', *{args!r}]\n"
        "from dractl.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.__stdout__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == 0, out.stderr
    modules = set(json.loads(out.stdout.strip().splitlines()[-1]))
    modules |= {m.split(".")[0] for m in modules}
    unneeded |= {"jsonschema", "rich", "multiprocessing", "ruamel"}
    assert sorted(modules & unneeded) == []


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "complete -o nospace -o default -o bashdefault -F _python_argcomplete dractl"),
        ("zsh", "#compdef dractl"),
        ("fish", "complete --command dractl"),
        ("powershell", "Register-ArgumentCompleter -Native -CommandName dractl"),
    ],
)
def test_show_completion_prints_a_script(shell: str, marker: str) -> None:
    out = dractl("--show-completion", shell)
    assert out.returncode == 0, out.stderr
    assert "_ARGCOMPLETE" in out.stdout
    assert marker in out.stdout
    assert dractl("--show-completion", env={"SHELL": f"/usr/bin/{shell}"}).stdout == out.stdout


def test_install_completion_writes_the_shell_setup(tmp_path: Path) -> None:
    out = dractl("--install-completion", "bash", env={"HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert "source ~/.bash_completions/dractl.sh" in (tmp_path / ".bashrc").read_text()
    script = tmp_path / ".bash_completions" / "dractl.sh"
    assert "_python_argcomplete dractl" in script.read_text()
    again = dractl("--install-completion", "bash", env={"HOME": str(tmp_path)})
    assert again.returncode == 0
    assert (tmp_path / ".bashrc").read_text().count("dractl.sh") == 1
    fish = dractl("--install-completion", "fish", env={"HOME": str(tmp_path)})
    assert fish.returncode == 0, fish.stderr
    assert (tmp_path / ".config/fish/completions/dractl.fish").is_file()


def complete(line: str, tmp_path: Path) -> list[str]:
    """What the shell would offer after ``line`` (argcomplete's protocol, as its scripts run it)."""
    answer = tmp_path / "completions"
    env = {
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "_ARGCOMPLETE_STDOUT_FILENAME": str(answer),
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
    }
    out = dractl(env=env)
    assert out.returncode == 0, out.stderr
    return answer.read_text().split()


def test_completion_completes_subcommands_and_options(tmp_path: Path) -> None:
    assert complete("dractl li", tmp_path) == ["lint"]
    assert complete("dractl lint --col", tmp_path) == ["--color"]
    assert complete("dractl lint --color ", tmp_path) == ["auto", "always", "never"]
    assert complete("dractl explain -o ", tmp_path) == ["text", "json", "yaml", "html"]


def test_quiet_prints_nothing_when_clean() -> None:
    out = dractl("lint", "--quiet", "-", stdin=CLEAN)
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        (["--color", "always"], {}, True),
        (["--color", "always"], {"NO_COLOR": "1"}, True),  # an explicit flag wins
        (["--color", "never"], {}, False),
        ([], {}, False),  # auto: stdout is a pipe here
        (["--color", "auto"], {"NO_COLOR": "1"}, False),
    ],
)
def test_color_switch(args: list[str], env: dict[str, str], coloured: bool) -> None:
    out = dractl("lint", *args, "-", stdin=BROKEN, env=env)
    assert out.returncode == 2
    assert ("\x1b[" in out.stdout) is coloured


def test_no_color_turns_auto_off_on_a_terminal() -> None:
    from dractl.cli.options import use_color

    class Terminal:
        def isatty(self) -> bool:
            return True

    saved = os.environ.pop("NO_COLOR", None)
    try:
        assert use_color("auto", Terminal()) is True  # type: ignore[arg-type]
        os.environ["NO_COLOR"] = "1"
        assert use_color("auto", Terminal()) is False  # type: ignore[arg-type]
        os.environ["NO_COLOR"] = ""  # no-color.org: only a non-empty value counts
        assert use_color("auto", Terminal()) is True  # type: ignore[arg-type]
    finally:
        os.environ.pop("NO_COLOR", None)
        if saved is not None:
            os.environ["NO_COLOR"] = saved


def test_results_on_stdout_errors_on_stderr(tmp_path: Path) -> None:
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"kind: \xff\n")
    out = dractl("lint", "--format", "json", "-", str(binary), stdin=CLEAN)
    assert out.returncode == 2
    assert json.loads(out.stdout)["summary"]["objects"] == 1  # stdout stays machine-readable
    assert out.stderr.startswith(f"dractl: error: {binary}: byte 6 is not valid UTF-8")
    missing = dractl("lint", "--format", "json", "missing.yaml")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr == "dractl: error: missing.yaml: no such file or directory\n"
    usage = dractl("lint", "--no-such-option", "-", stdin=CLEAN)
    assert usage.returncode == 2 and usage.stdout == ""
    assert usage.stderr == (
        "dractl lint: error: unrecognized arguments: --no-such-option\n"
        "See 'dractl lint --help'.\n"
    )


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("1000", 1000),
        ("10b", 10),
        ("512k", 512 * 1024),
        ("512KiB", 512 * 1024),
        ("64M", 64 * 1024**2),
        ("64MB", 64 * 1024**2),
        ("1.5G", 3 * 1024**3 // 2),
        (" 2 m ", 2 * 1024**2),
    ],
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "x", "-1", "0", "1T", "1e6", "64 M B"])
def test_parse_size_rejects(text: str) -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        parse_size(text)


def test_default_max_file_size_is_the_loaders() -> None:
    from dractl.load import Limits

    assert Limits().max_file_bytes == DEFAULT_MAX_FILE_SIZE


# Every command that reads manifests, with the arguments it needs before the paths.
READERS = {"lint": [], "select": ["true"]}


@pytest.mark.parametrize("name", COMMAND_NAMES)
def test_every_command_that_reads_files_has_max_file_size(name: str) -> None:
    from dractl.cli import command_parser

    actions = command_parser(name)._actions
    options = {opt for action in actions for opt in action.option_strings}
    if "paths" in {action.dest for action in actions}:
        assert "--max-file-size" in options, (
            f"dractl {name} reads files: call add_max_file_size(parser) from "
            "dractl.cli.options and pass `limits(args.max_file_size)` to load_paths"
        )


@pytest.mark.parametrize("command", sorted(READERS))
def test_max_file_size_is_honoured_by(command: str) -> None:
    args = [command, *READERS[command]]
    out = dractl(*args, "--max-file-size", "50", "-", stdin=CLEAN)
    assert out.returncode == 2
    assert "<stdin>: larger than the limit of 50 bytes (raise it with --max-file-size SIZE)" in out.stderr
    assert dractl(*args, "--max-file-size", "1k", "-", stdin=CLEAN).returncode == 0


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_max_file_size_option(tmp_path: Path, source: str) -> None:
    path = tmp_path / "claim.yaml"
    path.write_text(CLEAN)
    target = "-" if source == "stdin" else str(path)
    name = "<stdin>" if source == "stdin" else str(path)
    out = dractl("lint", "--max-file-size", "50", target, stdin=CLEAN)
    assert out.returncode == 2
    assert out.stderr == (
        f"dractl: error: {name}: larger than the limit of 50 bytes (raise it with --max-file-size SIZE)\n"
    )
    assert dractl("lint", "--max-file-size", "1k", target, stdin=CLEAN).returncode == 0
    env = {"DRACTL_MAX_FILE_SIZE": "50"}
    assert dractl("lint", target, stdin=CLEAN, env=env).returncode == 2
    bad = dractl("lint", "--max-file-size", "lots", target, stdin=CLEAN)
    assert bad.returncode == 2 and "'lots' is not a size" in bad.stderr


@pytest.mark.parametrize(("name", "module", "summary"), COMMANDS)
def test_command_table_summary_is_the_description_of_the_command(
    name: str, module: str, summary: str
) -> None:
    """`dractl --help` lists the commands without importing them; the table must not go stale."""
    import importlib

    assert importlib.import_module(module).DESCRIPTION.splitlines()[0] == summary, name


@pytest.mark.parametrize(
    ("args", "status"),
    [(["--version"], 0), (["lint", "examples/bad/claim-gpu-request-mistakes-v1.yaml"], 1), (["nope"], 2),
     (["lint", "--format", "json", "examples/"], 1)],
)
def test_the_executable_exits_as_main_does_without_teardown(args: list[str], status: int) -> None:
    """entry_point ends the process with os._exit: every byte written, atexit functions run, the
    exit status and output of main() in a process that tears down as usual."""
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('atexit ran', file=sys.stderr))\n"
        f"sys.argv = ['dractl', *{args!r}]\n"
        "from dractl.cli import {}\n"
        "{}()\n"
    )
    fast, usual = (
        subprocess.run([sys.executable, "-c", probe.format(name, name)], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
        for name in ("entry_point", "main")
    )
    assert (fast.returncode, fast.stdout, fast.stderr) == (usual.returncode, usual.stdout, usual.stderr)
    assert fast.returncode == status
    assert fast.stderr.endswith("atexit ran\n")
    if "json" in args:
        assert json.loads(fast.stdout)["summary"]["files"] > 40  # a long report, whole
