"""Small value classes: fields in ``__slots__``, equality and repr by the fields.

``@dataclass`` writes out and compiles the source of every method it generates when the class is
created, about half a millisecond per class; the fifty-odd classes a lint of one small file
imports took a quarter of its time that way. A :class:`Record` subclass lists its fields in
``__slots__`` and writes its own ``__init__``, which is compiled once into the byte code cache
like any other function; equality, hashing and repr read the fields.
"""

from __future__ import annotations

from typing import Any, TypeVar


class Record:
    """Fields compare equal when the values of all fields do, as with a dataclass; records that
    change after they are made are not hashable (``__hash__ = None``, as a dataclass that is not
    frozen). A record whose class says ``__hash__ = Record.value_hash`` hashes by its fields and
    must not be changed once made (frozen by convention)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            slots = klass.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if name not in names and name not in ("__dict__", "__weakref__"):
                    names.append(name)
        cls._fields = tuple(names)

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def value_hash(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({fields})"


# bound to the class itself, not its name: a name is compiled (typing.ForwardRef), and the first
# compile of a process costs as much as a tenth of a lint of one small file
R = TypeVar("R", bound=Record)


def replace(record: R, **changes: Any) -> R:
    """A copy of ``record`` with some fields changed (``dataclasses.replace``): every field must be
    a keyword of the class's ``__init__``."""
    values = {name: getattr(record, name) for name in record._fields}
    values.update(changes)
    return type(record)(**values)
