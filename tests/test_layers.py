"""The packages stand on each other in layers (docs/architecture.md, "Layers"): a module imports
only modules of its own package and of packages in lower layers; packages side by side in one
layer (lint, explain, convert) do not import each other.

Every import statement counts, also those inside functions and under ``TYPE_CHECKING``: a
function-level import is how a dependency that runs back up comes in unnoticed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Lowest first.
LAYERS: list[tuple[str, ...]] = [
    ("dractl.records",),
    ("dractl", "dractl.digests", "dractl.errors", "dractl.diagnostics", "dractl.forking", "dractl.synthetic"),
    ("dractl.load",),
    ("dractl.api",),
    ("dractl.cel",),
    ("dractl.allocator",),
    ("dractl.scheduler",),
    ("dractl.lint", "dractl.explain", "dractl.convert"),
    ("dractl.report",),
    ("dractl.server",),
    ("dractl.cli",),
    ("dractl.__main__",),
]

# (importing module, imported module) -> why the edge is allowed although it runs up a layer.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str, is_package: bool) -> Iterator[tuple[str, int]]:
    """Every dractl module that `source` (the text of `module`) imports, with its line: plain and
    relative imports, at any depth (functions, ``if TYPE_CHECKING:``, ``try``)."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            # `from dractl import lint` imports dractl.lint; `from dractl import __version__`, dractl
            names = [f"dractl.{a.name}" for a in node.names] if origin == "dractl" else [origin]
        else:
            continue
        for name in names:
            if name == "dractl" or name.startswith("dractl."):
                yield name, node.lineno


def layer_package(module: str) -> str | None:
    """The package of LAYERS that `module` belongs to (the longest that contains it)."""
    found = [p for layer in LAYERS for p in layer if module == p or module.startswith(p + ".")]
    return max(found, key=len, default=None)


def layer_of(package: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if package in layer)


def modules(root: Path = ROOT) -> list[Path]:
    return sorted((root / "dractl").rglob("*.py"))


def violations(root: Path = ROOT) -> list[str]:
    out: list[str] = []
    for path in modules(root):
        module = module_name(path, root)
        own = layer_package(module)
        assert own is not None
        for name, line in imports(path.read_text(), module, path.name == "__init__.py"):
            target = layer_package(name)
            if target is None or target == own or (module, name) in EXCEPTIONS:
                continue
            if layer_of(target) >= layer_of(own):
                where = f"{path.relative_to(root).as_posix()}:{line}"
                side = "beside" if layer_of(target) == layer_of(own) else "above"
                out.append(f"{where}: {module} imports {name} ({target} is {side} {own})")
    return out


def test_every_module_is_in_a_layer() -> None:
    unplaced = [module_name(p) for p in modules() if layer_package(module_name(p)) is None]
    assert unplaced == [], "add the package to LAYERS and to docs/architecture.md"


def test_no_import_runs_up_or_sideways() -> None:
    assert violations() == []


def test_the_exceptions_are_used_and_import_nothing_of_dractl_above_the_lowest_layer() -> None:
    edges = {
        (module_name(p), name)
        for p in modules()
        for name, _ in imports(p.read_text(), module_name(p), p.name == "__init__.py")
    }
    for importer, imported in EXCEPTIONS:
        assert (importer, imported) in edges, f"{importer} no longer imports {imported}: drop the exception"
        path = ROOT.joinpath(*imported.split(".")).with_suffix(".py")
        # the lowest layer (dractl.records) is below every module of dractl
        below = {name for name, _ in imports(path.read_text(), imported, False)} - set(LAYERS[0])
        assert below == set(), imported


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        ("import dractl.lint.engine\n", "dractl.api.x", ["dractl.lint.engine"]),
        (
            "def f():\n    from dractl.explain import run\n",
            "dractl.lint.rules.capacity",
            ["dractl.explain"],
        ),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from dractl.cli import main\n",
            "dractl.api.x",
            ["dractl.cli"],
        ),
        ("from ..lint import engine\n", "dractl.api.x", ["dractl.lint"]),
        ("from dractl import lint, __version__\n", "dractl.api.x", ["dractl.lint", "dractl.__version__"]),
        ("import json\nfrom rich import print\n", "dractl.api.x", []),
    ],
)
def test_imports_are_found_at_any_depth(source: str, module: str, expected: list[str]) -> None:
    assert [name for name, _ in imports(source, module, False)] == expected


def test_an_upward_import_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "dractl"
    (root / "api").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "api" / "__init__.py").write_text("")
    (root / "api" / "model.py").write_text("def f():\n    from dractl.lint.engine import Finding\n")
    assert violations(tmp_path) == [
        "dractl/api/model.py:2: dractl.api.model imports dractl.lint.engine (dractl.lint is above dractl.api)"
    ]


def test_the_architecture_document_draws_these_layers() -> None:
    """docs/architecture.md's layer table, top row first: one row per layer of LAYERS."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if re.match(r"^\| \d+ \|", line)]
    drawn = [tuple(re.findall(r"`(dractl[\w.]*)`", row.split("|")[2])) for row in rows]
    assert drawn == list(reversed(LAYERS))
