"""Canonical brands and cities, their aliases, pending names and the articles waiting on them.

The rule (normalize, match, pending when unknown) is ``domain/names.py``; this module loads
what it matches against, records what it decides (a new alias once, a pending name once per
normalized form: ``catalog/pending_names.py``) and carries out an editor's decision: approve
a pending name as a new entity, merge it into an existing one, or dismiss it. Approve and
merge release the articles that waited for the name, in the same transaction that records
the decision.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.pending_names import (
    NameActionError,
    PendingName,
    get_pending,
    mark_decided,
    open_pending,
    record_pending,
)
from fashion_assets.catalog.pending_names import list_pending as list_pending  # for the CLI
from fashion_assets.catalog.runway import ShowCity, record_shows
from fashion_assets.domain.cities import SEED_CITIES
from fashion_assets.domain.names import (
    NameKind,
    clean_name,
    name_slug,
    normalize_name,
    resolve_name,
)
from fashion_assets.domain.runway import runway_show
from fashion_assets.domain.titles import TitleParseError

# Where each kind's canonical entities live.
_ENTITY_TABLE = {NameKind.BRAND: "brands", NameKind.CITY: "cities"}


@dataclass(frozen=True)
class NameOutcome:
    """What a source's name resolved to, for the crawl.

    ``status`` is ``resolved`` (``entity`` set), ``pending`` (``pending_id`` set: the article
    waits), ``dismissed`` (an editor said the name is no entity: the article is skipped) or
    ``unusable`` (no letters or digits at all).
    """

    status: str
    entity: str | None = None
    pending_id: int | None = None
    alias_recorded: bool = False


@dataclass(frozen=True)
class WaitingArticle:
    """A source article held until its name resolves (a row of ``waiting_articles``)."""

    kind: str  # "runway" or "street"
    source: str
    source_url: str
    source_path: str
    partition_key: str
    title: str
    season_code: str = ""
    year: int = 0
    month: int = 0
    listing_position: int = 0


@dataclass(frozen=True)
class Release:
    """What an approve or merge did: the entity, and the articles and shows it released."""

    name: PendingName
    entity_slug: str
    articles_released: int
    partitions: tuple[tuple[str, str], ...]  # (kind, partition key) to crawl again
    shows_updated: int


def seed_cities(engine: Engine) -> None:
    """Insert the seeded cities and their aliases that are not there yet (every process
    that opens the catalog: two queries when all are there, as they are but the first time;
    a crawl forks a fresh process for every run)."""
    with engine.begin() as conn:
        cities = set(conn.execute(text("SELECT slug FROM cities")).scalars())
        aliases = set(conn.execute(text("SELECT alias FROM name_aliases WHERE kind = :k"),
                                   {"k": NameKind.CITY.value}).scalars())
        for city in SEED_CITIES:
            if city.slug not in cities:
                conn.execute(text("INSERT INTO cities (slug, display_name) VALUES (:s, :n)"
                                  " ON CONFLICT (slug) DO NOTHING"),
                             {"s": city.slug, "n": city.name})
            for alias in city.aliases:
                if alias not in aliases:
                    _add_alias(conn, NameKind.CITY, alias, city.slug, "seed")


def spellings(conn: Connection, kind: NameKind) -> dict[str, list[str]]:
    """Every entity of ``kind`` with its spellings: slug, display name and aliases.

    The slug counts as a spelling (`maison-martin-margiela` reads as `maison martin margiela`),
    so a source's name for a brand registered by slug alone still matches it.
    """
    book: dict[str, list[str]] = defaultdict(list)
    table = _ENTITY_TABLE[kind]
    for slug, display in conn.execute(text(f"SELECT slug, display_name FROM {table}")):
        book[slug] += [slug, display] if display else [slug]
    for slug, alias in conn.execute(
            text("SELECT entity_slug, alias FROM name_aliases WHERE kind = :k"), {"k": kind.value}):
        book[slug].append(alias)
    return dict(book)


def resolve_names(engine: Engine, kind: NameKind, names: Iterable[tuple[str, str, str]]
                  ) -> dict[str, NameOutcome]:
    """Resolve each ``(name, source, example URL)``; record new aliases and pending names.

    Returns an outcome per distinct name as given. One transaction and one load of the
    spellings for all of them: a listing's names cost a few statements, not a few per name.
    """
    wanted = {}
    for name, source, url in names:
        wanted.setdefault(name, (source, url))
    if not wanted:
        return {}
    outcomes = {}
    with engine.begin() as conn:
        book = spellings(conn, kind)
        for name, (source, url) in wanted.items():
            outcomes[name] = _resolve_one(conn, kind, book, name, source, url)
    return outcomes


def _resolve_one(conn: Connection, kind: NameKind, book: dict[str, list[str]], name: str,
                 source: str, url: str) -> NameOutcome:
    resolution = resolve_name(name, book)
    if resolution.entity is not None:
        recorded = False
        if resolution.new_alias is not None:
            recorded = _add_alias(conn, kind, resolution.new_alias, resolution.entity,
                                  "normalization")
            book[resolution.entity].append(resolution.new_alias)
        return NameOutcome("resolved", resolution.entity, alias_recorded=recorded)
    spelled = clean_name(name)
    normalized = normalize_name(spelled)
    if not normalized:
        return NameOutcome("unusable")
    pending_id, status, entity = record_pending(conn, kind, spelled, source, url,
                                                resolution.candidates)
    if status in ("approved", "merged") and entity:
        return NameOutcome("resolved", entity)
    if status == "dismissed":
        return NameOutcome("dismissed", pending_id=int(pending_id))
    return NameOutcome("pending", pending_id=int(pending_id))


def show_city(outcome: NameOutcome) -> ShowCity:
    """Where a show's title city went: its city, or the pending name it now waits on."""
    return ShowCity(outcome.entity, outcome.pending_id if outcome.status == "pending" else None)


