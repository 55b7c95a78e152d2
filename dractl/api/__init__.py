"""The resource.k8s.io model: versions, normalisation to v1, defaults, releases, field paths."""
