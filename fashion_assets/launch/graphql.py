"""The webserver's GraphQL, asked as the UI asks it: where a job lives, launch runs, end them.

GraphQL is Dagster's public route to the run queue (the UI, ``dagster-graphql`` and the
Python client all go through it): a run launched here is created with its code location's
origin, queued, and launched by the daemon under ``dagster.yaml``, like a schedule's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

LOCATIONS = """
query Locations {
  repositoriesOrError {
    __typename
    ... on RepositoryConnection { nodes { name location { name } jobs { name } } }
    ... on PythonError { message }
  }
}"""

LAUNCH_RUNS = """
mutation LaunchRuns($params: [ExecutionParams!]!) {
  launchMultipleRuns(executionParamsList: $params) {
    __typename
    ... on LaunchMultipleRunsResult {
      launchMultipleRunsResult {
        __typename
        ... on LaunchRunSuccess { run { runId } }
        ... on PythonError { message }
        ... on RunConfigValidationInvalid { errors { message } }
        ... on InvalidSubsetError { message }
        ... on UnauthorizedError { message }
      }
    }
    ... on PythonError { message }
  }
}"""

TERMINATE_RUNS = """
mutation TerminateRuns($ids: [String!]!, $policy: TerminateRunPolicy) {
  terminateRuns(runIds: $ids, terminatePolicy: $policy) {
    __typename
    ... on TerminateRunsResult { terminateRunResults { __typename } }
    ... on PythonError { message }
  }
}"""


class GraphQLError(RuntimeError):
    """The webserver answered a query with errors, or with an error type."""


def web_client(url: str, timeout: float = 300) -> httpx.Client:
    """An HTTP client for the webserver at ``url``, with TLS settings only for an https URL:
    building the default TLS context (certifi's bundle) took 0.1 s of the command's start,
    and a plain-http webserver (``dagster dev``) never uses it."""
    return httpx.Client(timeout=timeout, verify=url.startswith("https://"))


@dataclass
class GraphQL:
    """The webserver's GraphQL endpoint at ``url`` (``http://host:port``)."""

    url: str
    client: httpx.Client = field(default=None)  # type: ignore[assignment] # web_client's

    def __post_init__(self) -> None:
        if self.client is None:
            self.client = web_client(self.url)

    def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        answer = self.client.post(f"{self.url}/graphql",
                                  json={"query": query, "variables": variables})
        answer.raise_for_status()
        body = answer.json()
        if body.get("errors"):
            raise GraphQLError(str(body["errors"])[:2000])
        return body["data"]


@dataclass(frozen=True)
class JobSelector:
    """Where the deployment serves a job: code location, repository, job name."""

    location: str
    repository: str
    job: str

    def as_graphql(self) -> dict[str, str]:
        return {"repositoryLocationName": self.location, "repositoryName": self.repository,
                "jobName": self.job}


def job_selectors(graphql: GraphQL) -> dict[str, JobSelector]:
    """Every job the deployment serves, by name (the first location serving a name wins:
    a deployment serves the project's code location once)."""
    answer = graphql(LOCATIONS)["repositoriesOrError"]
    if answer["__typename"] != "RepositoryConnection":
        raise GraphQLError(f"the deployment cannot list its code: {answer.get('message')}")
    found: dict[str, JobSelector] = {}
    for repository in answer["nodes"]:
        for job in repository["jobs"]:
            found.setdefault(job["name"], JobSelector(repository["location"]["name"],
                                                      repository["name"], job["name"]))
    return found


@dataclass(frozen=True)
class RunRequest:
    """One run to launch: a job, its tags (a partition's, a range's, the queue's) and its
    run config."""

    job: str
    tags: Mapping[str, str]
    run_config: Mapping[str, Any] = field(default_factory=dict)


def selector_of(selectors: Mapping[str, JobSelector], *jobs: str) -> JobSelector:
    """Where the deployment serves ``jobs`` (the first's), or an error naming those it
    does not serve."""
    missing = sorted(set(jobs) - set(selectors))
    if missing:
        raise GraphQLError(f"the deployment does not serve the job(s) {', '.join(missing)}:"
                           " is it running the fashion_assets code location?")
    return selectors[jobs[0]]


def launch_runs(graphql: GraphQL, selectors: Mapping[str, JobSelector],
                requests: Sequence[RunRequest]) -> list[str]:
    """Submit ``requests`` to the run queue in one call; their run ids, in order."""
    if not requests:
        return []
    selector_of(selectors, *(r.job for r in requests))
    params = [{"selector": selectors[r.job].as_graphql(), "runConfigData": dict(r.run_config),
               "executionMetadata": {"tags": [{"key": k, "value": v}
                                              for k, v in r.tags.items()]}}
              for r in requests]
    answer = graphql(LAUNCH_RUNS, params=params)["launchMultipleRuns"]
    if answer["__typename"] != "LaunchMultipleRunsResult":
        raise GraphQLError(f"launching runs failed: {answer.get('message')}")
    run_ids = []
    for result in answer["launchMultipleRunsResult"]:
        if result["__typename"] != "LaunchRunSuccess":
            why = result.get("message") or "; ".join(
                e["message"] for e in result.get("errors", [])) or result["__typename"]
            raise GraphQLError(f"launching a run failed: {why}")
        run_ids.append(result["run"]["runId"])
    return run_ids


def terminate_runs(graphql: GraphQL, run_ids: Sequence[str]) -> None:
    """Ask the deployment to end ``run_ids`` (queued ones are canceled, running ones
    terminated by their launcher); runs that ended already are left as they are."""
    if run_ids:
        graphql(TERMINATE_RUNS, ids=list(run_ids), policy="SAFE_TERMINATE")


def cancel_runs(graphql: GraphQL, run_ids: Sequence[str]) -> None:
    """Mark ``run_ids`` canceled as they stand, without waiting for their processes (the
    UI's "force termination"): for runs that did not end when terminated."""
    if run_ids:
        graphql(TERMINATE_RUNS, ids=list(run_ids), policy="MARK_AS_CANCELED_IMMEDIATELY")
