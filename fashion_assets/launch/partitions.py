"""The partitions a crawl of the command needs, added to the instance before its runs.

A partition added for a brand the source does not know (a typo) is removed again once its
run failed to read the listing, so a mistake leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fashion_assets import settings


def add_partitions(instance: Any, name: str, keys: Iterable[str]) -> list[str]:
    """Add the partitions not there yet; return the ones this call added. Two crawls of a
    new brand starting at once both try: the one that loses the race finds the partition
    added and goes on, and leaves it to the winner (which alone may remove it again)."""
    keys = set(keys)
    wanted = sorted(keys - set(instance.get_dynamic_partitions(name)))
    if not wanted:
        return []
    try:
        instance.add_dynamic_partitions(name, wanted)
    except Exception:  # the storage's unique-key error, whichever the storage is
        if keys - set(instance.get_dynamic_partitions(name)):
            raise
        return []
    return wanted


def register_brands(brands: Iterable[tuple[str, str]], instance: Any,
                    env: Mapping[str, str] | None = None) -> list[str]:
    """Add brands to the catalog and their partitions to the instance; return the new ones."""
    from fashion_assets.catalog.engines import catalog_engine
    from fashion_assets.catalog.runway import add_brand
    from fashion_assets.partitions import brand_partitions

    engine = catalog_engine(settings.database_url(env))
    brands = list(brands)
    new = [slug for slug, name in brands if add_brand(engine, slug, name)]
    assert brand_partitions.name is not None
    add_partitions(instance, brand_partitions.name, [slug for slug, _ in brands])
    return new


def forget_unlisted_brand(instance: Any, partitions: str, slug: str,
                          env: Mapping[str, str] | None = None) -> None:
    """Remove the partition of a brand whose listing was never read (it is not in the
    catalog), which this crawl added: nothing but the failed run and its ingest log entry
    remember the slug."""
    from fashion_assets.catalog.engines import catalog_engine
    from fashion_assets.catalog.runway import list_brands

    if slug not in {b.slug for b in list_brands(catalog_engine(settings.database_url(env)))}:
        instance.delete_dynamic_partition(partitions, slug)


def catalog_brands(instance: Any, env: Mapping[str, str] | None = None) -> list[str]:
    """Every brand of the catalog, registered as partitions (``fashion-assets crawl --all``)."""
    from fashion_assets.catalog.engines import catalog_engine
    from fashion_assets.catalog.runway import list_brands

    brands = list_brands(catalog_engine(settings.database_url(env)))
    register_brands([(b.slug, b.display_name) for b in brands], instance, env)
    return [b.slug for b in brands]
