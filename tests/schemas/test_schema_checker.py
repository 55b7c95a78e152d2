"""The compiled checker gives jsonschema's verdict on the bundled schemas (so lint may skip full
validation of the objects it accepts)."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from dractl.api.model import plain
from dractl.api.schemas import (
    UnsupportedSchemaError,
    compile_checker,
    go_decoder_validator,
    load_schema,
)
from dractl.api.versions import is_dra
from dractl.load import load_paths

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "real"
RELEASES = ("1.34", "1.35", "1.36")


@cache
def _pair(release: str, version: str, kind: str) -> tuple[Any, Draft7Validator]:
    schema = load_schema(release, version, kind)
    assert schema is not None
    return compile_checker(schema), go_decoder_validator()(schema)


def _documents(*paths: Path) -> list[tuple[str, str, dict[str, Any]]]:
    loaded = load_paths([str(p) for p in paths])
    out = []
    for obj in loaded.objects:
        if is_dra(obj.api_version, obj.kind):
            data = plain(obj.raw)
            data.setdefault("apiVersion", obj.api_version)
            data.setdefault("kind", obj.kind)
            out.append((obj.version, obj.kind, data))
    return out


EXAMPLES = _documents(ROOT / "examples", ROOT / "tests" / "schemas" / "lint")


def _agree(release: str, version: str, kind: str, data: Any) -> None:
    checker, validator = _pair(release, version, kind)
    assert checker(data) == validator.is_valid(data), (release, version, kind, data)


@pytest.mark.parametrize("release", RELEASES)
def test_same_verdict_on_examples_and_fixtures(release: str) -> None:
    assert len(EXAMPLES) >= 20
    for version, kind, data in EXAMPLES:
        _agree(release, version, kind, data)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the corpus of real manifests is not next to the repository")
def test_same_verdict_on_real_manifests() -> None:
    documents = _documents(CORPUS)
    assert documents
    verdicts = set()
    for release in RELEASES:
        for version, kind, data in documents:
            _agree(release, version, kind, data)
            verdicts.add(_pair(release, version, kind)[0](data))
    assert verdicts == {True, False}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-3, 3, allow_nan=False) | st.text(max_size=4),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)
FIELD_NAMES = st.sampled_from(
    ["name", "spec", "devices", "exactly", "count", "cel", "expression", "value", "basic", "x", "ints"]
)


def _containers(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if isinstance(node, dict | list) else []
    if isinstance(node, dict):
        for key, value in node.items():
            out += _containers(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _containers(value, (*path, index))
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_same_verdict_on_mutated_documents(data: st.DataObject) -> None:
    version, kind, original = data.draw(st.sampled_from(EXAMPLES))
    release = data.draw(st.sampled_from(RELEASES))
    document = copy.deepcopy(original)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_containers(document)))
        node = document
        for part in path:
            node = node[part]
        if isinstance(node, dict):
            key = data.draw(st.sampled_from(sorted(node)) | FIELD_NAMES) if node else data.draw(FIELD_NAMES)
            if data.draw(st.booleans()) and key in node:
                del node[key]
            else:
                node[key] = data.draw(JSON)
        elif node:
            node[data.draw(st.integers(0, len(node) - 1))] = data.draw(JSON)
        else:
            node.append(data.draw(JSON))
    _agree(release, version, kind, document)


@pytest.mark.parametrize(
    ("schema", "valid", "invalid"),
    [
        # Draft-07: $ref replaces its siblings.
        ({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "type": "integer"}, ["a"], [1]),
        # JSON equality: true is not 1.
        ({"enum": [1]}, [1, 1.0], [True]),
        ({"type": "integer"}, [3, 3.0], [3.5, True, "3"]),
        # Go's decoder: the bits of the field (a whole float passes, as kubectl sends it as digits)
        ({"type": "integer", "format": "int64"}, [2**63 - 1, -(2**63), 3.0, 1e18], [2**63, 1e30, 1e20]),
        ({"type": "integer", "format": "int32"}, [2**31 - 1, -(2**31)], [2**31, -(2**31) - 1, 1e10]),
        ({"type": "string", "format": "date-time"}, ["not checked by draft-07"], [1]),
        ({"oneOf": [{"type": "string"}, {"type": "number"}]}, ["1", 1], [True, None]),
        ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, [1, "a"], [1.5]),
        ({"properties": {"a": {}}, "additionalProperties": False, "required": ["a"]}, [{"a": 1}, 3], [{}, {"a": 1, "b": 2}]),
        ({"additionalProperties": {"type": "integer"}}, [{"x": 1}], [{"x": "1"}]),
        ({"items": {"type": "boolean"}}, [[True], "not a list"], [[1]]),
    ],
)
def test_keyword_semantics(schema: dict[str, Any], valid: list[Any], invalid: list[Any]) -> None:
    checker = compile_checker(schema)
    for value in valid:
        assert checker(value) and go_decoder_validator()(schema).is_valid(value), value
    for value in invalid:
        assert not checker(value) and not go_decoder_validator()(schema).is_valid(value), value


@pytest.mark.parametrize(
    "schema",
    [{"pattern": "^a$"}, {"maxItems": 3}, {"items": [{"type": "string"}]}, {"$ref": "other.json"}],
)
def test_refuses_keywords_it_does_not_implement(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedSchemaError):
        compile_checker(schema)


def test_decoder_string_checks_apply_to_their_definition_only() -> None:
    schema = {
        "$defs": {"Q": {"type": "string"}},
        "properties": {"q": {"allOf": [{"$ref": "#/$defs/Q"}]}, "s": {"type": "string"}},
    }
    checker = compile_checker(schema, {"Q": lambda text: text.endswith("Gi")})
    assert checker({"q": "1Gi", "s": "x"})
    assert not checker({"q": "1GB"})
    assert checker({"s": "1GB"})
