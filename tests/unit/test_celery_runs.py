"""The Celery run launcher's two rules: which file it reads (the workers' own, with a result
backend the run monitor can read), and when a STARTED run's worker is lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster_celery.cli import get_validated_config
from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.launch.celery_runs import CeleryConfigError, celery_config, lost_worker_reason

DEPLOY_CELERY = Path(__file__).resolve().parents[2] / "deploy" / "celery.yaml"
BROKER = "pyamqp://fashion:s3cret@mq.internal:5672/prod"
BACKEND = "db+postgresql+psycopg2://celery:s3cret@db.internal:5432/celery"
# Celery's task states (celery.states.ALL_STATES) and a state name it does not know.
STATES = ["PENDING", "RECEIVED", "STARTED", "SUCCESS", "FAILURE", "REVOKED", "REJECTED",
          "RETRY", "IGNORED", "SOMETHING-NEW"]


@pytest.fixture
def urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CELERY_BROKER_URL", BROKER)
    monkeypatch.setenv("CELERY_RESULT_BACKEND", BACKEND)


def test_the_launcher_reads_the_block_the_workers_read(urls: None) -> None:
    block = celery_config(str(DEPLOY_CELERY))
    assert block == get_validated_config(str(DEPLOY_CELERY))
    assert (block["broker"], block["backend"]) == (BROKER, BACKEND)
    # A killed worker's run goes back to the broker, and a worker process that grew leaves.
    assert block["config_source"]["task_acks_late"] is True
    assert block["config_source"]["task_reject_on_worker_lost"] is True
    assert block["config_source"]["worker_max_memory_per_child"] > 0
    # The passwords come from the environment: the file holds none.
    assert "s3cret" not in DEPLOY_CELERY.read_text()


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    ("execution: [unclosed", "not a Celery executor block"),
    ("execution:\n  config:\n    broker: 3\n    nonsense: 1\n", "not a Celery executor block"),
    ("execution:\n  config: {}\n", "no `execution: config: broker:`"),
    ("execution:\n  config:\n    broker: pyamqp://mq//\n    backend: rpc://\n",
     "cannot be read by the run monitor"),
    ("execution:\n  config:\n    broker: pyamqp://mq//\n", "cannot be read by the run monitor"),
])
def test_a_wrong_file_is_refused_with_its_path(tmp_path: Path, content: str | None,
                                              message: str) -> None:
    path = tmp_path / "celery.yaml"
    if content is not None:
        path.write_text(content)
    with pytest.raises(CeleryConfigError, match=message) as caught:
        celery_config(str(path))
    assert f"FASHION_CELERY_CONFIG={path}" in str(caught.value)


def test_an_unset_variable_says_what_to_set() -> None:
    with pytest.raises(CeleryConfigError, match="FASHION_CELERY_CONFIG is not set"):
        celery_config("")


def test_a_task_that_ended_under_a_run_still_going_is_a_lost_worker() -> None:
    reason = lost_worker_reason("SUCCESS", run_finished=False, worker=None, worker_answers=None)
    assert reason is not None and "lost" in reason
    # The run ended first (its events are written before the task returns): healthy.
    assert lost_worker_reason("SUCCESS", True, None, None) is None


def test_a_run_on_a_worker_that_no_longer_answers_is_a_lost_worker() -> None:
    reason = lost_worker_reason("STARTED", False, "worker-1@host", worker_answers=False)
    assert reason is not None and "worker-1@host" in reason
    assert lost_worker_reason("STARTED", False, "worker-1@host", worker_answers=True) is None


@given(state=st.sampled_from(STATES), finished=st.booleans(),
       worker=st.one_of(st.none(), st.text(max_size=20)),
       answers=st.one_of(st.none(), st.booleans()))
def test_only_those_two_cases_are_lost_workers(state: str, finished: bool,
                                               worker: str | None,
                                               answers: bool | None) -> None:
    """Every other state is left to dagster-celery's own check (FAILURE fails the run,
    PENDING or an unknown state is reported as unknown)."""
    lost = lost_worker_reason(state, finished, worker, answers)
    expected = ((state == "SUCCESS" and not finished)
                or (state == "STARTED" and bool(worker) and answers is False))
    assert (lost is not None) == expected
