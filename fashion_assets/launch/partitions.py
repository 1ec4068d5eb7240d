"""Brands in the catalog and their partitions in the instance.

``fashion-assets brands add`` registers brands on the instance directly
(``register_brands``); a crawl adds the partitions it needs through the deployment's
webserver (``webserver.py: add_partitions``, the same rule over GraphQL) and removes one it
added for a brand, season or week the source does not have (a typo) once its run found no
listing (``summaries.py: unlisted_partitions``), so a mistake leaves nothing behind.
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


def catalog_brands(env: Mapping[str, str] | None = None) -> list[str]:
    """Every brand of the catalog (``fashion-assets crawl --all``)."""
    from fashion_assets.catalog.engines import catalog_engine
    from fashion_assets.catalog.runway import list_brands

    return [b.slug for b in list_brands(catalog_engine(settings.database_url(env)))]
