"""Makes this folder's helper module (explain_clusters) importable.

Test modules are imported by path (`--import-mode=importlib`), so their folder is not on
`sys.path` by itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
