"""Digests that name cache entries (:mod:`dractl.lint.cache`, :mod:`dractl.cel.compile_store`).

BLAKE2b with a 32-byte digest, from CPython's own ``_blake2`` module where it is there:
``hashlib`` loads OpenSSL when it is imported, which costs about as much as a twentieth of a lint
of one small file, and every lint that is not answered by the cache names its entries.
"""

from __future__ import annotations

from typing import Any

try:
    from _blake2 import blake2b
except ImportError:  # an interpreter without CPython's built-in module
    from hashlib import blake2b

DIGEST_SIZE = 32


def hex_digest(data: bytes) -> str:
    return blake2b(data, digest_size=DIGEST_SIZE).hexdigest()


def new_digest() -> Any:
    """A digest to ``update()`` piece by piece; ``hexdigest()`` gives what :func:`hex_digest` would."""
    return blake2b(digest_size=DIGEST_SIZE)
