"""dractl never executes what it reads: YAML tags construct no objects, the package has no eval,
no shell-outs and no network code, and a run over hostile input raises no such audit event."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dractl.load import load_text

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "dractl"

DANGEROUS_BUILTINS = {"eval", "exec", "compile", "__import__", "breakpoint", "input"}
DANGEROUS_OS_CALLS = {
    "system",
    "popen",
    "fork",
    "forkpty",
    "posix_spawn",
    "posix_spawnp",
    "startfile",
    *(f"exec{suffix}" for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
    *(f"spawn{suffix}" for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
}
FORBIDDEN_MODULES = {
    "subprocess",
    "socket",
    "ssl",
    "pickle",
    "marshal",
    "shelve",
    "ctypes",
    "urllib",
    "http",
    "ftplib",
    "smtplib",
    "xmlrpc",
    "multiprocessing",
    "webbrowser",
    "requests",
    "httpx",
    "code",
    "codeop",
    "pty",
}
# PyYAML (convert cross-checks its output with libyaml) may only be used with its safe loaders:
# yaml.load() without a Loader is an error in PyYAML 6, so naming none of these is enough.
UNSAFE_PYYAML = {
    "Loader",
    "UnsafeLoader",
    "FullLoader",
    "CLoader",
    "CUnsafeLoader",
    "CFullLoader",
    "unsafe_load",
    "unsafe_load_all",
    "full_load",
    "full_load_all",
}
# Dynamic imports dractl does, each of a fixed module name (never one read from input).
ALLOWED_DYNAMIC_IMPORTS = {
    ("dractl/report/__init__.py", "import_module"),  # the reporters, by their fixed names
    ("dractl/cli/__init__.py", "import_module"),  # the subcommand modules of COMMANDS
    ("dractl/cel/engines/__init__.py", "import_module"),  # the two CEL engines, by fixed name
}


# Modules allowed in one file only, with the reason.
ALLOWED_IN_FILE = {
    # Forked workers of a lint run: they receive chunk bounds from the parent and send back
    # pickled results the parent itself made; no pickle ever comes from input.
    ("dractl/lint/parallel.py", "multiprocessing"),
    # Forked workers of explain: a child writes back plain data it built itself (marshal reads
    # only what the parent's own fork wrote to a pipe, never input).
    ("dractl/forking.py", "marshal"),
    # The language server's forked checks: the child pickles the diagnostics it computed itself
    # and the server reads them from the fork's pipe; no pickle ever comes from input.
    ("dractl/server/isolated.py", "pickle"),
}
# os calls allowed in one file only: the fork of those workers.
ALLOWED_OS_CALLS_IN_FILE = {("dractl/forking.py", "fork")}


def forbidden_module(name: str, rel: str = "") -> bool:
    top = name.split(".")[0]
    if (rel, top) in ALLOWED_IN_FILE:
        return False
    return top in FORBIDDEN_MODULES and name != "urllib.parse"  # parse: text only


def findings(package: Path = PACKAGE) -> tuple[set[tuple[str, str]], list[str]]:
    dynamic: set[tuple[str, str]] = set()
    bad: list[str] = []
    for path in sorted(package.rglob("*.py")):
        rel = str(path.relative_to(package.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{rel}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names.append(node.module)
                bad += [f"{where}: imports {n}" for n in names if forbidden_module(n, rel)]
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "yaml"
                and node.attr in UNSAFE_PYYAML
            ):
                bad.append(f"{where}: uses yaml.{node.attr}, which constructs Python objects")
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id in DANGEROUS_BUILTINS:
                bad.append(f"{where}: calls {func.id}()")
            if isinstance(func, ast.Attribute):
                owner = func.value.id if isinstance(func.value, ast.Name) else None
                if owner == "os" and func.attr in DANGEROUS_OS_CALLS and (rel, func.attr) not in ALLOWED_OS_CALLS_IN_FILE:
                    bad.append(f"{where}: calls os.{func.attr}()")
                if func.attr in ("import_module", "__import__"):
                    dynamic.add((rel, func.attr))
            if isinstance(func, ast.Name) and func.id == "YAML":
                for keyword in node.keywords:
                    if keyword.arg == "typ":
                        typ = ast.literal_eval(keyword.value)
                        if typ not in ("rt", "safe"):
                            bad.append(f"{where}: YAML(typ={typ!r}) may construct objects")
    return dynamic, bad


def test_the_package_has_no_eval_shell_or_network_code() -> None:
    dynamic, bad = findings()
    assert bad == []
    assert dynamic <= ALLOWED_DYNAMIC_IMPORTS, dynamic - ALLOWED_DYNAMIC_IMPORTS


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    """The scanner above is not blind: it reports each construct in a planted file."""
    package = tmp_path / "dractl"
    package.mkdir()
    (package / "_planted_for_test.py").write_text(
        "import subprocess\nimport os\nfrom urllib import request\n"
        "eval('1')\nos.system('true')\nimportlib.import_module(x)\nYAML(typ='unsafe')\n"
        "yaml.load(text, Loader=yaml.FullLoader)\n"
    )
    dynamic, bad = findings(package)
    rel = "dractl/_planted_for_test.py"
    assert [b for b in bad if b.startswith(rel)] == [
        f"{rel}:1: imports subprocess",
        f"{rel}:3: imports urllib",
        f"{rel}:4: calls eval()",
        f"{rel}:5: calls os.system()",
        f"{rel}:7: YAML(typ='unsafe') may construct objects",
        f"{rel}:8: uses yaml.FullLoader, which constructs Python objects",
    ]
    assert (rel, "import_module") in dynamic


HOSTILE_TAGS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/apply:subprocess.check_output [['touch', '{marker}']]",
    "!!python/object/new:subprocess.Popen [['touch', '{marker}']]",
    "!!python/object:builtins.object {{}}",
    "!!python/name:os.system",
    "!!python/module:os",
    "!!python/tuple [1, 2]",
]


@pytest.mark.parametrize("tag", HOSTILE_TAGS)
def test_python_tags_construct_no_objects(tag: str, tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\n"
        f"  annotations:\n    payload: {tag.format(marker=marker)}\n"
    )
    loaded = load_text(text, "hostile.yaml")
    (obj,) = loaded.objects
    value = obj.raw["metadata"]["annotations"]["payload"]
    assert type(value).__module__.startswith(("ruamel.yaml", "builtins")), type(value)
    assert not callable(value)
    assert not marker.exists()


AUDIT = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from dractl.cli import COMMANDS
    from dractl.cli import run as dractl

    FORBIDDEN = ("socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                 "os.fork", "ctypes.", "urllib.", "webbrowser.", "exec", "compile", "pickle.")
    files = sys.argv[1:]
    runs = [["lint", *files], ["select", "device.driver == 'x'", *files]]
    available = {name for name, _, _ in COMMANDS}
    if "convert" in available:
        runs.append(["convert", *files])
    if "explain" in available:
        runs.append(["explain", *files])
    def run(args):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                return dractl(args)
            except SystemExit as exc:
                return exc.code
            except Exception as exc:  # noqa: BLE001
                return repr(exc)

    for args in runs:  # first round: lazy imports and caches, which compile code legitimately
        run(args)
    events = []
    sys.addaudithook(
        lambda event, args: events.append(event) if event.startswith(FORBIDDEN) else None
    )
    codes = [run(args) for args in runs]
    print(json.dumps({"events": sorted(set(events)), "codes": codes}))
    """
)


def test_a_run_over_hostile_input_raises_no_execution_or_network_event(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    hostile = tmp_path / "hostile.yaml"
    hostile.write_text(
        "".join(
            "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n"
            f"  name: s{i}\nspec:\n  driver: {tag.format(marker=marker)}\n"
            for i, tag in enumerate(HOSTILE_TAGS)
        )
    )
    files = [str(hostile), *map(str, sorted((ROOT / "examples").rglob("*.yaml")))]
    out = subprocess.run(
        [sys.executable, "-c", AUDIT, *files],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["events"] == []
    assert all(code in (0, 1, 2) for code in got["codes"]), got
    assert not marker.exists()
