"""Which ResourceSlices of a run the apiserver refuses for their devices.

A slice the apiserver rejects never reaches the cluster, so its devices are no evidence about
the claims and classes of the run: a v1 slice with `basic:` (an unknown field since v1beta2)
has devices without attributes, and every selector would "fail" on them. Its own findings
(DRA010, DRA11x, ...) name the cause once; the rules that read devices (DRA21x, DRA34x) leave
such slices out, and DRA341 says nothing about the drivers whose slices are rejected (the
verdict would be about a cluster without them).

Only what spoils the devices counts: the strict decoder's refusals (a value of the wrong type
anywhere, an unknown field under `spec`) and validation errors under `spec`. An error in
`metadata` alone (a kubectl dump without `ownerReferences[].uid`) leaves the devices as the
driver published them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import LintContext

_CACHE_KEY = "dractl.lint.rules._rejected"


def rejected(obj: ApiObject, ctx: LintContext) -> str | None:
    """Why the apiserver refuses a ResourceSlice's devices (a field path), or None."""
    cache = ctx.cache.setdefault(_CACHE_KEY, {})
    key = id(obj)
    if key not in cache:
        cache[key] = _reason(obj, ctx)
    reason: str | None = cache[key]
    return reason


def _reason(obj: ApiObject, ctx: LintContext) -> str | None:
    from dractl.api.decoding import object_decode_errors, schema_problems
    from dractl.lint.rules._apiserver import create_check

    if obj.kind != "ResourceSlice" or not obj.dra:
        return None
    decode = object_decode_errors(obj, ctx.features.release)
    if decode:
        return decode[0].field
    unknown = [
        p for p in schema_problems(obj, ctx.features.release).unknown if p.field.startswith("spec")
    ]
    if unknown:
        return unknown[0].field
    for err in create_check(obj, ctx).errors:
        if err.path[:1] == ("spec",):
            return err.field
    return None


def accepted_slices(ctx: LintContext) -> list[ApiObject]:
    """The ResourceSlices of the run (and context) whose devices the apiserver accepts."""
    key = (_CACHE_KEY, "accepted")
    if key not in ctx.cache:
        ctx.cache[key] = [o for o in ctx.workspace.slices if rejected(o, ctx) is None]
    result: list[ApiObject] = ctx.cache[key]
    return result
