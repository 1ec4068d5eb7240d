"""Dagster at the archive's 1,900 brand partitions: the partitions page and a backfill of
every brand (issue 19).

    python -m bench.brand_partitions [--fraction 1.0] [--write]

The production topology of docs/operations.md (``bench/topology.py``: a gRPC code server,
``dagster-webserver`` and ``dagster-daemon`` on ``deploy/``'s files, Dagster's storage on
PostgreSQL), with the designers of the archive-shaped replica registered as a team starts,
``fashion-assets brands discover`` (every brand a partition of ``brands``). Measured through
the webserver's GraphQL endpoint, as the UI asks it:

1. the partitions page of each brand-partitioned asset (the UI's ``PartitionHealthQuery``,
   the query that draws the partition bar and lists each partition's state), median of 5:
   with no partition materialized, and with every one materialized (reported through the
   UI's "report materialization" mutation, one call per asset, as a first crawl leaves
   them);
2. a backfill of every brand of the three assets (``launchPartitionBackfill``, all
   partitions, as the UI's backfill dialog sends it): the mutation's answer, and the time
   until the backfill daemon has launched its last run into the queue, one run per
   ``FASHION_CRAWL_BATCH_BRANDS`` brands (the assets' backfill policy); then the partitions
   page again with every partition requested.

The run queue is held (``max_concurrent_runs: 0``, the only change to ``deploy/dagster.yaml``)
so the backfill's runs wait in it instead of crawling: what they would do is the first
crawl, measured by ``bench/archive.py``. The backfill is cancelled at the end.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import (
    BIN,
    MEDIAN_OF,
    fresh_database,
    machine,
    machine_sentence,
    median_ms,
    replica,
)
from bench.reliability import publish
from bench.run import POLITE
from bench.topology import (
    BACKFILL_RUNS,
    DEPLOY,
    LAUNCH_BACKFILL,
    Topology,
    dagster_pg_env,
    wait_for,
)
from fashion_assets.launch.graphql import GraphQL, GraphQLError

DOC = Path(__file__).resolve().parents[1] / "docs" / "archive-benchmarks.md"
HEADING = "Dagster at the archive's brand partitions"
ASSETS = ("runway_show_listings", "runway_image_manifests", "runway_drafts")
LAUNCH_DEADLINE_S = 900.0
HELD_QUEUE = ("max_concurrent_runs: 8", "max_concurrent_runs: 0")

# The partitions page's query, as dagster-webserver 1.13's UI sends it (its bundle's
# ``PartitionHealthQuery``), without the time- and multi-partition branches that a dynamic
# partitions definition never answers.
PARTITION_HEALTH = """
query PartitionHealthQuery($assetKey: AssetKeyInput!) {
  assetNodeOrError(assetKey: $assetKey) {
    ... on AssetNode {
      id
      partitionKeysByDimension { name type partitionKeys }
      assetPartitionStatuses {
        ... on DefaultPartitionStatuses {
          materializedPartitions
          materializingPartitions
          failedPartitions
        }
      }
    }
  }
}"""

REPORT_MATERIALIZATIONS = """
mutation ReportEvents($params: ReportRunlessAssetEventsParams!) {
  reportRunlessAssetEvents(eventParams: $params) {
    __typename
    ... on PythonError { message }
    ... on UnauthorizedError { message }
  }
}"""

CANCEL_BACKFILL = """
mutation CancelBackfill($id: String!) {
  cancelPartitionBackfill(backfillId: $id) { __typename }
}"""


def partition_health(graphql: GraphQL, asset: str) -> dict[str, Any]:
    node = graphql(PARTITION_HEALTH, assetKey={"path": [asset]})["assetNodeOrError"]
    return {"partitions": len(node["partitionKeysByDimension"][0]["partitionKeys"]),
            **{k: len(v) for k, v in node["assetPartitionStatuses"].items()}}


def page_figures(graphql: GraphQL, brands: int, state: str) -> dict[str, dict[str, Any]]:
    """Each asset's partitions page: its median time, once its answer is checked to show
    every brand partition and, unless ``state`` is empty, every one in ``state``."""
    figures = {}
    for asset in ASSETS:
        counts = partition_health(graphql, asset)
        if counts["partitions"] != brands or (state and counts[state] != brands):
            raise RuntimeError(f"{asset}'s partitions page shows {counts}, not {brands} "
                               f"partitions {state or ''}")
        figures[asset] = {**counts,
                          "ms": median_ms(lambda a=asset: partition_health(graphql, a))}
    return figures


def report_materialized(graphql: GraphQL, asset: str, partitions: list[str]) -> None:
    answer = graphql(REPORT_MATERIALIZATIONS, params={
        "eventType": "ASSET_MATERIALIZATION", "assetKey": {"path": [asset]},
        "partitionKeys": partitions, "description": "bench.brand_partitions"}
    )["reportRunlessAssetEvents"]
    if answer["__typename"] != "ReportRunlessAssetEventsSuccess":
        raise GraphQLError(str(answer))


def launch_backfill(graphql: GraphQL, expected_runs: int) -> dict[str, Any]:
    """Backfill every brand of the three assets; time the answer, and the launch of every
    run into the queue."""
    started = time.perf_counter()
    answer = graphql(LAUNCH_BACKFILL, params={
        "assetSelection": [{"path": [asset]} for asset in ASSETS], "allPartitions": True,
        "title": "every brand (bench.brand_partitions)"})["launchPartitionBackfill"]
    answered = time.perf_counter() - started
    if answer["__typename"] != "LaunchBackfillSuccess":
        raise GraphQLError(str(answer))
    backfill = answer["backfillId"]
    state: dict[str, Any] = {}

    def launched() -> bool:
        """Every run is in the queue (a run is created before it is submitted to it)."""
        state.update(graphql(BACKFILL_RUNS, id=backfill))
        runs = state["runsOrError"]["results"]
        return len(runs) >= expected_runs and all(r["status"] == "QUEUED" for r in runs)

    wait_for(launched, f"the backfill's {expected_runs} runs", LAUNCH_DEADLINE_S)
    launched_s = time.perf_counter() - started
    runs = state["runsOrError"]["results"]
    return {"id": backfill, "answer_ms": answered * 1000, "launched_s": launched_s,
            "runs": state["runsOrError"]["count"],
            "every_asset_per_run": all({key["path"][-1] for key in run["assetSelection"]}
                                       == set(ASSETS) for run in runs),
            "partitions": state["partitionBackfillOrError"]["numPartitions"],
            "status": state["partitionBackfillOrError"]["status"]}


def held_queue_instance() -> str:
    """``deploy/dagster.yaml`` with the run queue held: runs wait in it, none starts."""
    text = (DEPLOY / "dagster.yaml").read_text()
    if HELD_QUEUE[0] not in text:
        raise RuntimeError(f"deploy/dagster.yaml no longer says {HELD_QUEUE[0]!r}")
    return text.replace(*HELD_QUEUE)


def run(fraction: float) -> dict[str, Any]:
    from fashion_assets.settings import crawl_batch_brands

    with tempfile.TemporaryDirectory(prefix="fa-partitions-") as folder, \
            replica(0, 0, 40, archive_fraction=fraction) as server, \
            fresh_database() as catalog, fresh_database() as dagster_db:
        env = {"FASHION_DATABASE_URL": catalog, "FASHION_STORE_URL": "",
               "FASHION_HOME": str(Path(folder) / "fashion"), **POLITE.fashion_assets_env(),
               **server.env(), **dagster_pg_env(dagster_db),
               # deploy/celery.yaml names the broker; no run starts, so none is reached.
               "CELERY_BROKER_URL": "pyamqp://guest:guest@127.0.0.1:5672//"}
        with Topology(Path(folder), env, workers=(),
                      instance_yaml=held_queue_instance()) as topology:
            started = time.perf_counter()
            subprocess.run([str(BIN / "fashion-assets"), "brands", "discover"], check=True,
                           env=topology.process_env, capture_output=True, timeout=600)
            discovery_s = time.perf_counter() - started
            with topology.instance() as instance:
                brands = instance.get_dynamic_partitions("brands")
            graphql = GraphQL(topology.web_url)
            empty = page_figures(graphql, len(brands), "")
            started = time.perf_counter()
            for asset in ASSETS:
                report_materialized(graphql, asset, brands)
            reported_s = time.perf_counter() - started
            materialized = page_figures(graphql, len(brands), "materializedPartitions")
            expected = math.ceil(len(brands) / crawl_batch_brands(env))
            backfill = launch_backfill(graphql, expected)
            requested = page_figures(graphql, len(brands), "materializingPartitions")
            graphql(CANCEL_BACKFILL, id=backfill["id"])
    return {"fraction": fraction, "brands": len(brands), "discovery_s": discovery_s,
            "empty": empty, "reported_s": reported_s, "materialized": materialized,
            "backfill": backfill, "expected_runs": expected, "requested": requested,
            "batch": crawl_batch_brands(env), "machine": machine()}


def report(r: dict[str, Any]) -> str:
    b = r["backfill"]

    def pages(state: str) -> str:
        return "; ".join(f"{figures['ms']:.0f} ms" for figures in r[state].values())

    lines = [
        f"Measured by `python -m bench.brand_partitions --fraction {r['fraction']:g}`: the "
        f"production topology of docs/operations.md on PostgreSQL, {r['brands']:,} brand "
        "partitions from `fashion-assets brands discover` on the archive-shaped replica, "
        "asked through the webserver's GraphQL endpoint as the UI asks it, each page the "
        f"median of {MEDIAN_OF}. The run queue is held, so the backfill's runs wait in it "
        "(what they would do is the first crawl above). "
        + machine_sentence(r["machine"]),
        "",
        "| | figure |",
        "|---|---|",
        f"| brand partitions (`brands discover`, its whole command) | {r['brands']:,} "
        f"({r['discovery_s']:.0f} s) |",
        f"| partitions page (`PartitionHealthQuery`) of {', '.join(f'`{a}`' for a in ASSETS)}"
        f": none materialized | {pages('empty')} |",
        f"| every partition reported materialized (3 mutations) | {r['reported_s']:.1f} s |",
        f"| partitions page: every partition materialized | {pages('materialized')} |",
        f"| backfill of every brand of the three assets: the mutation's answer | "
        f"{b['answer_ms']:.0f} ms |",
        f"| backfill: its {b['runs']:,} runs launched ({r['batch']} brands and "
        f"{'the three assets' if b['every_asset_per_run'] else 'NOT all three assets'} a run, "
        f"{b['partitions']:,} partitions), all queued after | "
        f"{b['launched_s']:.0f} s |",
        f"| partitions page: every partition requested by the backfill | "
        f"{pages('requested')} |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fraction", type=float, default=1.0,
                        help="the part of the archive's designers registered (1.0: 1,893)")
    parser.add_argument("--write", action="store_true", help=f"put the figures in {DOC}")
    args = parser.parse_args()
    text = report(run(args.fraction))
    publish(text, HEADING, DOC, args.write)


if __name__ == "__main__":
    main()
