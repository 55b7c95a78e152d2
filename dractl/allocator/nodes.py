"""Nodes and node selectors, matched the way the scheduler's node-affinity helper does.

A `NodeSelector` is parsed once (:func:`parse_node_selector`) and then matched against
many nodes. Terms are ORed, the requirements inside one term ANDed; a term without any
requirement matches nothing. Label requirements support In, NotIn, Exists, DoesNotExist,
Gt and Lt; field requirements only `metadata.name` with In / NotIn and exactly one value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dractl.records import Record

_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


class NodeSelectorError(ValueError):
    """A node selector that the scheduler cannot parse."""


class NodeInfo(Record):
    """The parts of a Node that device allocation looks at."""

    __slots__ = ("labels", "name")
    __hash__ = Record.value_hash

    def __init__(self, name: str, labels: Mapping[str, str] | None = None) -> None:
        self.name = name
        self.labels = {} if labels is None else labels

    @classmethod
    def from_object(cls, node: Any) -> NodeInfo:
        """Accepts a Node manifest (dict or an object with `.data`) or a `NodeInfo`."""
        if isinstance(node, NodeInfo):
            return node
        data = getattr(node, "data", node)
        metadata = (data or {}).get("metadata") or {}
        labels = metadata.get("labels") or {}
        return cls(str(metadata.get("name") or ""), {str(k): str(v) for k, v in labels.items()})


class _LabelRequirement(Record):
    __slots__ = ("key", "number", "operator", "values")
    __hash__ = Record.value_hash

    def __init__(self, key: str, operator: str, values: frozenset[str], number: int = 0) -> None:
        self.key = key
        self.operator = operator
        self.values = values
        self.number = number

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        if self.operator == "In":
            return present and labels[self.key] in self.values
        if self.operator == "NotIn":
            return not present or labels[self.key] not in self.values
        if self.operator == "Exists":
            return present
        if self.operator == "DoesNotExist":
            return not present
        if not present:
            return False
        try:
            label_number = int(labels[self.key])
        except ValueError:
            return False
        return label_number > self.number if self.operator == "Gt" else label_number < self.number


class _FieldRequirement(Record):
    __slots__ = ("equal", "key", "value")
    __hash__ = Record.value_hash

    def __init__(self, key: str, equal: bool, value: str) -> None:
        self.key = key
        self.equal = equal
        self.value = value

    def matches(self, fields: Mapping[str, str]) -> bool:
        return (fields.get(self.key, "") == self.value) == self.equal


class _Term(Record):
    __slots__ = ("fields", "labels")
    __hash__ = Record.value_hash

    def __init__(
        self,
        labels: tuple[_LabelRequirement, ...] | None,
        fields: tuple[_FieldRequirement, ...] | None,
    ) -> None:
        self.labels = labels
        self.fields = fields

    def matches(self, node: NodeInfo) -> bool:
        if self.labels is not None and not all(r.matches(node.labels) for r in self.labels):
            return False
        if self.fields is not None and node.name:
            fields = {"metadata.name": node.name}
            if not all(r.matches(fields) for r in self.fields):
                return False
        return True


class NodeSelector(Record):
    """A parsed `core/v1 NodeSelector`; `raw` is the manifest's dict."""

    __slots__ = ("raw", "terms")
    __hash__ = Record.value_hash

    def __init__(self, raw: Mapping[str, Any], terms: tuple[_Term, ...]) -> None:
        self.raw = raw
        self.terms = terms

    def matches(self, node: NodeInfo) -> bool:
        return any(term.matches(node) for term in self.terms)

    @property
    def term_count(self) -> int:
        return len(self.raw.get("nodeSelectorTerms") or [])


def parse_node_selector(raw: Mapping[str, Any]) -> NodeSelector:
    """Parses a NodeSelector; raises :class:`NodeSelectorError` with every problem found."""
    problems: list[str] = []
    terms: list[_Term] = []
    for term_index, term in enumerate(raw.get("nodeSelectorTerms") or []):
        term = term or {}
        expressions = term.get("matchExpressions") or []
        fields = term.get("matchFields") or []
        if not expressions and not fields:
            continue
        path = f"nodeSelectorTerms[{term_index}]"
        labels = _parse_labels(expressions, f"{path}.matchExpressions", problems) if expressions else None
        field_reqs = _parse_fields(fields, f"{path}.matchFields", problems) if fields else None
        terms.append(_Term(labels, field_reqs))
    if problems:
        raise NodeSelectorError(_aggregate(problems))
    return NodeSelector(raw, tuple(terms))


def _aggregate(problems: list[str]) -> str:
    return problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"


def _parse_labels(
    expressions: list[Any], path: str, problems: list[str]
) -> tuple[_LabelRequirement, ...]:
    parsed: list[_LabelRequirement] = []
    for index, expression in enumerate(expressions):
        expression = expression or {}
        where = f"{path}[{index}]"
        key = str(expression.get("key") or "")
        operator = str(expression.get("operator") or "")
        values = [str(v) for v in expression.get("values") or []]
        if operator not in _LABEL_OPERATORS:
            supported = ", ".join(f'"{op}"' for op in _LABEL_OPERATORS)
            problems.append(f'{where}.operator: Unsupported value: "{operator}": supported values: {supported}')
            continue
        key_problem = _label_key_problem(key)
        if key_problem:
            problems.append(f"{where}.key: Invalid value: {key!r}: {key_problem}")
            continue
        number = 0
        if operator in ("In", "NotIn") and not values:
            problems.append(f"{where}.values: Required value: for 'in', 'notin' operators, values set can't be empty")
            continue
        if operator in ("Exists", "DoesNotExist") and values:
            problems.append(f"{where}.values: Forbidden: values set must be empty for exists and does not exist")
            continue
        if operator in ("Gt", "Lt"):
            if len(values) != 1:
                problems.append(f"{where}.values: Required value: for 'Gt', 'Lt' operators, exactly one value is required")
                continue
            try:
                number = int(values[0])
            except ValueError:
                number = _INT64_MAX + 1
            if not _INT64_MIN <= number <= _INT64_MAX:
                problems.append(f"{where}.values[0]: Invalid value: {values[0]!r}: for 'Gt', 'Lt' operators, the value must be an integer")
                continue
        bad_value = next((v for v in values if v and (len(v) > 63 or not _NAME.match(v))), None)
        if bad_value is not None and operator not in ("Gt", "Lt"):
            problems.append(f"{where}.values: Invalid value: {bad_value!r}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
            continue
        parsed.append(_LabelRequirement(key, operator, frozenset(values), number))
    return tuple(parsed)


def _label_key_problem(key: str) -> str | None:
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        return "prefix part must be a valid DNS subdomain"
    if not name or len(name) > 63 or not _NAME.match(name):
        return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
    return None


def _parse_fields(
    requirements: list[Any], path: str, problems: list[str]
) -> tuple[_FieldRequirement, ...]:
    parsed: list[_FieldRequirement] = []
    for index, requirement in enumerate(requirements):
        requirement = requirement or {}
        where = f"{path}[{index}]"
        operator = str(requirement.get("operator") or "")
        values = [str(v) for v in requirement.get("values") or []]
        if operator not in ("In", "NotIn"):
            problems.append(f'{where}.operator: Unsupported value: "{operator}": supported values: "In", "NotIn"')
            continue
        if len(values) != 1:
            problems.append(f"{where}.values: Invalid value: {values!r}: must have one element")
            continue
        parsed.append(_FieldRequirement(str(requirement.get("key") or ""), operator == "In", values[0]))
    return tuple(parsed)
