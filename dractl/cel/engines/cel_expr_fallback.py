"""What cel-cpp cannot represent or compile, the default engine hands to cel-python.

cel-go accepts a few things cel-cpp has no room for; for them the default engine asks the
cel-python engine, which follows cel-go there (``celpy_maps``), for the same expression in the
same environment:

- a map key of a type cel-cpp maps refuse (``Invalid map key type``: a list, a map, a double,
  an optional, a Kubernetes value, ...): cel-go keys its maps by any value Go can hash
  (``refValMapAccessor`` in ``common/types/map.go``). Only the device whose evaluation met
  such a key is handed over, after cel-cpp failed on it;
- a lookup of a domain the device lacks in ``device.attributes`` or ``device.capacity`` handed on
  as a whole (``cel.bind(m, device.attributes, m["d"])``): upstream's maps answer it with an
  empty map, the device's maps as cel-cpp holds them fail (``no such key``). Only that device is
  handed over;
- a list index other than an int (``l[dyn(1u)]``, ``l[?1.0]``, ``l[dyn(1.5)]``): cel-go takes a
  uint or double that is an int64 exactly and names the index it refuses (``IndexOrError`` in
  ``common/types/list.go``); cel-cpp's error names only its type, and its optional index takes
  ints alone; likewise a double key a map lacks, which cel-cpp's text gives with six digits
  (cel-go's with all). Only the device whose evaluation met it is handed over;
- a field, index or optional lookup on a value that is neither map nor list (an attribute's
  string or version, a dyn scalar, an optional): cel-go's qualifiers answer it with ``no such
  key`` (none for ``.?``, ``[?]`` and ``has()``, ``refQualify`` in ``interpreter/attributes.go``),
  cel-cpp fails it as it has no such overload or container. Only that device is handed over;
- a duration negated at run time (``-dyn(d)``: cel-cpp has no such overload), and a call no
  overload takes with an argument that is bytes to cel-cpp (a bytes value or a library value,
  which cel-go's texts name differently). Only that device is handed over;
- a list or map holding an optional on its way to a function dractl runs in Python
  (cel-expr-python cannot hand it over): the whole program runs in cel-python, with the default
  engine's checked tree and cost estimate;
- a comprehension that runs past cel-cpp's iteration budget (10,000 iterations per evaluation,
  ``comprehension_max_iterations``, which cel-expr-python cannot raise): cel-go has no such
  limit, only the runtime cost limit (``lists.range(10000).all(i, true)`` costs 40,012 and is
  true upstream). Only the device whose evaluation ran out is handed over;
- ``format`` of a double or of bytes that are not UTF-8, and ``"".split("")``: cel-cpp's strings
  extension writes its own texts (``Infinity``, ``1.000000e+300``, a double in a list) and formats
  invalid UTF-8, where cel-go uses Go's fmt and fails; a run-time check hands only the device
  that meets such a value over;
- an expression nested more than 32 levels deep (:func:`cel_cpp_nesting_limit`): cel-cpp's
  parser stops there, cel-go's at 250 (``dractl.cel.parse_limits``); cel-python parses it,
  reports upstream's error beyond upstream's limits and compiles it within them;
- an expression cel-cpp's parser or checker refuses and cel-go's does not (:func:`cel_cpp_limit`):
  ``optMap``/``optFlatMap`` naming their variable ``__result__``, ``indexOf`` of a list of
  optionals (cel-go declares it for ``list(A)``, cel-expr-python cannot declare a type
  parameter). cel-python's checker, which reports upstream's errors, decides.

Typical selectors never get here: the first case costs nothing until cel-cpp fails, the others
are decided when the expression is compiled.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from dractl.cel import messages
from dractl.cel.errors import CelCompileError, CelError

if TYPE_CHECKING:
    from dractl.cel.environment import Environment

#: cel-cpp's error for a map key of a type its maps cannot hold.
UNREPRESENTABLE_KEY = "Invalid map key type"
#: The error of dractl's run-time checks where cel-cpp would answer otherwise than cel-go
#: (``format`` of doubles and of bytes that are not UTF-8, ``"".split("")``).
HANDOVER = "dractl: handed over to cel-python"
#: cel-cpp's error when its comprehensions ran 10,000 iterations (cel-go has no such limit).
ITERATION_BUDGET = "Iteration budget exceeded"
_CEL_CPP_RUNTIME_LIMITS = (UNREPRESENTABLE_KEY, "Index error: expected integer type, got ",
                           "No matching overloads found : _[?_]", "No matching overloads found : _?._",
                           "Applying SELECT to non-message type", "Invalid container type: ",
                           "No matching overloads found : -_(duration)", ITERATION_BUDGET,
                           HANDOVER)
# A call no overload takes, one of whose arguments cel-cpp holds as bytes: a bytes value or a
# library value, which cel-go's texts name (and its operators' traits answer) differently.
_BYTES_OPERAND = r"^No matching overloads found : (?:\(bytes\)\.|(?:\([^()]*\)\.)?[^(]+\((?:[^()]*, )?bytes[,)])"

# What cel-cpp's compile errors say where they are cel-cpp's limits.
_CEL_CPP_LIMITS = (
    "found no matching overload for 'indexOf' applied to 'list(optional_type(",
    "found no matching overload for 'lastIndexOf' applied to 'list(optional_type(",
)
# cel-cpp refuses ``__result__`` as the variable of every macro; cel-go only for the macros of
# its parser and its comprehensions extension (``parser/macro.go``, ``ext/comprehensions.go``),
# not for ``optMap``/``optFlatMap`` (``cel/library.go``).
_ACCUMULATOR_CLASH = "iteration variable overwrites accumulator variable"
_OPTIONAL_MACRO_RESULT = r"\.\s*opt(Flat)?Map\s*\(\s*__result__\s*,"
_OTHER_MACRO_RESULT = (r"\.\s*(all|exists|exists_one|existsOne|map|filter|transformList|transformMap|transformMapEntry)"
                       r"\s*\(\s*(\w+\s*,\s*)?__result__\s*,")


# cel-cpp's parser errors at its nesting limit (ParserOptions.max_recursion_depth, 32).
_NESTING_LIMITS = ("Exceeded max recursion depth of ", "Expression recursion limit exceeded. limit: ")


def cel_cpp_nesting_limit(report: str) -> bool:
    """Whether cel-cpp refused to parse an expression for nesting past its own limit."""
    return any(text in report for text in _NESTING_LIMITS)


def nested_program(expression: str, environment: Environment) -> Any:
    """cel-python's program for an expression cel-cpp cannot parse for its nesting; its compile
    error is upstream's (the nesting limits included)."""
    from dractl.cel.engines import FALLBACK_ENGINE, EngineUnavailable, get_engine

    try:
        return get_engine(FALLBACK_ENGINE).compile(expression, environment)
    except EngineUnavailable:
        message = ("the default engine parses no expression nested more than 32 levels deep (upstream: 250); "
                   "the cel-python engine does, and is not installed")
        raise CelCompileError(message, [CelError(message)], kind="unsupported") from None


