"""NodeAffinity (PreFilter + Filter): the Pod's ``nodeSelector`` and its required node affinity,
and the profile's scheduler-enforced ``addedAffinity`` (``pkg/scheduler/framework/plugins/
nodeaffinity``, ``component-helpers/scheduling/corev1/nodeaffinity``).

Matching reuses :func:`dractl.allocator.nodes.parse_node_selector`, one term at a time: the
scheduler reads a Pod's affinity leniently (a term that does not parse matches no node, the
other terms still count), where the allocator's parse refuses the whole selector.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.allocator.nodes import NodeInfo, NodeSelector, NodeSelectorError, parse_node_selector
from dractl.errors import UsageError
from dractl.records import Record
from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import FILTER, PRE_FILTER, Context, CycleState, Plugin, PreFilterResult
from dractl.scheduler.status import SUCCESS, Status, skip, unresolvable

REASON_POD = "node(s) didn't match Pod's node affinity/selector"
REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
REASON_CONFLICT = "pod affinity terms conflict"
NAME_FIELD = "metadata.name"


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def required_affinity(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """``affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution``, or None."""
    required = _dict(_dict(spec.get("affinity")).get("nodeAffinity")).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    return required if isinstance(required, dict) else None


def _requirement_text(requirement: Mapping[str, Any]) -> str:
    key, operator = _text(requirement.get("key")), _text(requirement.get("operator"))
    values = [_text(v) for v in _list(requirement.get("values"))]
    if operator in ("Exists", "DoesNotExist"):
        return f"{key} {operator}"
    if operator in ("Gt", "Lt") and len(values) == 1:
        return f"{key} {operator} {values[0]}"
    return f"{key} {operator} [{', '.join(values)}]"


def _label_fact(labels: Mapping[str, str], key: str) -> str:
    return f"the node has {key}={labels[key]}" if key in labels else f"the node has no label {key}"


class _Term(Record):
    """One nodeSelectorTerm: its manifest, and its parsed selector (None when it is empty or
    does not parse, ``problem`` saying which)."""

    __slots__ = ("problem", "raw", "selector")

    def __init__(self, raw: Mapping[str, Any], selector: NodeSelector | None, problem: str | None) -> None:
        self.raw = raw
        self.selector = selector
        self.problem = problem

    @classmethod
    def parse(cls, raw: Any) -> _Term:
        term = _dict(raw)
        requirements = _list(term.get("matchExpressions")) + _list(term.get("matchFields"))
        if not requirements:
            return cls(term, None, "is empty and matches no node")
        if not all(isinstance(r, dict) for r in requirements):
            return cls(term, None, "does not parse and matches no node: a requirement is not an object")
        try:
            return cls(term, parse_node_selector({"nodeSelectorTerms": [term]}), None)
        except NodeSelectorError as exc:
            return cls(term, None, f"does not parse and matches no node: {exc}")

    def matches(self, node: NodeInfo) -> bool:
        return self.selector is not None and self.selector.matches(node)

    def mismatch(self, node: NodeInfo) -> str:
        """The first requirement of the term that the node does not meet."""
        if self.problem is not None:
            return self.problem
        for field, kind in (("matchExpressions", "label"), ("matchFields", "field")):
            for requirement in _list(self.raw.get(field)):
                requirement = _dict(requirement)
                single = parse_node_selector({"nodeSelectorTerms": [{field: [requirement]}]})
                if single.matches(node):
                    continue
                if kind == "field":
                    return f"{_requirement_text(requirement)}: the node is {node.name}"
                return f"{_requirement_text(requirement)}: {_label_fact(node.labels, _text(requirement.get('key')))}"
        return "does not match"


class RequiredNodeAffinity(Record):
    """What a Pod demands of a node's labels: every ``nodeSelector`` label, and (when the Pod
    has required node affinity) one of its terms (``nodeaffinity.GetRequiredNodeAffinity``)."""

    __slots__ = ("labels", "terms")

    def __init__(self, labels: Mapping[str, str], terms: tuple[_Term, ...] | None) -> None:
        self.labels = labels
        self.terms = terms  # None: no required node affinity (every node passes that half)

    @classmethod
    def of(cls, pod: PodInfo) -> RequiredNodeAffinity:
        labels = {str(k): _text(v) for k, v in _dict(pod.spec.get("nodeSelector")).items()}
        required = required_affinity(pod.spec)
        terms = None if required is None else tuple(_Term.parse(t) for t in _list(required.get("nodeSelectorTerms")))
        return cls(labels, terms)

    def matches(self, node: NodeInfo) -> bool:
        if any(node.labels.get(key) != value for key, value in self.labels.items()):
            return False
        return self.terms is None or any(term.matches(node) for term in self.terms)

    def mismatch(self, node: NodeInfo) -> str | None:
        """Why the node does not match (the first nodeSelector label it lacks, or each term's
        first unmet requirement), or None when it matches."""
        for key, value in self.labels.items():
            if node.labels.get(key) != value:
                return f"nodeSelector {key}={value}: {_label_fact(node.labels, key)}"
        if self.terms is None or any(term.matches(node) for term in self.terms):
            return None
        if not self.terms:
            return "required node affinity has no nodeSelectorTerms and matches no node"
        if len(self.terms) == 1:
            return f"required node affinity: {self.terms[0].mismatch(node)}"
        parts = "; ".join(f"term {i}: {term.mismatch(node)}" for i, term in enumerate(self.terms))
        return f"required node affinity, no term matches: {parts}"


def _name_set(terms: list[Any]) -> frozenset[str] | None:
    """The node names the terms allow through ``metadata.name In`` field requirements: ORed
    over the terms, ANDed within a term; None as soon as one term names no node (it may
    match any node)."""
    names: set[str] | None = None
    for term in terms:
        term_names: set[str] | None = None
        for requirement in _list(_dict(term).get("matchFields")):
            requirement = _dict(requirement)
            if requirement.get("key") != NAME_FIELD or requirement.get("operator") != "In":
                continue
            values = {_text(v) for v in _list(requirement.get("values"))}
            term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None
        names = term_names if names is None else names | term_names
    return None if names is None else frozenset(names)


class NodeAffinity(Plugin):
    name = "NodeAffinity"
    extension_points = frozenset({PRE_FILTER, FILTER})

    def __init__(self, context: Context, args: Mapping[str, Any] | None = None) -> None:
        super().__init__(context, args)
        # NodeAffinityArgs.addedAffinity: read strictly, as the scheduler refuses to start on a
        # selector that does not parse.
        added = _dict(self.args.get("addedAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution")
        self.added: NodeSelector | None = None
        if isinstance(added, dict):
            try:
                self.added = parse_node_selector(added)
            except NodeSelectorError as exc:
                raise UsageError(
                    f"NodeAffinity args: parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: {exc}"
                ) from None

    def pre_filter(self, cycle: CycleState, pod: PodInfo) -> PreFilterResult:
        required = required_affinity(pod.spec)
        # An empty nodeSelector counts as none: the API server drops an empty map, so the
        # scheduler never sees one.
        if required is None and self.added is None and not _dict(pod.spec.get("nodeSelector")):
            return PreFilterResult(skip())
        cycle[self.name] = RequiredNodeAffinity.of(pod)
        terms = [] if required is None else _list(required.get("nodeSelectorTerms"))
        if not terms:
            return PreFilterResult(SUCCESS)
        names = _name_set(terms)
        if names is None:
            return PreFilterResult(SUCCESS)
        if not names:
            return PreFilterResult(unresolvable(
                REASON_CONFLICT, detail="every nodeSelectorTerm's metadata.name requirements exclude each other"))
        return PreFilterResult(SUCCESS, names)

    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        if self.added is not None and not self.added.matches(node.info):
            return unresolvable(REASON_ENFORCED,
                                detail="the profile's NodeAffinityArgs.addedAffinity matches no label set of this node")
        affinity = cycle.get(self.name)
        if not isinstance(affinity, RequiredNodeAffinity):
            # Filter without PreFilter (the scheduler always runs both; callers may not).
            affinity = RequiredNodeAffinity.of(pod)
        if affinity.matches(node.info):
            return SUCCESS
        return unresolvable(REASON_POD, detail=affinity.mismatch(node.info))
