"""Dagster resources: the catalog, the object store, the sources and the crawler settings.

Imported as ``fashion_assets.resources`` (the link ``fashion_assets/resources``;
docs/architecture.md): a top-level ``resources`` module would collide with other
distributions. Each resource is a ``ConfigurableResource`` fed from the ``FASHION_*``
environment (``EnvVar`` when a variable is set, the documented default otherwise, see
``resources_from_env``), so the settings in force show in the Dagster UI
without revealing secrets.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dagster import ConfigurableResource, EnvVar, Failure
from pydantic import Field
from sqlalchemy import Engine

from fashion_assets import settings
from fashion_assets.catalog.db import CatalogURLError
from fashion_assets.catalog.engines import catalog_engine
from fashion_assets.catalog.host_budget import DatabaseBudgetStore
from fashion_assets.crawl.base import CrawlLimits, SourceSite
from fashion_assets.crawl.budget import HostBudget
from fashion_assets.crawl.galleries import source_site
from fashion_assets.crawl.http import Fetcher, HttpPolicy
from fashion_assets.domain.backpressure import BackpressureRules
from fashion_assets.domain.coverage import CoverageRules, RepairRules
from fashion_assets.domain.discovery import DiscoveryScope
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.media import MediaLimits
from fashion_assets.folders import FolderError
from fashion_assets.sources.registry import SOURCES, Source
from fashion_assets.storage import ObjectStore, StoreURLError, open_store


@contextmanager
def settings_not_retried(setting: str) -> Iterator[None]:
    """A setting the step cannot use (a URL that is none, a folder that cannot be made)
    fails the step for good, with the line the command would say: every retry of the run's
    retry policy would read the same setting, and fail the same way minutes later."""
    try:
        yield
    except FolderError as exc:
        raise Failure(str(exc), allow_retries=False) from None
    except (CatalogURLError, StoreURLError) as exc:
        raise Failure(f"{exc} ({setting})", allow_retries=False) from None


class CatalogResource(ConfigurableResource):
    """The catalog database (SQLite file by default, PostgreSQL in production)."""

    database_url: str = Field(description="SQLAlchemy URL of the catalog database.")

    def engine(self) -> Engine:
        with settings_not_retried("FASHION_DATABASE_URL"):
            return catalog_engine(self.database_url)


class ObjectStoreResource(ConfigurableResource):
    """Content-addressed photo storage: a folder, or an S3 bucket and prefix."""

    store_url: str = Field(description="file:///path or s3://bucket[/prefix].")
    home: str = Field(description="The data folder; relative file:// URLs are taken from it.")

    def open(self) -> ObjectStore:
        with settings_not_retried("FASHION_STORE_URL"):
            return open_store(self.store_url, home=Path(self.home))


class SourceResource(ConfigurableResource):
    """Where one source (``sources/registry.py``) is fetched from, and which hosts its photos
    may come from: one per source, under the source's name."""

    base_url: str = Field(description="Where pages are fetched from (a mirror or replica too).")
    image_hosts: str = Field(description="Comma-separated hosts photos may come from.")

    def site(self, source: Source) -> SourceSite:
        return source_site(source, self.base_url, settings.split_hosts(self.image_hosts))

    def host_policy(self) -> HostPolicy:
        return HostPolicy.from_config(self.base_url, settings.split_hosts(self.image_hosts))


class ReviewPageResource(ConfigurableResource):
    """Where editors reach the review page (``fashion-assets review serve``): run metadata
    links photos and drafts through it rather than exposing the store."""

    base_url: str = Field(description="The review page's address, as editors open it.")

    def photo_url(self, object_key: str) -> str:
        return f"{self.base_url.rstrip('/')}/photos/{object_key}"

    def thumbnail_url(self, object_key: str) -> str:
        """The photo's 320 px thumbnail (made by the page the first time it is asked)."""
        return f"{self.base_url.rstrip('/')}/thumbs/{object_key}"

    def draft_url(self, kind: str, draft_id: int | None) -> str | None:
        """The draft's page (``/drafts/runway:12``, always with its kind: runway and street
        drafts number separately); none when a row has no draft (failed, skipped)."""
        if draft_id is None:
            return None
        return f"{self.base_url.rstrip('/')}/drafts/{kind}:{draft_id}"


class ClockResource(ConfigurableResource):
    """The crawl's clock: the system's UTC time, or a fixed time for tests and replays.

    Street-style albums are keyed by the year and month of the crawl, so the clock is a
    resource that a test (or a backfill of a past month) can set.
    """

    fixed_time: str = Field(default="", description="ISO 8601 time taken as now; empty: "
                            "the system clock.")

    def now(self) -> datetime:
        if not self.fixed_time:
            return datetime.now(UTC)
        moment = datetime.fromisoformat(self.fixed_time)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class DiscoveryResource(ConfigurableResource):
    """Which designers discovery may register, and how many season pages it reads."""

    allow: str = Field(default="", description="Comma-separated slug patterns; empty: all.")
    deny: str = Field(default="", description="Comma-separated slug patterns never taken.")
    seasons: int = Field(default=4, description="Season pages of the landing page to read.")

    def scope(self) -> DiscoveryScope:
        return DiscoveryScope.from_lists(self.allow, self.deny)


