"""The rule registry: every diagnostic dractl emits belongs to a registered rule.

A rule is a function decorated with :func:`rule`; its docstring is its documentation (and
``docs/rules.md`` is generated from it). The docstring's first line is the one-line summary; the
rest has these sections, each a line of its own ending in a colon::

    Why:        the rationale (what goes wrong, who rejects it)
    Bad:        an example manifest (indented) that triggers the rule
    Good:       the same manifest fixed
    Upstream:   optional: the upstream source the rule follows

A rule that can fix what it finds says so with ``fix=``: ``safe`` (``dractl lint --fix``
applies it) or ``unsafe`` (only with ``--unsafe-fixes``: the fix changes what the cluster grants or
selects). Each finding then carries its own fix, or none where the intent is not certain.

Scopes: ``object`` rules are called once per object of their ``kinds``; ``set`` rules once per run
with the whole workspace (cross-object checks; they set ``Finding.obj``); ``loader`` rules are
emitted while reading input and ``engine`` rules by the engine itself (suppression bookkeeping);
neither has a check function of its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from dractl.diagnostics import Applicability, Severity
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.lint.engine import Finding

SECTIONS = ("Why", "Bad", "Good", "Upstream")


class Rule(Record):
    """A registered rule; ``docstring`` is its function's, as written (``doc`` is it dedented)."""

    __slots__ = ("check", "docstring", "fix", "id", "kinds", "module", "name", "scope", "severity")
    __hash__ = Record.value_hash

    def __init__(
        self,
        id: str,
        name: str,
        severity: Severity,
        scope: str,
        kinds: frozenset[str] | None,
        docstring: str,
        check: Callable[..., Iterable[Finding]] | None,
        module: str,
        fix: Applicability | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.severity = severity
        self.scope = scope  # "object" | "set" | "loader" | "engine"
        self.kinds = kinds
        self.docstring = docstring
        self.check = check
        self.module = module
        self.fix = fix  # whether findings may carry a fix, and how safe it is

    @property
    def doc(self) -> str:
        return _dedent(self.docstring)

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0].strip()

    def section(self, name: str) -> str:
        return doc_sections(self.doc).get(name, "")


REGISTRY: dict[str, Rule] = {}


def rule(
    id: str,
    name: str,
    severity: Severity,
    *,
    kinds: Iterable[str] | None = None,
    scope: str = "object",
    fix: Applicability | str | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a rule implemented by the decorated function (its docstring is its doc)."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        register(
            Rule(
                id=id,
                name=name,
                severity=severity,
                scope=scope,
                kinds=frozenset(kinds) if kinds is not None else None,
                docstring=func.__doc__ or "",
                check=None if scope in ("loader", "engine") else func,
                module=func.__module__,
                fix=Applicability(fix) if fix is not None else None,
            )
        )
        return func

    return decorate


def register(new: Rule) -> None:
    """Adds a rule; the shape of ids and names is checked by tests/test_registry.py."""
    if new.id in REGISTRY and REGISTRY[new.id].module != new.module:
        raise ValueError(f"rule id {new.id} registered twice")
    if any(r.name == new.name and r.id != new.id for r in REGISTRY.values()):
        raise ValueError(f"rule name {new.name} registered twice")
    REGISTRY[new.id] = new


def all_rules() -> list[Rule]:
    from dractl.lint.rules import import_all

    import_all()

    return [REGISTRY[k] for k in sorted(REGISTRY)]


def get_rule(rule_id: str) -> Rule | None:
    all_rules()
    return REGISTRY.get(rule_id.upper())


@functools.cache
def _dedent(doc: str) -> str:
    # inspect (with ast, dis and tokenize) is imported only when documentation is shown
    import inspect

    return inspect.cleandoc(doc)


def doc_sections(doc: str) -> dict[str, str]:
    """Split a rule docstring into its summary and named sections."""
    lines = doc.strip().splitlines()
    out: dict[str, list[str]] = {"Summary": [lines[0]] if lines else []}
    current = "Description"
    out[current] = []
    for line in lines[1:]:
        stripped = line.rstrip()
        if stripped.endswith(":") and stripped[:-1] in SECTIONS and not line.startswith(" "):
            current = stripped[:-1]
            out[current] = []
            continue
        out.setdefault(current, []).append(line)
    return {k: "\n".join(v).strip("\n") for k, v in out.items()}
