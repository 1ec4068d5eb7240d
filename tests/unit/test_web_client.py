"""The command's client of a Dagster webserver checks certificates wherever TLS is used: the
TLS context is left out for a plain-http URL only (``launch/graphql.py: web_client``)."""

from __future__ import annotations

import http.server
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from fashion_assets.launch.graphql import web_client


class Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serving(tls: ssl.SSLContext | None) -> Iterator[str]:
    """A server answering 200 on 127.0.0.1, over TLS with ``tls``; its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def self_signed(folder: Path) -> ssl.SSLContext:
    """A server context with a certificate no authority signed."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def test_a_plain_http_webserver_answers() -> None:
    with serving(None) as url, web_client(url) as client:
        assert client.get(f"{url}/server_info").text == "ok"


def test_an_https_webserver_with_a_certificate_no_authority_signed_is_refused(
        tmp_path: Path) -> None:
    with serving(self_signed(tmp_path)) as url, web_client(url) as client, \
            pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        client.get(f"{url}/server_info")
