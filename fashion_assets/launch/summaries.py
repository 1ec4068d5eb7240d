"""What a run did, read back from the instance: the crawl summaries the command prints.

A run's summary comes from its event log (its materializations' metadata, its outputs, the
failure of a step), whoever executed the run: the daemon's run process, or a test's
``execute_in_process`` on the same instance. One rule for both, so what the command prints
is what the UI shows.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fashion_assets.domain.wording import agreeing, counted
from fashion_assets.sources.registry import RUNWAY_PARTITION_NAMES, Source, runway_sources


@dataclass(frozen=True)
class CrawlKind:
    """One kind of crawl: its job, its partitions, the listing asset that says how much was
    listed and the drafts asset that sums up the rest, and what name its entries can wait
    for (``""``: none wait)."""

    name: str
    job: str
    partitions: str
    listing_asset: str
    drafts_asset: str
    outcome_prefix: str
    waits_for: str = ""


def _runway_kind(name: str, source: Source) -> CrawlKind:
    """A runway source's crawl, as its declaration names its job and assets."""
    names, by = source.runway_names, source.runway_partitioning
    assert names is not None and by is not None
    return CrawlKind(name, names.crawl_job, RUNWAY_PARTITION_NAMES[by], names.listings,
                     names.drafts, "shows_", waits_for="brand" if by == "season" else "")


@functools.cache
def crawl_kinds() -> dict[str, CrawlKind]:
    """``--brand``, ``--season`` and ``--week`` (a key each, or a range of consecutive
    partitions in one run, keyed ``first..last``): the registry's runway source partitioned
    each way, and street style.

    A second source partitioned like one of them is crawled by the schedules, sensors,
    backfills and the UI; the command line would need an option to choose between them, so
    it refuses to guess, when it is asked (never at import: the code location loads)."""
    kinds: dict[str, CrawlKind] = {}
    for source in runway_sources():
        by = source.runway_partitioning
        assert by is not None
        if by in kinds:
            raise ValueError(f"two runway sources are partitioned by {by}: "
                             f"fashion-assets crawl cannot tell which --{by} means")
        kinds[by] = _runway_kind(by, source)
    kinds["week"] = CrawlKind("week", "street_style_crawl", "fashion_weeks",
                              "street_style_listings", "street_snap_drafts", "articles_",
                              waits_for="city")
    return kinds


@dataclass(frozen=True)
class RunOutcome:
    """A run's end as its event log tells it: each asset's last materialization metadata
    and each step's output metadata (plain values), and the failures' messages."""

    run_id: str
    success: bool
    materializations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    outputs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    errors: Sequence[str] = ()


@dataclass(frozen=True)
class RunEvent:
    """An event of a run's log that its outcome reads, as plain data, however it was read
    (the webserver's GraphQL for the command, the instance for a test's in-process run).

    ``kind``: ``materialization`` (``key`` the asset's name), ``output`` (``key`` the step's
    key), ``step_failure``, ``run_failure`` (``error``: the class name and message of the
    exception at the root of its causes), ``engine`` (Dagster's own line)."""

    kind: str
    key: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    error: tuple[str, str] | None = None
    message: str = ""


def outcome(run_id: str, success: bool, events: Iterable[RunEvent]) -> RunOutcome:
    """A run's outcome from its events in their order: each asset's last materialization
    metadata, each step's output metadata, and why it failed: its steps' errors, else the
    run's own failure (the code server's word on a run process that died, if it said)."""
    materializations: dict[str, dict[str, Any]] = {}
    outputs: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    run_failure: RunEvent | None = None
    crash = ""
    for event in events:
        if event.kind == "materialization":
            materializations[event.key] = dict(event.metadata)
        elif event.kind == "output":
            outputs[event.key] = dict(event.metadata)
        elif event.kind == "step_failure":
            errors.append(root_message(event.error, event.message))
        elif event.kind == "engine":
            # "[DagsterApiServer] Run execution process for ... was terminated by signal 9"
            _, found, said = event.message.partition("Run execution process for")
            crash = f"{found}{said}".strip() if found else crash
        elif event.kind == "run_failure" and run_failure is None:
            run_failure = event
    if not errors and run_failure is not None:  # failed before any step did, or its process
        errors.append(root_message(run_failure.error,
                                   crash or run_failure.message or "run failed"))
    return RunOutcome(run_id, success, materializations, outputs, errors)


