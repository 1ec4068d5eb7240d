"""The archive benchmark's report: its measurements as the rows of docs/archive-benchmarks.md.

``bench/archive.py`` measures (and ``--save`` keeps the measurements); the figures are
written from those measurements alone, so ``--report`` can write them again without
crawling. The bounds are the issue's (issue 19): a no-change re-crawl under 1% of the first
crawl's requests, and memory within 10% from the first minute to the last.
"""

from __future__ import annotations

from typing import Any

from bench.common import (
    MEDIAN_OF,
    busy_by_minute,
    every_few,
    last_as_busy,
    machine_sentence,
)
from bench.run import POLITE
from fashion_assets.settings import setting

RECRAWL_SHARE = 0.01  # the bound: a no-change re-crawl under 1% of the requests
MEMORY_DRIFT = 0.10  # the bound: memory within 10% from the first minute to the last


def recrawl_rows(r: dict[str, Any]) -> list[str]:
    """The no-change re-crawl at each batch size measured: its runs, requests and wall time,
    and of its runs' time, what Dagster took beyond the steps (per run). The page delay's
    floor beside them: every page waits for the site's one budget."""
    default = int(setting({}, "FASHION_CRAWL_BATCH_BRANDS"))
    measured = [(default, r["again"], r.get("again_runs")), *r.get("batched", [])]
    rows = []
    for size, step, *timed in measured:  # runs unread (None, or absent) by older saves
        times = timed[0] if timed else None
        label = (f"{size} brand{'s' * (size != 1)} a run"
                 + " (the default)" * (size == default))
        figures = f"{len(step.output['crawls']):,}, {step.requests:,}, " \
                  f"{step.measured.wall_s:,.0f} s"
        if times is not None and times.runs:
            figures += (f"; {times.dagster_s:,.1f} s of {times.run_s:,.1f} s "
                        f"({times.dagster_s / times.runs:.2f} s a run)")
        rows.append(f"| no-change re-crawl, {label}: runs, requests, wall time; the runs' "
                    f"time outside their steps (Dagster's) | {figures} |")
    floor = r["again"].pages * POLITE.page_delay_s
    rows.append(f"| no-change re-crawl: the page delay's floor ({r['again'].pages:,} pages at "
                f"{POLITE.page_delay_s:g} s) | {floor:,.0f} s |")
    return rows


def _per_thousand(cpu_s: float, photos: int) -> float:
    return cpu_s / photos * 1000 if photos else float("nan")


