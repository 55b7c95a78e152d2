"""The namespace a Kustomization gives the objects of its resources.

Repositories keep manifests without a namespace next to a `kustomization.yaml` that sets one
(`namespace: gpu-jobs`); `kubectl apply -k` puts every namespaced object of the listed
resources there, whatever the manifest says. Read as plain files they would land in `default`,
and the cross-object rules would look for a Pod's claims in the wrong namespace (DRA302,
DRA303). Before the rules run, lint gives such objects the namespace kustomize would.

What counts, as `kustomize build` reads it:

- a kustomization is a file named `kustomization.yaml`, `kustomization.yml` or `Kustomization`
  among the inputs of the run (lint the folder, not a single manifest: a kustomization that is
  not read is not known, and what is not read cannot change a cached report);
- its `resources` (and the older `bases`) are files, or folders with a kustomization of their
  own; the objects of those files are its objects, and a folder's kustomization brings its own
  resources. URLs and folders without a kustomization are not followed;
- the outermost kustomization that sets `namespace` wins (kustomize's namespace transformer
  runs last in the outer build and overrides the inner one), and it applies to namespaced
  kinds only;
- a file that two kustomizations (two overlays of one base) would put in different namespaces
  keeps the namespace it has: lint sees each object once, and either answer would be a guess.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from dractl.api.model import plain

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.load import LoadResult
    from dractl.load.documents import Document

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


class _Kustomization:
    __slots__ = ("folder", "namespace", "resources")

    def __init__(self, folder: str, namespace: str | None, resources: list[str]) -> None:
        self.folder = folder
        self.namespace = namespace
        self.resources = resources  # absolute, normalised paths


def _read(loaded: LoadResult) -> dict[str, _Kustomization]:
    """The kustomizations among the inputs, by their folder."""
    found: dict[str, _Kustomization] = {}
    for source in loaded.files:
        if os.path.basename(source.path) not in KUSTOMIZATION_NAMES or not source.documents:
            continue
        data = _parse(source.documents[0])
        if not isinstance(data, dict):
            continue
        here = os.path.dirname(os.path.abspath(source.path))
        namespace = data.get("namespace")
        resources: list[str] = []
        for key in ("resources", "bases"):
            entries = data.get(key)
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, str) and entry and "://" not in entry:
                    resources.append(os.path.normpath(os.path.join(here, entry)))
        found.setdefault(
            here,
            _Kustomization(
                here, namespace if isinstance(namespace, str) and namespace else None, resources
            ),
        )
    return found


def _parse(document: Document) -> Any:
    """A kustomization's content. The loader keeps no tree for a document that is no
    Kubernetes object (a kustomization without `apiVersion`/`kind`), so its text is read
    here; the few keys wanted are plain strings, whatever YAML version reads them."""
    if document.raw is not None:
        return plain(document.raw)
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(document.text, Loader=loader)  # a safe loader: plain data only
    except yaml.YAMLError:
        return None  # not a kustomization kustomize could read either


def _files(
    kustomizations: dict[str, _Kustomization], folder: str, outer: str | None, seen: frozenset[str]
) -> Iterator[tuple[str, str | None]]:
    """(file, the namespace kustomize gives its objects) for every file the kustomization of
    ``folder`` reaches, under an outer kustomization's namespace ``outer``."""
    kustomization = kustomizations[folder]
    namespace = outer or kustomization.namespace
    for resource in kustomization.resources:
        if resource in kustomizations:
            if resource not in seen:  # a cycle is kustomize's error, not a reason to hang
                yield from _files(kustomizations, resource, namespace, seen | {resource})
        else:
            yield resource, namespace


def namespaces(loaded: LoadResult) -> dict[str, str]:
    """File (absolute, normalised path) → the namespace kustomize gives its objects."""
    kustomizations = _read(loaded)
    if not kustomizations:
        return {}
    included = {r for k in kustomizations.values() for r in k.resources if r in kustomizations}
    by_file: dict[str, set[str | None]] = {}
    for folder in sorted(kustomizations):
        if folder in included:
            continue  # reached from the kustomization that includes it, under its namespace
        for path, namespace in _files(kustomizations, folder, None, frozenset({folder})):
            by_file.setdefault(path, set()).add(namespace)
    out: dict[str, str] = {}
    for path, found in by_file.items():
        only = next(iter(found)) if len(found) == 1 else None
        if only is not None:
            out[path] = only
    return out


def apply_namespaces(objects: Iterable[ApiObject], loaded: LoadResult) -> None:
    """Give the namespaced objects of a kustomization's resources the namespace it sets."""
    by_file = namespaces(loaded)
    if not by_file:
        return
    for obj in objects:
        namespace = by_file.get(os.path.normpath(os.path.abspath(obj.file)))
        if namespace is None or obj.effective_namespace is None or obj.namespace == namespace:
            continue
        metadata: Any = obj.data.get("metadata")
        if isinstance(metadata, dict):
            # new dicts: the object's data may be the reader's tree, which stays as read
            obj.data = {**obj.data, "metadata": {**metadata, "namespace": namespace}}
