"""Run the registered rules over a workspace and turn their findings into diagnostics."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from dractl.api.defaults import defaulted_view
from dractl.api.model import ApiObject, build_all
from dractl.api.paths import format_path
from dractl.api.releases import Features
from dractl.api.workspace import Workspace
from dractl.diagnostics import Diagnostic, Fix, ObjectRef, Position, Severity
from dractl.lint.registry import REGISTRY, Rule, all_rules
from dractl.load import LoadResult
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.lint.config import PathPattern
    from dractl.load import Document

# A document's text converted to resource.k8s.io/v1 by `dractl convert`'s machinery, or None when
# the conversion would lose a field or cannot be done. lint cannot import convert (they stand
# side by side), so a caller that wants conversion fixes passes one to :func:`lint`.
DocumentConverter = Callable[["Document"], "str | None"]


class Finding(Record):
    """What a rule reports; the engine adds the rule id, severity and position.

    ``path`` is a v1 path inside ``obj.data`` (the position of the author's key is looked up from
    it); ``field``/``type`` are the apiserver's field path and error type when the finding is one
    the apiserver would report (``field`` defaults to the printed ``path``). ``fix``: edits of
    the finding's file that remove it, only when the rule is registered with a fix of that
    applicability.
    """

    __slots__ = (
        "field",
        "fix",
        "hint",
        "message",
        "obj",
        "path",
        "position",
        "rule",
        "severity",
        "type",
    )

    def __init__(
        self,
        message: str,
        path: Sequence[Any] = (),
        type: str | None = None,
        field: str | None = None,
        severity: Severity | None = None,
        hint: str | None = None,
        position: Position | None = None,
        obj: ApiObject | None = None,
        rule: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.type = type
        self.field = field
        self.severity = severity
        self.hint = hint
        self.position = position
        self.obj = obj
        self.rule = rule  # another registered rule of the same module
        self.fix = fix


class Settings(Record):
    __slots__ = (
        "cel_engine",
        "features",
        "ignore",
        "options",
        "per_file_ignores",
        "require_classes",
        "select",
        "severity_overrides",
    )

    def __init__(
        self,
        features: Features | None = None,
        select: tuple[str, ...] = (),
        ignore: tuple[str, ...] = (),
        severity_overrides: dict[str, Severity] | None = None,
        require_classes: bool = False,
        cel_engine: str | None = None,
        options: dict[str, Any] | None = None,
        per_file_ignores: tuple[tuple[PathPattern, tuple[str, ...]], ...] = (),
    ) -> None:
        self.features = Features() if features is None else features
        self.select = select  # rule ids or prefixes; empty = all
        self.ignore = ignore
        self.severity_overrides = {} if severity_overrides is None else severity_overrides
        self.require_classes = require_classes
        self.cel_engine = cel_engine
        self.options = {} if options is None else options
        # (files the pattern matches, rule ids or prefixes ignored in them)
        self.per_file_ignores = per_file_ignores

    def enabled(self, rule_id: str) -> bool:
        """Longest matching prefix wins between select and ignore (ignore wins a tie)."""
        if self.select:
            sel = max((len(p) for p in self.select if rule_id.startswith(p)), default=-1)
        else:
            sel = 0
        ign = max((len(p) for p in self.ignore if rule_id.startswith(p)), default=-1)
        return sel >= 0 and ign < sel if ign >= 0 else sel >= 0


class LintContext:
    """What a rule may look at: the settings, the whole workspace and a per-run cache.

    Rules read and never change what they look at: an object's ``data`` (and what
    :meth:`defaulted` gives) may be the reader's own tree, shared with the positions and the
    fixes (tests/lint/test_shared_trees.py holds every rule to it).

    ``converter``: how a document is converted to v1, when the caller wants conversion fixes
    (rereading a document with its comments costs about as much as linting it)."""

    def __init__(
        self, workspace: Workspace, settings: Settings, converter: DocumentConverter | None = None
    ) -> None:
        self.workspace = workspace
        self.settings = settings
        self.features = settings.features
        self.converter = converter
        self.cache: dict[Any, Any] = {}
        self._defaulted: dict[int, dict[str, Any]] = {}

    def defaulted(self, obj: ApiObject) -> dict[str, Any]:
        """``obj.data`` after the apiserver's defaulting (computed once per object)."""
        key = id(obj)
        if key not in self._defaulted:
            self._defaulted[key] = defaulted_view(obj.kind, obj.data, obj.version)
        return self._defaulted[key]


