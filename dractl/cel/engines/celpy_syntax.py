"""cel-python's parse tree in the shape upstream's checker sees, and what cel-go decides before checking.

:func:`simplify` turns cel-python's lark tree into :class:`Node` objects positioned as cel-go
positions its expressions (a call at its "(", a selection at its ".", an operator at its symbol),
with macros, ``cel.bind``, ``has`` and namespaced functions recognised. The macros and their
libraries live here (the function names per library in :mod:`dractl.cel.functions`); the type
checker over these nodes is :mod:`dractl.cel.engines.celpy_checker`. :func:`_min_cost` computes
a lower bound of the evaluation cost where ranges are list literals, so expressions that upstream
always cancels are cancelled without running them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import lark

from dractl.cel.functions import NAMESPACED_FUNCTIONS

#: Comprehension macros: per number of arguments, how many of them name variables.
MACROS: dict[str, dict[int, int]] = {
    "all": {2: 1, 3: 2}, "exists": {2: 1, 3: 2}, "exists_one": {2: 1, 3: 2}, "existsOne": {3: 2},
    "map": {2: 1, 3: 1}, "filter": {2: 1},
    "transformList": {3: 2, 4: 2}, "transformMap": {3: 2, 4: 2}, "transformMapEntry": {3: 2, 4: 2},
    "sortBy": {2: 1}, "optMap": {2: 1}, "optFlatMap": {2: 1},
}
#: The library a macro form needs, by (name, number of variables); the others are always there.
_MACRO_LIBRARY: dict[tuple[str, int], str] = {
    **{(name, 2): "two-var-comprehensions" for name in MACROS},
    ("sortBy", 1): "ext-lists", ("optMap", 1): "optionals", ("optFlatMap", 1): "optionals",
}
#: cel-go's parser error for a variable argument that is not a plain identifier.
_VARIABLE_ERRORS = {"sortBy": "argument is not an identifier",
                    "optMap": "optMap() variable name must be a simple identifier",
                    "optFlatMap": "optFlatMap() variable name must be a simple identifier"}

#: Declared upstream but not evaluated by the cel-python engine.
UNSUPPORTED: frozenset[str] = frozenset()
#: Names of types usable as values (``type(x) == int``), with the library that declares them.
TYPE_IDENTIFIERS: dict[str, str | None] = {
    **{name: None for name in ("int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type",
                               "type", "google.protobuf.Timestamp", "google.protobuf.Duration")},
    "optional_type": "optionals", "net.IP": "ip", "net.CIDR": "cidr",
}

_ARITHMETIC = {"addition_add": "_+_", "addition_sub": "_-_", "multiplication_mul": "_*_",
               "multiplication_div": "_/_", "multiplication_mod": "_%_"}
_RELATIONS = {"relation_lt": "_<_", "relation_le": "_<=_", "relation_gt": "_>_", "relation_ge": "_>=_",
              "relation_eq": "_==_", "relation_ne": "_!=_", "relation_in": "@in"}
@dataclass
class Node:
    """One node of the simplified tree; ``line``/``column`` are 1-based like cel-go's."""

    kind: str  # literal, ident, select, index, call, macro, bind, op, list, map, has, other
    line: int
    column: int
    name: str = ""  # ident name, selected field, function or operator
    type: str = ""  # literal type
    children: list[Node] = field(default_factory=list)  # operands / arguments; target first for calls
    member: bool = False  # a receiver-style call
    variable: str = ""  # macro / bind variable
    #: What the interpreter meets where it makes this call: the operator's tree, or the name
    #: token of a function (the checker marks calls cel-go dispatches at run time by it).
    source: Any = field(default=None, compare=False, repr=False)


def _position(tree: Any) -> tuple[int, int]:
    if isinstance(tree, lark.Token):
        return tree.line or 1, tree.column or 1
    meta = tree.meta
    return getattr(meta, "line", None) or 1, getattr(meta, "column", None) or 1


def _end(tree: Any) -> tuple[int, int]:
    if isinstance(tree, lark.Token):
        if tree.end_column is None:  # a keyword cel-python's lexer callback retyped (true, null)
            return tree.line or 1, (tree.column or 1) + len(tree)
        return tree.end_line or 1, tree.end_column
    meta = tree.meta
    if getattr(meta, "end_column", None) is None and tree.children:
        return _end(tree.children[-1])
    return getattr(meta, "end_line", None) or 1, getattr(meta, "end_column", None) or 1


def _literal_type(token: lark.Token) -> str:
    return {"UINT_LIT": "uint", "FLOAT_LIT": "double", "INT_LIT": "int", "MLSTRING_LIT": "string",
            "STRING_LIT": "string", "BYTES_LIT": "bytes", "BOOL_LIT": "bool", "NULL_LIT": "null"}.get(
        token.type, "")


