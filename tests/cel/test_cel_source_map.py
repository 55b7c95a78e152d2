"""Expression positions map back into the YAML file for every scalar style."""

from __future__ import annotations

import io

import pytest
from ruamel.yaml import YAML

from dractl.cel.source_map import expression_index, expression_line_column, file_position

SELECTOR = 'device.attributes["gpu.example.com"].model == "A100"'

# Each document holds the selector (or a variant) under key ``e``; the probe is a token of the
# expression whose file position the test checks by finding it in the file text.
DOCUMENTS = {
    "plain": f"e: {SELECTOR}\n",
    "plain-folded-over-lines": "e: device.attributes[\"gpu.example.com\"].model ==\n   \"A100\" &&\n   device.driver != \"x\"\n",
    "single-quoted": "e: 'device.attributes[''gpu.example.com''].model == ''A100'''\n",
    "double-quoted": 'e: "device.attributes[\\"gpu.example.com\\"].model == \\"A100\\""\n',
    "double-quoted-continuation": 'e: "device.attributes[\\"gpu.example.com\\"].model \\\n    == \\"A100\\""\n',
    "literal": 'e: |\n  device.attributes["gpu.example.com"].model == "A100" &&\n    device.driver != "x"\n',
    "literal-keep": 'e: |+\n  device.attributes["gpu.example.com"].model\n\n  == "A100"\n',
    "folded": 'e: >\n  device.attributes["gpu.example.com"].model\n  == "A100"\n\n  && device.driver != "x"\n',
    "literal-crlf": 'e: |\r\n  device.attributes["gpu.example.com"].model == "A100" &&\r\n    device.driver != "x"\r\n',
    "folded-crlf": 'e: >\r\n  device.attributes["gpu.example.com"].model\r\n  == "A100"\r\n\r\n  && device.driver != "x"\r\n',
    "plain-crlf": 'e: device.attributes["gpu.example.com"].model ==\r\n   "A100" &&\r\n   device.driver != "x"\r\n',
    "folded-indented-key": 'spec:\n  selectors:\n  - cel:\n      expression: >-\n        device.attributes["gpu.example.com"].model\n        == "A100"\n',
}


def _value_and_position(text: str) -> tuple[str, int, int]:
    data = YAML().load(io.StringIO(text))
    node, key = data, "e"
    if "spec" in data:
        node, key = data["spec"]["selectors"][0]["cel"], "expression"
    line, column = node.lc.value(key)
    return node[key], line + 1, column + 1


def _tokens(expression: str) -> list[tuple[str, int, int]]:
    """Probe tokens with their 1-based line:column inside the expression."""
    out = []
    for token in ("model", "A100", "driver", "=="):
        index = expression.find(token)
        if index == -1:
            continue
        before = expression[:index]
        line = before.count("\n") + 1
        column = index - (before.rfind("\n") + 1) + 1
        out.append((token, line, column))
    return out


@pytest.mark.parametrize("style", sorted(DOCUMENTS))
def test_tokens_map_to_their_place_in_the_file(style: str) -> None:
    text = DOCUMENTS[style]
    expression, value_line, value_column = _value_and_position(text)
    lines = text.split("\n")
    probes = _tokens(expression)
    assert probes
    for token, line, column in probes:
        file_line, file_column = file_position(text, value_line, value_column, expression, line, column)
        found = lines[file_line - 1][file_column - 1 :]
        assert found.startswith(token), (style, token, file_line, file_column, lines[file_line - 1])


def test_position_of_escaped_quote_points_at_the_escape() -> None:
    text = 'e: "a == \\"b\\""\n'
    expression, line, column = _value_and_position(text)
    assert expression == 'a == "b"'
    assert file_position(text, line, column, expression, 1, 6) == (1, 10)


def test_out_of_step_input_falls_back_to_the_value_start() -> None:
    assert file_position("e: abc\n", 1, 4, "xyz", 1, 2) == (1, 4)


@pytest.mark.parametrize(
    ("expression", "index", "line", "column"),
    [
        ("a == b", 0, 1, 1),
        ("a == b", 5, 1, 6),
        ("a &&\nb == 1", 5, 2, 1),
        ("a &&\nb == 1", 7, 2, 3),
        ("x\n\ny", 3, 3, 1),
    ],
)
def test_expression_line_column_is_the_inverse_of_expression_index(
    expression: str, index: int, line: int, column: int
) -> None:
    assert expression_line_column(expression, index) == (line, column)
    assert expression_index(expression, line, column) == index