class LintResult(Record):
    """The diagnostics of a run and what it read. ``unsafe_fixes``: whether the run counts unsafe
    fixes as applicable (``--unsafe-fixes``); ``fixed`` and ``fixed_files``: how many findings
    ``--fix`` fixed, in how many files (None when the run fixed nothing: no ``--fix``)."""

    __slots__ = (
        "diagnostics",
        "files",
        "fixed",
        "fixed_files",
        "input_failed",
        "objects",
        "unsafe_fixes",
    )

    def __init__(
        self,
        diagnostics: list[Diagnostic],
        files: int,
        objects: int,
        input_failed: bool,
        *,
        unsafe_fixes: bool = False,
        fixed: int | None = None,
        fixed_files: int = 0,
    ) -> None:
        self.diagnostics = diagnostics
        self.files = files
        self.objects = objects
        self.input_failed = input_failed
        self.unsafe_fixes = unsafe_fixes
        self.fixed = fixed
        self.fixed_files = fixed_files

    @property
    def summary(self) -> dict[str, int]:
        counts = {s.value: 0 for s in Severity}
        for d in self.diagnostics:
            counts[d.severity.value] += 1
        return {
            "files": self.files,
            "objects": self.objects,
            "errors": counts["error"],
            "warnings": counts["warning"],
            "infos": counts["info"],
        }


def lint(
    loaded: LoadResult,
    settings: Settings,
    context: LoadResult | None = None,
    *,
    jobs: int = 1,
    converter: DocumentConverter | None = None,
) -> LintResult:
    """Run every enabled rule; ``jobs`` > 1 spreads per-object rules over processes when it
    pays (see :mod:`dractl.lint.parallel`), with the same diagnostics in the same order.
    ``converter``: findings of deprecated API versions get a fix that converts their document
    (only ``--fix`` and ``--diff`` ask for it: see :class:`LintContext`)."""
    from dractl.lint.parallel import map_slices

    # the reader's trees where they are plain data (nothing changes them: see LintContext)
    objects = build_all(loaded.objects, share=True)
    from dractl.lint.input_hints import refine
    from dractl.lint.kustomize import apply_namespaces

    apply_namespaces(objects, loaded)  # before any rule reads a namespace: `kubectl apply -k`
    context_objects = build_all(context.objects, share=True) if context else []
    if context:
        apply_namespaces(context_objects, context)
    workspace = Workspace(objects, context_objects)
    ctx = LintContext(workspace, settings, converter)
    # An input that cannot be read is never selected away: its objects were not checked at all.
    diagnostics: list[Diagnostic] = [
        _with_severity(d, settings)
        for d in refine(loaded.diagnostics, loaded)
        if d.rule in INPUT_ERRORS or settings.enabled(d.rule)
    ]
    rules = [r for r in all_rules() if r.check is not None and settings.enabled(r.id)]
    by_kind: dict[str, list[Rule]] = {}
    object_rules = [r for r in rules if r.scope == "object"]

    def rules_for(kind: str) -> list[Rule]:
        if kind not in by_kind:
            by_kind[kind] = [r for r in object_rules if r.kinds is None or kind in r.kinds]
        return by_kind[kind]

    def check_objects(start: int, end: int) -> list[Diagnostic]:
        found: list[Diagnostic] = []
        for obj in objects[start:end]:
            for rule_ in rules_for(obj.kind):
                assert rule_.check is not None
                for finding in rule_.check(obj, ctx):
                    found.extend(_diagnostic(rule_, finding, finding.obj or obj, settings))
        return found

    def check_workspace() -> None:
        for rule_ in rules:
            if rule_.scope == "set":
                assert rule_.check is not None
                for finding in rule_.check(ctx):
                    if finding.obj is not None and workspace.is_context(finding.obj):
                        continue
                    diagnostics.extend(_diagnostic(rule_, finding, finding.obj, settings))

    per_object = map_slices(check_objects, len(objects), jobs, meanwhile=check_workspace)
    diagnostics.extend(per_object)
    from dractl.lint.suppression import apply_suppressions

    diagnostics = apply_suppressions(diagnostics, loaded, settings)
    if any(d.fix is not None for d in diagnostics):
        diagnostics = _without_fixes_outside(diagnostics, fixable_files(loaded))
    diagnostics.sort(key=Diagnostic.sort_key)
    return LintResult(
        diagnostics=diagnostics,
        files=len(loaded.files),
        objects=len(objects),
        input_failed=loaded.failed,
    )


