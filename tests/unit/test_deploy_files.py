"""The files of ``deploy/`` that say the same thing in two tools' terms say the same thing: the
Helm chart's values (Kubernetes, on paper) and the instance config the hosts and the
end-to-end test use (``deploy/dagster.yaml``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def load(name: str) -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / name).read_text("utf-8"))


def snake(value: Any) -> Any:
    """The chart's camelCase keys as dagster.yaml's snake_case ones, all the way down."""
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(v) for v in value]
    return value


def test_the_chart_queues_runs_under_the_limits_of_the_instance_config() -> None:
    instance, chart = load("dagster.yaml"), load("helm-values.yaml")
    queue = chart["dagsterDaemon"]["runCoordinator"]["config"]["queuedRunCoordinator"]
    config = dict(instance["run_coordinator"]["config"])
    # The chart copies the tag limits into dagster.yaml as they are written (toYaml), the
    # other keys it renames.
    assert queue.pop("tagConcurrencyLimits") == config.pop("tag_concurrency_limits")
    assert snake(queue) == config


def test_the_chart_keeps_ticks_and_telemetry_as_the_instance_config_does() -> None:
    instance, chart = load("dagster.yaml"), load("helm-values.yaml")
    assert snake(chart["retention"]) == {"enabled": True, **instance["retention"]}
    assert chart["telemetry"] == instance["telemetry"]


def test_run_monitoring_differs_only_in_resuming_which_kubernetes_allows() -> None:
    instance = load("dagster.yaml")["run_monitoring"]
    chart = snake(load("helm-values.yaml")["dagsterDaemon"]["runMonitoring"])
    assert (instance.pop("max_resume_run_attempts"), chart.pop("max_resume_run_attempts")) == (
        0, 1)
    assert chart == instance


def test_every_deploy_file_the_operations_guide_names_exists_and_every_one_is_named() -> None:
    guide = (DEPLOY.parent / "docs" / "operations.md").read_text("utf-8")
    named = set(re.findall(r"deploy/([\w.-]+\.ya?ml)", guide))
    assert named == {p.name for p in DEPLOY.iterdir()}
