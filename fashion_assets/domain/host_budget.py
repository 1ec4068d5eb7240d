"""How the photo downloads a host allows are shared between clients, as plain data.

Why: politeness is owed per host, not per client. A crawl's worker processes and the runs
side by side each hold a client; if each took the host's whole photo cap, the host would see
the cap times the number of clients. So every client holds a *lease* on part of the cap,
kept where all clients meet (``crawl/budget.py``), and renews it now and then:

- a client asks for what it could use (``wanted``: downloads in flight plus waiting);
- the cap is divided max-min fairly between the live leases (``fair_shares``): nobody gets
  more than it wants, and what one does not want goes to the others;
- a client is granted its fair share, but never slots that another lease still holds
  (``grant``): a client that must give slots back does so as its downloads finish, and
  others take them at their next renewal. So the slots granted in all never exceed the cap
  (except after the cap itself was halved, when downloads already in flight finish).

A lease that is not renewed expires (its client died), and its slots are free again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Lease:
    """Another client's lease on a host's photo slots: what it wants and what it holds."""

    wanted: int
    granted: int


@dataclass(frozen=True)
class Grant:
    """A renewal's answer: ``limit`` downloads may be in flight from now on; ``held`` is what
    the lease records (never less than the downloads in flight, which cannot be recalled);
    ``share`` is the client's fair share, more than ``limit`` while others still hold slots
    that are its due."""

    limit: int
    held: int
    share: int


def fair_shares(cap: int, wanted: Mapping[str, int]) -> dict[str, int]:
    """Max-min fair division of ``cap`` slots between clients wanting ``wanted`` slots.

    Water-filling: the smallest wants are met in full, the rest is split evenly between the
    others, and what an even split cannot divide goes to the first of them in name order (so
    every client computes the same division).
    """
    shares = {name: 0 for name in wanted}
    left = max(0, cap)
    open_ = sorted((w, name) for name, w in wanted.items() if w > 0)
    while open_ and left > 0:
        even = left // len(open_)
        smallest, _ = open_[0]
        if smallest <= even:  # the smallest want is met in full
            _, name = open_.pop(0)
            shares[name] = smallest
            left -= smallest
            continue
        extra = left - even * len(open_)
        for index, name in enumerate(sorted(name for _, name in open_)):
            shares[name] = even + (1 if index < extra else 0)
        break
    return shares


def grant(cap: int, me: str, wanted: int, in_flight: int, others: Mapping[str, Lease]) -> Grant:
    """What client ``me`` may have in flight, given the live leases of the ``others``."""
    share = fair_shares(cap, {**{name: lease.wanted for name, lease in others.items()},
                              me: wanted})[me]
    free = cap - sum(lease.granted for lease in others.values())
    limit = max(0, min(share, free))
    return Grant(limit=limit, held=max(limit, in_flight), share=share)