def _exprs(tree: Any) -> list[Any]:
    if tree is None:
        return []
    return [child for child in tree.children if isinstance(child, lark.Tree)]


def _ident_of(tree: lark.Tree) -> str | None:
    """The identifier an expression consists of, if that is all it is (macro variables)."""
    node = simplify(tree)
    return node.name if node.kind == "ident" else None


def _logical_chain(tree: Any) -> Node:
    """``a && b && c ...`` as cel-go's parser builds it: a balanced tree of the operator
    (``parser/helper.go``, ``balancer``), so that a long chain nests log n deep, not n."""
    op = "_||_" if tree.data == "conditionalor" else "_&&_"
    terms: list[Any] = []
    node = tree
    while node.data == tree.data and len(node.children) == 2:  # the chain is left-recursive
        terms.append(node.children[1])
        node = node.children[0]
    terms.append(node)
    terms.reverse()
    # each operator follows its left operand
    positions = [_end(term) for term in terms[:-1]]
    operators = [(line, column + 1) for line, column in positions]
    simplified = [simplify(term) for term in terms]

    def balanced(low: int, high: int) -> Node:
        middle = (low + high + 1) // 2
        left = simplified[middle] if middle == low else balanced(low, middle - 1)
        right = simplified[middle + 1] if middle == high else balanced(middle + 1, high)
        line, column = operators[middle]
        return Node("op", line, column, op, children=[left, right])

    return balanced(0, len(operators) - 1)


_HANDING_ON = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary",
                         "member", "primary", "paren_expr"})


def simplify(tree: Any) -> Node:
    # Rules of one child hand it on: skipped here in a loop, not a call each (a deep
    # expression would otherwise take ten frames per level).
    while tree.data in _HANDING_ON and len(tree.children) == 1 and isinstance(tree.children[0], lark.Tree):
        tree = tree.children[0]
    data = tree.data
    children = tree.children
    if data == "expr":
        line, column = _end(children[0])  # cel-go positions a conditional at its "?"
        return Node("op", line, column + 1, "_?_:_", children=[simplify(c) for c in children])
    if data in ("conditionalor", "conditionaland"):
        return _logical_chain(tree)
    if data in ("relation", "addition", "multiplication"):
        if len(children) == 1:
            return simplify(children[0])
        operator_tree, right = children
        left = simplify(operator_tree.children[0])
        op = _RELATIONS.get(operator_tree.data) or _ARITHMETIC[operator_tree.data]
        symbol = {"@in": "in"}.get(op, op.strip("_"))
        end_line, end_column = _end(operator_tree)
        return Node("op", end_line, end_column - len(symbol), op, children=[left, simplify(right)], source=tree)
    if data == "unary":
        if len(children) == 1:
            return simplify(children[0])
        operator_tree, operand = children
        count = 1  # cel-go's parser drops a pair of the same operator (``!!x`` is x)
        while operand.data == "unary" and len(operand.children) == 2 \
                and operand.children[0].data == operator_tree.data:
            count += 1
            operand = operand.children[1]
        if count % 2 == 0:
            return simplify(operand)
        line, column = _position(operator_tree)
        op = "!_" if operator_tree.data == "unary_not" else "-_"
        return Node("op", line, column, op, children=[simplify(operand)])
    if data in ("member", "primary") and len(children) == 1:
        return simplify(children[0])
    if data == "paren_expr":
        return simplify(children[0])
    if data == "member_dot":
        target, name = children
        line, column = _position(name)
        return Node("select", line, column - 1, str(name), children=[simplify(target)])
    if data == "member_dot_arg":
        target, name = children[0], children[1]
        args = _exprs(children[2]) if len(children) > 2 else []
        line, column = _position(name)
        column += len(str(name))  # cel-go positions a call at its "("
        target_node = simplify(target)
        if str(name) == "bind" and target_node.kind == "ident" and target_node.name == "cel" and len(args) == 3:
            variable = _ident_of(args[0]) or ""
            return Node("bind", line, column, "cel.bind",
                        children=[simplify(args[1]), simplify(args[2]), simplify(args[0])], variable=variable)
        if target_node.kind == "ident" and f"{target_node.name}.{name}" in NAMESPACED_FUNCTIONS:
            return Node("call", line, column, f"{target_node.name}.{name}", children=[simplify(a) for a in args])
        variables = MACROS.get(str(name), {}).get(len(args))
        if variables is not None:
            names = [_ident_of(arg) for arg in args[:variables]]
            return Node("macro", line, column, str(name),
                        children=[target_node, *(simplify(a) for a in args)],
                        variable=",".join(n or "" for n in names))
        return Node("call", line, column, str(name), children=[target_node, *(simplify(a) for a in args)],
                    member=True, source=name)
    if data == "member_dot_opt":
        target, name = children
        line, column = _position(name)
        return Node("select", line, column - 2, str(name), children=[simplify(target)], variable="?")
    if data == "member_index_opt":
        target, key = children
        line, column = _position(key)
        return Node("index", line, column - 2, "_[?_]", children=[simplify(target), simplify(key)])
    if data == "member_index":
        target, key = children
        line, column = _position(key)
        return Node("index", line, column - 1, "_[_]", children=[simplify(target), simplify(key)])
    if data == "member_object":
        line, column = _position(tree)
        return Node("other", line, column, "message")
    if data == "literal":
        token = children[0]
        line, column = _position(token)
        return Node("literal", line, column, str(token), type=_literal_type(token))
    if data == "ident":
        line, column = _position(children[0])
        return Node("ident", line, column, str(children[0]))
    if data in ("ident_arg", "dot_ident_arg"):
        name = children[0]
        args = _exprs(children[1]) if len(children) > 1 else []
        line, column = _position(name)
        column += len(str(name))
        if str(name) == "has" and len(args) == 1:
            return Node("has", line, column, "has", children=[simplify(args[0])])
        return Node("call", line, column, str(name), children=[simplify(a) for a in args], source=name)
    if data == "dot_ident":
        line, column = _position(children[0])
        return Node("ident", line, column, str(children[0]))
    if data == "opt_entry":  # [?x], {?k: v}
        line, column = _position(tree)
        return Node("optional", line, column, children=[simplify(children[0])])
    if data == "list_lit":
        line, column = _position(tree)
        items = _exprs(children[0]) if children else []
        return Node("list", line, column, children=[simplify(i) for i in items])
    if data == "map_lit":
        line, column = _position(tree)
        items = _exprs(children[0]) if children else []
        return Node("map", line, column, children=[simplify(i) for i in items])
    line, column = _position(tree)
    return Node("other", line, column, data, children=[simplify(c) for c in _exprs(tree)])


