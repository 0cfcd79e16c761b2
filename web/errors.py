"""Errors the services raise for bad input; the app turns them into 4xx responses."""

from __future__ import annotations


class BadInput(Exception):
    """The request cannot be carried out; ``status`` is a 4xx code, ``message`` says why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
