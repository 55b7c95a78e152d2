"""Calls whose operand has no static type, checked at run time as cel-go dispatches them.

cel-cpp carries the library values (quantities, versions, IPs, ...) as tagged bytes, and its
runtime has cel-go's strings extension of every version, so a call cel-go cannot dispatch on a
value of the wrong run-time type would succeed there: ``string()`` or ``size()`` of a version
attribute (bytes to cel-cpp), ``reverse()`` of a string attribute (strings extension v3 has it,
upstream's environment has v2). The checker cannot see this when the operand is ``any`` or
``dyn``; these functions run in between and fail as cel-go does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cel_expr_python import cel

from dractl.cel.engines.cel_expr_optionals import is_box

_NO_SUCH_OVERLOAD = "no such overload"
T = cel.Type


def _string_operand(token_type_name: Callable[[bytes], str], library_value: Callable[[Any], bool],
                    texts: dict[bytes, Callable[[Any], str]]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if is_box(value):
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: string(optional_type)")
        if library_value(value):
            text = texts.get(bytes(value[:1]))
            if text is not None:  # the network library's string(ip), string(cidr)
                return text(value)  # cel-go's string() conversion names the type it cannot convert
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: string({token_type_name(bytes(value[:1]))})")
        return value
    return call


def _size_operand(library_value: Callable[[Any], bool]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if library_value(value) or is_box(value):  # the size dispatcher names only the function
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: size")
        return value
    return call


def _reverse(type_name: Callable[[Any], str]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if type(value) is not list:  # lists extension only: upstream's strings extension is v2
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: reverse({type_name(value)})")
        return value[::-1]
    return call


#: The checker's function name -> the runtime function the call's operand goes through first.
OPERAND_CHECKS = {"string": "dractl.string_operand", "size": "dractl.size_operand"}
#: The checker's function name -> the runtime function that replaces the call.
REPLACEMENTS = {"reverse": "dractl.reverse"}


def declarations(token_type_name: Callable[[bytes], str], library_value: Callable[[Any], bool],
                 type_name: Callable[[Any], str], texts: dict[bytes, Callable[[Any], str]]) -> list[Any]:
    return [
        cel.FunctionDecl("dractl.string_operand", [cel.Overload(
            "dractl_string_operand", T.DYN, [T.DYN], impl=_string_operand(token_type_name, library_value, texts))]),
        cel.FunctionDecl("dractl.size_operand", [
            cel.Overload("dractl_size_operand", T.DYN, [T.DYN], impl=_size_operand(library_value)),
            cel.Overload("dractl_size_operand_member", T.DYN, [T.DYN], is_member=True,
                         impl=_size_operand(library_value))]),
        cel.FunctionDecl("dractl.reverse", [cel.Overload(
            "dractl_reverse", T.DYN, [T.DYN], is_member=True, impl=_reverse(type_name))]),
    ]
