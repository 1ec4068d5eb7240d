"""The S3 clients of a process, and what ``S3Store.put_async`` needs of one without it.

A client holds botocore's S3 model: about 15 MB of a process's heap and tens of ms to build.
Processes that use boto3's calls (``exists``, ``get``, listings) share one client per endpoint
and environment; a crawl's run process only PUTs from its event loop (``put_async``), which
needs the endpoint, region and credentials a client resolves (botocore's endpoint rules and
credential chain, not ours), not the client: it keeps those and lets the client go.
``bench/run.py``'s S3 table measures the run processes' memory.
"""

from __future__ import annotations

import gc
import os
import threading
from dataclasses import dataclass

import boto3
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.client import BaseClient
from botocore.config import Config
from botocore.credentials import Credentials

from fashion_assets.storage.base import StoreError

_RETRIES = Config(retries={"mode": "standard", "max_attempts": 5})
# The environment a client is built from: a change of any of these gets a new client.
_CLIENT_ENV = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_ACCESS_KEY_ID",
               "AWS_DEFAULT_REGION")
_LOCK = threading.Lock()
_CLIENTS: dict[tuple[str | None, ...], tuple[BaseClient, Credentials | None]] = {}


@dataclass(frozen=True)
class PutTarget:
    """Where ``put_async`` sends and how it signs: a client's endpoint (no trailing slash),
    region and credentials (refreshable ones refresh themselves)."""

    endpoint_url: str
    region: str | None
    credentials: Credentials | None

    def signed(self, method: str, url: str, data: bytes, headers: dict[str, str]
               ) -> dict[str, str]:
        """``headers`` with botocore's SigV4 signature of the request added."""
        if self.credentials is None:
            raise StoreError("no AWS credentials found for the S3 store (environment, profile"
                             " or role)")
        request = AWSRequest(method, url, data=data, headers=headers)
        S3SigV4Auth(self.credentials.get_frozen_credentials(), "s3", self.region
                    ).add_auth(request)
        return dict(request.headers.items())


_TARGETS: dict[tuple[str | None, ...], PutTarget] = {}


def client(endpoint_url: str | None) -> BaseClient:
    """One S3 client per endpoint, environment and process, shared by every store.

    A crawl opens a store per run; a client per store reloaded botocore's S3 model each time.
    Clients are thread-safe; building one on its own session keeps construction off boto3's
    shared default session, which is not.
    """
    key = _environment(endpoint_url)
    with _LOCK:
        if key not in _CLIENTS:
            _CLIENTS[key] = _new_client(endpoint_url)
        return _CLIENTS[key][0]


def put_target(endpoint_url: str | None) -> PutTarget:
    """The ``PutTarget`` of ``client(endpoint_url)``, once per process and environment, from
    the shared client when the process has one, else from a client built for the purpose and
    let go, its model collected at once (it is cyclic garbage, which the collector would
    otherwise keep until its next full pass)."""
    key = _environment(endpoint_url)
    with _LOCK:
        target = _TARGETS.get(key)
        if target is None:
            shared = _CLIENTS.get(key)
            built, credentials = shared or _new_client(endpoint_url)
            target = _TARGETS[key] = PutTarget(built.meta.endpoint_url.rstrip("/"),
                                               built.meta.region_name, credentials)
            del built
            if shared is None:
                gc.collect()
    return target


def _new_client(endpoint_url: str | None) -> tuple[BaseClient, Credentials | None]:
    session = boto3.session.Session()
    return (session.client("s3", endpoint_url=endpoint_url, config=_RETRIES),
            session.get_credentials())


def _environment(endpoint_url: str | None) -> tuple[str | None, ...]:
    return (endpoint_url, *(os.environ.get(name) for name in _CLIENT_ENV))
