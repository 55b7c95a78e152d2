"""Every rule module, imported explicitly; the order here is the order of docs/rules.md."""

from dractl.lint.rules import (
    input,  # noqa: F401
    schema,  # noqa: F401
    versions,  # noqa: F401
)
