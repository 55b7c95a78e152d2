"""lint's fixes in the library: each rule's fix on a manifest gives the expected text (table
below), edits are applied whole or not at all, passes end, and files that cannot be read whole
are never fixed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dractl.diagnostics import Applicability, Diagnostic, Fix, Position, Severity, TextEdit
from dractl.lint.engine import LintResult, Settings, lint
from dractl.lint.fix import FixCounts, apply_fixes, count_fixes, fix_run, fixable_files
from dractl.load import LoadResult, load_text


@dataclass
class Case:
    name: str
    before: str
    after: str  # equal to `before`: no fix is certain
    unsafe: bool = False
    path: str = "manifest.yaml"


CLASS_HEAD = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
"""
CLAIM_HEAD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""
SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {{name: node-1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes:
      ecc:
        string: {value}
"""
NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: gpu-debug
  labels:
{labels}"""

CASES = [
    # DRA010: `expression:` beside an empty `cel:`
    Case(
        "DRA010 expression beside cel",
        CLASS_HEAD + '  - cel:\n    expression: device.driver == "gpu.example.com"\n',
        CLASS_HEAD + '  - cel:\n      expression: device.driver == "gpu.example.com"\n',
    ),
    Case(
        "DRA010 a block scalar moves with its lines, blank lines stay",
        CLASS_HEAD + "  - cel:   # the selector\n    expression: >-\n      device.driver ==\n\n"
        '      "gpu.example.com"\n\n  - cel: {expression: "true"}\n',
        CLASS_HEAD + "  - cel:   # the selector\n      expression: >-\n        device.driver ==\n\n"
        '        "gpu.example.com"\n\n  - cel: {expression: "true"}\n',
    ),
    Case(
        "DRA010 a comment between cel and expression",
        CLASS_HEAD + "  - cel:\n    # why\n    expression: device.driver == 'a'\n",
        CLASS_HEAD + "  - cel:\n    # why\n      expression: device.driver == 'a'\n",
    ),
    Case(
        "DRA010 in a v1beta1 request",
        CLAIM_HEAD.replace("v1\n", "v1beta1\n", 1).replace(
            "      exactly:\n        deviceClassName", "      deviceClassName"
        )
        + "      selectors:\n      - cel:\n        expression: device.driver == 'a'\n",
        CLAIM_HEAD.replace("v1\n", "v1beta1\n", 1).replace(
            "      exactly:\n        deviceClassName", "      deviceClassName"
        )
        + "      selectors:\n      - cel:\n          expression: device.driver == 'a'\n",
    ),
    Case(
        "DRA010 no fix: cel has a value",
        CLASS_HEAD + "  - cel: {}\n    expression: device.driver == 'a'\n",
        CLASS_HEAD + "  - cel: {}\n    expression: device.driver == 'a'\n",
    ),
    Case(
        "DRA010 no fix: cel is null",
        CLASS_HEAD + "  - cel: null\n    expression: device.driver == 'a'\n",
        CLASS_HEAD + "  - cel: null\n    expression: device.driver == 'a'\n",
    ),
    Case(
        "DRA010 no fix: expression before cel",
        CLASS_HEAD + "  - expression: device.driver == 'a'\n    cel:\n",
        CLASS_HEAD + "  - expression: device.driver == 'a'\n    cel:\n",
    ),
    Case(
        "DRA010 no fix: no cel at all",
        CLASS_HEAD + "  - expression: device.driver == 'a'\n",
        CLASS_HEAD + "  - expression: device.driver == 'a'\n",
    ),
    Case(
        "DRA010 no fix: a block sequence as the value would be left behind",
        CLASS_HEAD + "  - cel:\n    expression:\n    - a\n",
        CLASS_HEAD + "  - cel:\n    expression:\n    - a\n",
    ),
    # DRA011: YAML 1.1 spellings in a string field of a DRA kind
    Case(
        "DRA011 a boolean in a string field",
        SLICE.format(value="off"),
        SLICE.format(value='"off"'),
    ),
    Case(
        "DRA011 an octal number, the aligned comment stays put",
        SLICE.format(value="010      # firmware"),
        SLICE.format(value='"010"    # firmware'),
    ),
    Case(
        "DRA011 no fix: a boolean in a number field",
        CLAIM_HEAD + "        count: yes\n",
        CLAIM_HEAD + "        count: yes\n",
    ),
    # DRA510: YAML 1.1 spellings in labels, ConfigMaps, Pods
    Case(
        "DRA510 a label",
        NAMESPACE.format(labels="    gpu-admin: yes\n"),
        NAMESPACE.format(labels='    gpu-admin: "yes"\n'),
    ),
    Case(
        "DRA510 two in one flow mapping",
        NAMESPACE.format(labels="    {a: on, b: N}\n"),
        NAMESPACE.format(labels='    {a: "on", b: "N"}\n'),
    ),
    Case(
        "DRA510 CRLF line breaks stay",
        "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c\r\ndata:\r\n  x: off\r\n",
        'apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c\r\ndata:\r\n  x: "off"\r\n',
    ),
    # DRA311: the old admin-access label key, an unsafe fix
    Case(
        "DRA311 not without --unsafe-fixes",
        NAMESPACE.format(labels='    resource.k8s.io/admin-access: "true"\n'),
        NAMESPACE.format(labels='    resource.k8s.io/admin-access: "true"\n'),
    ),
    Case(
        "DRA311 renamed with --unsafe-fixes",
        NAMESPACE.format(labels='    resource.k8s.io/admin-access: "true"  # 1.33\n'),
        NAMESPACE.format(labels='    resource.kubernetes.io/admin-access: "true"  # 1.33\n'),
        unsafe=True,
    ),
    Case(
        "DRA311 a quoted key keeps its quotes",
        NAMESPACE.format(labels="    'resource.k8s.io/admin-access': \"true\"\n"),
        NAMESPACE.format(labels="    'resource.kubernetes.io/admin-access': \"true\"\n"),
        unsafe=True,
    ),
    Case(
        "DRA311 in JSON",
        '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n", "labels": '
        '{"resource.k8s.io/admin-access": "true"}}}\n',
        '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n", "labels": '
        '{"resource.kubernetes.io/admin-access": "true"}}}\n',
        unsafe=True,
        path="namespace.json",
    ),
    Case(
        "DRA311 no fix: the new key is there with another value",
        NAMESPACE.format(
            labels='    resource.k8s.io/admin-access: "true"\n'
            '    resource.kubernetes.io/admin-access: "false"\n'
        ),
        NAMESPACE.format(
            labels='    resource.k8s.io/admin-access: "true"\n'
            '    resource.kubernetes.io/admin-access: "false"\n'
        ),
        unsafe=True,
    ),
    # files that are not read whole are never fixed
    Case(
        "no fix in a file with a syntax error elsewhere",
        NAMESPACE.format(labels="    gpu-admin: yes\n") + "---\nkind: [unclosed\n",
        NAMESPACE.format(labels="    gpu-admin: yes\n") + "---\nkind: [unclosed\n",
    ),
    Case(
        "no fix in a file with duplicate keys elsewhere",
        NAMESPACE.format(labels="    gpu-admin: yes\n") + "---\nkind: A\nkind: B\n",
        NAMESPACE.format(labels="    gpu-admin: yes\n") + "---\nkind: A\nkind: B\n",
    ),
    Case(
        "no fix in a Helm template",
        NAMESPACE.format(labels="    gpu-admin: yes\n    app: {{{{ .Values.app }}}}\n"),
        NAMESPACE.format(labels="    gpu-admin: yes\n    app: {{{{ .Values.app }}}}\n"),
    ),
]


def _fixed(case: Case) -> tuple[str, LintResult]:
    loaded = load_text(case.before, case.path, comments=False)
    settings = Settings()

    def again(files: LoadResult) -> LintResult:
        return lint(files, settings)

    run = fix_run(loaded, again(loaded), again, unsafe=case.unsafe)
    assert run.converged
    text = run.files[0].text if run.files else case.before
    return text, run.result


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fix(case: Case) -> None:
    text, left = _fixed(case)
    assert text == case.after
    # nothing is left that this run would fix, and the text reads as the fixed one
    assert count_fixes(left.diagnostics, case.unsafe).applicable == 0
    if text != case.before:
        again = lint(load_text(text, case.path, comments=False), Settings())
        assert not [
            d for d in again.diagnostics if d.fix and (case.unsafe or d.fix.applicability == "safe")
        ]


def test_fixed_findings_are_gone_and_the_others_stay() -> None:
    labels = '    gpu-admin: yes\n    resource.k8s.io/admin-access: "true"\n'
    loaded = load_text(NAMESPACE.format(labels=labels), "ns.yaml", comments=False)
    first = lint(loaded, Settings())
    assert sorted(d.rule for d in first.diagnostics) == ["DRA311", "DRA510"]

    run = fix_run(loaded, first, lambda files: lint(files, Settings()))
    assert [d.rule for d in run.fixed] == ["DRA510"]
    assert run.result.diagnostics == [d for d in first.diagnostics if d.rule == "DRA311"]
    assert count_fixes(run.result.diagnostics, unsafe=False) == FixCounts(0, 1)


def test_every_rule_with_a_fix_says_so_and_findings_match_it() -> None:
    from dractl.lint.registry import all_rules

    fixable = {r.id: r.fix for r in all_rules() if r.fix is not None}
    assert fixable == {
        "DRA010": Applicability.SAFE,
        "DRA011": Applicability.SAFE,
        "DRA311": Applicability.UNSAFE,
        "DRA400": Applicability.SAFE,
        "DRA401": Applicability.SAFE,
        "DRA402": Applicability.SAFE,
        "DRA510": Applicability.SAFE,
    }


# --- edits ---------------------------------------------------------------------------------------


def _fix(title: str, *edits: tuple[int, int, int, int, str]) -> Fix:
    return Fix(title, Applicability.SAFE, tuple(TextEdit(*edit) for edit in edits))


APPLY = [
    ("one replacement", "ab\ncd\n", [_fix("x", (2, 1, 2, 2, "X"))], "ab\nXd\n", ["x"]),
    (
        "several edits of one fix, applied together",
        "ab\ncd\n",
        [_fix("x", (1, 1, 1, 1, "  "), (2, 1, 2, 1, "  "))],
        "  ab\n  cd\n",
        ["x"],
    ),
    (
        "an overlapping fix waits",
        "abcd\n",
        [_fix("x", (1, 1, 1, 3, "X")), _fix("y", (1, 2, 1, 4, "Y"))],
        "Xcd\n",
        ["x"],
    ),
    (
        "two insertions at one place: the second waits",
        "ab\n",
        [_fix("x", (1, 2, 1, 2, "X")), _fix("y", (1, 2, 1, 2, "Y"))],
        "aXb\n",
        ["x"],
    ),
    (
        "edits that touch are both applied",
        "abcd\n",
        [_fix("x", (1, 1, 1, 3, "X")), _fix("y", (1, 3, 1, 5, "Y"))],
        "XY\n",
        ["x", "y"],
    ),
    (
        "the same fix twice (a List's items share their document)",
        "ab\n",
        [_fix("x", (1, 1, 1, 3, "X")), _fix("x", (1, 1, 1, 3, "X"))],
        "X\n",
        ["x", "x"],
    ),
    (
        "an edit beyond the text is not applied",
        "ab\n",
        [_fix("x", (1, 5, 1, 6, "X")), _fix("y", (9, 1, 9, 1, "Y"))],
        "ab\n",
        [],
    ),
    (
        "up to the end of a text without a final line break",
        "ab",
        [_fix("x", (1, 2, 1, 3, "Z"))],
        "aZ",
        ["x"],
    ),
    ("a whole last line", "a\nb\n", [_fix("x", (2, 1, 3, 1, "c\n"))], "a\nc\n", ["x"]),
]


@pytest.mark.parametrize(
    ("name", "text", "fixes", "expected", "applied"), APPLY, ids=[a[0] for a in APPLY]
)
def test_apply_fixes(
    name: str, text: str, fixes: list[Fix], expected: str, applied: list[str]
) -> None:
    result, taken = apply_fixes(text, fixes)
    assert result == expected
    assert [f.title for f in taken] == applied


def test_passes_end_when_a_fix_never_removes_its_finding() -> None:
    loaded = load_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "c.yaml")

    def stubborn(files: LoadResult) -> LintResult:
        # a finding whose fix adds a line and comes back: the passes must stop
        fix = _fix("grow", (1, 1, 1, 1, "# more\n"))
        finding = Diagnostic("DRA510", Severity.ERROR, "again", Position("c.yaml", 1, 1), fix=fix)
        return LintResult([finding], files=1, objects=1, input_failed=False)

    run = fix_run(loaded, stubborn(loaded), stubborn, max_passes=3)
    assert not run.converged
    assert run.files[0].text.count("# more\n") == 3
    assert len(run.fixed) == 3


def test_a_fix_that_would_break_the_file_is_not_applied() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    loaded = load_text(text, "c.yaml")

    def breaking(files: LoadResult) -> LintResult:
        fix = _fix("break", (1, 1, 1, 1, "kind: [unclosed\n"))
        finding = Diagnostic("DRA510", Severity.ERROR, "x", Position("c.yaml", 1, 1), fix=fix)
        return LintResult([finding], files=1, objects=1, input_failed=False)

    run = fix_run(loaded, breaking(loaded), breaking)
    assert run.files == []
    assert run.fixed == []


@pytest.mark.parametrize(
    ("text", "fixable"),
    [
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", True),
        ("apiVersion: v1\rkind: ConfigMap\rmetadata: {name: c}\r", False),  # lines end in \r alone
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n: :\n  - [\n", False),
    ],
)
def test_fixable_files(text: str, fixable: bool) -> None:
    loaded = load_text(text, "c.yaml")
    assert fixable_files(loaded) == ({"c.yaml"} if fixable else set())


def test_a_rule_cannot_report_a_fix_it_is_not_registered_with() -> None:
    from dractl.lint.engine import Finding, _diagnostic
    from dractl.lint.registry import get_rule

    rule = get_rule("DRA101")
    assert rule is not None and rule.fix is None
    finding = Finding("x", position=Position("a.yaml", 1, 1), fix=_fix("x", (1, 1, 1, 1, "y")))
    with pytest.raises(ValueError, match="registered with fix=None"):
        list(_diagnostic(rule, finding, None, Settings()))
