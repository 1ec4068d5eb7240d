"""A catalog database a command cannot use ends it in one line and exit 1, whatever the
command, the password masked: never a traceback (cli/errors.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.catalog.db import CatalogURLError, create_catalog_engine

COMMANDS = (("status",), ("crawl", "--brand", "chloe"), ("names", "list"),
            ("coverage", "list"))


def command(args: tuple[str, ...], database_url: str, home: Path
            ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FASHION_DATABASE_URL": database_url, "FASHION_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "fashion_assets", *args], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args))
def test_a_database_that_refuses_connections_is_one_line(args: tuple[str, ...],
                                                         tmp_path: Path) -> None:
    with socket.socket() as taken:  # bound, never listening: a connection there is refused
        taken.bind(("127.0.0.1", 0))
        url = f"postgresql+psycopg2://editor:s3cret@127.0.0.1:{taken.getsockname()[1]}/c"
        done = command(args, url, tmp_path)
    assert done.returncode == 1 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert line.startswith("Error: the catalog database postgresql+psycopg2://editor:***@"), line
    assert "Connection refused" in line and "set FASHION_DATABASE_URL" in line, line
    assert "s3cret" not in done.stderr


@pytest.mark.parametrize(("url", "said"), [
    ("mysql://u@h/db", "unsupported catalog database URL mysql://u@h/db"),
    ("postgresql://u:pw@h/db", "through psycopg2"),
    ("::not a url::", "is not a database URL"),
])
def test_a_url_the_catalog_cannot_use_is_one_line(url: str, said: str, tmp_path: Path) -> None:
    done = command(("status",), url, tmp_path)
    assert done.returncode == 1 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert said in line and line.endswith("(FASHION_DATABASE_URL)"), line
    assert ":pw@" not in line


# Text alone, and text after the schemes the catalog reads (sqlite's would create folders).
URLS = st.text(max_size=80) | st.builds(
    str.__add__, st.sampled_from(["postgresql+psycopg2://", "postgresql://", "mysql://",
                                  "postgresql+psycopg2://u:p@h:"]), st.text(max_size=60))


@given(URLS)
def test_any_text_as_a_url_gives_an_engine_or_a_catalog_url_error(url: str) -> None:
    """No connection is made: the URL is only read. Whatever the text (NUL bytes, Unicode
    digits, ports past 64 bits), the command's one line or an engine, nothing else."""
    try:
        engine = create_catalog_engine(url)
    except CatalogURLError as error:
        assert "\n" not in str(error)
    else:
        engine.dispose()


@pytest.mark.parametrize("args", [("replica", "serve"), ("review", "serve"), ("api", "serve")],
                         ids=lambda args: " ".join(args))
def test_a_port_another_program_listens_on_is_one_line(args: tuple[str, ...],
                                                       tmp_path: Path) -> None:
    """Nothing announced, no server's log: the line names the address and what to do."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = command((*args, "--port", str(port)), f"sqlite:///{tmp_path / 'c.db'}",
                       tmp_path)
    assert done.returncode == 1 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert line.startswith("Error: "), line
    assert f"('127.0.0.1', {port})" in line or f"127.0.0.1:{port}" in line, line
    assert line.endswith("another program listens there; stop it, or choose another port "
                         "(--port)"), line


@pytest.mark.parametrize("args", [("review", "serve"), ("api", "serve")],
                         ids=lambda args: " ".join(args))
def test_a_trusted_proxy_that_is_no_address_is_one_line(args: tuple[str, ...],
                                                        tmp_path: Path) -> None:
    """uvicorn would take ``proxy.example`` for a socket's name and trust nothing, silently."""
    env = {**os.environ, "FASHION_DATABASE_URL": f"sqlite:///{tmp_path / 'c.db'}",
           "FASHION_HOME": str(tmp_path), "FASHION_TRUSTED_PROXIES": "10.0.0.5, proxy.example"}
    done = subprocess.run([sys.executable, "-m", "fashion_assets", *args, "--port", "0"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.splitlines()[-1] == (
        "Error: FASHION_TRUSTED_PROXIES: 'proxy.example' is not an address or a network "
        "(10.0.0.5, 10.0.0.0/24)"), done.stderr
