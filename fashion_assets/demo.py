"""``fashion-assets demo``: the whole pipeline over the replica, on a bare machine.

The demo is what a new user reads first, so it prints what they need: one line per brand,
season and fashion week as its run ends, a total, and the commands to go on with, written
as they must be typed (``.venv/bin/fashion-assets`` when the environment is not activated).
Dagster's event stream (every step's start, output and log capture) stays in the runs'
logs, for the Dagster UI; ``--verbose`` prints it as well.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fashion_assets import settings
from fashion_assets.commands import typed_command
from fashion_assets.sources.registry import SOURCES, Source


def run_demo(brand_count: int, shows: int, photos: int, *, echo: Callable[[str], None],
             verbose: bool = False) -> int:
    """Crawl the replica's brands with the embedded defaults; return the exit status."""
    from fashion_assets.launch.crawl import command_session, crawl
    from fashion_assets.launch.follow import RunLog
    from fashion_assets.launch.summaries import crawl_totals, summary_line
    from fashion_assets.replica import (
        HOSTILE_BRAND,
        ROBOTS_BLOCKED_BRAND,
        build_site,
        start_replica,
    )

    program = typed_command("fashion-assets")
    run_log = RunLog.EVENTS if verbose else RunLog.QUIET
    site = build_site(brands=brand_count, shows_per_brand=shows, photos_per_show=photos)
    server = start_replica(site)
    try:
        # Its own `dagster dev`, with the replica's settings: a deployment of
        # FASHION_DAGSTER_URL would crawl the sites its own settings name.
        env = {**os.environ, **replica_env(server), "FASHION_DAGSTER_URL": ""}
        echo(f"replica of Vogue at {server.base_url} (photos at {server.cdn_url}), of "
             f"theImpression at {server.impression_url} (photos at {server.impression_cdn_url})")
        brands = [b.slug for b in site.brands if b.slug != ROBOTS_BLOCKED_BRAND]
        seasons = [s.code for s in site.impression.seasons]
        weeks = [w.slug for w in site.impression.weeks]
        echo(f"crawling {len(brands)} Vogue brands, {len(seasons)} theImpression runway seasons"
             f" and {len(weeks)} street-style weeks into {settings.home_dir(env)}, a line each"
             " as it ends" + ("" if verbose else " (--verbose: Dagster's event stream too)"))

        def progress(summary: Mapping[str, Any]) -> None:
            echo(summary_line(summary, program=program))

        with command_session(env, note=echo) as session:
            # Brands first: theImpression's galleries resolve their designers to these brands.
            summaries = crawl(session, [("brand", b) for b in brands], run_log=run_log,
                              on_summary=progress, on_line=echo)
            summaries += crawl(session, [("season", s) for s in seasons]
                               + [("week", w) for w in weeks], run_log=run_log,
                               on_summary=progress, on_line=echo)
    finally:
        server.stop()
    echo(f"\nDone: {crawl_totals(summaries)}.")
    if HOSTILE_BRAND in brands:
        echo(hostile_note(HOSTILE_BRAND, program=program))
    echo(next_steps(brands[0], program=program, dagster=typed_command("dagster")))
    return 0 if all(s["success"] for s in summaries) else 1


def replica_env(server: Any, sources: Sequence[Source] = SOURCES) -> dict[str, str]:
    """The settings that point every source at a running replica, as each source declares
    its origins (theImpression's photos come from its CDN and from the site's own uploads).

    The demo sets them for its own crawl; ``replica serve`` prints them for the user's shell.
    Both take them from here, so the command line depends on the demo and never the reverse.
    """
    return {name: value for source in sources
            for name, value in source.replica_env(server.origin_url).items()}


def hostile_note(brand: str, *, program: str) -> str:
    """Why the hostile brand's failures are no breakage: read without it, "15 failed" in its
    line says the demo is broken."""
    return (f"{brand} is the replica's deliberately hostile brand (broken pages, junk and "
            "oversized photos, every case of docs/reliability.md): its failed shows and "
            "missing photos are expected, each recorded with its reason "
            f"({program} coverage list).")


def next_steps(brand: str, *, program: str, dagster: str) -> str:
    """The commands to go on with, each as typed, with what it shows; the last ones open the
    Dagster UI on the demo's instance, and say what runs there by itself and what not."""
    rows: Sequence[tuple[str, str]] = (
        (f"{program} status", "what the catalog and the store hold"),
        (f"{program} review serve", "review the drafts in the browser, on http://127.0.0.1:8810/"),
        (f"{program} review approve 1 2", "or approve drafts here (review list numbers them),"
                                          " then:"),
        (f"{program} review promote", "promote the approved drafts into the catalog"),
        (f"{program} looks find photo.jpg", "which show and look of the catalog a photo is"),
        (f"{program} names list", "the brand and city names waiting for an editor"),
        (f"{program} coverage list", "the shows with photos missing, and why"),
        (f"{program} replica serve", "the replica again, in another terminal; export what it"
                                     " prints, then:"),
        (f"{program} crawl --brand {brand}", "again: nothing is downloaded twice"),
        (f"{program} ui", "the same runs, assets and metadata in the Dagster UI, on "
                          "http://127.0.0.1:3000/"),
        (f"{program} home > .env", f"or: then plain `{dagster} dev` here opens the same"),
    )
    width = max(len(command) for command, _ in rows)
    lines = ["What now:"]
    lines += [f"  {command:<{width}}  {what}" for command, what in rows]
    lines.append(
        "While Dagster's daemon runs (the UI's, or a command's own), its sensors work by "
        "themselves: approved drafts are promoted, incomplete shows re-fetched, hung runs "
        "ended. The schedules (weekly crawls of the real sites, store checks, cleanup) are "
        "off: turn them on in the UI (Automation).")
    return "\n".join(lines)
