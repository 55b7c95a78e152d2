"""The Kubernetes CEL ``format`` library: named formats and their ``validate``.

``format.dns1123Label().validate(s)`` answers the list of apimachinery's validation messages
for ``s``, or nothing when ``s`` is valid; the texts are apimachinery's.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable

from dractl.cel.urls import URLError, request_uri_error
from dractl.records import Record

_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED_NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = "(" + _QUALIFIED_NAME + ")?"
_QUALIFIED_NAME_MESSAGE = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                           "an alphanumeric character")
# Patterns as text, compiled on first use by re's cache: only selectors that use a format need them.
# strfmt's base64 pattern: at least one quantum, so the empty string is not valid.
_BASE64 = r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})\Z"
_UUID = r"(?i)(^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)|(^[0-9a-f]{32}$)"
_DATETIME = r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})\Z"


def _regex_error(message: str, pattern: str, *examples: str) -> str:
    """apimachinery's ``RegexError``."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def _max_length(limit: int) -> str:
    return f"must be no more than {limit} characters"


def _matcher(pattern: str, message: str, limit: int, *examples: str) -> Callable[[str], list[str]]:
    whole = pattern + r"\Z"

    def validate(value: str) -> list[str]:
        errors = []
        if len(value) > limit:
            errors.append(_max_length(limit))
        if not re.match(whole, value):
            errors.append(_regex_error(message, pattern, *examples))
        return errors

    return validate


_dns1123_label = _matcher(_DNS1123_LABEL, "a lowercase RFC 1123 label must consist of lower case alphanumeric "
                          "characters or '-', and must start and end with an alphanumeric character", 63,
                          "my-name", "123-abc")
_dns1123_subdomain = _matcher(_DNS1123_SUBDOMAIN, "a lowercase RFC 1123 subdomain must consist of lower case "
                              "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                              "character", 253, "example.com")
_dns1035_label = _matcher(_DNS1035_LABEL, "a DNS-1035 label must consist of lower case alphanumeric characters "
                          "or '-', start with an alphabetic character, and end with an alphanumeric character", 63,
                          "my-name", "abc-123")
_label_value = _matcher(_LABEL_VALUE, "a valid label must be an empty string or consist of alphanumeric "
                        "characters, '-', '_' or '.', and must start and end with an alphanumeric character", 63,
                        "MyValue", "my_value", "12345")
_QUALIFIED = _QUALIFIED_NAME + r"\Z"


def _prefix(validate: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """apimachinery's name-prefix variant: a trailing dash is allowed (generateName)."""

    def call(value: str) -> list[str]:
        if len(value) > 1 and value.endswith("-"):
            value = value[:-1] + "a"
        return validate(value)

    return call


def _qualified_name(value: str) -> list[str]:
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        errors = []
    elif len(parts) == 2:
        prefix, name = parts
        errors = (["prefix part must be non-empty"] if not prefix
                  else [f"prefix part {e}" for e in _dns1123_subdomain(prefix)])
    else:
        return [_regex_error(f"a qualified name {_QUALIFIED_NAME_MESSAGE}", _QUALIFIED_NAME, "MyName", "my.name",
                             "123-abc") + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append(f"name part {_max_length(63)}")
    if name and not re.match(_QUALIFIED, name):
        errors.append("name part " + _regex_error(_QUALIFIED_NAME_MESSAGE, _QUALIFIED_NAME, "MyName", "my.name",
                                                  "123-abc"))
    return errors


def _uri(value: str) -> list[str]:
    error = request_uri_error(value)
    return [] if error is None else [error]


def _uuid(value: str) -> list[str]:
    return [] if re.search(_UUID, value) else ["does not match the UUID format"]


def _byte(value: str) -> list[str]:
    return [] if re.match(_BASE64, value) else ["invalid base64"]


def _date(value: str) -> list[str]:
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError(value)
        datetime.date.fromisoformat(value)
    except ValueError:
        return ["invalid date"]
    return []


def _datetime(value: str) -> list[str]:
    found = re.match(_DATETIME, value)
    try:
        if not found:
            raise ValueError(value)
        year, month, day, hour, minute, second = (int(found.group(i)) for i in range(1, 7))
        datetime.datetime(year, month, day, hour, minute, second)
    except ValueError:
        return ["invalid datetime"]
    return []


class NamedFormat(Record):
    """A value of ``kubernetes.NamedFormat``; formats are equal when their names are."""

    __slots__ = ("name", "validate")

    def __init__(self, name: str, validate: Callable[[str], list[str]]) -> None:
        self.name = name
        self.validate = validate

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedFormat) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)


FORMATS: dict[str, NamedFormat] = {
    "dns1123Label": NamedFormat("DNS1123Label", _dns1123_label),
    "dns1123Subdomain": NamedFormat("DNS1123Subdomain", _dns1123_subdomain),
    "dns1035Label": NamedFormat("DNS1035Label", _dns1035_label),
    "qualifiedName": NamedFormat("QualifiedName", _qualified_name),
    "dns1123LabelPrefix": NamedFormat("DNS1123LabelPrefix", _prefix(_dns1123_label)),
    "dns1123SubdomainPrefix": NamedFormat("DNS1123SubdomainPrefix", _prefix(_dns1123_subdomain)),
    "dns1035LabelPrefix": NamedFormat("DNS1035LabelPrefix", _prefix(_dns1035_label)),
    "labelValue": NamedFormat("LabelValue", _label_value),
    "uri": NamedFormat("URI", _uri),
    "uuid": NamedFormat("uuid", _uuid),
    "byte": NamedFormat("byte", _byte),
    "date": NamedFormat("date", _date),
    "datetime": NamedFormat("datetime", _datetime),
}

__all__ = ["FORMATS", "NamedFormat", "URLError"]
