"""DeviceTaintRules release by release: what the apiserver rejects (DRA142), what its strict
decoder cannot read (DRA143), and rules nothing acts on because a gate is off (DRA411).

Each row is a manifest, the release and gates, and every diagnostic of the DRA1/DRA4 rules as
``RULE field`` (a field error: its path and type), or ``RULE text`` (a text the message has).
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field

import pytest

from dractl.api.releases import Features, parse_feature_gates
from dractl.api.validation import DEVICE_TAINT_RULE, check_create
from dractl.api.validation.devicetaintrule import unknown_fields
from dractl.lint.engine import Settings, lint
from dractl.lint.registry import Rule, all_rules
from dractl.load import load_text

# The gates that make a rule act in each release, so rows about the object stay free of DRA411.
ON = {"1.34": "DRADeviceTaints=true", "1.35": "DRADeviceTaints=true,DRADeviceTaintRules=true"}
ON["1.36"] = "DRADeviceTaintRules=true"


def manifest(
    selector: str = "driver: gpu.example.com",
    taint: str = "key: example.com/maintenance\n    effect: NoSchedule",
    version: str = "v1alpha3",
    extra: str = "",
    name: str = "gpu-maintenance",
) -> str:
    return (
        f"apiVersion: resource.k8s.io/{version}\n"
        "kind: DeviceTaintRule\n"
        f"metadata:\n  name: {name}\n"
        "spec:\n"
        f"  deviceSelector:\n    {selector}\n"
        f"  taint:\n    {taint}\n"
        f"{extra}"
    )


@dataclass(frozen=True)
class Row:
    id: str
    text: str
    releases: tuple[str, ...]
    expect: list[str] = field(default_factory=list)
    gates: str | None = None  # None: the gates of ON


NONE_EFFECT = manifest(taint="key: example.com/maintenance\n    effect: None")
WITH_CLASS = manifest(selector="deviceClassName: gpu.example.com")
WITH_CEL = manifest(selector="selectors:\n    - cel: {expression: 'device.driver == \"x\"'}")
WITH_STATUS = manifest(extra="status:\n  conditions: []\n")
NO_SELECTOR = (
    "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
    "spec:\n  taint: {key: k, effect: NoExecute}\n"
)

ROWS = [
    Row("good", manifest(), ("1.34", "1.35", "1.36")),
    Row("good-v1beta2", manifest(version="v1beta2"), ("1.36",)),
    # v1beta2 before 1.36 is DRA403's alone
    Row(
        "v1beta2-not-yet",
        manifest(version="v1beta2", taint="key: k\n    effect: Evict"),
        ("1.34", "1.35"),
        ['DRA403 no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1beta2"'],
    ),
    Row("no-selector-selects-nothing-but-is-valid", NO_SELECTOR, ("1.34", "1.35", "1.36")),
    Row(
        "effect-none-1.34",
        NONE_EFFECT,
        ("1.34",),
        ["DRA142 spec.taint.effect Unsupported value"],
    ),
    Row("effect-none-1.35-on", NONE_EFFECT, ("1.35", "1.36")),
    Row(
        "effect-evict",
        manifest(taint="key: example.com/maintenance\n    effect: Evict"),
        ("1.34", "1.35", "1.36"),
        ["DRA142 spec.taint.effect Unsupported value"],
    ),
    Row(
        "taint-empty",
        manifest(taint="{}"),
        ("1.35",),
        [
            "DRA142 spec.taint.effect Required value",
            "DRA142 spec.taint.key Invalid value",
            "DRA142 spec.taint.key Invalid value",
        ],
    ),
    Row(
        "taint-bad-value",
        manifest(taint="key: k\n    value: not a label value\n    effect: NoSchedule"),
        ("1.36",),
        ["DRA142 spec.taint.value Invalid value"],
    ),
    Row(
        "empty-strings-are-set",
        manifest(selector='driver: ""\n    pool: ""\n    device: ""'),
        ("1.35",),
        [
            "DRA142 spec.deviceSelector.driver Required value",
            "DRA142 spec.deviceSelector.pool Required value",
            "DRA142 spec.deviceSelector.device Invalid value",
        ],
    ),
    # 1.34's ValidateCSIDriverName goes on with an empty name and finds no DNS subdomain
    Row(
        "empty-driver-1.34",
        manifest(selector='driver: ""'),
        ("1.34",),
        [
            "DRA142 spec.deviceSelector.driver Required value",
            "DRA142 spec.deviceSelector.driver Invalid value",
        ],
    ),
    Row(
        "driver-too-long",
        manifest(selector=f"driver: {'a' * 64}.example.com"),
        ("1.36",),
        ["DRA142 spec.deviceSelector.driver Too long"],
    ),
    Row(
        "pool-with-slash",
        manifest(selector="pool: node-1/Bad_Part"),
        ("1.35",),
        ["DRA142 spec.deviceSelector.pool Invalid value"],
    ),
    Row(
        "bad-name",
        manifest(name="Bad_Name"),
        ("1.36",),
        ["DRA142 metadata.name Invalid value"],
    ),
    Row("class-and-cel-1.34", WITH_CLASS, ("1.34",)),
    Row("cel-1.34", WITH_CEL, ("1.34",)),
    Row(
        "class-removed-in-1.35",
        WITH_CLASS,
        ("1.35", "1.36"),
        ['DRA143 unknown field "spec.deviceSelector.deviceClassName"'],
    ),
    Row(
        "cel-removed-in-1.35",
        WITH_CEL,
        ("1.35", "1.36"),
        ['DRA143 unknown field "spec.deviceSelector.selectors"'],
    ),
    Row(
        "bad-class-only-checked-in-1.34",
        manifest(selector="deviceClassName: Bad_Class"),
        ("1.34",),
        ["DRA142 spec.deviceSelector.deviceClassName Invalid value"],
    ),
    Row(
        "cel-selector-without-cel-1.34",
        manifest(selector="selectors:\n    - {}"),
        ("1.34",),
        ["DRA142 spec.deviceSelector.selectors[0].cel Required value"],
    ),
    Row(
        "cel-compile-error-1.34",
        manifest(selector="selectors:\n    - cel: {expression: 'device.driver = \"x\"'}"),
        ("1.34",),
        ["DRA142 spec.deviceSelector.selectors[0].cel.expression Invalid value"],
    ),
    Row("status-1.35-on", WITH_STATUS, ("1.35", "1.36")),
    Row("status-1.34", WITH_STATUS, ("1.34",), ['DRA143 unknown field "status"']),
    Row(
        "unknown-fields",
        manifest(
            taint="key: k\n    effect: NoSchedule\n    tolerationSeconds: 5",
            extra="  nodeName: n\n",
        ).replace("metadata:\n", "metadata:\n  labelz: {}\n"),
        ("1.36",),
        [
            'DRA143 unknown field "spec.taint.tolerationSeconds"',
            'DRA143 unknown field "spec.nodeName"',
            'DRA143 unknown field "metadata.labelz"',
        ],
    ),
    Row(
        "wrong-type-and-bad-time",
        manifest(
            selector="driver: [a]", taint="key: k\n    effect: NoSchedule\n    timeAdded: now"
        ),
        ("1.36",),
        ["DRA143 cannot unmarshal array", "DRA143 parsing time"],
    ),
    # the gates: DRA411 names the first one that is off
    Row(
        "gate-1.34",
        manifest(),
        ("1.34",),
        ["DRA411 feature gate DRADeviceTaints is off (alpha, off by default)"],
        gates="",
    ),
    Row(
        "gate-1.35",
        manifest(),
        ("1.35",),
        ["DRA411 feature gate DRADeviceTaintRules is off (alpha, off by default)"],
        gates="",
    ),
    Row(
        "gate-1.35-rules-without-taints",
        manifest(),
        ("1.35",),
        ["DRA411 feature gate DRADeviceTaints is off (alpha, off by default)"],
        gates="DRADeviceTaintRules=true",
    ),
    Row(
        "gate-1.36",
        manifest(version="v1beta2"),
        ("1.36",),
        ["DRA411 feature gate DRADeviceTaintRules is off (beta, off by default)"],
        gates="",
    ),
    Row(
        "gate-1.36-taints-disabled",
        manifest(),
        ("1.36",),
        ["DRA411 feature gate DRADeviceTaints is off (disabled explicitly)"],
        gates="DRADeviceTaintRules=true,DRADeviceTaints=false",
    ),
]
CASES = [(row, release) for row in ROWS for release in row.releases]


def _lines(text: str, release: str, gates: str) -> list[str]:
    features = Features(release, parse_feature_gates(gates))
    result = lint(
        load_text(text, "rule.yaml"), Settings(features=features, select=("DRA1", "DRA4"))
    )
    return [
        f"{d.rule} {d.field} {d.type}" if d.type else f"{d.rule} {d.message}"
        for d in result.diagnostics
    ]


@pytest.mark.parametrize(("row", "release"), CASES, ids=[f"{r.id}@{v}" for r, v in CASES])
def test_release(row: Row, release: str) -> None:
    got = _lines(row.text, release, ON[release] if row.gates is None else row.gates)
    unmatched = Counter(got)
    for want in row.expect:
        rule, _, text = want.partition(" ")
        match = next(
            (
                line
                for line in unmatched
                if unmatched[line] and line.startswith(rule) and text in line
            ),
            None,
        )
        assert match is not None, (want, got)
        unmatched[match] -= 1
    assert not +unmatched, got


def test_messages_are_the_apiservers() -> None:
    text = manifest(taint="key: example.com/maintenance\n    effect: Evict")
    result = lint(
        load_text(text, "rule.yaml"), Settings(features=Features("1.35"), select=("DRA142",))
    )
    assert [d.message for d in result.diagnostics] == [
        'spec.taint.effect: Unsupported value: "Evict": supported values: "NoExecute", '
        '"NoSchedule", "None"'
    ]
    position = result.diagnostics[0].position
    assert position is not None and (position.line, position.column) == (10, 13)


def test_removed_field_hint() -> None:
    result = lint(
        load_text(WITH_CLASS, "rule.yaml"), Settings(features=Features("1.35"), select=("DRA143",))
    )
    (diagnostic,) = result.diagnostics
    assert diagnostic.hint is not None and "only in Kubernetes 1.34" in diagnostic.hint
    position = diagnostic.position
    assert position is not None and (position.line, position.column) == (7, 5)


@pytest.mark.parametrize(
    ("release", "data", "paths"),
    [
        ("1.34", {"spec": {"deviceSelector": {"deviceClassName": "c"}}}, []),
        (
            "1.35",
            {"spec": {"deviceSelector": {"deviceClassName": "c"}}},
            [("spec", "deviceSelector", "deviceClassName")],
        ),
        (
            "1.34",
            {"spec": {"deviceSelector": {"selectors": [{"cel": {"expresion": "x"}}]}}},
            [("spec", "deviceSelector", "selectors", 0, "cel", "expresion")],
        ),
        (
            "1.36",
            {"status": {"conditions": [{"type": "T", "bogus": 1}]}},
            [("status", "conditions", 0, "bogus")],
        ),
        ("1.34", {"status": {}}, [("status",)]),
        ("1.36", {"spec": "wrong type", "extra": 1}, [("extra",)]),
    ],
)
def test_unknown_fields(release: str, data: dict, paths: list) -> None:
    assert unknown_fields(data, release) == paths


def test_check_create_knows_the_kind() -> None:
    """The pure function, without lint: a missing spec is an empty one, and its taint invalid."""
    check = check_create(DEVICE_TAINT_RULE, {"metadata": {"name": "r"}}, Features("1.36"))
    assert sorted(str(e) for e in check.errors)[0] == "spec.taint.effect: Required value"
    assert check.dropped == [] and check.warnings == []


RULES = [r for r in all_rules() if r.module == "dractl.lint.rules.device_taint_rules"]
_OPTIONS = re.compile(r"#\s*with\s+(.*)")


def _example(rule: Rule, section: str) -> list[str]:
    """The diagnostics of a documented example, run with the options its comment names; without
    `--feature-gates`, a Bad example has the release's defaults and a Good one the gates that
    make DeviceTaintRules act (so that only DRA411's own Good example is about them)."""
    text = textwrap.dedent(rule.section(section))
    release, gates = "1.36", None
    match = _OPTIONS.search(text)
    if match:
        words = match.group(1).split()
        for flag, value in itertools.pairwise(words):
            if flag == "--kubernetes-version":
                release = value
            elif flag == "--feature-gates":
                gates = value
    if gates is None:
        gates = "" if section == "Bad" else ON[release]
    features = Features(release, parse_feature_gates(gates))
    result = lint(load_text(text, "example.yaml"), Settings(features=features, select=("DRA",)))
    return [d.rule for d in result.diagnostics]


def test_the_rules_are_registered() -> None:
    assert sorted(r.id for r in RULES) == ["DRA142", "DRA143", "DRA411"]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_bad_example_fires_and_good_is_clean(rule: Rule) -> None:
    assert rule.id in _example(rule, "Bad")
    assert _example(rule, "Good") == []
