"""Which derivative (a thumbnail) each stored photo has: the pair (photo key, transform) to
the derivative's own key in the store (``domain/thumbnails.py`` makes the bytes).

A derivative is kept like any object, under the sha1 of its bytes; this table is how it is
found again, and how media cleanup knows it belongs to a photo still in use
(``catalog/media.py: referenced_keys``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine, bindparam, text


def derivative_of(engine: Engine, photo_key: str, transform: str) -> str | None:
    """The key of ``photo_key``'s derivative ``transform``, None when none was made."""
    with engine.connect() as conn:
        return conn.execute(text("SELECT derivative_key FROM photo_derivatives"
                                 " WHERE photo_key = :p AND transform = :t"),
                            {"p": photo_key, "t": transform}).scalar()


def record_derivative(engine: Engine, photo_key: str, transform: str, derivative_key: str,
                      byte_size: int) -> None:
    """Note that ``photo_key``'s derivative ``transform`` is stored under ``derivative_key``
    (a new one replaces a lost one's row; two requests that made it at once agree)."""
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO photo_derivatives (photo_key, transform, derivative_key, byte_size)"
            " VALUES (:p, :t, :d, :n) ON CONFLICT (photo_key, transform) DO UPDATE"
            " SET derivative_key = excluded.derivative_key, byte_size = excluded.byte_size"),
            {"p": photo_key, "t": transform, "d": derivative_key, "n": byte_size})


def forget_derivatives(engine: Engine, removed: Sequence[str]) -> int:
    """Drop the rows of objects media cleanup removed (a photo's, or a derivative's own);
    returns how many went."""
    if not removed:
        return 0
    query = text("DELETE FROM photo_derivatives WHERE photo_key IN :keys"
                 " OR derivative_key IN :keys").bindparams(bindparam("keys", expanding=True))
    with engine.begin() as conn:
        return conn.execute(query, {"keys": list(removed)}).rowcount