#: Nodes cel-go's parser visitor counts (``checkAndIncrementRecursionDepth``): a conditional,
#: an operator of a comparison or arithmetic, a selection, a method call, an index.
_VISITOR_COUNTED = frozenset({"member_dot", "member_dot_arg", "member_index", "member_dot_opt", "member_index_opt"})
_VISITOR_COUNTED_WITH_OPERATOR = frozenset({"expr", "relation", "addition", "multiplication"})


def parser_depths(tree: Any) -> tuple[int, int]:
    """How deeply cel-go's parser nests ``tree``: (the deepest ``expr`` rule, the visitor's
    deepest count), see :mod:`dractl.cel.parse_limits`. cel-python's grammar has cel-go's
    rules; its operators are left-recursive as cel-go's are. Without recursion: the tree may be
    deeper than Python's stack."""
    deepest_rule = deepest_visit = 0
    stack: list[tuple[Any, int, int]] = [(tree, 0, 0)]
    while stack:
        node, rule, visit = stack.pop()
        data = node.data
        if data == "expr":
            rule += 1
        if data in _VISITOR_COUNTED or (data in _VISITOR_COUNTED_WITH_OPERATOR and len(node.children) > 1):
            visit += 1
        deepest_rule = max(deepest_rule, rule)
        deepest_visit = max(deepest_visit, visit)
        stack.extend((child, rule, visit) for child in node.children if isinstance(child, lark.Tree))
    return deepest_rule, deepest_visit


def _min_cost(node: Node) -> int:
    """A lower bound of cel-go's cost: one per variable, field, index and call; ranges that are
    list literals multiply their macro's body."""
    kind = node.kind
    own = 1 if kind in ("ident", "select", "index", "call", "has") else 0
    if kind == "op" and node.name not in ("_&&_", "_||_", "_?_:_"):
        own = 1
    if kind == "macro":
        target, bodies = node.children[0], node.children[1 + len(node.variable.split(",")):]
        count = len(target.children) if target.kind == "list" else 0
        return _min_cost(target) + count * (sum(_min_cost(body) for body in bodies) + 1)
    if kind == "bind":  # the variable's name costs nothing
        return sum(_min_cost(child) for child in node.children[:2])
    if kind == "op" and node.name in ("_&&_", "_||_"):
        return min(_min_cost(child) for child in node.children)
    if kind == "op" and node.name == "_?_:_":
        condition, then, otherwise = node.children
        return _min_cost(condition) + min(_min_cost(then), _min_cost(otherwise))
    return own + sum(_min_cost(child) for child in node.children)


def _regex_ok(literal: str) -> bool:
    from dractl.cel.regex import re2_error

    try:
        text = ast_literal_string(literal)
    except ValueError:
        return True  # not a plain string literal this checker can decode; the run decides
    return re2_error(text) is None


def ast_literal_string(token: str) -> str:
    """The value of a CEL string literal token (quotes, raw prefix and escapes)."""
    from celpy.evaluation import celstr

    return str(celstr(lark.Token("STRING_LIT", token)))
