"""Every rule module, imported explicitly; the order here is the order of docs/rules.md."""

from dractl.lint.rules import (
    admin_access,  # noqa: F401  (DRA31x)
    best_practice,  # noqa: F401  (DRA50x)
    duplicates,  # noqa: F401  (DRA33x)
    input,  # noqa: F401
    references,  # noqa: F401  (DRA30x)
    schema,  # noqa: F401
    slices,  # noqa: F401  (DRA32x)
    versions,  # noqa: F401
)