# What the loader reports when a document cannot be read (syntax, duplicate keys, limits): the
# rules that make LoadResult.failed, and the exit code 2.
INPUT_ERRORS = frozenset(("DRA001", "DRA002", "DRA005"))
# A file with one of these is not read whole (or is a template, DRA003): what a fix would
# change in it is not known, so it is never fixed.
NOT_READ_WHOLE = INPUT_ERRORS | {"DRA003"}
# Line breaks other than \n and \r\n: the YAML parser counts lines at them, fixes' edits do not.
_OTHER_BREAKS_RE = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


def fixable_files(loaded: LoadResult) -> set[str]:
    """Paths of the files a fix may edit: read whole, not templates, named once."""
    paths = [source.path for source in loaded.files]
    broken = {
        d.position.file
        for d in loaded.diagnostics
        if d.rule in NOT_READ_WHOLE and d.position is not None
    }
    return {
        source.path
        for source in loaded.files
        if source.kubernetes
        and not source.template
        and source.path not in broken
        and paths.count(source.path) == 1
        and not _OTHER_BREAKS_RE.search(source.text)
        and all(document.error is None for document in source.documents)
    }


def _without_fixes_outside(diagnostics: list[Diagnostic], fixable: set[str]) -> list[Diagnostic]:
    """The diagnostics, those of files no fix may edit without their fix (none is offered)."""
    from dractl.records import replace

    return [
        d
        if d.fix is None or (d.position is not None and d.position.file in fixable)
        else replace(d, fix=None)
        for d in diagnostics
    ]


def _with_severity(d: Diagnostic, settings: Settings) -> Diagnostic:
    override = settings.severity_overrides.get(d.rule)
    if override is None or override == d.severity:
        return d
    from dractl.records import replace

    return replace(d, severity=override)


def _diagnostic(
    rule_: Rule, finding: Finding, obj: ApiObject | None, settings: Settings
) -> Iterable[Diagnostic]:
    rule_id = finding.rule or rule_.id
    if finding.rule is not None:
        if finding.rule not in REGISTRY:
            raise ValueError(f"rule {rule_.id} reported unregistered rule {finding.rule}")
        if not settings.enabled(rule_id):
            return
        reporting = REGISTRY[rule_id]
    else:
        reporting = rule_
    default_severity = reporting.severity
    if finding.fix is not None and finding.fix.applicability != reporting.fix:
        raise ValueError(
            f"rule {rule_id} reported a {finding.fix.applicability} fix but is registered "
            f"with fix={reporting.fix}"
        )
    severity = settings.severity_overrides.get(rule_id, finding.severity or default_severity)
    position = finding.position
    if position is None and obj is not None:
        position = obj.position(finding.path)
    field_path = finding.field
    if field_path is None and finding.type is not None:
        field_path = format_path(finding.path)
    yield Diagnostic(
        rule=rule_id,
        severity=severity,
        message=finding.message,
        position=position,
        field=field_path,
        type=finding.type,
        obj=obj.ref if obj is not None else ObjectRef(),
        hint=finding.hint,
        fix=finding.fix,
    )
