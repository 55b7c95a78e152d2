"""DRA9xx: dractl's own bookkeeping (suppression comments), emitted by the engine."""

from __future__ import annotations

from dractl.diagnostics import Severity
from dractl.lint.registry import rule


@rule("DRA901", "unused-suppression", Severity.WARNING, scope="engine")
def unused_suppression() -> None:
    """A `# dractl: ignore` comment suppresses nothing.

    Why:
    A suppression outlives the problem it hid: once the manifest is fixed (or the rule no longer
    fires), the comment only hides the next, unrelated problem on that line. Remove it. A
    suppression of a rule that is switched off in this run (`--select`, `ignore`,
    `per-file-ignores`) is not reported, since another run may need it.

    Bad:
        metadata:
          name: gpu-claim  # dractl: ignore[DRA101]
    Good:
        metadata:
          name: gpu-claim
    """


@rule("DRA902", "unknown-rule-in-suppression", Severity.WARNING, scope="engine")
def unknown_rule_in_suppression() -> None:
    """A suppression names a rule ID or prefix that no rule has.

    Why:
    A mistyped code (`DRA01` for `DRA101`, or another linter's code) suppresses nothing, so the
    diagnostic it was meant to hide still appears, or a later one is hidden by accident. Codes
    are `DRA` followed by up to three digits; `dractl rules` lists them.

    Bad:
        spec:
          devices:
            requests:
            - name: gpu  # dractl: ignore[E501]
    Good:
        spec:
          devices:
            requests:
            - name: gpu
    """


@rule("DRA903", "invalid-suppression-comment", Severity.WARNING, scope="engine")
def invalid_suppression_comment() -> None:
    """A `# dractl:` comment is not one of the known directives.

    Why:
    dractl understands `ignore[...]`, `ignore-document[...]` and `ignore-file[...]`; anything
    else after `# dractl:` (a typo such as `ignor` or `disable`) is silently meaningless
    otherwise.

    Bad:
        metadata:
          name: gpu-claim  # dractl: disable[DRA101]
    Good:
        metadata:
          name: gpu-claim  # dractl: ignore[DRA101]
    """
