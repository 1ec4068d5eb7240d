"""The store scrub measured (issue 36, finding 6): 1% of a crawled archive's objects are
truncated or overwritten behind the store's back, and ``store_scrub_job`` finds and heals
them a byte budget per tick.

    python -m bench.store_scrub [--brands 4] [--shows 10] [--photos 40] [--ticks 5] [--write]

The replica in this process, the catalog on a fresh PostgreSQL database
(``FASHION_BENCH_DATABASE_URL``), then for the file store and for moto's S3 server over
HTTP: every brand crawled, every 100th object damaged (in turns: emptied, cut in half,
overwritten with as many bytes of garbage), one of them also taken down at the source; then
ticks of ``store_scrub_job`` with a budget of a ``--ticks``-th of the archive's bytes until
the walk completes a pass. Each store on a ``dagster dev`` of its own started as
``fashion-assets crawl`` starts one (``bench/store_heal.py: deployed``): the crawls are the
command's runs, each tick a run of ``store_scrub_job`` as ``fashion-assets store scrub``
launches it (queued, launched by the daemon, executed in a run process), so a run's launch
is in the times. Prints the section "The store scrub" of docs/reliability.md; ``--write``
replaces it there.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import fresh_database, machine
from bench.reliability_report import write_sections
from bench.store_heal import crawl_brands, deployed, stores
from fashion_assets.demo import replica_env
from fashion_assets.jobs.store_scrub import JOB_NAME, OP_NAME
from fashion_assets.launch.crawl import Session, run_job
from fashion_assets.launch.follow import RunLog
from fashion_assets.replica import (
    ReplicaServer,
    build_site,
    photo_bytes,
    start_replica,
    with_changed_looks,
)
from fashion_assets.storage import FileStore, ObjectStore, S3Store, open_store, s3_client
from fashion_assets.storage.base import object_path


def damage(store: ObjectStore, key: str, data: bytes) -> None:
    """Write ``data`` under ``key`` behind the store's back (a file rewritten in place, an
    S3 object put without the store's create-only condition); the tests damage objects
    with it too (``tests/integration/test_store_scrub.py``)."""
    if isinstance(store, FileStore):
        (store.root / object_path(key)).write_bytes(data)
        return
    assert isinstance(store, S3Store)
    name = f"{store.prefix}/{object_path(key)}" if store.prefix else object_path(key)
    s3_client.client(None).put_object(Bucket=store.bucket, Key=name, Body=data)


def damaged_bytes(turn: int, data: bytes) -> bytes:
    return [b"", data[:len(data) // 2], (b"garbage!" * (len(data) // 8 + 1))[:len(data)]][
        turn % 3]


def scrub_store(session: Session, budget: int) -> dict[str, Any]:
    """A tick of ``store_scrub_job`` reading ``budget`` bytes, as ``fashion-assets store
    scrub --budget`` runs one; its summary."""
    return run_job(session, JOB_NAME, step=OP_NAME, run_log=RunLog.QUIET,
                   run_config={"ops": {OP_NAME: {"config": {"budget": budget}}}})


def scenario(server: ReplicaServer, store_url: str, work: Path, ticks_wanted: int
             ) -> dict[str, Any]:
    site = server.site
    figures: dict[str, Any] = {}
    with fresh_database() as database_url:
        env = {"FASHION_HOME": str(work), "FASHION_DATABASE_URL": database_url,
               "FASHION_STORE_URL": store_url, "FASHION_PAGE_DELAY": "0", **replica_env(server)}
        with deployed(env, work) as session:
            runs = crawl_brands(session, [b.slug for b in site.brands])
            assert all(r["success"] for r in runs), runs
            store = open_store(store_url, home=work)
            looks = {hashlib.sha1(photo_bytes(site, p.photo_id)).hexdigest(): p
                     for show in site.iter_shows() for p in show.photos}
            keys = sorted(looks)
            total = sum(len(photo_bytes(site, looks[k].photo_id)) for k in keys)
            damaged = keys[::100]
            kept = {key: store.get(key) for key in damaged}
            for turn, key in enumerate(damaged):
                damage(store, key, damaged_bytes(turn, kept[key]))
            gone = damaged[-1]
            server.replace_site(with_changed_looks(site, {looks[gone].photo_id:
                                                          {"fault": "gone"}}))
            budget = total // ticks_wanted + 1
            ticks: list[dict[str, Any]] = []
            started = time.perf_counter()
            while not ticks or not ticks[-1]["pass_complete"]:
                ticks.append(scrub_store(session, budget))
                assert ticks[-1]["success"], ticks[-1]
            figures["scrub_s"] = time.perf_counter() - started
        figures.update(photos=len(keys), total=total, damaged=len(damaged), budget=budget,
                       ticks=len(ticks),
                       read=sum(t["scrub_read_bytes"] for t in ticks),
                       most=max(t["scrub_read_bytes"] for t in ticks),
                       found=sum(t["scrub_damaged"] for t in ticks),
                       healed=sum(t["heal_healed"] for t in ticks),
                       listed=sum(t["heal_still_missing"] for t in ticks))
        figures["identical"] = all(store.get(k) == kept[k] for k in damaged if k != gone)
        figures["gone_absent"] = store.missing([gone]) == {gone}
        server.replace_site(site)
    return figures


def row(name: str, f: dict[str, Any]) -> str:
    ok = "yes" if f["identical"] and f["gone_absent"] else "**NO**"
    return (f"| {name} | {f['photos']:,} photos, {f['total'] / 1e6:.1f} MB; {f['damaged']} "
            f"damaged (1%), one also gone at the source | {f['ticks']} ticks of "
            f"{f['budget'] / 1e6:.2f} MB budget (the largest read {f['most'] / 1e6:.2f} MB), "
            f"{f['read'] / 1e6:.1f} MB read in all | {f['found']} found damaged, "
            f"{f['healed']} fetched again byte for byte, {f['listed']} listed as lost "
            f"(`not_found`, the damage in its detail), none served: {ok} | "
            f"{f['scrub_s']:.1f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=4)
    parser.add_argument("--shows", type=int, default=10)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--ticks", type=int, default=5)
    parser.add_argument("--write", action="store_true",
                        help="Replace the section '## The store scrub' of docs/reliability.md.")
    args = parser.parse_args()
    site = build_site(brands=args.brands, shows_per_brand=args.shows,
                      photos_per_show=args.photos, hostile=False)
    lines = []
    with start_replica(site) as server, stores() as named:
        for name, url in named:
            with tempfile.TemporaryDirectory() as work:
                lines.append(row(name, scenario(server, url, Path(work), args.ticks)))
    section = "\n".join([
        f"Measured by `python -m bench.store_scrub` on {time.strftime('%Y-%m-%d')}: replica "
        f"of {args.brands} brands x {args.shows} shows x {args.photos} photos in the "
        "benchmark's process, catalog on a fresh PostgreSQL database, each store in turn "
        "after a crawl of every brand; every 100th object emptied, cut in half or "
        "overwritten in place with garbage of its own size (the last one also taken down at "
        "the source), then `store_scrub_job` ticks until its walk completes a pass, each a "
        "run of a `dagster dev` launched by its daemon as `fashion-assets store scrub` "
        f"launches one (a run's launch is in the time); {machine()['cpu']}.",
        "", "| store | archive | ticks | outcome | wall time |", "|---|---|---|---|---|",
        *lines, "",
        "Before the scrub the damaged objects were already refused by every read (the API "
        "answers 404, not the garbage), and the emptied and halved ones were seen by the "
        "lookups of the heal and the crawl (a size other than the one recorded); the "
        "overwritten ones only a full read finds, which is the scrub's. Each figure the "
        "tests assert is in tests/integration/test_store_scrub.py."])
    print(section)
    if args.write:
        write_sections({"The store scrub": section})


if __name__ == "__main__":
    main()
