"""The one error a site adapter raises for a page it cannot read."""

from __future__ import annotations


class PageParseError(ValueError):
    """A page lacks the state or structure the adapter needs.

    ``reason`` is a stable code callers can branch and count on (each adapter lists its own
    codes); the message is for people.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason

    def __reduce__(self) -> tuple[type[PageParseError], tuple[str, str]]:
        """Rebuild with both arguments, so the error survives pickling across processes."""
        return (type(self), (self.reason, str(self)))