def _add_alias(conn: Connection, kind: NameKind, alias: str, entity_slug: str,
               origin: str) -> bool:
    """Record ``alias`` for an entity once; True if it is new."""
    return conn.execute(
        text("INSERT INTO name_aliases (kind, alias, normalized, entity_slug, origin)"
             " VALUES (:k, :a, :n, :e, :o) ON CONFLICT (kind, alias) DO NOTHING RETURNING alias"),
        {"k": kind.value, "a": alias, "n": normalize_name(alias), "e": entity_slug, "o": origin},
    ).first() is not None


def record_own_name(engine: Engine, brand_slug: str, name: str) -> str | None:
    """Keep the name a source prints on a brand's own page as a spelling of that brand.

    Vogue's designer page is addressed by the brand's slug, so its name is that brand's
    name: it fills an empty display name, or is recorded as an alias when new. A name that
    already belongs to another brand is not taken (two brands must never share a spelling);
    the returned note says so, for the run's metadata.
    """
    spelled = clean_name(name)
    if not normalize_name(spelled):
        return None
    with engine.begin() as conn:
        conn.execute(text("UPDATE brands SET display_name = :n WHERE slug = :s"
                          " AND display_name = ''"), {"n": spelled, "s": brand_slug})
        book = spellings(conn, NameKind.BRAND)
        others = {slug: names for slug, names in book.items() if slug != brand_slug}
        elsewhere = resolve_name(spelled, others)
        if elsewhere.entity is not None or elsewhere.candidates:
            owners = elsewhere.candidates or (elsewhere.entity,)
            return f"the name {spelled!r} also names {', '.join(o for o in owners if o)}"
        if spelled not in book.get(brand_slug, []):
            _add_alias(conn, NameKind.BRAND, spelled, brand_slug, "source")
    return None


def hold_articles(engine: Engine, pending_id: int, articles: Sequence[WaitingArticle]) -> int:
    """Hold articles for a pending name (each source key once); return how many are new."""
    held = 0
    with engine.begin() as conn:
        for a in articles:
            held += _hold(conn, pending_id, a)
    return held


def _hold(conn: Connection, pending_id: int, a: WaitingArticle) -> bool:
    return conn.execute(
        text("INSERT INTO waiting_articles (pending_name_id, kind, source, source_url,"
             " source_path, partition_key, title, season_code, year, month, listing_position)"
             " VALUES (:p, :kind, :source, :url, :path, :part, :title, :code, :y, :m, :pos)"
             " ON CONFLICT (source, source_url) DO NOTHING RETURNING id"),
        {"p": pending_id, "kind": a.kind, "source": a.source, "url": a.source_url,
         "path": a.source_path, "part": a.partition_key, "title": a.title,
         "code": a.season_code, "y": a.year, "m": a.month, "pos": a.listing_position},
    ).first() is not None


def approve_name(engine: Engine, pending_id: int, *, editor: str, slug: str | None = None,
                 display_name: str | None = None) -> Release:
    """Approve a pending name as a new brand or city, and release what waited for it."""
    with engine.begin() as conn:
        pending = open_pending(conn, pending_id)
        kind = NameKind(pending.kind)
        new_slug = slug or name_slug(pending.name)
        table = _ENTITY_TABLE[kind]
        shown = clean_name(display_name or pending.name)
        created = conn.execute(
            text(f"INSERT INTO {table} (slug, display_name) VALUES (:s, :n)"
                 " ON CONFLICT (slug) DO NOTHING RETURNING slug"), {"s": new_slug, "n": shown},
        ).first()
        if created is None:
            raise NameActionError(
                f"a {kind.value} {new_slug!r} exists already: merge the name into it "
                f"(names merge {pending_id} {new_slug}) or choose another slug")
        if pending.name != shown:
            _add_alias(conn, kind, pending.name, new_slug, "editor")
        return _resolve_pending(conn, pending, "approved", new_slug, editor)


