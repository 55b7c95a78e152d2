"""Conversion of whole files: defaults on request, rewrites that fall back, reported problems."""

from __future__ import annotations

import pytest

from dractl.convert.engine import Options, Status, convert_file
from dractl.load import load_text


def convert(text: str, target: str = "v1", path: str = "in.yaml", **options: bool):
    return convert_file(load_text(text, path).files[0], Options(target, **options))


V1BETA1_REQUESTS = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: with-class
      deviceClassName: gpu.example.com
    - name: without-class   # v1beta1 defaults nothing here
      count: 2
    - name: all
      deviceClassName: gpu.example.com
      allocationMode: All
      tolerations:
      - {key: k, effect: NoSchedule}
    - name: alternatives
      firstAvailable:
      - name: one
        deviceClassName: gpu.example.com
"""


def test_apply_defaults_as_the_apiserver_stores_the_object() -> None:
    result = convert(V1BETA1_REQUESTS, apply_defaults=True)
    assert result.status is Status.CONVERTED
    assert result.messages == []
    assert (
        result.text
        == """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: with-class
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: 1
    - name: without-class   # v1beta1 defaults nothing here
      exactly:
        count: 2
    - name: all
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: All
        tolerations:
        - {key: k, effect: NoSchedule, operator: Equal}
    - name: alternatives
      firstAvailable:
      - name: one
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: 1
"""
    )


def test_apply_defaults_in_v1beta1_goes_on_the_request() -> None:
    text = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu.example.com, count: 0}
"""
    result = convert(text, "v1beta1", apply_defaults=True)
    assert result.text.endswith(
        "    - name: r\n"
        "      deviceClassName: gpu.example.com\n"
        "      count: 1\n"
        "      allocationMode: ExactCount\n"
    )


def test_without_apply_defaults_nothing_is_added() -> None:
    result = convert(V1BETA1_REQUESTS)
    assert "allocationMode: ExactCount" not in result.text
    assert "operator" not in result.text
    assert "count: 1" not in result.text


def test_json_keeps_its_layout_when_only_apiVersion_changes() -> None:
    text = '{"apiVersion":  "resource.k8s.io/v1beta2",\n "kind": "DeviceClass", "metadata": {"name": "d"}}'
    result = convert(text, path="in.json")
    assert result.text == text.replace("v1beta2", "v1")


def test_json_with_defaults_is_written_as_json() -> None:
    text = (
        '{\n  "apiVersion": "resource.k8s.io/v1beta1",\n  "kind": "ResourceClaim",\n'
        '  "metadata": {\n    "name": "c"\n  },\n  "spec": {\n    "devices": {\n'
        '      "requests": [\n        {\n          "name": "r",\n'
        '          "deviceClassName": "d"\n        }\n      ]\n    }\n  }\n}\n'
    )
    result = convert(text, path="in.json", apply_defaults=True)
    assert result.text == (
        '{\n  "apiVersion": "resource.k8s.io/v1",\n  "kind": "ResourceClaim",\n'
        '  "metadata": {\n    "name": "c"\n  },\n  "spec": {\n    "devices": {\n'
        '      "requests": [\n        {\n          "name": "r",\n          "exactly": {\n'
        '            "deviceClassName": "d",\n            "allocationMode": "ExactCount",\n'
        '            "count": 1\n          }\n        }\n      ]\n    }\n  }\n}\n'
    )


def test_layout_that_cannot_be_edited_in_place_is_written_anew_and_said_so() -> None:
    text = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
    name: c
spec:
    devices:
        requests:
        - {name: a,   # a comment inside a flow mapping
           deviceClassName: x}
        - name: b    # kept
          deviceClassName: "yes"
"""
    result = convert(text)
    assert result.status is Status.CONVERTED
    assert [str(m) for m in result.messages] == [
        "in.yaml:1:1: note: document written anew in the file's indentation "
        "(comment inside a flow mapping)",
        "in.yaml:1:1: warning: 1 comment could not be kept: the layout needed the whole "
        "document to be written anew",
    ]
    assert (
        result.text
        == """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
    name: c
spec:
    devices:
        requests:
        - {name: a, exactly: {deviceClassName: x}}
        - name: b    # kept
          exactly:
              deviceClassName: 'yes'
"""
    )


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: c\n",
            "syntax",
        ),
        (
            "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nspec:\n  devices: {a: 1}\n",
            "in.yaml:4:3: error: expected a list, found a mapping",
        ),
        (  # one request under two names: restructured twice, or in one place only
            "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: c}\n"
            "spec:\n  devices:\n    requests:\n    - &r {name: a, deviceClassName: x}\n    - *r\n",
            "in.yaml:7:7: error: a YAML alias makes spec.devices.requests[0] and "
            "spec.devices.requests[1] one mapping",
        ),
    ],
    ids=["unparsable", "malformed", "an alias of a request"],
)
def test_bad_documents_fail_the_file(text: str, fragment: str) -> None:
    result = convert(text + "---\napiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\n")
    assert result.status is Status.FAILED
    assert result.text == result.source.text
    assert any(fragment in str(m) for m in result.messages), [str(m) for m in result.messages]
