"""The formats of the Kubernetes CEL ``format`` library (``format.dns1123Label()`` ...,
``format.named(name)``, ``<format>.validate(text)``), engine-neutral.

Each validator returns upstream's error texts (an empty list when the text is valid):
apimachinery's name validation, ``url.ParseRequestURI`` for ``uri`` and kube-openapi's strfmt
checks for ``uuid``, ``byte``, ``date`` and ``datetime``.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from collections.abc import Callable

from dractl.cel.urls import request_uri_error

_UUID = r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
_DATETIME = r"^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$"
_DATE = r"^\d{4}-\d{2}-\d{2}$"


def _valid_date(text: str) -> bool:
    if not re.match(_DATE, text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _valid_datetime(text: str) -> bool:
    match = re.match(_DATETIME, text)
    if not match or not _valid_date(match.group(1)):
        return False
    hour, minute, second = (int(match.group(i)) for i in (2, 3, 4))
    if hour > 23 or minute > 59 or second > 59:
        return False
    return not match.group(7) or (int(match.group(7)) <= 23 and int(match.group(8)) <= 59)


def _valid_base64(text: str) -> bool:
    if not text:
        return False
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _message_if(valid: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda text: [] if valid(text) else [message]


def _uri(text: str) -> list[str]:
    error = request_uri_error(text)
    return [error] if error else []


def _apimachinery(name: str, *prefix: bool) -> Callable[[str], list[str]]:
    """The validator ``name`` of dractl.api.validation.formats, imported on first use (with it,
    the whole validation package, which a start of ``select`` does not otherwise need)."""

    def validate(text: str) -> list[str]:
        from dractl.api.validation import formats

        messages: list[str] = getattr(formats, name)(text, *prefix)
        return messages

    return validate


#: format name → validator, as ``format.<name>()`` and ``format.named("<name>")`` know them.
FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": _apimachinery("name_is_dns_label", False),
    "dns1123Subdomain": _apimachinery("name_is_dns_subdomain", False),
    "dns1035Label": _apimachinery("name_is_dns1035_label", False),
    "qualifiedName": _apimachinery("is_qualified_name"),
    "dns1123LabelPrefix": _apimachinery("name_is_dns_label", True),
    "dns1123SubdomainPrefix": _apimachinery("name_is_dns_subdomain", True),
    "dns1035LabelPrefix": _apimachinery("name_is_dns1035_label", True),
    "labelValue": _apimachinery("is_valid_label_value"),
    "uri": _uri,
    "uuid": _message_if(lambda text: bool(re.match(_UUID, text)), "does not match the UUID format"),
    "byte": _message_if(_valid_base64, "invalid base64"),
    "date": _message_if(_valid_date, "invalid date"),
    "datetime": _message_if(_valid_datetime, "invalid datetime"),
}
