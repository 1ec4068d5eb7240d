"""Name resolution for the HTTP client: it connects only to addresses the host policy passed.

An HTTP transport looks a name up again for every connection it opens. Were the client to
judge one answer and the transport to connect by another, a name that answered a public
address when it was checked and a private one a moment later (DNS rebinding) would reach the
inside. So the client's connector (aiohttp's, ``crawl/session.py``, its own name cache off)
resolves through ``CheckedResolver`` only: a name is looked up once, its answer
judged by the host policy (``domain/hosts.py: check_host_addresses``), and every connection
goes to the judged addresses until ``ADDRESS_TTL_S`` has passed; then the name is looked up
and judged again before the next connection. A refused answer fails the connection
(``AddressRefused``), and the client records the refusal's reason.
"""

from __future__ import annotations

import asyncio
import socket
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

from fashion_assets.domain.hosts import HostDecision, check_host_addresses

# How long an answer is trusted: the system resolver (getaddrinfo) reports no TTL.
ADDRESS_TTL_S = 60.0


class AddressRefused(OSError):
    """A name's answer failed the host policy: no connection is made to it."""

    def __init__(self, decision: HostDecision) -> None:
        super().__init__(decision.detail)
        self.decision = decision


@dataclass(frozen=True)
class _Answer:
    results: tuple[ResolveResult, ...]
    decision: HostDecision
    expires: float


class CheckedResolver(AbstractResolver):
    """The addresses of each name as the host policy judged them, judged again once old.

    ``upstream`` is the name service (the system's, through getaddrinfo, when None);
    ``clock`` gives monotonic seconds.
    """

    def __init__(self, upstream: AbstractResolver | None, clock: Callable[[], float],
                 ttl_s: float = ADDRESS_TTL_S) -> None:
        self._upstream = upstream
        self._clock = clock
        self._ttl_s = ttl_s
        self._answers: dict[str, _Answer] = {}
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def check(self, host: str) -> HostDecision:
        """How the policy judges ``host``'s current answer. A name that does not resolve
        passes: its connection fails and is recorded as such."""
        try:
            return (await self._answer(host)).decision
        except OSError:
            return HostDecision(True, None, None)

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        """The judged addresses of ``host`` for a connection; raises ``AddressRefused`` when
        the answer (looked up again if it aged out) failed the policy."""
        answer = await self._answer(host)
        if not answer.decision.allowed:
            raise AddressRefused(answer.decision)
        results = [ResolveResult(**{**result, "port": port}) for result in answer.results
                   if family in (socket.AF_UNSPEC, result["family"])]
        if not results:
            raise OSError(f"{host} has no address of family {family!r}")
        return results

    async def close(self) -> None:
        """Nothing to release: an upstream resolver given is its maker's to close."""

    async def _answer(self, host: str) -> _Answer:
        """``host``'s judged answer, looked up when there is none or it aged out (one
        lookup per name at a time); raises OSError when the name does not resolve."""
        async with self._locks[host]:
            answer = self._answers.get(host)
            if answer is None or self._clock() >= answer.expires:
                if self._upstream is None:
                    self._upstream = ThreadedResolver()
                results = await self._upstream.resolve(host, 0, socket.AF_UNSPEC)
                if not results:
                    raise OSError(f"{host} resolved to no address")
                decision = check_host_addresses(host, [result["host"] for result in results])
                answer = _Answer(tuple(results), decision, self._clock() + self._ttl_s)
                self._answers[host] = answer
            return answer
