"""What the command asks the deployment's webserver, as the UI asks it: the partitions and
the run queue its crawl is planned on, its runs' status and their logs.

The command submits its runs through the webserver's GraphQL (``launch/graphql.py``) and
reads everything else there too: the dynamic partitions a crawl adds (and removes again),
the run queue's slots, then its runs' status, their log lines as they come and what they
materialized, which ``summaries.outcome`` turns into the crawl's summary. So the command
needs neither Dagster in its own process (importing it and opening the instance were 1.8
of the 3.1 seconds from a crawl command's start to its first run's creation, and about
120 MB) nor the deployment's ``DAGSTER_HOME``: a command that names a deployment
(``FASHION_DAGSTER_URL``) follows its runs wherever the webserver answers.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fashion_assets.launch.graphql import GraphQL, GraphQLError, JobSelector
from fashion_assets.launch.summaries import RunEvent

ENDED = frozenset({"SUCCESS", "FAILURE", "CANCELED"})
LIVE = ("QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING")
PAGE = 1000
"""Events per page of a run's log."""

RUNS_FIELD = """
  runsOrError(filter: $filter) {
    __typename
    ... on Runs { results { runId status jobName } }
    ... on PythonError { message }
  }"""
RUNS = f"query Runs($filter: RunsFilter!) {{{RUNS_FIELD}\n}}"

_ERROR = "error { className message causes { className message } }"
_LOG_PAGE = """
fragment Page on EventConnectionOrError {
  __typename
  ... on EventConnection {
    cursor hasMore
    events {
      __typename
      ... on MessageEvent { message timestamp level stepKey eventType }
      ... on MaterializationEvent { assetKey { path } metadataEntries { ...Entry } }
      ... on ExecutionStepOutputEvent { metadataEntries { ...Entry } }
      ... on ExecutionStepFailureEvent { ERROR }
      ... on ExecutionStepUpForRetryEvent { secondsToWait ERROR }
      ... on RunFailureEvent { ERROR }
    }
  }
  ... on RunNotFoundError { message }
  ... on PythonError { message }
}
fragment Entry on MetadataEntry {
  __typename label
  ... on IntMetadataEntry { intRepr }
  ... on FloatMetadataEntry { floatValue }
  ... on TextMetadataEntry { text }
  ... on BoolMetadataEntry { boolValue }
  ... on JsonMetadataEntry { jsonString }
  ... on MarkdownMetadataEntry { mdStr }
  ... on PathMetadataEntry { path }
  ... on UrlMetadataEntry { url }
  ... on TimestampMetadataEntry { timestamp }
  ... on TableMetadataEntry { table { records } }
}""".replace("ERROR", _ERROR)
LOGS = """
query Logs($runId: ID!, $cursor: String, $limit: Int) {
  logsForRun(runId: $runId, afterCursor: $cursor, limit: $limit) { ...Page }
}""" + _LOG_PAGE


QUEUE = "query { instance { runQueueConfig { maxConcurrentRuns } } }"
PARTITION_KEYS = """
query Keys($path: [String!]!) {
  assetNodeOrError(assetKey: {path: $path}) {
    __typename
    ... on AssetNode { partitionKeys }
    ... on AssetNotFoundError { message }
  }
}"""
_ADD_ONE = """
  k{n}: addDynamicPartition(repositorySelector: $repo, partitionsDefName: $name,
                           partitionKey: $k{n}) {{
    __typename
    ... on PythonError {{ message }}
    ... on UnauthorizedError {{ message }}
  }}"""


def add_partitions_mutation(count: int) -> str:
    """One mutation adding ``count`` keys (variables ``k0``...), each under its own alias:
    one request for a crawl's new brands instead of one each (the webserver runs a
    mutation's fields in order, so the answers come in the keys' order)."""
    keys = "".join(f", $k{n}: String!" for n in range(count))
    fields = "".join(_ADD_ONE.format(n=n) for n in range(count))
    return f"mutation Add($repo: RepositorySelector!, $name: String!{keys}) {{{fields}\n}}"


DELETE_PARTITIONS = """
mutation Delete($repo: RepositorySelector!, $name: String!, $keys: [String!]!) {
  deleteDynamicPartitions(repositorySelector: $repo, partitionsDefName: $name,
                          partitionKeys: $keys) {
    __typename
    ... on PythonError { message }
    ... on UnauthorizedError { message }
    ... on UnsupportedOperationError { message }
  }
}"""


def queue_limit(graphql: GraphQL) -> int | None:
    """The run queue's ``max_concurrent_runs`` (None: the deployment has no run queue)."""
    config = graphql(QUEUE)["instance"]["runQueueConfig"]
    return None if config is None else config["maxConcurrentRuns"]


