"""Read YAML scalars the way kubectl does.

kubectl decodes manifests with sigs.k8s.io/yaml, which resolves plain scalars with go-yaml v2's
YAML 1.1 rules: ``y``, ``Yes``, ``on``, ``OFF``, ... are booleans, ``010`` is octal, ``0b11`` binary,
``1_000`` an integer, timestamps stay strings. This module holds those rules (without importing
a YAML library: the libyaml reader of :mod:`dractl.load.fast` and the round-trip loader of
:mod:`dractl.load.roundtrip` both use them); the loaders record every plain scalar whose meaning
differs from what a YAML 1.2 reader (or a human) would assume, so lint can warn about it.
"""

from __future__ import annotations

import math
import re

BOOL_TRUE = ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")
BOOL_FALSE = ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")
_YAML12_BOOLS = frozenset(("true", "True", "TRUE", "false", "False", "FALSE"))

_BOOL_RE = re.compile("^(?:" + "|".join(BOOL_TRUE + BOOL_FALSE) + ")$")
_NULL_RE = re.compile(r"^(?:~|null|Null|NULL|)$")
_SPECIAL_FLOAT_RE = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
# Go's strconv.ParseInt(s, 0, 64) after go-yaml removed every underscore.
_INT_RE = re.compile(
    r"^[-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$"
)
# go-yaml v2's yamlStyleFloat, also applied after removing underscores.
_FLOAT_RE = re.compile(r"^[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?$")
_DOT_FLOAT_RE = re.compile(r"^\.[0-9]+(?:[eE][-+]?[0-9]+)?$")
_PLAIN_DECIMAL_RE = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_SIGNIFICANT_RE = re.compile(r"^[-+]?(?:0[xXoObB])?0*")  # what comes before an integer's digits

_DIGITS = list("0123456789")


def parse_go_int(text: str) -> int:
    plain = text.replace("_", "")
    sign = -1 if plain.startswith("-") else 1
    body = plain.lstrip("+-")
    low = body.lower()
    if low.startswith("0x"):
        value = int(body[2:], 16)
    elif low.startswith("0o"):
        value = int(body[2:], 8)
    elif low.startswith("0b"):
        value = int(body[2:], 2)
    elif len(body) > 1 and body.startswith("0"):
        value = int(body[1:], 8)
    else:
        value = int(body, 10)
    return sign * value


def go_yaml_int(text: str) -> int | float | str:
    """A plain scalar that YAML 1.1 resolves as an integer, as go-yaml v2 reads it.

    go-yaml keeps what ``strconv.ParseInt`` or ``ParseUint`` take (64 bits); a longer number
    becomes a float if ``ParseFloat`` takes it without overflowing, and otherwise stays the
    string it is (so kubectl reports a 400-digit ``count`` as a string, not a number).
    """
    plain = text.replace("_", "")
    if len(_SIGNIFICANT_RE.sub("", plain)) <= 64:  # every 64-bit value has fewer digits
        value = parse_go_int(text)
        if -(2**63) <= value < 2**64:
            return value
    if _FLOAT_RE.match(plain):
        number = float(plain)
        if math.isfinite(number):
            return number
    return text


def go_yaml_float(text: str) -> tuple[float | str, bool]:
    """A plain scalar that YAML 1.1 resolves as a float (not ``.inf`` or ``.nan``) as go-yaml v2
    reads it, and whether a YAML 1.2 reader reads it otherwise: ``strconv.ParseFloat`` fails
    on a number beyond float64's range, and go-yaml then keeps the text as a string (``1e400``
    reaches the apiserver as the string "1e400", not as an infinity)."""
    number = float(text.replace("_", ""))
    if math.isfinite(number):
        return number, False
    return text, True


# Implicit tags of plain scalars as go-yaml v2 resolves them (timestamps stay strings): tag,
# pattern and the first characters it applies to, in the order a resolver tries them.
IMPLICIT_RESOLVERS: tuple[tuple[str, re.Pattern[str], list[str]], ...] = (
    ("tag:yaml.org,2002:bool", _BOOL_RE, list("yYnNtTfFoO")),
    ("tag:yaml.org,2002:null", _NULL_RE, ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:float", _SPECIAL_FLOAT_RE, list("-+.")),
    ("tag:yaml.org,2002:int", _INT_RE, [*_DIGITS, "-", "+"]),
    ("tag:yaml.org,2002:float", _FLOAT_RE, [*_DIGITS, "-", "+"]),
    ("tag:yaml.org,2002:float", _DOT_FLOAT_RE, ["."]),
    ("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"]),
)
