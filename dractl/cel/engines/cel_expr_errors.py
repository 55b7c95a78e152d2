"""cel-cpp's compile errors in the words and at the positions of cel-go, which upstream prints.

The two implementations find the same errors but report some differently. The parser's macro
errors differ in text (and for a repeated variable, in which argument they point at): those are
reworded from the report alone. The checker's differ where cel-go decides from facts the cel-cpp
report does not carry, so they are derived from the parsed tree of the expression (each node
with its id and position) and, where types are needed, from a second check:

- a call of a declared function whose arguments fit no overload is, in cel-go, "found no
  matching overload for 'f' applied to '(types)'"; cel-cpp says "undeclared reference" (it looks
  functions up by name and arity), and for ``sets.contains(x)`` also reports ``sets``. The
  argument types come from checking the expression once more in an environment where every call
  cel-cpp rejected has an overload and every undeclared name a declaration (:class:`Probe`), so
  that the checked tree holds the types cel-go prints (after its substitutions: cel-cpp's
  messages name type parameters it has bound as ``T%2``). cel-cpp's ``&&`` and ``||`` take no
  further overloads: with such an error beside, the second check fails and those calls keep
  cel-cpp's words;
- ``&&`` and ``||`` with an operand that is not a bool: cel-go reports each such operand at its
  own position ("expected type 'bool' but found 'int'"), cel-cpp the operator;
- cel-go writes a member call's types as ``target.(args)``, names types its own way (``null``,
  ``timestamp``, an unbound type parameter as ``dyn``), and reports an undeclared dotted name by
  its first part.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from dractl.cel.ast import CelType, CheckedAst, Expr
from dractl.cel.call_text import argument_ends
from dractl.cel.errors import CelError
from dractl.cel.messages import ISSUE_HEAD, UNRESOLVED_OBJECT_TYPES, strip_status
from dractl.cel.source_map import expression_index, expression_line_column
from dractl.records import Record

# Patterns as text, compiled on first use by re's cache: only expressions that fail need them.
_CASCADE = "*error*"
_NO_OVERLOAD = r"^found no matching overload for '([^']+)' applied to '(.*)'$"
_UNDECLARED = r"^undeclared reference to '([^']+)' \(in container '([^']*)'\)$"
_UNDEFINED_FIELD = r"^undefined field '([^']*)' not found in struct '([^']*)'$"

_RANGE = (r"^expression of type '(.*)' cannot be the range of a comprehension "
          r"\(must be list, map, or dynamic\)$")
_SELECT = r"^expression of type '(.*)' cannot be the operand of a select operation$"
_VARIABLE_NAME = r"^(\w+(?:\.\w+)?)\(\) (?:(first|second) )?variable name must be a simple identifier$"
_DUPLICATE = r"^(\w+)\(\) second variable must be different from the first variable$"
_ACCUMULATOR = r"^(\w+)\(\) (?:(first|second) )?variable name cannot be __result__$"
_LOGICAL = frozenset({"_&&_", "_||_"})
# cel-go's parser says "argument must be a simple name" of a comprehension variable that is no
# identifier, but this of map's, filter's and sortBy's.
_NOT_AN_IDENTIFIER = frozenset({"map", "filter", "sortBy"})
_ACCUMULATOR_NAME = "__result__"
_IDENT = r"[_a-zA-Z][_a-zA-Z0-9]*"
_SPACE = r"(?:\s+|//[^\n]*)*"


class Probe(Record):
    """An overload that lets a call cel-cpp rejects type-check: ``function`` (a ``member``
    function: the target is the first parameter) with parameters of the types cel-cpp's message
    names (in its spelling, ``T%1`` a type parameter), or of any type where a type is None."""

    __slots__ = ("function", "member", "params")
    __hash__ = Record.value_hash

    def __init__(self, function: str, member: bool, params: tuple[str | None, ...]) -> None:
        self.function = function
        self.member = member
        self.params = params


#: Checks the expression again with the probes' overloads declared, and the names (undeclared
#: identifiers, which cel-go checks on as errors) as variables of any type: the checked tree, or
#: None.
ProbeCheck = Callable[[Sequence[Probe], Sequence[str]], CheckedAst | None]


def parse_report(report: str) -> list[CelError]:
    """The positioned errors of a cel-cpp issue report (``ERROR: <input>:L:C: text`` lines with
    snippets); a message that spans lines keeps its other lines; warnings are left out."""
    errors: list[CelError] = []
    warning = False
    for line in strip_status(report).split("\n"):
        head = re.match(ISSUE_HEAD, line)
        if head:
            warning = False
            errors.append(CelError(head.group(3), int(head.group(1)), int(head.group(2))))
        elif line.startswith("WARNING: <input>:"):
            # cel-cpp's checker warns of a map key type its maps cannot hold
            # (``unsupported map key type: list(dyn)``); cel-go's has no such warning.
            warning = True
        elif errors and not warning and not line.startswith(" | "):
            last = errors[-1]
            errors[-1] = CelError(last.message + "\n" + line, last.line, last.column)
    return errors


# -- types -----------------------------------------------------------------------------------

_GO_NAMES = {"null_type": "null", "google.protobuf.Timestamp": "timestamp", "google.protobuf.Duration": "duration",
             "*error*": "!error!"}
_TYPE_PARAMETER = r"^T%(\d+)$"


def split_arguments(text: str) -> list[str]:
    """``map(string, int), int`` → the two types (commas inside parentheses do not split)."""
    parts: list[str] = []
    depth = start = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    if text.strip():
        parts.append(text[start:].strip())
    return parts


def go_type_spelling(cpp: str, parameter: Callable[[int], str] = lambda _: "dyn") -> str:
    """A type as cel-cpp's messages spell it → as cel-go's (``FormatCELType``); ``parameter``
    names a type parameter ``T%n``."""
    cpp = cpp.strip()
    param = re.match(_TYPE_PARAMETER, cpp)
    if param:
        return parameter(int(param.group(1)))
    head, paren, rest = cpp.partition("(")
    if paren and rest.endswith(")"):
        inner = ", ".join(go_type_spelling(part, parameter) for part in split_arguments(rest[:-1]))
        return f"{_GO_NAMES.get(head, head)}({inner})"
    return _GO_NAMES.get(cpp, cpp)


def go_type_name(t: CelType) -> str:
    """A checked type as cel-go's ``FormatCELType`` spells it (type parameters left unbound by
    the check are ``dyn``, as cel-go substitutes them in its no-overload message)."""
    if t.kind in ("list", "map", "type"):
        return f"{t.kind}({', '.join(go_type_name(p) for p in t.params)})" if t.params else t.kind
    if t.kind == "opaque":
        return f"{t.name}({', '.join(go_type_name(p) for p in t.params)})" if t.params else t.name
    if t.kind == "wrapper":
        return f"wrapper({go_type_name(t.params[0])})"
    if t.kind == "message":
        return _GO_NAMES.get(t.name, t.name)
    if t.kind == "type_param":
        return "dyn"
    if t.kind == "error":
        return "!error!"
    return _GO_NAMES.get(t.kind, t.kind)


def _signature(types: Sequence[str], member: bool) -> str:
    if member and types:
        return f"{types[0]}.({', '.join(types[1:])})"
    return f"({', '.join(types)})"


# -- the tree --------------------------------------------------------------------------------


class _Tree:
    """The parsed tree of the expression, its nodes found by position."""

    def __init__(self, tree: CheckedAst, expression: str) -> None:
        self.tree = tree
        self.expression = expression
        self.nodes = [node for node in tree.root.walk() if node.id in tree.positions]
        self.nodes += [node for call in tree.macro_calls.values() for node in call.walk() if node.id in tree.positions]

    def index(self, err: CelError) -> int:
        return expression_index(self.expression, err.line, err.column)

    def at(self, err: CelError, kind: str, name: str | None = None) -> Expr | None:
        offset = self.index(err)
        for node in self.nodes:
            if node.kind == kind and (name is None or node.name == name) and self.tree.positions[node.id] == offset:
                return node
        return None

    def call_at(self, err: CelError, function: str) -> tuple[Expr, bool] | None:
        """The call of ``function`` at ``err``'s position, and whether it is a member call (a
        namespaced function, ``sets.contains``, is parsed as a call on ``sets``)."""
        node = self.at(err, "call", function)
        if node is not None:
            return node, node.operand is not None
        namespace, _, name = function.rpartition(".")
        node = self.at(err, "call", name) if namespace else None
        if node is not None and _qualified_name(node.operand) == namespace:
            return node, False
        return None

    def error_at(self, message: str, node: Expr) -> CelError:
        line, column = expression_line_column(self.expression, self.tree.positions.get(node.id, 0))
        return CelError(message, line, column)


def _qualified_name(node: Expr | None) -> str | None:
    """``a.b.c`` for a chain of selections on an identifier (cel-go's ``ToQualifiedName``)."""
    parts: list[str] = []
    while node is not None and node.kind == "select" and not node.test_only:
        parts.append(node.name)
        node = node.operand
    if node is None or node.kind != "ident":
        return None
    return ".".join([node.name, *reversed(parts)])


def _leftmost_ident(node: Expr | None) -> Expr | None:
    while node is not None and node.kind == "select":
        node = node.operand
    return node if node is not None and node.kind == "ident" else None


# -- the translation -------------------------------------------------------------------------


class _Unmatched(Record):
    """A call cel-go resolves to a declared function none of whose overloads fits."""

    __slots__ = ("function", "hidden", "member", "node", "reported")

    def __init__(
        self,
        node: Expr,
        function: str,
        member: bool,
        reported: CelError,
        hidden: Expr | None,
    ) -> None:
        self.node = node
        self.function = function
        self.member = member
        self.reported = reported
        self.hidden = hidden  # the namespace identifier cel-cpp reported as undeclared


def _unmatched_call(tree: _Tree, err: CelError, functions: frozenset[str]) -> _Unmatched | None:
    """The call ``err`` is about, when cel-go resolves it to a declared function: cel-cpp's
    "undeclared reference" for a known name of another arity, or a namespaced function
    (``sets.contains``) cel-cpp took for a member call on an undeclared namespace."""
    undeclared = re.match(_UNDECLARED, err.message)
    overload = re.match(_NO_OVERLOAD, err.message)
    name = undeclared.group(1) if undeclared else overload.group(1) if overload else None
    if name is None:
        return None
    node = tree.at(err, "call", name)
    if node is None:
        return None
    namespace = _qualified_name(node.operand)
    if namespace is not None and f"{namespace}.{name}" in functions:
        return _Unmatched(node, f"{namespace}.{name}", False, err, _leftmost_ident(node.operand))
    if undeclared and name in functions:
        return _Unmatched(node, name, node.operand is not None, err, None)
    return None


def _operand_types(checked: CheckedAst, node: Expr, member: bool) -> list[str] | None:
    by_id = {n.id: n for n in checked.root.walk()}
    found = by_id.get(node.id)
    if found is None or found.kind != "call":
        return None
    operands = ([found.operand] if member and found.operand is not None else []) + found.args
    return [go_type_name(checked.type_of(operand)) for operand in operands]


def _logical_operands(tree: _Tree, err: CelError, function: str, types: list[str]) -> list[CelError] | None:
    """cel-go's checker reports each operand of ``&&``/``||`` that is not a bool, at the operand."""
    node = tree.at(err, "call", function)
    if node is None or len(node.args) != len(types):
        return None
    errors = []
    for operand, cpp in zip(node.args, types, strict=True):
        if cpp in ("bool", "dyn", "*error*") or re.match(_TYPE_PARAMETER, cpp):
            continue  # assignable to bool
        found = go_type_spelling(cpp, _go_type_variable)
        errors.append(tree.error_at(f"expected type 'bool' but found '{found}'", operand))
    return errors


def _go_type_variable(number: int) -> str:
    """cel-go's name of a type parameter it has not substituted (``T%1`` in cel-cpp's count)."""
    return f"_var{number - 1}"


def _skip_space(text: str, index: int) -> int:
    match = re.compile(_SPACE).match(text, index)
    return match.end() if match else index


def _next_argument(expression: str, index: int) -> int | None:
    """Where the argument after the identifier at ``index`` starts (``k, v``: at ``v``)."""
    ident = re.compile(_IDENT).match(expression, index)
    if ident is None:
        return None
    comma = _skip_space(expression, ident.end())
    if not expression.startswith(",", comma):
        return None
    return _skip_space(expression, comma + 1)


def _accumulator_before(expression: str, index: int) -> int | None:
    """Where the variable ``__result__`` before the argument at ``index`` starts."""
    before = expression[:index].rstrip()
    if not before.endswith(","):
        return None
    before = before[:-1].rstrip()
    if not before.endswith(_ACCUMULATOR_NAME):
        return None
    return len(before) - len(_ACCUMULATOR_NAME)


def _moved(err: CelError, message: str, expression: str, index: int | None) -> CelError:
    if index is None:
        return CelError(message, err.line, err.column)
    line, column = expression_line_column(expression, index)
    return CelError(message, line, column)


def _parser_error(err: CelError, expression: str) -> CelError:
    """A macro error of cel-cpp's parser in cel-go's words, at cel-go's argument."""
    message = err.message
    if message == "has() argument must be a field selection":
        return CelError("invalid argument to has() macro", err.line, err.column)
    variable = re.match(_VARIABLE_NAME, message)
    if variable:
        macro = variable.group(1)
        if macro == "cel.bind":
            text = "cel.bind() variable names must be simple identifiers"
        elif macro in _NOT_AN_IDENTIFIER:
            text = "argument is not an identifier"
        elif macro in ("optMap", "optFlatMap"):
            return err
        else:
            text = "argument must be a simple name"
        return CelError(text, err.line, err.column)
    duplicate = re.match(_DUPLICATE, message)
    if duplicate:
        index = expression_index(expression, err.line, err.column)
        ident = re.compile(_IDENT).match(expression, index)
        if ident is None:
            return err
        return _moved(err, f"duplicate variable name: {ident.group(0)}", expression,
                      _next_argument(expression, index))
    accumulator = re.match(_ACCUMULATOR, message)
    if accumulator:
        text = "iteration variable overwrites accumulator variable"
        if accumulator.group(2):  # two-variable forms: cel-cpp points at the variable too
            return CelError(text, err.line, err.column)
        index = expression_index(expression, err.line, err.column)
        return _moved(err, text, expression, _accumulator_before(expression, index))
    return err


def _reworded(err: CelError, tree: _Tree) -> list[CelError]:
    """A cel-cpp checker error that needs no types beyond its own as cel-go reports it."""
    message = err.message
    field = re.match(_UNDEFINED_FIELD, message)
    if field:
        struct = field.group(2)
        if struct in UNRESOLVED_OBJECT_TYPES:
            return [CelError(f"unexpected failed resolution of '{struct}'", err.line, err.column)]
        if struct in ("net.IP", "net.CIDR"):
            return [CelError(f"type '{struct}' does not support field selection", err.line, err.column)]
        return [CelError(f"undefined field '{field.group(1)}'", err.line, err.column)]
    range_type = re.match(_RANGE, message)
    if range_type:
        return [CelError(f"expression of type '{go_type_spelling(range_type.group(1))}' cannot be range of a "
                         "comprehension (must be list, map, or dynamic)", err.line, err.column)]
    select = re.match(_SELECT, message)
    if select:
        return [CelError(f"type '{go_type_spelling(select.group(1))}' does not support field selection",
                         err.line, err.column)]
    undeclared = re.match(_UNDECLARED, message)
    if undeclared and "." in undeclared.group(1):
        # cel-go, failing to resolve ``a.b.c`` as one name, checks the operands and reports the
        # innermost identifier at its own position; cel-cpp the whole name at the last ".".
        ident = _leftmost_ident(tree.at(err, "select"))
        if ident is not None:
            return [tree.error_at(f"undeclared reference to '{ident.name}' (in container "
                                  f"'{undeclared.group(2)}')", ident)]
    overload = re.match(_NO_OVERLOAD, message)
    if overload and overload.group(2).startswith("(") and overload.group(2).endswith(")"):
        function, types = overload.group(1), split_arguments(overload.group(2)[1:-1])
        if function in _LOGICAL:
            operands = _logical_operands(tree, err, function, types)
            if operands is not None:
                return operands
        call = tree.call_at(err, function)
        return [_no_overload(err, function, [go_type_spelling(t) for t in types], call is not None and call[1])]
    return [err]


def _no_overload(err: CelError, function: str, types: Sequence[str], member: bool) -> CelError:
    return CelError(f"found no matching overload for '{function}' applied to '{_signature(types, member)}'",
                    err.line, err.column)


class _Overload(Record):
    """A cel-cpp "found no matching overload" for a call: the second check gives its argument
    types as cel-go substitutes them (cel-cpp's message leaves type parameters unbound)."""

    __slots__ = ("function", "member", "node", "params", "reported")

    def __init__(
        self,
        node: Expr,
        function: str,
        member: bool,
        reported: CelError,
        params: tuple[str, ...],
    ) -> None:
        self.node = node
        self.function = function
        self.member = member
        self.reported = reported
        self.params = params


def _failed_overload(tree: _Tree, err: CelError) -> _Overload | None:
    overload = re.match(_NO_OVERLOAD, err.message)
    if not overload or _CASCADE in err.message:
        return None
    signature = overload.group(2)
    if not (signature.startswith("(") and signature.endswith(")")):
        return None
    call = tree.call_at(err, overload.group(1))
    if call is None:
        return None
    return _Overload(call[0], overload.group(1), call[1], err, tuple(split_arguments(signature[1:-1])))


def _unknown(tree: _Tree, err: CelError, hidden: set[int]) -> Probe | str | None:
    """What the second check needs declared for a name ``err`` reports undeclared: an overload
    for a function call (any arguments), or a variable (an identifier, the first part of a
    dotted name)."""
    undeclared = re.match(_UNDECLARED, err.message)
    if undeclared is None:
        return None
    name = undeclared.group(1)
    call = tree.at(err, "call", name)
    if call is not None:
        return Probe(name, call.operand is not None, (None,) * (len(call.args) + (call.operand is not None)))
    ident = tree.at(err, "ident", name) or _leftmost_ident(tree.at(err, "select"))
    if ident is None or ident.id in hidden:
        return None
    return ident.name


def upstream_errors(report: str, expression: str, parsed: CheckedAst | None, functions: frozenset[str],
                    check: ProbeCheck) -> list[CelError]:
    """The errors cel-go reports for the expression cel-cpp reported ``report`` for, sorted by
    position as cel-go prints them.

    ``parsed`` is the expression's parsed tree (None when it does not parse: the errors are the
    parser's), ``functions`` the environment's function names, ``check`` the second check that
    gives argument types (:class:`Probe`).
    """
    errors = parse_report(report)
    if parsed is None:
        return sorted((_parser_error(err, expression) for err in errors), key=lambda e: (e.line, e.column))
    tree = _Tree(parsed, expression)
    unmatched = [u for err in errors if (u := _unmatched_call(tree, err, functions)) is not None]
    failed = [f for err in errors if (f := _failed_overload(tree, err)) is not None]
    hidden = {u.hidden.id for u in unmatched if u.hidden is not None}
    probes = [Probe(u.function, u.member, (None,) * (len(u.node.args) + u.member)) for u in unmatched]
    probes += [Probe(f.function, f.member, f.params) for f in failed]
    variables: list[str] = []
    if probes:
        # Every failed call gets its overload and every undeclared name a declaration, so that
        # the second check succeeds where cel-cpp reported several errors.
        resolved = {id(u.reported) for u in unmatched}
        for err in errors:
            unknown = _unknown(tree, err, hidden) if id(err) not in resolved else None
            if isinstance(unknown, Probe):
                probes.append(unknown)
            elif unknown is not None:
                variables.append(unknown)
    checked = check(sorted(set(probes), key=repr), sorted(set(variables))) if probes else None
    found: list[CelError] = []
    taken: set[int] = set()
    if checked is not None:
        # The operands of && and || are worded from cel-cpp's types (cel-go prints them unsubstituted).
        for item in (*unmatched, *(f for f in failed if f.function not in _LOGICAL)):
            types = _operand_types(checked, item.node, item.member)
            if types is None:
                continue
            taken.add(id(item.reported))
            found.append(_no_overload(item.reported, item.function, types, item.member))
        for err in errors:
            namespace = re.match(_UNDECLARED, err.message)
            node = tree.at(err, "ident", namespace.group(1)) if namespace else None
            if node is not None and node.id in hidden:
                taken.add(id(err))  # the namespace of a function cel-go resolved
    # cel-cpp goes on to report calls whose operand failed to type-check ("... '*error*' ...");
    # cel-go's checker takes its error type for any type, but not list(!error!) for a bool.
    cascade = {id(err) for err in errors if _CASCADE in err.message and not _logical(err)}
    if len(cascade) == len(errors):
        cascade = set()
    for err in errors:
        if id(err) not in taken and id(err) not in cascade:
            found.extend(_reworded(err, tree))
    return sorted(found, key=lambda e: (e.line, e.column))


def _logical(err: CelError) -> bool:
    overload = re.match(_NO_OVERLOAD, err.message)
    return overload is not None and overload.group(1) in _LOGICAL


_SORT_BY_INPUT = "@__sortBy_input__"  # cel-cpp's sortBy expansion: a comprehension over its target


def sort_by_errors(checked: CheckedAst, expression: str, parse: Callable[[str], CheckedAst | None]) -> list[CelError]:
    """cel-go's parser errors for a ``sortBy`` variable cel-cpp's parser takes (one that is no
    identifier, or ``__result__``), at the variable's node as cel-go positions it; ``parse``
    parses the variable's text alone to find that node."""
    errors = []
    for node in checked.root.walk():
        if node.kind != "comprehension" or node.accu_var != _SORT_BY_INPUT:
            continue
        keys = next((n for n in node.walk() if n.kind == "comprehension" and n.accu_var != _SORT_BY_INPUT), None)
        if keys is None or keys.iter_var not in ("", _ACCUMULATOR_NAME):
            continue
        message = ("argument is not an identifier" if keys.iter_var == ""
                   else "iteration variable overwrites accumulator variable")
        offset = checked.positions.get(node.id, -1)
        if not expression.startswith("(", offset):
            continue
        begin = offset + 1
        variable = parse(expression[begin:argument_ends(expression, begin)[0]])
        if variable is not None:
            begin += variable.positions.get(variable.root.id, 0)
        line, column = expression_line_column(expression, _skip_space(expression, begin))
        errors.append(CelError(message, line, column))
    return sorted(errors, key=lambda e: (e.line, e.column))