def partition_keys(graphql: GraphQL, asset: str) -> list[str]:
    """The keys of ``asset``'s partitions, in the order the deployment keeps them (a range of
    partitions is every key of that order from its first to its last)."""
    answer = graphql(PARTITION_KEYS, path=[asset])["assetNodeOrError"]
    if answer["__typename"] != "AssetNode":
        raise GraphQLError(f"the deployment does not serve the asset {asset}: "
                           f"{answer.get('message')}")
    return answer["partitionKeys"]


def add_partitions(graphql: GraphQL, where: JobSelector, asset: str, name: str,
                   keys: Sequence[str]) -> list[str]:
    """Add to the dynamic partitions ``name`` (``asset``'s) the keys not there yet; the ones
    this call added. Two crawls of a new brand started at once both try: the one that
    loses the race is told the key exists, goes on, and leaves it to the winner (which
    alone may remove it again)."""
    wanted = sorted(set(keys) - set(partition_keys(graphql, asset)))
    if not wanted:
        return []
    answers = graphql(add_partitions_mutation(len(wanted)), repo=_repository(where),
                      name=name, **{f"k{n}": key for n, key in enumerate(wanted)})
    added = []
    for n, key in enumerate(wanted):
        answer = answers[f"k{n}"]
        if answer["__typename"] == "AddDynamicPartitionSuccess":
            added.append(key)
        elif answer["__typename"] != "DuplicateDynamicPartitionError":
            raise GraphQLError(f"the deployment cannot add the partition {key} to {name}: "
                               f"{answer.get('message')}")
    return added


def delete_partitions(graphql: GraphQL, where: JobSelector, name: str,
                      keys: Sequence[str]) -> None:
    """Remove the keys ``keys`` from the dynamic partitions ``name``, in one request."""
    answer = graphql(DELETE_PARTITIONS, repo=_repository(where), name=name,
                     keys=list(keys))["deleteDynamicPartitions"]
    if answer["__typename"] != "DeleteDynamicPartitionsSuccess":
        raise GraphQLError(f"the deployment cannot remove the partitions {', '.join(keys)} "
                           f"from {name}: {answer.get('message')}")


def _repository(where: JobSelector) -> dict[str, str]:
    return {"repositoryLocationName": where.location, "repositoryName": where.repository}


@dataclass(frozen=True)
class LogLine:
    """One entry of a run's log, as the command may print it: a step's own line (no
    ``event_type``) or one of Dagster's events (``RUN_START``, ``STEP_FAILURE``...)."""

    run_id: str
    job_name: str
    timestamp: float  # seconds since the epoch
    level: int  # logging's
    message: str
    step_key: str | None = None
    event_type: str | None = None
    error: str | None = None  # a failure's root cause (a step up for retry: why it failed)
    retry_in_s: float | None = None  # a step up for retry: when Dagster runs it again


def tagged_runs(graphql: GraphQL, tags: Mapping[str, str], *, live: bool) -> list[str]:
    """The ids of the runs carrying ``tags`` (``live``: those not ended)."""
    found = {"tags": [{"key": k, "value": v} for k, v in tags.items()],
             **({"statuses": list(LIVE)} if live else {})}
    return [run["runId"] for run in _runs(graphql, found)]


def _runs(graphql: GraphQL, found: Mapping[str, Any]) -> list[dict[str, Any]]:
    return _run_results(graphql(RUNS, filter=dict(found))["runsOrError"])


def _run_results(answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    if answer["__typename"] != "Runs":
        raise GraphQLError(f"the deployment cannot list its runs: {answer.get('message')}")
    return answer["results"]


def poll_runs(graphql: GraphQL, run_ids: Sequence[str], cursors: Mapping[str, str | None]
              ) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[list[dict[str, Any]],
                                                                     str | None]]]:
    """The status and job name of each of ``run_ids`` (runs the webserver does not know are
    left out), and for each run of ``cursors`` its events after its cursor, with the cursor
    after them.

    One request for all of them, each run's log under an alias, the status first (the
    webserver resolves a query's fields in order, so a run seen ended has its whole log
    read). A request per run and poll cost the webserver 57 ms of CPU for two runs, this
    one 33. A log with more new events than a page has its further pages read apart
    (``new_events``)."""
    logs = list(cursors)
    params = "".join(f", $r{i}: ID!, $c{i}: String" for i in range(len(logs)))
    fields = "".join(f"\n  r{i}: logsForRun(runId: $r{i}, afterCursor: $c{i}, limit: {PAGE}) "
                     "{ ...Page }" for i in range(len(logs)))
    query = f"query Poll($filter: RunsFilter!{params}) {{{RUNS_FIELD}{fields}\n}}"
    variables: dict[str, Any] = {"filter": {"runIds": list(run_ids)}}
    for i, run_id in enumerate(logs):
        variables |= {f"r{i}": run_id, f"c{i}": cursors[run_id]}
    answer = graphql(query + _LOG_PAGE if logs else query, **variables)
    statuses = {run["runId"]: (run["status"], run["jobName"])
                for run in _run_results(answer["runsOrError"])}
    events = {}
    for i, run_id in enumerate(logs):
        page = _log_page(answer[f"r{i}"], run_id)
        cursor = page["cursor"] or cursors[run_id]
        more, cursor = new_events(graphql, run_id, cursor) if page["hasMore"] else ([], cursor)
        events[run_id] = (page["events"] + more, cursor)
    return statuses, events


