"""The loader keeps 1-based file positions for every node, whatever the scalar or collection style."""

from __future__ import annotations

import pytest

from dractl.load import load_text

MANIFEST = """\
# leading comment
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: "quoted-name"
  labels: {team: 'ml', tier: gpu}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: >
              device.driver == "gpu.example.com"
        - cel:
            expression: |
              device.attributes["gpu.example.com"].model == "A100"
    - {name: nic, exactly: {deviceClassName: nic.example.com}}
"""

CASES = [
    # (path, line, column)
    (("metadata", "name"), 5, 9),  # double-quoted scalar: the opening quote
    (("metadata", "labels", "team"), 6, 18),  # flow mapping, single-quoted
    (("metadata", "labels", "tier"), 6, 30),  # flow mapping, plain
    (("spec", "devices", "requests", 0, "exactly", "deviceClassName"), 12, 26),  # plain
    (
        ("spec", "devices", "requests", 0, "exactly", "selectors", 0, "cel", "expression"),
        15,
        25,
    ),  # folded
    (
        ("spec", "devices", "requests", 0, "exactly", "selectors", 1, "cel", "expression"),
        18,
        25,
    ),  # literal
    (("spec", "devices", "requests", 1, "exactly", "deviceClassName"), 20, 46),  # flow in list
    (("spec", "devices", "requests", 1), 20, 7),  # list item of maps
    (("spec", "devices"), 8, 3),  # container: its key
    # missing keys resolve to their nearest parent
    (("spec", "devices", "constraints"), 8, 3),
    (("spec", "devices", "requests", 0, "exactly", "count"), 11, 7),
    (("spec", "devices", "requests", 7, "name"), 9, 5),
]


@pytest.mark.parametrize(
    ("path", "line", "column"), CASES, ids=[".".join(map(str, c[0])) for c in CASES]
)
def test_position(path: tuple, line: int, column: int) -> None:
    loaded = load_text(MANIFEST, "claim.yaml")
    (obj,) = loaded.objects
    pos = obj.position(path)
    assert (pos.file, pos.line, pos.column) == ("claim.yaml", line, column)


def test_positions_in_later_documents_count_from_file_start() -> None:
    text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n"
    loaded = load_text(text, "ns.yaml")
    assert [o.position(("metadata", "name")).line for o in loaded.objects] == [3, 8]


def test_documents_reassemble_to_the_exact_text() -> None:
    text = "# c\n---\na: 1\n--- # x\nb: 2\r\n...\n---\n\n"
    loaded = load_text(text, "x.yaml")
    assert "".join(d.text for d in loaded.files[0].documents) == text
