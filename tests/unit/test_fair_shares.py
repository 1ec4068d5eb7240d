"""How a host's photo cap is shared between clients: max-min fair shares, and grants that
never hand out slots another client still holds."""

from __future__ import annotations

import itertools
import random

import pytest

from fashion_assets.domain.host_budget import Grant, Lease, fair_shares, grant


@pytest.mark.parametrize(("cap", "wanted", "shares"), [
    (8, {"a": 8}, {"a": 8}),
    (8, {"a": 3}, {"a": 3}),
    (8, {"a": 8, "b": 8}, {"a": 4, "b": 4}),
    (8, {"a": 2, "b": 8}, {"a": 2, "b": 6}),                   # what a does not want goes to b
    (8, {"a": 8, "b": 8, "c": 8}, {"a": 3, "b": 3, "c": 2}),   # the odd slot: first by name
    (8, {"a": 1, "b": 0, "c": 20}, {"a": 1, "b": 0, "c": 7}),
    (2, {"a": 5, "b": 5, "c": 5, "d": 5}, {"a": 1, "b": 1, "c": 0, "d": 0}),
    (0, {"a": 5}, {"a": 0}),
])
def test_the_cap_is_divided_max_min_fairly(cap: int, wanted: dict[str, int],
                                          shares: dict[str, int]) -> None:
    assert fair_shares(cap, wanted) == shares


def test_fair_shares_never_exceed_the_cap_or_a_want_and_leave_nothing_wanted_idle() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        cap = rng.randint(0, 20)
        wanted = {f"c{i}": rng.randint(0, 12) for i in range(rng.randint(1, 6))}
        shares = fair_shares(cap, wanted)
        assert sum(shares.values()) == min(cap, sum(wanted.values()))
        assert all(0 <= shares[n] <= wanted[n] for n in wanted)
        # Max-min: a client short of its want has at least as much as any other, less one.
        short = [n for n in wanted if shares[n] < wanted[n]]
        assert all(shares[s] >= shares[n] - 1 for s in short for n in wanted)


def test_a_newcomer_gets_only_free_slots_until_the_holder_gives_its_own_back() -> None:
    # a holds the whole cap; b arrives: b's fair share is 4, but none is free yet.
    assert grant(8, "b", 8, 0, {"a": Lease(8, 8)}) == Grant(limit=0, held=0, share=4)
    # a renews: its limit falls to its share at once, while the 8 in flight stay recorded.
    assert grant(8, "a", 8, 8, {"b": Lease(8, 0)}) == Grant(limit=4, held=8, share=4)
    # a's downloads finished down to 4 and it renewed again: b gets the 4 it gave back.
    assert grant(8, "a", 8, 4, {"b": Lease(8, 0)}) == Grant(limit=4, held=4, share=4)
    assert grant(8, "b", 8, 0, {"a": Lease(8, 4)}) == Grant(limit=4, held=4, share=4)


def test_an_idle_client_holds_nothing_and_a_lone_one_takes_the_whole_cap() -> None:
    assert grant(8, "a", 0, 0, {"b": Lease(8, 3)}) == Grant(limit=0, held=0, share=0)
    assert grant(8, "a", 20, 0, {}) == Grant(limit=8, held=8, share=8)


def test_renewals_in_any_order_never_grant_more_than_the_cap_in_all() -> None:
    """Clients renew one after another in random order, downloads finish at random; the
    slots recorded in all never exceed the cap and every client ends at its fair share."""
    rng = random.Random(3)
    cap, names = 8, ["a", "b", "c"]
    leases = {n: Lease(0, 0) for n in names}
    in_flight = dict.fromkeys(names, 0)
    for _ in range(500):
        name = rng.choice(names)
        others = {n: lease for n, lease in leases.items() if n != name}
        given = grant(cap, name, 8, in_flight[name], others)
        leases[name] = Lease(8, given.held)
        in_flight[name] = rng.randint(0, given.limit) if given.limit else 0
        assert sum(lease.granted for lease in leases.values()) <= cap
    for name in itertools.islice(itertools.cycle(names), 6):  # everyone renews twice
        in_flight[name] = min(in_flight[name], 2)
        others = {n: lease for n, lease in leases.items() if n != name}
        leases[name] = Lease(8, grant(cap, name, 8, in_flight[name], others).held)
    assert sorted(lease.granted for lease in leases.values()) == [2, 3, 3]
