"""``fashion-assets demo``: the whole pipeline over the replica, on a bare machine."""

from __future__ import annotations

import os
from collections.abc import Callable

from fashion_assets import settings


def run_demo(brand_count: int, shows: int, photos: int, *, echo: Callable[[str], None]) -> int:
    """Crawl the replica's brands with the embedded defaults; return the exit status."""
    from fashion_assets.cli import replica_env
    from fashion_assets.replica import ROBOTS_BLOCKED_BRAND, build_site, start_replica
    from fashion_assets.runs import crawl_in_workers, summary_line

    site = build_site(brands=brand_count, shows_per_brand=shows, photos_per_show=photos)
    server = start_replica(site)
    try:
        env = {**os.environ, **replica_env(server)}
        echo(f"replica of Vogue at {server.base_url} (photos at {server.cdn_url}), of "
             f"theImpression at {server.impression_url} (photos at {server.impression_cdn_url})")
        brands = [b.slug for b in site.brands if b.slug != ROBOTS_BLOCKED_BRAND]
        seasons = [s.code for s in site.impression.seasons]
        weeks = [w.slug for w in site.impression.weeks]
        echo(f"crawling {len(brands)} Vogue brands, {len(seasons)} theImpression runway seasons"
             f" and {len(weeks)} street-style weeks into {settings.home_dir(env)} ...")
        workers = os.cpu_count() or 1
        # Brands first: theImpression's galleries resolve their designers to these brands.
        summaries = crawl_in_workers([("brand", b) for b in brands], workers, env=env)
        summaries += crawl_in_workers([("season", s) for s in seasons]
                                      + [("week", w) for w in weeks], workers, env=env)
    finally:
        server.stop()
    for summary in summaries:
        echo(summary_line(summary))
    echo(f"""
Done. What now:
  fashion-assets status                 what the catalog and the store hold
  fashion-assets names list             the brand and city names waiting for an editor
  fashion-assets crawl --brand {brands[0]:<9} again: nothing is downloaded twice (needs the replica:
                                        fashion-assets replica serve, and its exports)
  DAGSTER_HOME={os.environ['DAGSTER_HOME']} dagster dev -m fashion_assets.definitions
                                        the same runs, assets and metadata in the Dagster UI
                                        (or `dagster dev` in the repository root)""")
    return 0 if all(s["success"] for s in summaries) else 1
