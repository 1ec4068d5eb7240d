"""The store heal measured (issue 16): a crawled archive loses objects, and the heal fetches
them again from their source URLs.

    python -m bench.store_heal [--brands 4] [--shows 10] [--photos 40] [--every 4]

The replica in this process (no hostile brands), the catalog on a fresh PostgreSQL database
(``FASHION_BENCH_DATABASE_URL``), then for the file store and for moto's S3 server over
HTTP, each on a ``dagster dev`` of its own started the way ``fashion-assets crawl`` starts
one (``launch.crawl.command_session``: every run queued, launched by its daemon, executed in
a run process of its code server): every brand crawled (``launch.crawl.crawl``, the
command's runs); every ``--every``-th object deleted, one of them taken down at the source
(404) and one replaced there by another image; then ``store_heal_job`` ticks at the default
batch (``launch.crawl.run_job``, as ``fashion-assets store heal``) until its walk completes
a pass, and a second pass over the same archive; then the same objects deleted again and
every brand crawled again (the crawl heals the photos of the shows it touches); and a last
re-crawl with nothing lost, to show what the crawl's check of the store costs. The times
are the command's: a run's launch (its process, the code loaded) is in them. Prints the
section "The store heal" of docs/reliability.md; ``--write`` replaces it there.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import checkout_env, fresh_database, machine
from bench.reliability import write_sections
from fashion_assets.demo import replica_env
from fashion_assets.launch.crawl import Session, command_session, crawl, run_job
from fashion_assets.launch.follow import RunLog
from fashion_assets.replica import (
    ReplicaServer,
    build_site,
    photo_bytes,
    start_replica,
    with_changed_looks,
)
from fashion_assets.storage import ObjectStore, S3Store, open_store
from tests.s3server import start_moto_server

AWS_ENV = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
           "AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": "/nonexistent",
           "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "NO_PROXY": "127.0.0.1,localhost"}


@contextmanager
def stores() -> Iterator[list[tuple[str, str]]]:
    """(name, store URL) of the file store (under each scenario's home) and of a bucket on
    a moto server of its own."""
    with start_moto_server() as s3:
        os.environ.update(AWS_ENV)
        os.environ["AWS_ENDPOINT_URL_S3"] = s3.endpoint_url
        bucket = f"fa-bench-{uuid.uuid4().hex[:8]}"
        S3Store(bucket, endpoint_url=s3.endpoint_url).ensure_bucket()
        yield [("file", ""), ("S3 (moto)", f"s3://{bucket}/photos")]


def crawl_brands(session: Session, brands: list[str]) -> list[dict[str, Any]]:
    """Every brand crawled as ``fashion-assets crawl --brand ...`` crawls them; a summary per
    run."""
    return crawl(session, [("brand", b) for b in brands], run_log=RunLog.QUIET)


def heal_store(session: Session) -> dict[str, Any]:
    """A tick of ``store_heal_job`` at the default batch, as ``fashion-assets store heal``
    runs one; its summary."""
    from fashion_assets.jobs.store_heal import JOB_NAME, OP_NAME

    return run_job(session, JOB_NAME, step=OP_NAME, run_log=RunLog.QUIET)


@contextmanager
def deployed(env: dict[str, str], work: Path) -> Iterator[Session]:
    """A command's session on a ``dagster dev`` of its own with ``env`` (its runs' settings)
    and ``work/dagster`` as its instance (the command takes it from this process's
    ``DAGSTER_HOME``, set for the block)."""
    saved = os.environ.get("DAGSTER_HOME")
    os.environ["DAGSTER_HOME"] = str(work / "dagster")
    full = {**os.environ, **checkout_env(), **env}
    full.pop("FASHION_DAGSTER_URL", None)  # a deployment of the benchmark's own
    try:
        with command_session(full) as session:
            yield session
    finally:
        if saved is None:
            os.environ.pop("DAGSTER_HOME", None)
        else:
            os.environ["DAGSTER_HOME"] = saved


def scenario(server: ReplicaServer, store_url: str, work: Path, every: int) -> dict[str, Any]:
    site = server.site
    brands = [brand.slug for brand in site.brands]
    figures: dict[str, Any] = {}
    with fresh_database() as database_url:
        env = {"FASHION_HOME": str(work), "FASHION_DATABASE_URL": database_url,
               "FASHION_STORE_URL": store_url, "FASHION_PAGE_DELAY": "0", **replica_env(server)}
        with deployed(env, work) as session:
            started = time.perf_counter()
            runs = crawl_brands(session, brands)
            assert all(r["success"] for r in runs), runs
            figures["crawl_s"] = time.perf_counter() - started
            figures["crawl_runs"] = len(runs)
            store = open_store(store_url, home=work)
            looks = {hashlib.sha1(photo_bytes(site, p.photo_id)).hexdigest(): p
                     for show in site.iter_shows() for p in show.photos}
            lost = sorted(looks)[::every]
            figures["photos"], figures["lost"] = len(looks), len(lost)
            gone, changed = looks[lost[0]], looks[lost[1]]
            server.replace_site(with_changed_looks(site, {
                gone.photo_id: {"fault": "gone"},
                changed.photo_id: {"format": "png" if changed.format != "png" else "jpeg"}}))
            kept = _lose(store, lost)

            ticks, started = [], time.perf_counter()
            while not ticks or not ticks[-1]["pass_complete"]:
                ticks.append(heal_store(session))
                assert ticks[-1]["success"], ticks[-1]
            figures["job_s"] = time.perf_counter() - started
            figures["ticks"] = len(ticks)
            figures["job"] = _sum(ticks)
            figures["by_reason"] = {row["reason"]: row["objects"] for t in ticks
                                    for row in t.get("heal_still_missing_by_reason", [])}
            figures["identical"] = all(store.get(k) == kept[k] for k in lost[2:])
            started = time.perf_counter()
            second = heal_store(session)
            figures["second_pass_s"] = time.perf_counter() - started
            figures["second_pass"] = _sum([second])

            _lose(store, lost[2:])
            started = time.perf_counter()
            runs = crawl_brands(session, brands)
            figures["recrawl_s"] = time.perf_counter() - started
            figures["recrawl_healed"] = sum(r.get("photos_healed", 0) for r in runs)
            figures["recrawl_lost"] = sum(r.get("photos_lost", 0) for r in runs)
            figures["identical_after_crawl"] = all(store.get(k) == kept[k] for k in lost[2:])
            started = time.perf_counter()
            crawl_brands(session, brands)
            figures["clean_recrawl_s"] = time.perf_counter() - started
            started = time.perf_counter()
            assert len(store.missing(looks)) == 2
            figures["check_s"] = time.perf_counter() - started
            server.replace_site(site)
    return figures


def _lose(store: ObjectStore, keys: list[str]) -> dict[str, bytes]:
    kept = {key: store.get(key) for key in keys}
    for key in keys:
        store.delete(key)
    return kept


def _sum(ticks: list[dict[str, Any]]) -> dict[str, int]:
    return {name: sum(t[f"heal_{name}"] for t in ticks)
            for name in ("checked", "missing", "healed", "still_missing")}


def rows(name: str, f: dict[str, Any]) -> list[str]:
    job, again = f["job"], f["second_pass"]
    reasons = ", ".join(f"`{r}` {n}" for r, n in sorted(f["by_reason"].items()))
    ticks = f"{f['ticks']} tick" + ("s" if f["ticks"] != 1 else "")
    return [
        f"| {name}: {f['lost']:,} of {f['photos']:,} photos deleted from the store, one of "
        f"them taken down at the source, one replaced there | `store_heal_job` at the "
        f"default batch: {ticks}, {job['checked']:,} checked, {job['missing']:,} missing, "
        f"{job['healed']:,} fetched again, byte for byte: {_yes(f['identical'])}; "
        f"{job['still_missing']} listed: {reasons} | {f['job_s']:.1f} s; the next pass "
        f"{f['second_pass_s']:.1f} s, trying the {job['still_missing']} once more "
        f"({again['still_missing']} still listed) |",
        f"| {name}: the same {f['lost'] - 2:,} deleted again, every brand crawled again "
        f"({f['crawl_runs']} runs) | "
        f"the drafts steps: {f['recrawl_healed']:,} of the {f['recrawl_lost']:,} lost "
        f"photos fetched again, byte for byte: {_yes(f['identical_after_crawl'])} | "
        f"re-crawl {f['recrawl_s']:.1f} s; with nothing lost {f['clean_recrawl_s']:.1f} s, "
        f"of which the store check of {f['photos']:,} photos about {f['check_s']:.2f} s |",
    ]


def _yes(ok: bool) -> str:
    return "yes" if ok else "**NO**"


NOTE = """On S3 the time is the store's: asking whether an object is there is one HEAD per key
(`S3Store.missing`, 8 at a time), a few hundred per second against moto, so a tick of the
default batch spends about a minute on HEADs there before any photo is fetched, and a crawl
of shows already drafted now asks the store about each of their photos once (on the file
store a `stat`, nothing to speak of). The figures each test asserts are in "Hostile
networks and our own outages" above."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=4)
    parser.add_argument("--shows", type=int, default=10)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--write", action="store_true",
                        help="Replace the section '## The store heal' of docs/reliability.md.")
    args = parser.parse_args()
    site = build_site(brands=args.brands, shows_per_brand=args.shows,
                      photos_per_show=args.photos, hostile=False)
    lines = []
    with start_replica(site) as server, stores() as named:
        for name, url in named:
            with tempfile.TemporaryDirectory() as work:
                lines += rows(name, scenario(server, url, Path(work), args.every))
    photos = args.brands * args.shows * args.photos
    section = "\n".join([
        f"Measured by `python -m bench.store_heal` on {time.strftime('%Y-%m-%d')}: replica of "
        f"{args.brands} brands x {args.shows} shows x {args.photos} photos ({photos:,} photos) "
        "in the benchmark's process, catalog on a fresh PostgreSQL database, each store in "
        "turn after a crawl of every brand; every crawl and tick a run of its own, queued and "
        "launched by the daemon of a `dagster dev` started for the store as `fashion-assets "
        "crawl` starts one (a run's launch is in its time); "
        f"{machine()['cpu']}.",
        "", "| fault | what the heal did | wall time |", "|---|---|---|", *lines, "", NOTE])
    print(section)
    if args.write:
        write_sections({"The store heal": section})


if __name__ == "__main__":
    main()