def run_outcome(instance: Any, run_id: str) -> RunOutcome:
    """``run_id``'s outcome (the run has ended) read from ``instance``, where a test's
    in-process run leaves it."""
    from dagster import DagsterEventType, DagsterRunStatus

    from fashion_assets.report import plain_value

    kinds = {DagsterEventType.ASSET_MATERIALIZATION: "materialization",
             DagsterEventType.STEP_OUTPUT: "output",
             DagsterEventType.STEP_FAILURE: "step_failure",
             DagsterEventType.RUN_FAILURE: "run_failure",
             DagsterEventType.ENGINE_EVENT: "engine"}
    events = []
    for entry in instance.all_logs(run_id, of_type=set(kinds)):
        event = entry.dagster_event
        kind, key, metadata, error = kinds[event.event_type], "", {}, None
        if kind == "materialization":
            materialization = event.step_materialization_data.materialization
            key, metadata = materialization.asset_key.path[-1], materialization.metadata
        elif kind == "output":
            key, metadata = event.step_key, event.step_output_data.metadata
        elif kind == "step_failure":
            error = event.step_failure_data.error
        elif kind == "run_failure":
            error = getattr(event.event_specific_data, "error", None)
        while error is not None and error.cause is not None:
            error = error.cause
        events.append(RunEvent(kind, key, {k: plain_value(v) for k, v in metadata.items()},
                               None if error is None else (error.cls_name, error.message),
                               entry.message or ""))
    run = instance.get_run_by_id(run_id)
    return outcome(run_id, run is not None and run.status is DagsterRunStatus.SUCCESS, events)


def root_message(error: tuple[str, str] | None, fallback: str) -> str:
    """The message of the exception that failed a step (``error``: its class name and
    message, at the root of its causes, not Dagster's wrapper of it), without its class
    name (``dagster...Failure: ``): the message says what went wrong."""
    if error is None:
        return fallback
    cls_name, text = error
    named, _, message = text.strip().partition(": ")
    return message if message and named.rsplit(".", 1)[-1] == cls_name else text.strip()


def job_summary(outcome: RunOutcome, *, asset: str = "", step: str = "") -> dict[str, Any]:
    """A run of one job (designer discovery, a store heal tick): the metadata of ``asset``'s
    materialization or of ``step``'s output, and the failure if it failed."""
    summary: dict[str, Any] = {"run_id": outcome.run_id, "success": outcome.success}
    summary.update(outcome.materializations.get(asset, {}) if asset else {})
    summary.update(outcome.outputs.get(step, {}) if step else {})
    if not outcome.success:
        summary["error"] = outcome.errors[0] if outcome.errors else "run failed"
    return summary


def crawl_summary(kind: CrawlKind, key: str, outcome: RunOutcome) -> dict[str, Any]:
    """Counts of a crawl run from its listing and drafts assets' metadata, or the failure."""
    from fashion_assets.domain.ingest import Outcome

    summary: dict[str, Any] = {"kind": kind.name, kind.name: key, "partition": key,
                               "run_id": outcome.run_id, "success": outcome.success}
    listing = outcome.materializations.get(kind.listing_asset)
    if listing is not None:
        # The partitions of a range whose listing failed (the run went on with the others).
        failed = [{"partition": next(iter(row.values())), "error": row["error"]}
                  for row in listing.get("failed_table", [])]
        if failed:
            summary["failed"] = failed
            summary["success"] = False
        summary["listed"] = listing.get("listed", 0)
        summary["waiting_for_name"] = listing.get("waiting_for_name", 0)
        if kind.waits_for:
            summary["waits_for"] = kind.waits_for
    drafts = outcome.materializations.get(kind.drafts_asset)
    if drafts is not None:
        # Named one by one: other keys share the prefix ("shows_done", "shows_table"...).
        summary["shows"] = {o.value: drafts[kind.outcome_prefix + o.value] for o in Outcome}
        summary["photos_added"] = drafts.get("photos_added", 0)
        summary["images_stored"] = drafts["images_stored"]
        summary["images_missing"] = drafts["images_missing"]
        # The store heal of the partition's photos: lost ones found, fetched again, not.
        summary["photos_lost"] = drafts.get("heal_missing", 0)
        summary["photos_healed"] = drafts.get("heal_healed", 0)
    if not outcome.success:
        summary["error"] = outcome.errors[0] if outcome.errors else "run failed"
    return summary