def report(r: dict[str, Any]) -> str:
    first, again, peer = r["first"], r["again"], r["peer"]
    photos = r["photos"]
    minutes = first.measured.peak_mb_by_minute
    # The measure: the last minute's peak against the first's. The highest minute is
    # shown beside it: the workers' first batch warms their caches (about 25 MB each, once).
    drift = (minutes[-1] - minutes[0]) / minutes[0] if minutes else float("nan")
    highest = (max(minutes) - minutes[0]) / minutes[0] if minutes else float("nan")
    apart, shown = every_few(minutes)
    share = again.requests / first.requests
    recorded = sum(r["outcomes"].values())
    found = r["discovery"].output or {}
    c = r["catalog"]
    lines = [
        f"Measured by `python -m bench.archive --fraction {r['fraction']:g} --photos "
        f"{r['photos_per_show']}`: the archive-shaped replica's {r['designers']:,} designers "
        "(the real listings' designers in that fraction, every show of each), discovered from "
        "the directory, crawled by `fashion-assets crawl --all` on a fresh PostgreSQL catalog "
        "and the file store with the politeness defaults. "
        + machine_sentence(r["machine"]),
        "",
        "| | figure |",
        "|---|---|",
        f"| designers discovery registered (of those listed; held for an editor) | "
        f"{found.get('new_designers', 0):,} of {found.get('listed', 0):,}; "
        f"{found.get('held_for_editor', 0):,}, in {r['discovery'].measured.wall_s:.0f} s |",
        f"| first crawl: wall time | {first.measured.wall_s:,.0f} s |",
        f"| first crawl: photos stored, photos/s | {photos:,}, "
        f"{photos / first.measured.wall_s:.0f} |",
        f"| first crawl: shows drafted / with a recorded outcome | {r['drafts']:,} / "
        f"{recorded:,} ({', '.join(f'{k} {v:,}' for k, v in sorted(r['outcomes'].items()))}) |",
        f"| first crawl: requests (pages, photos) | {first.requests:,} ({first.pages:,}, "
        f"{first.photo_requests:,}) |",
        f"| first crawl: CPU s per 1,000 photos | "
        f"{_per_thousand(first.measured.cpu_s, photos):.2f} |",
        f"| Scrapy, {r['sample']} designers (a 5% sample), same politeness: CPU s per 1,000 "
        f"photos | {_per_thousand(peer.measured.cpu_s, peer.photos):.2f} ({peer.photos:,} "
        f"photos in {peer.measured.wall_s:.0f} s) |",
        f"| first crawl: peak memory "
        f"{'by minute' if apart == 1 else f'every {apart} minutes and the last minute'}, "
        f"MB | {', '.join(f'{m:.0f}' for m in shown)} |",
        f"| first crawl: memory, last minute's peak against the first's (the highest's) | "
        f"{drift:+.1%} ({highest:+.1%})"
        # With the runs' spans known, the verdict is on minutes as busy as the first.
        + ("" if "first_spans" in r else
           f": {'within' if abs(drift) <= MEMORY_DRIFT else 'NOT within'} {MEMORY_DRIFT:.0%}")
        + " |",
        *busy_rows(r, minutes),
        f"| catalog (PostgreSQL database), store | {r['sizes']['catalog_mb']:,.0f} MB, "
        f"{r['sizes']['store_mb']:,.0f} MB in {r['sizes']['objects']:,} objects |",
        f"| no-change re-crawl: requests, share of the first crawl's | {again.requests:,}, "
        f"{share:.2%} ({'under' if share < RECRAWL_SHARE else 'NOT under'} "
        f"{RECRAWL_SHARE:.0%}) |",
        *recrawl_rows(r),
        f"| `coverage_sensor` tick, {c['drafts']:,} drafts pending (median of {MEDIAN_OF}) | "
        f"{c['coverage_tick_ms']:.0f} ms |",
        f"| review queue, first page; `/crawler` page (HTTP, median of {MEDIAN_OF}) | "
        f"{c['queue_ms']:.0f} ms; {c['crawler_ms']:.0f} ms |",
        f"| `fashion-assets status`: its report; the whole command | {c['status_ms']:.0f} ms; "
        f"{r['status_command_s']:.1f} s |",
        f"| `approved_drafts_sensor` tick, every draft approved | "
        f"{c['promotion_tick_ms']:.0f} ms |",
        *hashing_rows(c),
        f"| promotion of every draft | {c['promotion_s']:.1f} s, {c['entries']:,} entries |",
        f"| `coverage_sensor` tick, every show promoted | "
        f"{c['coverage_tick_promoted_ms']:.0f} ms |",
    ]
    return "\n".join(lines)


def busy_rows(r: dict[str, Any], minutes: tuple[float, ...]) -> list[str]:
    """How busy the crawl's workers were in the minutes shown, and the memory of the last
    minute as busy as the first against the first's (runs before 2026-12-05 did not record
    their runs' spans)."""
    if "first_spans" not in r or not minutes:
        return []
    busy = busy_by_minute(r["first_spans"], r["first_started_at"], len(minutes))
    _, shown = every_few(tuple(float(n) for n in busy))
    rows = [f"| first crawl: runs in progress at once, the same minutes | "
            f"{', '.join(f'{n:.0f}' for n in shown)} |"]
    last = last_as_busy(busy)
    if last is not None and last > 0:
        as_busy = [m for m, n in zip(minutes, busy, strict=True) if n == busy[0]]
        drift = (minutes[last] - minutes[0]) / minutes[0]
        low, high = ((min(as_busy) - minutes[0]) / minutes[0],
                     (max(as_busy) - minutes[0]) / minutes[0])
        within = abs(drift) <= MEMORY_DRIFT and max(abs(low), abs(high)) <= MEMORY_DRIFT
        rows.append(
            f"| first crawl: memory, the last minute with {busy[0]} runs in progress "
            f"(minute {last + 1} of {len(minutes)}) against the first's (every such minute's) "
            f"| {drift:+.1%} ({low:+.1%} to {high:+.1%}): "
            f"{'within' if within else 'NOT within'} {MEMORY_DRIFT:.0%} |")
    return rows


def hashing_rows(c: dict[str, Any]) -> list[str]:
    """The ``photo_hashes`` step's row (runs before 2026-12-05 did not measure it)."""
    if "hashing_s" not in c:
        return []
    per_1000 = c["hashing_s"] / max(c["photos_hashed"], 1) * 1000
    return [f"| hashing the photos promotion compares (the job's `photo_hashes` step) | "
            f"{c['hashing_s']:.1f} s, {c['photos_hashed']:,} photos "
            f"({per_1000:.2f} s per 1,000) |"]
