"""``fashion-assets crawl``: the crawl of brands, seasons and fashion weeks, run by run."""

from __future__ import annotations

import sys

import click

from fashion_assets.cli.common import brand_slug, echo_json, program, slugs


@click.command()
@click.option("--brand", "brands", multiple=True, callback=lambda c, p, v:
              [brand_slug(b) for b in v], help="Vogue brand slug to crawl; repeat for several.")
@click.option("--season", "seasons", multiple=True, callback=slugs("season code"),
              help="theImpression runway season to crawl (a season code such as "
                   "spring-2020-ready-to-wear); repeat for several.")
@click.option("--week", "weeks", multiple=True, callback=slugs("fashion week slug"),
              help="theImpression street-style week to crawl (its listing slug, such as "
                   "copenhagen-fashion-week); repeat for several.")
@click.option("--all", "crawl_all", is_flag=True,
              help="Every brand of the catalog, in batches of FASHION_CRAWL_BATCH_BRANDS "
                   "brands per run.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
@click.option("--verbose", is_flag=True,
              help="Print Dagster's event stream (every step's events, stack traces) instead "
                   "of the progress per show.")
def crawl(brands: list[str], seasons: list[str], weeks: list[str], crawl_all: bool,
          as_json: bool, verbose: bool) -> None:
    """Crawl brands (Vogue), seasons (theImpression runway) and fashion weeks (street style).

    One Dagster run per partition, submitted to the run queue of the Dagster deployment at
    FASHION_DAGSTER_URL (else of a `dagster dev` the command starts for them), launched by
    its daemon under dagster.yaml's limits; progress per show or article on stderr and a
    line per partition as its run ends. --all crawls every brand of the catalog in runs of
    FASHION_CRAWL_BATCH_BRANDS brands (partition ranges). SIGTERM or SIGINT (Ctrl-C) stops
    the crawl: its runs are terminated, and it exits with 128 + the signal (143, 130).
    """
    from fashion_assets.launch.crawl import command_session
    from fashion_assets.launch.crawl import crawl as crawl_runs
    from fashion_assets.launch.follow import RunLog
    from fashion_assets.launch.summaries import summary_line

    targets = ([("brand", b) for b in brands] + [("season", s) for s in seasons]
               + [("week", w) for w in weeks])
    if not targets and not crawl_all:
        raise click.UsageError("name something to crawl: --brand, --season, --week or --all")
    typed = program()
    with command_session(note=lambda line: click.echo(line, err=True)) as session:
        summaries = crawl_runs(
            session, targets, all_brands=crawl_all,
            run_log=RunLog.EVENTS if verbose else RunLog.PROGRESS,
            on_summary=lambda s: None if as_json else click.echo(
                summary_line(s, program=typed)),
            on_line=lambda line: click.echo(line, err=True))
    if not summaries:  # --all, and the catalog has no brand
        click.echo(f"nothing to crawl: the catalog has no brand yet; register them with"
                   f" `{typed} brands discover` or `{typed} brands add SLUG`", err=True)
    if as_json:
        echo_json({"crawls": summaries})
    if not all(s["success"] for s in summaries):
        sys.exit(1)
