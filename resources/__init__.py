"""Dagster resources: the catalog, the object store, the sources and the crawler settings.

Installed as ``fashion_assets.resources`` (see pyproject): a top-level ``resources`` module
would collide with other distributions. Each resource is a ``ConfigurableResource`` fed from
the ``FASHION_*`` environment (``EnvVar`` when a variable is set, the documented default
otherwise, see ``resources_from_env``), so the settings in force show in the Dagster UI
without revealing secrets.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dagster import ConfigurableResource, EnvVar
from pydantic import Field
from sqlalchemy import Engine

from fashion_assets import settings
from fashion_assets.catalog.db import create_catalog_engine
from fashion_assets.catalog.migrations import apply_migrations
from fashion_assets.crawl.http import HttpPolicy
from fashion_assets.crawl.runway import CrawlLimits, SourceSite
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.media import MediaLimits
from fashion_assets.sources import vogue
from fashion_assets.storage import ObjectStore, open_store

_ENGINES: dict[str, Engine] = {}
_ENGINES_LOCK = threading.Lock()


def catalog_engine(database_url: str) -> Engine:
    """One migrated engine per database URL and process."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(database_url)
        if engine is None:
            engine = create_catalog_engine(database_url)
            apply_migrations(engine)
            _ENGINES[database_url] = engine
        return engine


class CatalogResource(ConfigurableResource):
    """The catalog database (SQLite file by default, PostgreSQL in production)."""

    database_url: str = Field(description="SQLAlchemy URL of the catalog database.")

    def engine(self) -> Engine:
        return catalog_engine(self.database_url)


class ObjectStoreResource(ConfigurableResource):
    """Content-addressed photo storage: a folder, or an S3 bucket and prefix."""

    store_url: str = Field(description="file:///path or s3://bucket[/prefix].")
    home: str = Field(description="The data folder; relative file:// URLs are taken from it.")

    def open(self) -> ObjectStore:
        return open_store(self.store_url, home=Path(self.home))


class VogueSourceResource(ConfigurableResource):
    """Where Vogue Runway is fetched from, and which hosts its photos may come from."""

    base_url: str = Field(default="https://www.vogue.com")
    image_hosts: str = Field(default="assets.vogue.com", description="Comma-separated hosts.")

    def site(self) -> SourceSite:
        return SourceSite(vogue.SOURCE, self.base_url.rstrip("/"), vogue.PUBLIC_BASE_URL)

    def host_policy(self) -> HostPolicy:
        return HostPolicy.from_config(self.base_url, settings.split_hosts(self.image_hosts))


class CrawlerResource(ConfigurableResource):
    """How politely and how fast the crawler works, and what it accepts."""

    image_concurrency: int = 16
    host_concurrency: int = 16
    show_concurrency: int = 4
    http_timeout: float = 20.0
    http_retries: int = 4
    retry_backoff: float = 0.5
    max_retry_after: float = 300.0
    max_image_bytes: int = 25 * 1024 * 1024
    max_image_pixels: int = 50_000_000
    max_page_bytes: int = 10 * 1024 * 1024
    obey_robots: bool = True
    user_agent: str = "fashion-assets/0.1 (+https://github.com/fashion-assets)"

    def http_policy(self) -> HttpPolicy:
        return HttpPolicy(
            user_agent=self.user_agent, timeout_s=self.http_timeout, retries=self.http_retries,
            backoff_base_s=self.retry_backoff, max_retry_after_s=self.max_retry_after,
            host_concurrency=self.host_concurrency, obey_robots=self.obey_robots,
        )

    def limits(self) -> CrawlLimits:
        return CrawlLimits(
            image_concurrency=self.image_concurrency, show_concurrency=self.show_concurrency,
            max_page_bytes=self.max_page_bytes,
            media=MediaLimits(max_bytes=self.max_image_bytes, max_pixels=self.max_image_pixels),
        )


# Resource field -> environment variable, for every field that has one.
_CRAWLER_ENV = {
    "image_concurrency": "FASHION_IMAGE_CONCURRENCY",
    "host_concurrency": "FASHION_HOST_CONCURRENCY",
    "show_concurrency": "FASHION_SHOW_CONCURRENCY",
    "http_timeout": "FASHION_HTTP_TIMEOUT",
    "http_retries": "FASHION_HTTP_RETRIES",
    "retry_backoff": "FASHION_RETRY_BACKOFF",
    "max_retry_after": "FASHION_MAX_RETRY_AFTER",
    "max_image_bytes": "FASHION_MAX_IMAGE_BYTES",
    "max_image_pixels": "FASHION_MAX_IMAGE_PIXELS",
    "max_page_bytes": "FASHION_MAX_PAGE_BYTES",
    "obey_robots": "FASHION_OBEY_ROBOTS",
    "user_agent": "FASHION_USER_AGENT",
}


def _value(env: Mapping[str, str], name: str, kind: type, as_env_var: bool) -> Any:
    """``EnvVar`` when the variable is set in the process environment (the UI then shows its
    name, never its value), else the value itself (the default, or the given mapping's)."""
    if as_env_var and env.get(name, "").strip() and kind in (int, str):
        return EnvVar.int(name) if kind is int else EnvVar(name)
    return _parse(kind, settings.setting(env, name))


def _parse(kind: type, raw: str) -> Any:
    if kind is bool:
        return settings.parse_bool(raw)
    return kind(raw)


def resources_from_env(env: Mapping[str, str] | None = None) -> dict[str, ConfigurableResource]:
    """The resources of the code location.

    Configured from the process environment by default, with ``EnvVar`` for every variable
    that is set; from ``env`` as plain values when a mapping is given (the demo and tests
    point one run at the replica without touching the process environment).
    """
    as_env_var = env is None
    env = os.environ if env is None else env
    fields = CrawlerResource.model_fields
    crawler = {name: _value(env, var, type(fields[name].default), as_env_var)
               for name, var in _CRAWLER_ENV.items()}
    return {
        "catalog": CatalogResource(
            database_url=_value(env, "FASHION_DATABASE_URL", str, as_env_var)
            or settings.database_url(env)),
        "store": ObjectStoreResource(store_url=settings.store_url(env),
                                     home=str(settings.home_dir(env))),
        "vogue": VogueSourceResource(
            base_url=_value(env, "FASHION_VOGUE_BASE_URL", str, as_env_var),
            image_hosts=_value(env, "FASHION_VOGUE_IMAGE_HOSTS", str, as_env_var)),
        "crawler": CrawlerResource(**crawler),
    }
