"""The crawler's settings: which variable feeds each field of the crawler resource, how a
value is checked, and the coverage and backpressure rules they make.

Apart from the Dagster resources (``fashion_assets.resources``) so that the commands that
only report on the automation (``status``, ``coverage list``, ``review serve``) read the
same rules without importing Dagster: a second of every such command went to it. The
resource builds its rules through the same functions, from its resolved fields.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from fashion_assets import settings
from fashion_assets.domain.backpressure import BackpressureRules
from fashion_assets.domain.coverage import CoverageRules

CRAWLER_ENV = {
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
"""Crawler resource field -> environment variable, for every field that has one."""

ZERO_ALLOWED = frozenset({"FASHION_HTTP_RETRIES", "FASHION_PAGE_DELAY",
                          "FASHION_COVERAGE_TOLERANCE", "FASHION_DISCOVERY_SEASONS"})
"""Numbers for which 0 makes sense: no retries, no delay between page requests, every
photo, the directory alone."""


def checked_setting(env: Mapping[str, str], name: str, kind: type,
                    default: str | None = None) -> Any:
    """The setting ``name`` as a ``kind`` (bool, int, float or str), checked now so that a bad
    value fails with its name when the settings are read, not in the middle of a crawl."""
    raw = settings.setting(env, name, default)
    try:
        value = settings.parse_bool(raw) if kind is bool else kind(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a valid {kind.__name__}") from None
    if kind in (int, float) and (value < 0 or (value == 0 and name not in ZERO_ALLOWED)):
        raise ValueError(f"{name}={raw!r} must be positive")
    return value


Field = Callable[[str], Any]
"""A crawler field's value by its name: the resource's own, or the settings' (``from_env``)."""


def from_env(env: Mapping[str, str] | None = None) -> Field:
    """The crawler's whole-number fields as the environment sets them (the documented default
    otherwise), checked: the rules' fields, for a command without the resources."""
    env = os.environ if env is None else env
    return lambda field: checked_setting(env, CRAWLER_ENV[field], int)


def coverage_rules(field: Field) -> CoverageRules:
    """When a show counts as complete (the coverage sensor's and ingestion's rule)."""
    return CoverageRules(tolerance=field("coverage_tolerance"),
                         fallback=field("coverage_fallback"))


def backpressure_rules(field: Field) -> BackpressureRules:
    """The backlogs at which the crawl schedule pauses or alerts."""
    return BackpressureRules(
        pause_pending=field("backpressure_pause_pending"),
        alert_pending=field("backpressure_alert_pending"),
        pause_failed=field("backpressure_pause_failed"),
        alert_failed=field("backpressure_alert_failed"))
