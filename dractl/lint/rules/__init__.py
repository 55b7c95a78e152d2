"""Every rule module, imported explicitly; the order here is the order of docs/rules.md."""

from dractl.lint.rules import (
    admin_access,  # noqa: F401  (DRA31x)
    apiserver_create,  # noqa: F401
    apiserver_devices,  # noqa: F401
    apiserver_feature_gates,  # noqa: F401
    apiserver_names,  # noqa: F401
    apiserver_requests,  # noqa: F401
    apiserver_structure,  # noqa: F401
    best_practice,  # noqa: F401  (DRA50x)
    capacity,  # noqa: F401  (DRA34x)
    cel,  # noqa: F401  (DRA20x)
    cel_checks,  # noqa: F401  (DRA21x)
    duplicates,  # noqa: F401  (DRA33x)
    input,  # noqa: F401
    meta,  # noqa: F401
    references,  # noqa: F401  (DRA30x)
    schema,  # noqa: F401
    slices,  # noqa: F401  (DRA32x)
    versions,  # noqa: F401
    yaml11,  # noqa: F401  (DRA51x)
)