def new_events(graphql: GraphQL, run_id: str, cursor: str | None
               ) -> tuple[list[dict[str, Any]], str | None]:
    """The run's events after ``cursor`` (every page of them), and the cursor after them."""
    events: list[dict[str, Any]] = []
    while True:
        page = _log_page(graphql(LOGS, runId=run_id, cursor=cursor, limit=PAGE)["logsForRun"],
                         run_id)
        events += page["events"]
        cursor = page["cursor"] or cursor
        if not page["hasMore"]:
            return events, cursor


def _log_page(page: Mapping[str, Any], run_id: str) -> Mapping[str, Any]:
    if page["__typename"] != "EventConnection":
        raise GraphQLError(f"the deployment cannot read run {run_id}'s log: "
                           f"{page.get('message')}")
    return page


def log_line(event: Mapping[str, Any], run_id: str, job_name: str) -> LogLine:
    """A log entry of run ``run_id`` as the webserver gives it, as plain data."""
    level = logging.getLevelName(event["level"])
    root = _root(event.get("error"))
    error = None if root is None else root[1]  # Dagster's message names the class already
    return LogLine(run_id, job_name, int(event["timestamp"]) / 1000,
                   level if isinstance(level, int) else 0, event["message"],
                   event.get("stepKey"), event.get("eventType"), error=error,
                   retry_in_s=event.get("secondsToWait"))


def run_event(event: Mapping[str, Any]) -> RunEvent | None:
    """What a run's outcome reads of an event (``summaries.outcome``), or None."""
    kind = event["__typename"]
    if kind == "MaterializationEvent":
        return RunEvent("materialization", event["assetKey"]["path"][-1],
                        metadata(event["metadataEntries"]))
    if kind == "ExecutionStepOutputEvent":
        return RunEvent("output", event["stepKey"] or "", metadata(event["metadataEntries"]))
    if kind in ("ExecutionStepFailureEvent", "RunFailureEvent"):
        failure = "step_failure" if kind == "ExecutionStepFailureEvent" else "run_failure"
        return RunEvent(failure, event.get("stepKey") or "", error=_root(event.get("error")),
                        message=event["message"])
    if kind == "EngineEvent":
        return RunEvent("engine", message=event["message"])
    return None


def _root(error: Mapping[str, Any] | None) -> tuple[str, str] | None:
    """The class name and message of the exception at the root of ``error``'s causes."""
    if error is None:
        return None
    root = error["causes"][-1] if error["causes"] else error
    return root["className"] or "", root["message"]


def metadata(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Metadata entries as plain values, as ``report.plain_value`` gives them from the
    instance: a table as its rows, anything else as its value."""
    return {entry["label"]: metadata_value(entry) for entry in entries}


_FIELDS = {"IntMetadataEntry": "intRepr", "FloatMetadataEntry": "floatValue",
           "TextMetadataEntry": "text", "BoolMetadataEntry": "boolValue",
           "JsonMetadataEntry": "jsonString", "MarkdownMetadataEntry": "mdStr",
           "PathMetadataEntry": "path", "UrlMetadataEntry": "url",
           "TimestampMetadataEntry": "timestamp"}


def metadata_value(entry: Mapping[str, Any]) -> Any:
    """One entry's value (None for a kind the command never reads)."""
    kind = entry["__typename"]
    if kind == "IntMetadataEntry":
        return int(entry["intRepr"])
    if kind == "JsonMetadataEntry":
        return json.loads(entry["jsonString"])
    if kind == "TableMetadataEntry":
        return [json.loads(record) for record in entry["table"]["records"]]
    return entry.get(_FIELDS.get(kind, ""))
