"""How the server names a document: a file by its absolute path, as lint's positions name it, and
anything that is no file (``untitled:Untitled-1``, ``vscode-vfs://...``, ``git:/...``) by its URI,
which then is the "path" of its source and of its diagnostics' positions. Such a document is read
from the editor's buffer only: nothing looks for it on disk, nothing writes it.
"""

from __future__ import annotations

import os

from pygls.uris import from_fs_path, to_fs_path, uri_scheme


def key_of(uri: str) -> str:
    """The key of the document at ``uri``."""
    if uri_scheme(uri) == "file":
        path = to_fs_path(uri)
        if path:
            return os.path.abspath(path)
    return uri


def is_file(key: str) -> bool:
    """Whether ``key`` names a file (an absolute path) rather than a document that is no file."""
    return os.path.isabs(key)


def uri_of(key: str) -> str:
    """A URI for ``key`` (the server prefers the one the editor used, when it has it)."""
    if not is_file(key):
        return key
    return from_fs_path(key) or key


def inside(key: str, root: str) -> bool:
    """Whether the file ``key`` is ``root`` or under it (both absolute, normalised)."""
    if not is_file(key):
        return False
    prefix = root if root.endswith(os.sep) else root + os.sep
    return key == root or key.startswith(prefix)
