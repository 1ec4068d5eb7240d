"""Where steps execute: Dagster's default, or the Celery executor of ``FASHION_CELERY_CONFIG``,
read from the same file the workers read (``deploy/celery.yaml``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster_celery.cli import get_config_value_from_yaml, get_validated_config

from fashion_assets.definitions import build_definitions
from fashion_assets.execution import CeleryConfigError, celery_config, step_executor
from fashion_assets.sources.registry import VOGUE

DEPLOY_CELERY = Path(__file__).resolve().parents[2] / "deploy" / "celery.yaml"
assert VOGUE.runway_names is not None
CRAWL_JOB = VOGUE.runway_names.crawl_job


def test_without_the_setting_steps_run_in_the_runs_own_process() -> None:
    assert step_executor({}).name == "in_process"
    for name in (CRAWL_JOB, VOGUE.runway_names.repair_job, "promote_approved_drafts"):
        assert build_definitions({}).resolve_job_def(name).executor_def.name == "in_process"


def test_the_setting_puts_every_job_on_the_celery_executor_of_the_file() -> None:
    definitions = build_definitions({"FASHION_CELERY_CONFIG": str(DEPLOY_CELERY)})
    for name in (CRAWL_JOB, VOGUE.runway_names.repair_job, "promote_approved_drafts"):
        assert definitions.resolve_job_def(name).executor_def.name == "celery", name


def test_the_code_location_reads_the_block_the_workers_read() -> None:
    assert celery_config(DEPLOY_CELERY) == get_config_value_from_yaml(str(DEPLOY_CELERY))


def test_the_deployed_file_is_valid_for_the_workers_and_hands_back_a_dead_workers_step(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CELERY_BROKER_URL", "pyamqp://fashion:s3cret@mq.internal:5672/prod")
    config = get_validated_config(str(DEPLOY_CELERY))
    assert config["broker"] == "pyamqp://fashion:s3cret@mq.internal:5672/prod"
    assert config["config_source"]["task_acks_late"] is True
    assert config["config_source"]["task_reject_on_worker_lost"] is True
    # The password comes from the environment: the file itself holds none.
    assert "s3cret" not in DEPLOY_CELERY.read_text()


@pytest.mark.parametrize(("content", "message"), [
    (None, "No such file"),
    ("execution: [unclosed", "not YAML"),
    ("execution:\n  config: {}\n", "no `execution: config:` block"),
    ("- a list\n", "no `execution: config:` block"),
])
def test_a_wrong_file_fails_where_the_code_location_loads(
        tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "celery.yaml"
    if content is not None:
        path.write_text(content)
    with pytest.raises(CeleryConfigError, match=message) as caught:
        build_definitions({"FASHION_CELERY_CONFIG": str(path)})
    assert "FASHION_CELERY_CONFIG" in str(caught.value)
