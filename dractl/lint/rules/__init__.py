"""The rule modules. Importing this package imports none of them; :func:`import_all` imports
every one, explicitly; the order here is the order of docs/rules.md."""


def import_all() -> None:
    from dractl.lint.rules import (  # noqa: F401  (importing a module registers its rules)
        admin_access,  # DRA31x
        apiserver_create,
        apiserver_devices,
        apiserver_feature_gates,
        apiserver_names,
        apiserver_requests,
        apiserver_structure,
        best_practice,  # DRA50x
        capacity,  # DRA34x
        cel,  # DRA20x
        cel_checks,  # DRA21x
        device_taint_rules,  # DRA142, DRA143, DRA411
        duplicates,  # DRA33x
        extended_resources,  # DRA35x
        input,
        meta,
        references,  # DRA30x
        schema,
        slices,  # DRA32x
        versions,
        yaml11,  # DRA51x
    )
