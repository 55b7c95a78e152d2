"""Upstream's DeviceTaintRule validation tests, run through `dractl lint`.

The cases in ``tests/conformance/validation/devicetaintrule/`` have the format of the other
validation cases (see the conformance README of the shared vectors), with the
object written as resource.k8s.io/v1alpha3, the version upstream's test file was written for.
That file (``validation_devicetaintrule_test.go`` at 0b1dcaba) still has the selector's
``deviceClassName`` and CEL ``selectors``, which only 1.34 has, so the cases run in 1.34 with
every gate on, as the other cases do. They sit in a folder of their own because the runner of
the other kinds counts its cases and knows its sources.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from dractl.api.releases import GATES, Features, gate_stage
from dractl.diagnostics import Severity
from dractl.lint.engine import Settings, lint
from dractl.load import LoadResult, load_paths

CASES_DIR = Path(__file__).parents[1] / "conformance" / "validation" / "devicetaintrule"
CASES = sorted(CASES_DIR.glob("*.yaml"))

# upstream test file commit -> release whose behaviour it pins
SOURCE_RELEASES = {
    # deviceClassName and CEL selectors in the selector, effects NoSchedule and NoExecute only
    "0b1dcaba0a3f1fdcfe5fbb6516d68ffc8e625d81": "1.34",
}


def _load_case(path: Path) -> tuple[dict[str, Any], LoadResult]:
    header = next(iter(YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))))
    loaded = load_paths([str(path)])
    loaded.objects = [o for o in loaded.objects if o.api_version.startswith("resource.k8s.io/")]
    assert len(loaded.objects) == 1, path.name
    return header, loaded


def _features(header: dict[str, Any]) -> Features:
    commit = header["source"].split("@", 1)[1].split()[0]
    release = SOURCE_RELEASES[commit]
    gates = {
        gate: True
        for gate in GATES
        if (stage := gate_stage(gate, release)) is not None and not stage.locked
    }
    gates.update({g: bool(v) for g, v in (header.get("features") or {}).items() if g in gates})
    return Features(release, gates)


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_case_agrees_with_upstream(path: Path) -> None:
    header, loaded = _load_case(path)
    result = lint(loaded, Settings(features=_features(header)))
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR and d.type]
    # nothing else, typed or not: the object decodes, and no other rule objects
    others = [d for d in result.diagnostics if d.severity is Severity.ERROR and not d.type]
    assert not others, [f"{d.rule} {d.message}" for d in others]
    got = Counter((d.field, d.type) for d in errors)
    expected = Counter((e["field"], e["type"]) for e in header["expect"]["errors"])
    assert (not errors) == bool(header["expect"]["valid"])
    assert got == expected, "\n".join(f"{d.rule} {d.message}" for d in errors)
    for want in header["expect"]["errors"]:
        if "detail" in want:
            pinned = (want["field"], want["type"])
            bodies = [d.message for d in errors if (d.field, d.type) == pinned]
            assert any(body.endswith(": " + want["detail"]) for body in bodies), (want, bodies)


def test_every_case_has_a_known_source() -> None:
    for path in CASES:
        header = next(iter(YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))))
        assert header["source"].split("@", 1)[1].split()[0] in SOURCE_RELEASES, path.name


def test_the_cases_are_all_there() -> None:
    # every case of TestValidateDeviceTaint (the update tests are not about create)
    assert len(CASES) == 25