class CrawlerResource(ConfigurableResource):
    """How politely and how fast the crawler works, and what it accepts."""

    # No defaults here: ``resources_from_env`` fills every field from the settings table.
    image_concurrency: int
    host_concurrency: int
    page_delay: float
    host_image_concurrency: int
    throttle_restore_seconds: float
    throttle_restore_successes: int
    show_concurrency: int
    http_timeout: float
    http_deadline: float
    http_min_rate: float
    http_retries: int
    retry_backoff: float
    max_retry_after: float
    max_image_bytes: int
    max_image_pixels: int
    max_page_bytes: int
    obey_robots: bool
    photos_with_manifests: bool
    user_agent: str
    coverage_tolerance: int
    coverage_fallback: int
    repair_max_attempts: int
    repair_backoff: float
    repair_backoff_cap: float
    repair_shows_per_tick: int
    backpressure_pause_pending: int
    backpressure_alert_pending: int
    backpressure_pause_failed: int
    backpressure_alert_failed: int
    stuck_after_seconds: float
    heartbeat_seconds: float
    infra_retry_seconds: float

    def backpressure_rules(self) -> BackpressureRules:
        return BackpressureRules(
            pause_pending=self.backpressure_pause_pending,
            alert_pending=self.backpressure_alert_pending,
            pause_failed=self.backpressure_pause_failed,
            alert_failed=self.backpressure_alert_failed)

    def coverage_rules(self) -> CoverageRules:
        return CoverageRules(tolerance=self.coverage_tolerance, fallback=self.coverage_fallback)

    def repair_rules(self) -> RepairRules:
        return RepairRules(max_attempts=self.repair_max_attempts, backoff_s=self.repair_backoff,
                           backoff_cap_s=self.repair_backoff_cap)

    def http_policy(self) -> HttpPolicy:
        return HttpPolicy(
            user_agent=self.user_agent, timeout_s=self.http_timeout,
            deadline_s=self.http_deadline, min_rate_bps=self.http_min_rate,
            retries=self.http_retries,
            backoff_base_s=self.retry_backoff, max_retry_after_s=self.max_retry_after,
            host_concurrency=self.host_concurrency, obey_robots=self.obey_robots,
            page_delay_s=self.page_delay, host_image_concurrency=self.host_image_concurrency,
            throttle_restore_s=self.throttle_restore_seconds,
            throttle_restore_successes=self.throttle_restore_successes,
        )

    def fetcher(self, hosts: HostPolicy, engine: Engine) -> Fetcher:
        """A client within ``hosts``, whose share of each host's pace is kept in the catalog
        database ``engine`` with every other client's (worker, run or machine)."""
        policy = self.http_policy()
        budget = HostBudget(DatabaseBudgetStore(engine), policy.pace_rules(),
                            infra_retry_s=self.infra_retry_seconds)
        return Fetcher(policy, hosts, budget=budget)

    def limits(self) -> CrawlLimits:
        return CrawlLimits(
            image_concurrency=self.image_concurrency, show_concurrency=self.show_concurrency,
            max_page_bytes=self.max_page_bytes,
            media=MediaLimits(max_bytes=self.max_image_bytes, max_pixels=self.max_image_pixels),
            coverage=self.coverage_rules(), infra_retry_s=self.infra_retry_seconds,
            photos_with_manifests=self.photos_with_manifests,
        )


