"""The per-host politeness budget kept in the catalog database, where every client meets.

The worker processes of a crawl, the runs side by side and the machines of a deployment all
reach the catalog database, so the budget of a host lives there (``sql/0009_host_budget.sql``):

- a page turn is one atomic statement that moves the host's ``next_page_at`` on by the page
  delay and returns the moment this client may send (``take_page_turn``: the rule of
  ``domain/politeness.py: page_turn``, in SQL so that no two clients get the same turn);
- the photo cap is shared by leases (``renew_lease``, rule in ``domain/host_budget.py``),
  renewed in a transaction that first locks the host's row, so two renewals never divide the
  same free slots;
- a 429 or 503 halves the cap for every client, and successes restore it
  (``record_answer``, rule in ``domain/politeness.py``), under the same row lock;
- each origin's robots.txt, as one client read it, serves the others for an hour
  (``kept_robots``, ``keep_robots``), and one client at a time reads it
  (``claim_robots_read``): the host is asked once per crawl, not once per client.

Every call is one short transaction; ``crawl/budget.py`` calls them off the event loop.
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import Connection, Engine, text

from fashion_assets.crawl.robots import RobotsFile
from fashion_assets.domain.host_budget import Grant, Lease, grant
from fashion_assets.domain.politeness import HostPace, PaceRules, after_answer

# Lock the host's row, creating it at the full cap on first use; the no-op update is what
# takes the lock (a row lock on PostgreSQL; SQLite's transactions hold the write lock anyway).
_LOCK_HOST = text(
    "INSERT INTO host_budget (host, image_limit, changed_at) VALUES (:host, :cap, :now)"
    " ON CONFLICT (host) DO UPDATE SET host = excluded.host"
    " RETURNING image_limit, changed_at, successes, cut_at")


class DatabaseBudgetStore:
    """The budget store of ``crawl/budget.py`` in the catalog database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def take_page_turn(self, host: str, now: float, delay_s: float, cap: int) -> float:
        """When this client may send its page to ``host`` (Unix seconds): the host's next
        free moment, or now if it has passed; the next one is ``delay_s`` after it."""
        with self.engine.begin() as conn:
            next_at = conn.execute(text(
                "INSERT INTO host_budget (host, next_page_at, image_limit, changed_at)"
                " VALUES (:host, :now + :delay, :cap, :now)"
                " ON CONFLICT (host) DO UPDATE SET next_page_at = CASE"
                "  WHEN host_budget.next_page_at > :now THEN host_budget.next_page_at"
                "  ELSE :now END + :delay"
                " RETURNING next_page_at"),
                {"host": host, "now": now, "delay": delay_s, "cap": cap}).scalar_one()
        return float(next_at) - delay_s

    def renew_lease(self, host: str, holder: str, wanted: int, in_flight: int, now: float,
                    ttl_s: float, rules: PaceRules) -> tuple[Grant, int]:
        """Renew ``holder``'s lease on ``host``'s photo slots: its grant, and the cap."""
        with self.engine.begin() as conn:
            cap = min(rules.image_cap, _lock(conn, host, now, rules).image_limit)
            others = {row.holder: Lease(row.wanted, row.granted) for row in conn.execute(text(
                "SELECT holder, wanted, granted FROM host_leases"
                " WHERE host = :host AND holder <> :holder AND expires_at > :now"),
                {"host": host, "holder": holder, "now": now})}
            given = grant(cap, holder, wanted, in_flight, others)
            conn.execute(text(
                "INSERT INTO host_leases (host, holder, wanted, granted, expires_at)"
                " VALUES (:host, :holder, :wanted, :held, :until)"
                " ON CONFLICT (host, holder) DO UPDATE SET wanted = excluded.wanted,"
                "  granted = excluded.granted, expires_at = excluded.expires_at"),
                {"host": host, "holder": holder, "wanted": wanted, "held": given.held,
                 "until": now + ttl_s})
            conn.execute(text("DELETE FROM host_leases WHERE host = :host AND expires_at <= :now"),
                         {"host": host, "now": now})
        return given, cap

    def record_answer(self, host: str, status: int, sent_at: float, now: float,
                      rules: PaceRules) -> int:
        """The host answered ``status``: its pace for every client; returns the cap."""
        with self.engine.begin() as conn:
            pace = _lock(conn, host, now, rules)
            paced = after_answer(pace, status, now, sent_at=sent_at)
            if paced is not pace:
                conn.execute(text(
                    "UPDATE host_budget SET image_limit = :limit, changed_at = :changed,"
                    " successes = :successes, cut_at = :cut WHERE host = :host"),
                    {"host": host, "limit": paced.image_limit, "changed": paced.changed_at,
                     "successes": paced.successes, "cut": paced.cut_at})
        return min(rules.image_cap, paced.image_limit)

    def release(self, holder: str) -> None:
        """``holder`` is done: its slots are free at once, not when its leases expire, and
        so are the robots.txt reads it claimed."""
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM host_leases WHERE holder = :holder"),
                         {"holder": holder})
            conn.execute(text("DELETE FROM robots_readers WHERE holder = :holder"),
                         {"holder": holder})

    def claim_robots_read(self, origin: str, holder: str, now: float, claim_s: float) -> bool:
        """Whether ``holder`` is the one to read ``origin``'s robots.txt now: no other client's
        claim holds at ``now``. The claim holds ``claim_s`` seconds, or until the read is
        given up (``end_robots_read``) or its client closes (``release``)."""
        with self.engine.begin() as conn:
            claimed = conn.execute(text(
                "INSERT INTO robots_readers (origin, holder, claimed_until)"
                " VALUES (:origin, :holder, :until)"
                " ON CONFLICT (origin) DO UPDATE SET holder = excluded.holder,"
                "  claimed_until = excluded.claimed_until"
                "  WHERE robots_readers.claimed_until <= :now"
                "   OR robots_readers.holder = excluded.holder"
                " RETURNING holder"),
                {"origin": origin, "holder": holder, "until": now + claim_s, "now": now}
            ).one_or_none()
        return claimed is not None

    def end_robots_read(self, origin: str, holder: str) -> None:
        """``holder`` could not read ``origin``'s robots.txt: another client may try now."""
        with self.engine.begin() as conn:
            conn.execute(text(
                "DELETE FROM robots_readers WHERE origin = :origin AND holder = :holder"),
                {"origin": origin, "holder": holder})

    def kept_robots(self, origin: str, since: float) -> RobotsFile | None:
        """``origin``'s robots.txt as a client read it at ``since`` or later, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(text(
                "SELECT body FROM robots_files WHERE origin = :origin AND read_at >= :since"),
                {"origin": origin, "since": since}).one_or_none()
        return None if row is None else RobotsFile(row.body)

    def keep_robots(self, origin: str, robots: RobotsFile, now: float) -> None:
        """Keep ``origin``'s robots.txt, read at ``now``, for every client.

        The reader's claim stays until it runs out: a client that found nothing kept a moment
        ago and asks for the claim now must be told to wait and look again, not to read."""
        with self.engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO robots_files (origin, body, read_at) VALUES (:origin, :body, :now)"
                " ON CONFLICT (origin) DO UPDATE SET body = excluded.body,"
                "  read_at = excluded.read_at"),
                {"origin": origin, "body": robots.text, "now": now})


def _lock(conn: Connection, host: str, now: float, rules: PaceRules) -> HostPace:
    row = conn.execute(_LOCK_HOST, {"host": host, "cap": rules.image_cap, "now": now}).one()
    pace = HostPace(rules, image_limit=row.image_limit, changed_at=row.changed_at,
                    successes=row.successes, cut_at=row.cut_at)
    # A cap above this client's own (set by a run with a larger setting) counts as its own.
    return replace(pace, image_limit=min(pace.image_limit, rules.image_cap))
