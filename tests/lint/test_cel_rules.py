"""CEL rules: what cannot be written out as a case file (long expressions), and the compile cache."""

from __future__ import annotations

import pytest

from dractl.api.releases import Features
from dractl.diagnostics import Diagnostic
from dractl.lint.engine import Settings, lint
from dractl.load import load_text

LIMIT = 10 * 1024  # CELSelectorExpressionMaxLength, bytes


def _class(expression: str) -> str:
    return (
        "apiVersion: resource.k8s.io/v1\n"
        "kind: DeviceClass\n"
        "metadata:\n"
        "  name: gpu.example.com\n"
        "spec:\n"
        "  selectors:\n"
        "  - cel:\n"
        f"      expression: '{expression}'\n"
    )


def _lint(text: str, release: str = "1.36") -> list[Diagnostic]:
    settings = Settings(features=Features(release), select=("DRA2",))
    return lint(load_text(text, "class.yaml"), settings).diagnostics


def _padded(length_bytes: int, filler: str = "a") -> str:
    """A valid selector of exactly ``length_bytes`` UTF-8 bytes (a string literal pads it)."""
    head = 'device.driver != "'
    tail = '"'
    room = length_bytes - len((head + tail).encode())
    width = len(filler.encode())
    assert room % width == 0
    return head + filler * (room // width) + tail


@pytest.mark.parametrize(
    ("length", "filler", "too_long"),
    [
        (LIMIT, "a", False),
        (LIMIT + 1, "a", True),
        # The limit counts bytes: some 3,400 characters, most of three bytes, are over it.
        (LIMIT + 3, "€", True),
        (LIMIT, "€", False),
    ],
)
def test_expression_length_is_counted_in_bytes(length: int, filler: str, too_long: bool) -> None:
    expression = _padded(length, filler)
    assert len(expression.encode()) == length
    found = _lint(_class(expression))
    rules = [d.rule for d in found]
    if too_long:
        assert rules == ["DRA201"]
        (d,) = found
        assert d.message == f"spec.selectors[0].cel.expression: Too long: may not be more than {LIMIT} bytes"
        assert (d.field, d.type) == ("spec.selectors[0].cel.expression", "Too long")
        assert (d.position.line, d.position.column) == (8, 7)  # at the `expression` key
    else:
        assert rules == []


def test_too_long_expression_is_not_compiled() -> None:
    # As upstream: the length error alone, no compile error for the same expression.
    expression = "noSuchVar || " + _padded(LIMIT)
    found = _lint(_class(expression))
    assert [d.rule for d in found] == ["DRA201"]


def test_each_distinct_expression_compiles_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from dractl.cel import compiler

    compiler.clear_cache()
    calls: list[str] = []
    original = compiler._compile_uncached

    def counting(expression, *args, **kwargs):
        calls.append(expression)
        return original(expression, *args, **kwargs)

    monkeypatch.setattr(compiler, "_compile_uncached", counting)
    classes = "---\n".join(
        _class('device.driver == "gpu.example.com"').replace("gpu.example.com\n", f"gpu{i}.example.com\n", 1)
        for i in range(5)
    )
    _lint(classes)
    assert calls == ['device.driver == "gpu.example.com"']


def _conformance_cel_errors() -> list[tuple[str, dict[str, str]]]:
    from pathlib import Path

    from ruamel.yaml import YAML

    cases = Path(__file__).parents[1] / "conformance" / "validation"
    found = []
    for path in sorted(cases.glob("*.yaml")):
        header = next(iter(YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))))
        for error in header["expect"]["errors"]:
            if error["field"].endswith(".cel.expression"):
                found.append((path.name, error))
    return found


@pytest.mark.parametrize(("case", "error"), _conformance_cel_errors(), ids=lambda v: v if isinstance(v, str) else "")
def test_message_is_the_apiservers(case: str, error: dict[str, str]) -> None:
    """The whole text, up to cel-go's snippet and caret, as upstream's tests expect it."""
    from pathlib import Path

    from dractl.load import load_paths

    path = Path(__file__).parents[1] / "conformance" / "validation" / case
    loaded = load_paths([str(path)])
    loaded.objects = [o for o in loaded.objects if o.api_version.startswith("resource.k8s.io/")]
    found = lint(loaded, Settings(features=Features("1.36"), select=("DRA2",))).diagnostics
    messages = [d.message for d in found if d.field == error["field"]]
    assert len(messages) == 1
    assert messages[0].startswith(f"{error['field']}: {error['type']}: ")
    assert messages[0].endswith(": " + error["detail"])


def test_malformed_slices_and_selectors_do_not_break_the_cel_rules() -> None:
    from pathlib import Path

    text = (Path(__file__).parent / "data" / "malformed-cel-inputs.yaml").read_text(encoding="utf-8")
    found = lint(load_text(text, "bad.yaml"), Settings(features=Features("1.36"), select=("DRA2",)))
    rules = sorted(d.rule for d in found.diagnostics)
    # slices the apiserver cannot even decode are their own findings (DRA011): their devices
    # are no evidence for DRA210-DRA212; the domain "x" is one a driver may publish (DRA211)
    assert rules == [], [d.message for d in found.diagnostics]


CLASS_AND_SLICES = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.attributes["gpu.example.com"].model == "A100"
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-nics
spec:
  driver: nic.example.com
  nodeName: node-1
  pool: {name: node-1, resourceSliceCount: 1}
  devices:
  - name: nic-0
"""


@pytest.mark.parametrize("engine", ["cel-expr-python", "cel-python"])
def test_runtime_errors_on_devices_with_either_engine(engine: str) -> None:
    from dractl.cel.engines import engine_available

    if not engine_available(engine):
        pytest.skip(f"{engine} is not installed")
    settings = Settings(features=Features("1.36"), select=("DRA210",), cel_engine=engine)
    (found,) = lint(load_text(CLASS_AND_SLICES, "all.yaml"), settings).diagnostics
    assert "no such key: model (nic.example.com/node-1/nic-0)" in found.message
    # at the attribute's name with the checked syntax tree, else at the expression's start
    expected = (8, 56) if engine == "cel-expr-python" else (8, 19)
    assert (found.position.line, found.position.column) == expected