def unlisted_partitions(summary: Mapping[str, Any], added: Iterable[str]) -> set[str]:
    """Those of ``added`` (partitions the command added for its run) whose listing the run
    did not read: all of them when its listing step never ended (the run failed there: a
    brand, season or week the source does not have, a source that did not answer), else
    those of its range whose listing failed (``summary``'s ``failed``). The command removes
    them again, whatever their kind, so a mistake leaves nothing behind but the failed run
    (a red partition in the UI would mark the whole group)."""
    added = set(added)
    if "listed" not in summary:
        return added
    return added & {failed["partition"] for failed in summary.get("failed", [])}


def summary_line(s: Mapping[str, Any], *, program: str = "fashion-assets") -> str:
    """One line per crawled partition for the terminal: outcomes and photos, or how many
    entries were listed and how many wait for a name (``program``: how the user types
    ``fashion-assets``, for the command that lists the names)."""
    if not s["success"] and "failed" not in s:
        return f"{s['partition']}: FAILED - {s.get('error', 'see the run in the Dagster UI')}"
    failed = "".join(f"; FAILED {f['partition']} - {f['error']}" for f in s.get("failed", []))
    return _done_line(s, program) + failed


def _done_line(s: Mapping[str, Any], program: str) -> str:
    """The line of a run that ended: its outcomes, photos, names waited for."""
    outcomes = ", ".join(f"{v} {k}" for k, v in s.get("shows", {}).items() if v)
    listed, waiting = s.get("listed", 0), s.get("waiting_for_name", 0)
    if not outcomes and not listed:
        return f"{s['partition']}: nothing listed"
    text = outcomes or f"{listed} listed"
    if waiting:
        count = "" if waiting == listed and not outcomes else f"{waiting} "
        text += (f", {count}waiting for a {s.get('waits_for', 'brand or city')} name"
                 f" ({program} names list)")
    if not outcomes:
        return f"{s['partition']}: {text}"
    lost = s.get("photos_lost", 0)
    return (f"{s['partition']}: {text}; {photo_counts(s)}"
            + (f"; {s.get('photos_healed', 0)} of {counted(lost, 'photo')} lost from the store "
               "fetched again" if lost else ""))


def photo_counts(s: Mapping[str, Any]) -> str:
    """A summary's (or a sum of summaries') photos in words, each count named for what it
    counts (``report.py: ingest_counts``): added to drafts, fetched into the store, missing."""
    return (f"{counted(s.get('photos_added', 0), 'photo')} added to drafts, "
            f"{s.get('images_stored', 0)} fetched, {s.get('images_missing', 0)} missing")


def crawl_totals(summaries: Sequence[Mapping[str, Any]]) -> str:
    """The whole crawl in one line: runs, failures, drafts created, photos, waiting."""
    failed = sum(not s["success"] for s in summaries)
    partitions = sum(len(s.get("failed", [])) for s in summaries)
    created = sum(s.get("shows", {}).get("created", 0) for s in summaries)
    photos = {key: sum(s.get(key, 0) for s in summaries)
              for key in ("photos_added", "images_stored", "images_missing")}
    waiting = sum(s.get("waiting_for_name", 0) for s in summaries)
    return (f"{counted(len(summaries), 'crawl')}, {failed} failed"
            + (f" ({partitions} of their partitions)" if partitions else "")
            + f": {counted(created, 'draft')} created, {photo_counts(photos)}; "
            f"{counted(waiting, 'article')} {agreeing(waiting, 'waits', 'wait')} for a name")


def stopping_line(terminated: int, grace_s: float) -> str:
    """What a stopped command says while it waits for its terminated runs: a run waiting for
    its step's retry can take the whole grace to end, which left the command silent."""
    return (f"stopping: {counted(terminated, 'run')} of this command terminated; waiting up to "
            f"{grace_s:.0f} s for them to end, then they are marked canceled as they stand")
