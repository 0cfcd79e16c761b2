"""``evolve``: a fast ``dataclasses.replace`` for the engines' frozen state records."""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def evolve(obj: T, **changes: Any) -> T:
    """``obj`` with ``changes``, without re-running ``__init__``.

    The engines copy their state several times per event and the conformance tests play
    hundreds of thousands of events; ``dataclasses.replace`` (field introspection and a
    fresh ``__init__``) was most of that time. Only for frozen dataclasses without
    ``__slots__`` or ``__post_init__``, where copying the instance dict is equivalent. An
    unknown field is still a ``TypeError``, as with ``replace``.
    """
    fields = obj.__dict__
    if not changes.keys() <= fields.keys():
        unknown = ", ".join(repr(k) for k in changes if k not in fields)
        raise TypeError(f"{type(obj).__name__} has no field {unknown}")
    new = object.__new__(type(obj))
    copy = new.__dict__
    copy.update(fields)
    copy.update(changes)
    return new