def merge_name(engine: Engine, pending_id: int, into: str, *, editor: str) -> Release:
    """Make a pending name an alias of an existing entity, and release what waited for it."""
    with engine.begin() as conn:
        pending = open_pending(conn, pending_id)
        kind = NameKind(pending.kind)
        exists = conn.execute(text(f"SELECT 1 FROM {_ENTITY_TABLE[kind]} WHERE slug = :s"),
                              {"s": into}).first()
        if exists is None:
            raise NameActionError(f"no {kind.value} {into!r} to merge into")
        _add_alias(conn, kind, pending.name, into, "editor")
        return _resolve_pending(conn, pending, "merged", into, editor)


def dismiss_name(engine: Engine, pending_id: int, *, editor: str) -> PendingName:
    """Say a pending name is no entity: its waiting articles are dropped, and skipped later."""
    with engine.begin() as conn:
        pending = open_pending(conn, pending_id)
        mark_decided(conn, pending.id, "dismissed", None, editor)
        conn.execute(text("DELETE FROM waiting_articles WHERE pending_name_id = :id"),
                     {"id": pending.id})
        conn.execute(text("UPDATE runway_shows SET city_pending_id = NULL"
                          " WHERE city_pending_id = :id"), {"id": pending.id})
        return get_pending(conn, pending.id)


def _resolve_pending(conn: Connection, pending: PendingName, status: str, entity: str,
                     editor: str) -> Release:
    mark_decided(conn, pending.id, status, entity, editor)
    released, partitions = _release_articles(conn, pending.id, entity)
    shows = _release_city_of_shows(conn, pending.id, entity) if pending.kind == "city" else 0
    return Release(get_pending(conn, pending.id), entity, released, partitions, shows)


def _release_articles(conn: Connection, pending_id: int, entity: str
                      ) -> tuple[int, tuple[tuple[str, str], ...]]:
    """Move the articles that waited for the name into their crawl tables, keyed on it."""
    rows = conn.execute(
        text("SELECT kind, source, source_url, source_path, partition_key, title, season_code,"
             " year, month, listing_position FROM waiting_articles"
             " WHERE pending_name_id = :id ORDER BY id"), {"id": pending_id}).all()
    for kind, source, url, path, partition, title, code, year, month, position in rows:
        if kind == "street":
            conn.execute(
                text("INSERT INTO street_style_articles (week_slug, source, source_url,"
                     " source_path, title, city, year, month, listing_position)"
                     " VALUES (:w, :s, :u, :p, :t, :c, :y, :m, :pos)"
                     " ON CONFLICT (source, source_url) DO NOTHING"),
                {"w": partition, "s": source, "u": url, "p": path, "t": title, "c": entity,
                 "y": year, "m": month, "pos": position})
        else:
            _insert_runway_show(conn, source, url, path, entity, code, title, position)
    conn.execute(text("DELETE FROM waiting_articles WHERE pending_name_id = :id"),
                 {"id": pending_id})
    partitions = tuple(sorted({(str(r[0]), str(r[4])) for r in rows}))
    return len(rows), partitions


def _insert_runway_show(conn: Connection, source: str, url: str, path: str, brand: str,
                        season_code: str, title: str, position: int) -> None:
    parts = urlsplit(url)
    try:
        show = runway_show(source=source, public_base_url=f"{parts.scheme}://{parts.netloc}",
                           brand_slug=brand, path=path,
                           season_slug=season_code, title=title, listing_position=position)
    except TitleParseError as exc:  # held rows were checked when listed; never drop one quietly
        raise NameActionError(f"waiting article {url} has a bad season code: {exc}") from None
    cities = {}
    if show.city:  # the title's city resolved as a listing resolves it (or waiting on it)
        outcome = _resolve_one(conn, NameKind.CITY, spellings(conn, NameKind.CITY), show.city,
                               source, url)
        cities[show.city] = show_city(outcome)
    record_shows(conn, [show], cities)


def _release_city_of_shows(conn: Connection, pending_id: int, city: str) -> int:
    """Give the shows (and their unpromoted drafts) whose title named this city its slug."""
    conn.execute(
        text("UPDATE brand_runway_drafts SET city = :c WHERE status <> 'promoted' AND EXISTS ("
             " SELECT 1 FROM runway_shows s WHERE s.source = brand_runway_drafts.source"
             " AND s.source_url = brand_runway_drafts.source_url AND s.city_pending_id = :id)"),
        {"c": city, "id": pending_id})
    return int(conn.execute(
        text("UPDATE runway_shows SET city = :c, city_pending_id = NULL"
             " WHERE city_pending_id = :id"), {"c": city, "id": pending_id}).rowcount or 0)
