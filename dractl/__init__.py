"""dractl: lint, convert and explain Kubernetes Dynamic Resource Allocation manifests."""

__version__ = "0.1.0.dev0"