# Resource field -> environment variable, for every field that has one.
_CRAWLER_ENV = {
    "image_concurrency": "FASHION_IMAGE_CONCURRENCY",
    "host_concurrency": "FASHION_HOST_CONCURRENCY",
    "page_delay": "FASHION_PAGE_DELAY",
    "host_image_concurrency": "FASHION_HOST_IMAGE_CONCURRENCY",
    "throttle_restore_seconds": "FASHION_THROTTLE_RESTORE_SECONDS",
    "throttle_restore_successes": "FASHION_THROTTLE_RESTORE_SUCCESSES",
    "show_concurrency": "FASHION_SHOW_CONCURRENCY",
    "coverage_tolerance": "FASHION_COVERAGE_TOLERANCE",
    "coverage_fallback": "FASHION_COVERAGE_FALLBACK",
    "repair_max_attempts": "FASHION_REPAIR_MAX_ATTEMPTS",
    "repair_backoff": "FASHION_REPAIR_BACKOFF",
    "repair_backoff_cap": "FASHION_REPAIR_BACKOFF_CAP",
    "repair_shows_per_tick": "FASHION_REPAIR_SHOWS_PER_TICK",
    "backpressure_pause_pending": "FASHION_BACKPRESSURE_PAUSE_PENDING",
    "backpressure_alert_pending": "FASHION_BACKPRESSURE_ALERT_PENDING",
    "backpressure_pause_failed": "FASHION_BACKPRESSURE_PAUSE_FAILED",
    "backpressure_alert_failed": "FASHION_BACKPRESSURE_ALERT_FAILED",
    "stuck_after_seconds": "FASHION_STUCK_AFTER_SECONDS",
    "heartbeat_seconds": "FASHION_HEARTBEAT_SECONDS",
    "infra_retry_seconds": "FASHION_INFRA_RETRY_SECONDS",
    "http_timeout": "FASHION_HTTP_TIMEOUT",
    "http_deadline": "FASHION_HTTP_DEADLINE",
    "http_min_rate": "FASHION_HTTP_MIN_RATE",
    "http_retries": "FASHION_HTTP_RETRIES",
    "retry_backoff": "FASHION_RETRY_BACKOFF",
    "max_retry_after": "FASHION_MAX_RETRY_AFTER",
    "max_image_bytes": "FASHION_MAX_IMAGE_BYTES",
    "max_image_pixels": "FASHION_MAX_IMAGE_PIXELS",
    "max_page_bytes": "FASHION_MAX_PAGE_BYTES",
    "obey_robots": "FASHION_OBEY_ROBOTS",
    "photos_with_manifests": "FASHION_PHOTOS_WITH_MANIFESTS",
    "user_agent": "FASHION_USER_AGENT",
}


# Numbers for which 0 makes sense: no retries, no delay between page requests, every photo,
# the directory alone.
_ZERO_ALLOWED = frozenset({"FASHION_HTTP_RETRIES", "FASHION_PAGE_DELAY",
                           "FASHION_COVERAGE_TOLERANCE", "FASHION_DISCOVERY_SEASONS"})


def _value(env: Mapping[str, str], name: str, kind: type, as_env_var: bool,
           default: str | None = None) -> Any:
    """The setting's value, checked now so a bad one fails with its name at load time.

    Returned as ``EnvVar`` when set in the process environment and Dagster can read it
    itself (the UI then shows the variable's name, never its value).
    """
    raw = settings.setting(env, name, default)
    try:
        value = settings.parse_bool(raw) if kind is bool else kind(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a valid {kind.__name__}") from None
    if kind in (int, float) and (value < 0 or (value == 0 and name not in _ZERO_ALLOWED)):
        raise ValueError(f"{name}={raw!r} must be positive")
    if as_env_var and env.get(name, "").strip() and kind in (int, str):
        return EnvVar.int(name) if kind is int else EnvVar(name)
    return value


def resources_from_env(env: Mapping[str, str] | None = None,
                       sources: Sequence[Source] = SOURCES) -> dict[str, ConfigurableResource]:
    """The resources of the code location, with a ``SourceResource`` per source.

    Configured from the process environment by default, with ``EnvVar`` for every variable
    that is set; from ``env`` as plain values when a mapping is given (the demo and tests
    point one run at the replica without touching the process environment).
    """
    as_env_var = env is None
    env = os.environ if env is None else env
    fields = CrawlerResource.model_fields
    crawler = {name: _value(env, var, fields[name].annotation, as_env_var)
               for name, var in _CRAWLER_ENV.items()}
    return {
        "catalog": CatalogResource(
            database_url=_value(env, "FASHION_DATABASE_URL", str, as_env_var)
            or settings.database_url(env)),
        "store": ObjectStoreResource(store_url=settings.store_url(env),
                                     home=str(settings.home_dir(env))),
        **{source.name: SourceResource(
            base_url=_value(env, source.base_url_setting, str, as_env_var, source.base_url),
            image_hosts=_value(env, source.image_hosts_setting, str, as_env_var,
                               source.image_hosts))
           for source in sources},
        "crawler": CrawlerResource(**crawler),
        "clock": ClockResource(fixed_time=_clock_value(env)),
        "discovery": DiscoveryResource(
            allow=_value(env, "FASHION_DISCOVERY_ALLOW", str, as_env_var),
            deny=_value(env, "FASHION_DISCOVERY_DENY", str, as_env_var),
            seasons=_value(env, "FASHION_DISCOVERY_SEASONS", int, as_env_var)),
        "review_page": ReviewPageResource(
            base_url=_value(env, "FASHION_REVIEW_URL", str, as_env_var)),
    }


def _clock_value(env: Mapping[str, str]) -> str:
    """``FASHION_CLOCK``, checked now so a bad time fails at load with its name."""
    raw = settings.setting(env, "FASHION_CLOCK")
    if raw:
        try:
            datetime.fromisoformat(raw)
        except ValueError:
            raise ValueError(f"FASHION_CLOCK={raw!r} is not an ISO 8601 time") from None
    return raw
