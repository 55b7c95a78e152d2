"""Shared by the apiserver rule modules: run the create-time checks once per object, by topic."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dractl.api.validation import KINDS, CreateCheck, FieldError, Topic, check_create
from dractl.lint.engine import Finding

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import LintContext

_CACHE_KEY = "dractl.lint.rules.apiserver"


def create_check(obj: ApiObject, ctx: LintContext) -> CreateCheck:
    """What the apiserver would do with ``obj`` on create (computed once per object and run)."""
    cache = ctx.cache.setdefault(_CACHE_KEY, {})
    key = id(obj)
    if key not in cache:
        if obj.dra and obj.kind in KINDS:
            cache[key] = check_create(obj.kind, ctx.defaulted(obj), ctx.features)
        else:
            cache[key] = CreateCheck()
    result: CreateCheck = cache[key]
    return result


def error_findings(obj: ApiObject, ctx: LintContext, topic: Topic) -> Iterator[Finding]:
    for err in create_check(obj, ctx).errors:
        if err.topic is topic:
            yield finding(err)


def warning_findings(
    obj: ApiObject, ctx: LintContext, topic: Topic, *, with_type: bool = True
) -> Iterator[Finding]:
    for err in create_check(obj, ctx).warnings:
        if err.topic is topic:
            yield finding(err, with_type=with_type)


def finding(err: FieldError, *, with_type: bool = True) -> Finding:
    if not with_type:
        return Finding(message=f"{err.field}: {err.detail}", path=err.where, field=err.field)
    return Finding(message=str(err), path=err.where, type=str(err.type), field=err.field)