def cel_cpp_runtime_limit(raw: str) -> bool:
    """Whether cel-cpp's runtime error ``raw`` is a value cel-cpp cannot hold, a list index
    cel-cpp takes otherwise than cel-go, or a double key not found, which cel-cpp's text gives
    with six digits only."""
    message = messages.strip_status(raw)
    return message.startswith(_CEL_CPP_RUNTIME_LIMITS) or re.match(messages.DOUBLE_KEY_NOT_FOUND, message) is not None \
        or re.match(_BYTES_OPERAND, message) is not None


def cel_cpp_limit(error: CelCompileError, expression: str) -> bool:
    """Whether ``error`` is cel-cpp's limit rather than upstream's verdict."""
    messages_ = [item.message for item in error.errors]
    if any(text in message for message in messages_ for text in _CEL_CPP_LIMITS):
        return True
    return (_ACCUMULATOR_CLASH in messages_ and re.search(_OPTIONAL_MACRO_RESULT, expression) is not None
            and re.search(_OTHER_MACRO_RESULT, expression) is None)


def fallback_program(expression: str, environment: Environment) -> Any | None:
    """cel-python's program for ``expression``, or None when cel-python is not installed or
    does not compile it (then the default engine's own answer stands)."""
    from dractl.cel.engines import FALLBACK_ENGINE, EngineUnavailable, get_engine

    try:
        program = get_engine(FALLBACK_ENGINE).compile(expression, environment)
    except (EngineUnavailable, CelCompileError):
        return None
    return None if getattr(program, "build_error", None) is not None else program
