"""Our own outages are not the source's: the retry rule, and the retries of a real store and
a real database that fail (crawl/infra.py)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text

from fashion_assets.crawl.infra import InfrastructureError, gather_or_cancel, with_retries
from fashion_assets.domain.ingest import infra_retry_delay
from fashion_assets.storage import FileStore, object_key

PHOTO = b"\xff\xd8\xff\xe0 a photo's bytes"
WAIT_S = 10.0


@pytest.mark.parametrize(("failures", "failing_s", "budget_s", "delay"), [
    (1, 0.0, 60.0, 0.5),  # the first wait
    (2, 0.6, 60.0, 1.0),  # doubled
    (5, 8.0, 60.0, 8.0),
    (6, 16.0, 60.0, 10.0),  # at most 10 s apart
    (9, 59.7, 60.0, pytest.approx(0.3)),  # never past the budget: the last try at its end
    (9, 60.0, 60.0, None),  # spent: the step fails
    (1, 0.0, 0.0, None),
])
def test_waits_double_from_half_a_second_and_stop_when_the_budget_is_spent(
        failures: int, failing_s: float, budget_s: float, delay: float | None) -> None:
    assert infra_retry_delay(failures=failures, failing_s=failing_s, budget_s=budget_s) == delay


@pytest.fixture
def blocked_store(tmp_path: Path) -> FileStore:
    """A file store whose folder is a regular file: every put fails, even for root, as on a
    disk that is full or gone."""
    (tmp_path / "objects").write_text("not a folder")
    return FileStore(tmp_path / "objects")


def retries_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "fashion_assets.crawl.infra"]


def test_a_store_outage_shorter_than_the_budget_is_ridden_out(
        blocked_store: FileStore, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="fashion_assets.crawl.infra")
    key = object_key(PHOTO)

    async def outage_ends_after_a_failure() -> bool:
        put = asyncio.create_task(with_retries("the object store's put", 30.0, blocked_store.put,
                                               key, PHOTO, "image/jpeg"))
        async with asyncio.timeout(WAIT_S):
            while not retries_logged(caplog):
                await asyncio.sleep(0.01)  # polling a real condition
        blocked_store.root.unlink()  # the disk is back
        return await put

    assert asyncio.run(outage_ends_after_a_failure()) is True
    assert blocked_store.get(key) == PHOTO
    assert "NotADirectoryError" in retries_logged(caplog)[0]


def test_an_outage_that_lasts_fails_with_its_reason_and_no_oserror(
        blocked_store: FileStore, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="fashion_assets.crawl.infra")

    with pytest.raises(InfrastructureError) as raised:
        asyncio.run(with_retries("the object store's put", 0.6, blocked_store.put,
                                 object_key(PHOTO), PHOTO, "image/jpeg"))

    message = str(raised.value)
    assert message.startswith("the object store's put kept failing for ")
    assert "not the source's: NotADirectoryError" in message
    # Not an OSError, so nothing that handles a source's failures catches it.
    assert not isinstance(raised.value, OSError)
    assert len(retries_logged(caplog)) >= 2


def test_a_database_that_cannot_be_opened_is_retried_like_the_store(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'no-such-folder' / 'catalog.db'}")

    def select_one(engine: Engine) -> None:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    with pytest.raises(InfrastructureError, match=r"draft write.*OperationalError"):
        asyncio.run(with_retries("the catalog database (draft write)", 0.2, select_one,
                                 engine))


def test_a_bug_is_raised_at_once_never_retried(
        blocked_store: FileStore, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="fashion_assets.crawl.infra")

    with pytest.raises(ValueError, match="not the sha1"):
        asyncio.run(with_retries("the object store's put", 30.0, blocked_store.put,
                                 "0" * 40, PHOTO, "image/jpeg"))

    assert retries_logged(caplog) == []


def test_the_first_error_cancels_the_other_tasks_before_it_is_raised() -> None:
    stopped: list[str] = []

    async def outage() -> None:
        raise InfrastructureError("the store is down")

    async def show_in_flight() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            stopped.append("cancelled")
            raise

    async def step() -> list[str]:
        with pytest.raises(InfrastructureError):
            await gather_or_cancel([show_in_flight(), outage()])
        return list(stopped)  # before the loop ends, which would cancel what is left

    assert asyncio.run(step()) == ["cancelled"]
