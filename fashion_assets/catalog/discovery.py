"""What designer discovery reads from and writes to the catalog.

The rule (new, held, out of scope) is ``domain/discovery.py``. Here: the brands it is
judged against, the registration of the new ones, and the pending names of the held ones,
which wait in the same queue as every other unknown name (``fashion-assets names list``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import Engine, text

from fashion_assets.catalog.names import spellings
from fashion_assets.catalog.pending_names import record_pending
from fashion_assets.domain.discovery import HeldDesigner
from fashion_assets.domain.names import NameKind, clean_name


def brand_spellings(engine: Engine) -> dict[str, list[str]]:
    """Every registered brand with its spellings (slug, display name, aliases)."""
    with engine.connect() as conn:
        return spellings(conn, NameKind.BRAND)


def register_designers(engine: Engine, designers: Sequence[tuple[str, str]]) -> list[str]:
    """Register each (display name, slug) as a brand; the slugs that were new, in order.

    One transaction and one INSERT for all of them: a first discovery registers some 1,900
    designers. A brand registered meanwhile (by ``brands add`` or a crawl) keeps its row and
    gains the display name only if it had none.
    """
    names: dict[str, str] = {}
    for name, slug in designers:
        names.setdefault(slug, clean_name(name))
    if not names:
        return []
    rows = ", ".join(f"(:s{n}, :n{n})" for n in range(len(names)))
    params = {}
    for n, (slug, name) in enumerate(names.items()):
        params |= {f"s{n}": slug, f"n{n}": name}
    with engine.begin() as conn:
        new = set(conn.execute(text(
            f"INSERT INTO brands (slug, display_name) VALUES {rows}"
            " ON CONFLICT (slug) DO NOTHING RETURNING slug"), params).scalars())
        named = [{"slug": slug, "name": name} for slug, name in names.items()
                 if slug not in new and name]
        if named:
            conn.execute(text("UPDATE brands SET display_name = :name"
                              " WHERE slug = :slug AND display_name = ''"), named)
    return [slug for slug in names if slug in new]


def hold_designers(engine: Engine, held: Sequence[HeldDesigner], *, source: str,
                   page_url_of: Mapping[str, str]) -> dict[str, tuple[int, str]]:
    """Record each held designer's name as pending (once per spelling) for an editor to
    approve as a brand of its own or merge into a candidate; per slug, the pending name's
    id and status (an editor may have settled it in an earlier discovery)."""
    outcome: dict[str, tuple[int, str]] = {}
    with engine.begin() as conn:
        for designer in held:
            pending_id, status, _ = record_pending(
                conn, NameKind.BRAND, clean_name(designer.name), source,
                page_url_of[designer.slug], designer.candidates)
            outcome[designer.slug] = (pending_id, status)
    return outcome
