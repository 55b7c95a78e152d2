"""Work that evaluates CEL runs in a forked child, and its answer comes back pickled.

The default CEL engine (cel-expr-python, 0.1.3 at the time of writing) never frees the arguments
of a call into a function written in Python: about 190 bytes per evaluation of a selector that
compares an attribute (dractl's ``==`` follows cel-go's rules in Python), more for quantities and
versions. A command ends before that matters; a language server checks a workspace at every
pause in typing, and on 500 manifests with 6,400 devices it grew by 14 MB a check. Forked, the
evaluations' garbage goes with the child, and the server keeps its size however long it runs.

The child inherits everything the server has loaded (the rules, the CEL environments, the
selectors compiled so far). Forking takes about a millisecond; the child then copies each page of
the server it writes to (reference counts change as it runs), which makes a small check some
20 ms slower (docs/performance.md, "`dractl server`"). Where no child can be forked (not Linux, a process larger than
:data:`dractl.forking.MAX_RESIDENT`) or the child fails, the work runs in the server's process:
the answer is the same either way.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import TypeVar

from dractl import forking

T = TypeVar("T")


def run(work: Callable[[], T]) -> T:
    """``work()``, done in a forked child when one can be made."""
    if forking.can_fork():
        child = forking.fork(lambda: pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL))
        if child is not None:
            data = child.answer()
            if isinstance(data, bytes):
                answer: T = pickle.loads(data)
                return answer
    return work()
