"""A page that wakes after its turn (a busy event loop, a slow answer from the budget
store) gives the turn up when it is more than ``PAGE_TURN_SLACK_S`` late: the next turn may
be another client's, and sending late would put the two pages less than the delay apart."""

from __future__ import annotations

import asyncio
import time

from fashion_assets.crawl.budget import PAGE_TURN_SLACK_S, HostBudget, MemoryBudgetStore
from fashion_assets.domain.politeness import PaceRules

HOST = "site.example:443"
DELAY = 0.2


class LateTurns(MemoryBudgetStore):
    """Hands out turns by the usual rule, the first ``late`` of them already ``by`` seconds
    past when they come back, as a sender that woke that late would find them."""

    def __init__(self, late: int, by: float) -> None:
        super().__init__()
        self.late, self.by = late, by
        self.turns: list[float] = []

    def take_page_turn(self, host: str, now: float, delay_s: float, cap: int) -> float:
        turn = super().take_page_turn(host, now, delay_s, cap)
        self.turns.append(turn)
        return turn - self.by if len(self.turns) <= self.late else turn


def send_one_page(store: LateTurns) -> float:
    async def page() -> float:
        async with HostBudget(store, PaceRules(page_delay_s=DELAY)) as budget:
            await budget.page_turn(HOST)
            return time.time()

    return asyncio.run(page())


def test_a_page_more_than_the_slack_late_takes_the_next_turn() -> None:
    store = LateTurns(late=1, by=PAGE_TURN_SLACK_S + 0.05)
    sent = send_one_page(store)
    assert len(store.turns) == 2  # the late turn given up, the next one taken
    assert sent >= store.turns[1]


def test_a_page_within_the_slack_keeps_its_turn() -> None:
    store = LateTurns(late=1, by=PAGE_TURN_SLACK_S / 2)
    send_one_page(store)
    assert len(store.turns) == 1
