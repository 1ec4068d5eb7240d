"""Settings from the environment, each with a documented default that works on a bare machine.

One table (``SETTINGS``) names every variable, its default and what it is for; the table of
docs/configuration.md (held to it by a test) and the Dagster resources come from it, so the
three cannot drift apart. Reading settings is a pure function of an environment mapping.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from fashion_assets.domain.numbers import whole_number
from fashion_assets.sources.registry import SOURCES


@dataclass(frozen=True)
class Setting:
    env: str
    default: str
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting("FASHION_HOME", ".fashion", "Data folder: the SQLite catalog, the file store, the "
            "Dagster instance of the CLI."),
    Setting("FASHION_DAGSTER_URL", "", "Webserver of the Dagster deployment that runs the "
            "command's crawls (http://host:port, e.g. the `dagster dev` of this DAGSTER_HOME). "
            "Empty: the command starts `dagster dev` for its own runs and stops it at the end "
            "(the commands of one DAGSTER_HOME running at once share it)."),
    Setting("FASHION_DATABASE_URL", "", "Catalog database. Empty: a SQLite file "
            "FASHION_HOME/catalog.db. PostgreSQL: postgresql+psycopg2://user:pass@host/db."),
    Setting("FASHION_STORE_URL", "", "Object storage. Empty: file store in "
            "FASHION_HOME/objects. file:///path, or s3://bucket[/prefix] (boto3's standard "
            "environment: credentials, AWS_ENDPOINT_URL_S3 for MinIO, R2 or any S3 API)."),
    # Each source's own: where it is fetched from, which hosts its photos come from.
    *(Setting(*row) for source in SOURCES for row in source.setting_rows()),
    Setting("FASHION_CLOCK", "", "Fixed UTC time (ISO 8601) a crawl takes as now, for tests "
            "and replays. Empty: the system clock. Street-style albums are keyed by the "
            "crawl's year and month."),
    Setting("FASHION_IMAGE_CONCURRENCY", "16", "Photo downloads in flight at once, per run."),
    Setting("FASHION_HOST_CONCURRENCY", "16", "Requests in flight at once to any one host."),
    Setting("FASHION_PAGE_DELAY", "0.25", "Seconds at least between two page requests "
            "(anything but a photo) to one host, by all workers, runs and machines together "
            "(the budget is kept in the catalog database); 0: no delay."),
    Setting("FASHION_HOST_IMAGE_CONCURRENCY", "8", "Photo downloads in flight at once to any "
            "one host, by all workers, runs and machines together (shared fairly through the "
            "catalog database). Halved (never below 1) when the host answers 429 or 503, then "
            "restored one step at a time."),
    Setting("FASHION_THROTTLE_RESTORE_SECONDS", "30", "After a host throttled, one more photo "
            "download in flight is allowed again once this many seconds passed without "
            "throttling (or sooner, see FASHION_THROTTLE_RESTORE_SUCCESSES), up to "
            "FASHION_HOST_IMAGE_CONCURRENCY."),
    Setting("FASHION_THROTTLE_RESTORE_SUCCESSES", "100", "After a host throttled, one more "
            "photo download in flight is allowed again after this many successful answers "
            "from it (or sooner, see FASHION_THROTTLE_RESTORE_SECONDS)."),
    Setting("FASHION_SHOW_CONCURRENCY", "4", "Shows ingested at once, per run (each show is "
            "committed as soon as it is done, with those done while the last commit ran)."),
    Setting("FASHION_HTTP_TIMEOUT", "20", "Seconds before a request is given up and retried."),
    Setting("FASHION_HTTP_DEADLINE", "60", "Seconds a request may take in all (connecting, "
            "headers and body together) before it is cut and retried like a timeout: a host "
            "that drips bytes never trips FASHION_HTTP_TIMEOUT."),
    Setting("FASHION_HTTP_MIN_RATE", "1024", "Slowest body accepted, in bytes per second over "
            "every FASHION_HTTP_TIMEOUT seconds; a slower one is cut and retried like a "
            "timeout."),
    Setting("FASHION_HTTP_RETRIES", "4", "Retries after the first attempt for timeouts, dropped "
            "connections, 429 and 5xx."),
    Setting("FASHION_RETRY_BACKOFF", "0.5", "Base of the exponential backoff, in seconds "
            "(full jitter)."),
    Setting("FASHION_MAX_RETRY_AFTER", "300", "Longest Retry-After honoured, in seconds; a "
            "longer one fails the request instead of stalling the run."),
    Setting("FASHION_MAX_IMAGE_BYTES", str(25 * 1024 * 1024), "Largest photo body accepted."),
    Setting("FASHION_MAX_IMAGE_PIXELS", "50000000", "Largest photo accepted, in pixels "
            "(against decompression bombs)."),
    Setting("FASHION_MAX_PAGE_BYTES", str(10 * 1024 * 1024), "Largest page body accepted."),
    Setting("FASHION_OBEY_ROBOTS", "true", "Obey the sources' robots.txt."),
    Setting("FASHION_PHOTOS_WITH_MANIFESTS", "true", "Fetch the photos of each show to be "
            "drafted in the manifests step, as soon as its page is read, while the next page "
            "waits its turn (the drafts step of the run takes them); false: every photo in the "
            "drafts step, so that materializing manifests alone downloads no photo."),
    Setting("FASHION_USER_AGENT", "fashion-assets/0.1 (+https://github.com/fashion-assets)",
            "User-Agent sent with every request."),
    Setting("FASHION_COVERAGE_TOLERANCE", "5", "A show is complete when its stored photos reach "
            "the expected count minus this many (single photos vanish for good on the "
            "sources); 0: every photo."),
    Setting("FASHION_COVERAGE_FALLBACK", "10", "A show whose source gave no photo count is "
            "complete once this many photos are stored."),
    Setting("FASHION_REPAIR_MAX_ATTEMPTS", "5", "Re-fetches the coverage sensor makes of an "
            "incomplete show before it gives up on it (a full crawl or `fashion-assets "
            "coverage retry` still can)."),
    Setting("FASHION_REPAIR_BACKOFF", "3600", "Seconds between the coverage sensor's first and "
            "second re-fetch of a show; doubled after each further attempt."),
    Setting("FASHION_REPAIR_BACKOFF_CAP", "604800", "Longest wait between two re-fetches of a "
            "show, in seconds (a week)."),
    Setting("FASHION_REPAIR_SHOWS_PER_TICK", "500", "Incomplete shows the coverage sensor takes "
            "per tick (the oldest due first), as runs of one brand or season each."),
    Setting("FASHION_BACKPRESSURE_PAUSE_PENDING", "500", "Drafts waiting for review (pending, "
            "runway and street, not deleted) at which the crawl schedule and the coverage "
            "sensor stop launching crawls; they resume below half of it."),
    Setting("FASHION_BACKPRESSURE_ALERT_PENDING", "250", "Drafts waiting for review from which "
            "the schedule and sensor warn and status shows alert (at most the pause "
            "threshold)."),
    Setting("FASHION_BACKPRESSURE_PAUSE_FAILED", "200", "Shows whose last ingest failed and that "
            "have no draft, at which new crawls stop; they resume below half of it."),
    Setting("FASHION_BACKPRESSURE_ALERT_FAILED", "100", "Shows whose last ingest failed from "
            "which the schedule and sensor warn (at most the pause threshold)."),
    Setting("FASHION_CRAWL_CRON", "0 2 * * 1", "When full_crawl_schedule crawls every brand "
            "(cron, UTC): weekly, Monday 02:00, by default."),
    Setting("FASHION_DISCOVERY_CRON", "0 1 * * 1", "When designer_discovery_schedule reads "
            "Vogue's designers directory and current season pages and registers the new "
            "designers as brands (cron, UTC): an hour before the weekly full crawl, which then "
            "crawls them."),
    Setting("FASHION_DISCOVERY_ALLOW", "", "Comma-separated brand slug patterns (`maison-*`) "
            "discovery may register. Empty: every designer the source lists."),
    Setting("FASHION_DISCOVERY_DENY", "", "Comma-separated brand slug patterns discovery never "
            "registers; wins over FASHION_DISCOVERY_ALLOW. Brands already registered stay."),
    Setting("FASHION_DISCOVERY_SEASONS", "4", "How many of the seasons the runway landing page "
            "names discovery reads the season page of (newest first); 0: the directory only."),
    Setting("FASHION_CRAWL_BATCH_BRANDS", "25", "Partitions per crawl run of the schedule "
            "(brands), of a backfill (every crawl asset's backfill policy: brands, seasons and "
            "fashion weeks alike; read when the code location loads) and at most per run of "
            "`fashion-assets crawl`."),
    Setting("FASHION_STUCK_AFTER_SECONDS", "300", "A crawl run whose heartbeat has not moved for "
            "this long is stuck: stuck_runs_sensor terminates it, the /crawler page shows it "
            "amber."),
    Setting("FASHION_HEARTBEAT_SECONDS", "30", "How often a crawl's drafts step beats while "
            "it runs (well under FASHION_STUCK_AFTER_SECONDS)."),
    Setting("FASHION_INFRA_RETRY_SECONDS", "60", "Seconds a crawl step keeps retrying a "
            "call to our own object store, catalog database or disk that fails (backing off "
            "from 0.5 s, doubling, at most 10 s apart) before the step fails with the reason; "
            "no show is recorded as failed for it. The step's retries (FASHION_STEP_RETRIES) "
            "then apply."),
    Setting("FASHION_STEP_RETRIES", "2", "Retries of a crawl step that failed on something a "
            "retry can fix (the source or the database unreachable); a 404 or an unreadable "
            "page is recorded and never retried."),
    Setting("FASHION_STEP_RETRY_DELAY", "60", "Seconds before a crawl step's first retry; "
            "doubled for each further one, with jitter."),
    Setting("FASHION_CLEANUP_GRACE_HOURS", "24", "Media cleanup deletes an unreferenced object "
            "only once it is this many hours old, so an ingest in flight keeps its photos."),
    Setting("FASHION_CLEANUP_CRON", "0 4 * * *", "When the media_cleanup_schedule runs (cron, "
            "UTC)."),
    Setting("FASHION_HEAL_BATCH", "20000", "Referenced photos store_heal_job checks per "
            "tick (the next ones in key order, from where the last tick stopped; then it "
            "starts over); those the store lost are fetched again from their source URLs. "
            "Read when the code location loads (the job's default `batch`)."),
    Setting("FASHION_HEAL_CRON", "15 * * * *", "When store_heal_schedule runs a tick of the "
            "store heal (cron, UTC): hourly by default, so a million photos are all checked "
            "about every two days."),
    Setting("FASHION_SCRUB_BYTES", str(4 * 1024**3), "Bytes store_scrub_job reads per tick "
            "(4 GiB; the last object read may go over): the next referenced photos in key "
            "order, read in full and checked against their key (the sha1 of their bytes); a "
            "damaged one is fetched again from its source URLs, or listed as lost with the "
            "reason. Read when the code location loads (the job's default `budget`)."),
    Setting("FASHION_SCRUB_CRON", "45 * * * *", "When store_scrub_schedule runs a tick of the "
            "store scrub (cron, UTC): hourly by default, about 100 GB read a day."),
    Setting("FASHION_CELERY_CONFIG", "", "The Celery file (deploy/celery.yaml) of the run "
            "launcher that sends whole runs to Celery workers: deploy/dagster.yaml's "
            "`run_launcher` reads it, and the workers are started with it. Read by the "
            "Dagster instance, not by the code location; unused without that launcher "
            "(docs/operations.md, \"Celery workers\")."),
    Setting("FASHION_REVIEW_URL", "http://127.0.0.1:8810", "Where editors reach the review "
            "page; promotion metadata shows thumbnails and links through it."),
    Setting("FASHION_REVIEW_HOSTS", "", "Comma-separated host names the review page answers "
            "to (the `Host` header; a port is ignored); any other gets 400, so a web page "
            "whose name was rebound to this machine cannot read it. Empty: the address "
            "`review serve` listens on, `localhost`, `127.0.0.1` and `::1` (listening on a "
            "wildcard address, set it to the names editors reach the page by)."),
    Setting("FASHION_REVIEW_SECURE_COOKIES", "false", "Mark the review page's cookies "
            "`Secure` (sent over HTTPS only): set it when the page is reached over HTTPS, "
            "through a TLS-terminating proxy. A request that arrives over HTTPS (or through "
            "a proxy of `FASHION_TRUSTED_PROXIES` saying `X-Forwarded-Proto: https`) gets a "
            "`Secure` sign-in cookie anyway."),
    Setting("FASHION_TRUSTED_PROXIES", "", "Comma-separated addresses or networks "
            "(`10.0.0.5`, `10.0.0.0/24`) of the reverse proxies in front of the review page "
            "and the read API: only their `X-Forwarded-For` and `X-Forwarded-Proto` are "
            "believed, so the sign-in limits count the client's real address. Empty: no "
            "proxy header is believed, from loopback neither (any local program could "
            "otherwise claim a new address with each wrong password)."),
    Setting("FASHION_REVIEW_HEAD_TIMEOUT", "10", "Seconds a request to the review page has "
            "to send its head (request line and headers), from its first byte or from the "
            "connection; a slower client's connection is closed, so slow clients cannot hold "
            "the server's connections."),
    Setting("FASHION_REVIEW_BODY_TIMEOUT", "30", "Seconds a request to the review page has "
            "to send its body once its head arrived; a slower client's connection is closed."),
    Setting("FASHION_API_CACHE_SECONDS", "30", "Seconds the read API (`api serve`) keeps an "
            "answer: the same request within them is answered from memory, and clients may "
            "cache it as long (`Cache-Control`). A promotion shows in the API after it at most."),
    Setting("FASHION_API_HOSTS", "", "Comma-separated host names the read API answers to, "
            "as `FASHION_REVIEW_HOSTS` for the review page: any other `Host` gets 400, and "
            "the photo URLs of its answers name the host the request did, so they only ever "
            "name one of these. Empty: the address `api serve` listens on, `localhost`, "
            "`127.0.0.1` and `::1`."),
    Setting("FASHION_API_TOKEN", "", "A token the read API then asks of every request "
            "(`Authorization: Bearer <token>`). Empty: the API is open to anyone, as a public "
            "catalog is. A secret: keep it in the environment, never in a file."),
    Setting("FASHION_LOOK_SEARCH_WITHIN", "20", "How close a catalog photo must be to a "
            "photo searched for (`POST /api/v1/looks/search`, `looks find`) for its look to be "
            "answered, in bits of the 128 of pHash and dHash together, 0 to 47; farther is "
            "\"no match\". The default (`DEFAULT_SEARCH_WITHIN` of domain/look_search.py) is "
            "the widest that kept precision at 1 of 0.99 and no resemblance matched on the "
            "replica (`python -m bench.looks --search-only`, docs/performance.md)."),
    Setting("FASHION_LOOK_SEARCH_MAX_BYTES", str(10 * 1024 * 1024), "Largest photo the look "
            "search takes (bytes); a larger upload gets 413, refused from its Content-Length "
            "or as soon as more arrived. Its pixels are held to FASHION_MAX_IMAGE_PIXELS, as "
            "a crawled photo's are. An API process takes 16 uploads in hand at a time and "
            "decodes 2 at once; one more gets 503 with Retry-After "
            "(catalog_api/search_gate.py)."),
)

_DEFAULTS = {s.env: s.default for s in SETTINGS}


def setting(env: Mapping[str, str], name: str, default: str | None = None) -> str:
    """The value of setting ``name``: the environment's when set and non-empty, else the
    default of the table, or ``default`` for a setting the table does not hold (a source
    given to ``build_definitions`` beside the registry's)."""
    fallback = _DEFAULTS.get(name, default)
    if fallback is None:
        raise KeyError(f"unknown setting {name}")
    value = env.get(name, "").strip()
    return value or fallback


def positive_int(env: Mapping[str, str], name: str) -> int:
    """Setting ``name`` as a positive integer; a bad value fails with the setting's name
    (checked where the code location loads, not in the middle of a run)."""
    raw = setting(env, name)
    value = whole_number(raw, low=1)
    if value is None:
        raise ValueError(f"{name}={raw!r} must be a positive integer")
    return value


def crawl_batch_brands(env: Mapping[str, str] | None = None) -> int:
    """``FASHION_CRAWL_BATCH_BRANDS``: brands (or seasons, weeks) per crawl run of a
    schedule, a backfill or ``fashion-assets crawl``."""
    return positive_int(os.environ if env is None else env, "FASHION_CRAWL_BATCH_BRANDS")


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """The data folder, absolute (relative values are taken from the working directory)."""
    return Path(setting(os.environ if env is None else env, "FASHION_HOME")).expanduser().resolve()


def dagster_home(env: Mapping[str, str] | None = None) -> Path:
    """The Dagster instance folder of the ``fashion-assets`` command: ``DAGSTER_HOME`` when set,
    else ``FASHION_HOME/dagster``.

    The one place that decides it: ``crawl`` and ``demo`` run on this instance and ``status``
    and ``review serve`` read its queue, so they must agree on it with or without
    ``DAGSTER_HOME`` (Dagster itself reads only ``DAGSTER_HOME``).
    """
    env = os.environ if env is None else env
    explicit = env.get("DAGSTER_HOME", "").strip()
    return Path(explicit).expanduser() if explicit else home_dir(env) / "dagster"


def setting_behind(env: Mapping[str, str], name: str) -> str:
    """The variable a user changes to move what setting ``name`` places: ``name`` itself when
    the environment sets it, else FASHION_HOME, under which its default lies."""
    return name if env.get(name, "").strip() else "FASHION_HOME"


def database_url(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    return setting(env, "FASHION_DATABASE_URL") or f"sqlite:///{home_dir(env) / 'catalog.db'}"


def store_url(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    return setting(env, "FASHION_STORE_URL") or f"file://{home_dir(env) / 'objects'}"


def parse_bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"expected a boolean (true/false), got {value!r}")


def split_hosts(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())
