"""Walking the device requests of ResourceClaims and ResourceClaimTemplates (v1 shape)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dractl.api.model import ApiObject
from dractl.api.versions import REQUEST_LISTS
from dractl.records import Record


class Request(Record):
    """One request's ``exactly`` part, or one of its ``firstAvailable`` subrequests.

    ``path`` is the v1 path of the dict holding ``deviceClassName``, ``selectors``, ``count``...
    (``requests[i].exactly`` or ``requests[i].firstAvailable[j]``).
    """

    __slots__ = ("data", "index", "name", "obj", "path", "sub_index", "sub_name")
    __hash__ = Record.value_hash

    def __init__(
        self,
        obj: ApiObject,
        index: int,
        name: str | None,
        sub_index: int | None,
        sub_name: str | None,
        path: tuple[Any, ...],
        data: dict[str, Any],
    ) -> None:
        self.obj = obj
        self.index = index
        self.name = name  # the request's name
        self.sub_index = sub_index
        self.sub_name = sub_name
        self.path = path
        self.data = data

    @property
    def label(self) -> str:
        """How the scheduler names it: ``gpu`` or ``gpu/fast``."""
        name = self.name or f"#{self.index}"
        if self.sub_index is None:
            return name
        return f"{name}/{self.sub_name or f'#{self.sub_index}'}"

    @property
    def device_class(self) -> str | None:
        value = self.data.get("deviceClassName")
        return value if isinstance(value, str) and value else None


def requests_path(obj: ApiObject) -> tuple[str, ...] | None:
    return REQUEST_LISTS.get(obj.kind) if obj.dra else None


def top_requests(obj: ApiObject) -> Iterator[tuple[int, dict[str, Any]]]:
    path = requests_path(obj)
    if path is None:
        return
    requests = obj.get(path)
    if not isinstance(requests, list):
        return
    for i, request in enumerate(requests):
        if isinstance(request, dict):
            yield i, request


def request_names(obj: ApiObject) -> list[str]:
    return [r["name"] for _, r in top_requests(obj) if isinstance(r.get("name"), str)]


def iter_requests(obj: ApiObject) -> Iterator[Request]:
    """Every ``exactly`` request and every subrequest of a claim or claim template."""
    base = requests_path(obj)
    if base is None:
        return
    for i, request in top_requests(obj):
        name = request.get("name") if isinstance(request.get("name"), str) else None
        exactly = request.get("exactly")
        if isinstance(exactly, dict):
            yield Request(obj, i, name, None, None, (*base, i, "exactly"), exactly)
        subrequests = request.get("firstAvailable")
        if isinstance(subrequests, list):
            for j, sub in enumerate(subrequests):
                if isinstance(sub, dict):
                    sub_name = sub.get("name") if isinstance(sub.get("name"), str) else None
                    yield Request(obj, i, name, j, sub_name, (*base, i, "firstAvailable", j), sub)
