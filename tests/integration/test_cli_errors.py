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


SERVERS = [("replica", "serve"), ("review", "serve"), ("api", "serve")]


@pytest.mark.parametrize("args", SERVERS, ids=lambda args: " ".join(args))
@pytest.mark.parametrize("port", ["65536", "-1", "٣"])
def test_a_port_that_is_none_is_a_usage_line(args: tuple[str, ...], port: str,
                                             tmp_path: Path) -> None:
    """Past 65535 was a bind's OverflowError traceback; '٣' was taken as port 3."""
    done = command((*args, "--port", port), f"sqlite:///{tmp_path / 'c.db'}", tmp_path)
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '--port': {port!r} is not a whole number from 0 to 65535")


def test_an_address_that_is_not_this_machines_is_one_line(tmp_path: Path) -> None:
    """A name that resolves nowhere was an OSError traceback after the bind (the review page
    refuses any address but loopback before its first editor account, in a usage line)."""
    done = command(("api", "serve", "--host", "nowhere.invalid", "--port", "0"),
                   f"sqlite:///{tmp_path / 'c.db'}", tmp_path)
    assert done.returncode == 1 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert line.startswith("Error: cannot listen on nowhere.invalid:0: "), line
    assert line.endswith("give an address of this machine (--host, e.g. 127.0.0.1) and a port "
                         "this user may open (--port, 1024 or above)"), line


@pytest.mark.parametrize("args", [("replica", "serve", "--port", "0", "--cdn-port", "0",
                                   "--impression-port", "0", "--impression-cdn-port", "0"),
                                  ("demo",)], ids=["replica serve", "demo"])
@pytest.mark.parametrize("shape", [("--shows", "0"), ("--photos", "100000000")],
                         ids=lambda shape: " ".join(shape))
def test_a_replica_shape_it_cannot_build_is_one_line(args: tuple[str, ...],
                                                      shape: tuple[str, ...],
                                                      tmp_path: Path) -> None:
    """Refused before anything is built or started: a ValueError's traceback before, and
    for a hundred million photos a show, the machine's memory."""
    done = command((*args, *shape), f"sqlite:///{tmp_path / 'c.db'}", tmp_path)
    assert done.returncode == 1 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert line.startswith("Error: a replica of ") and "(--brands, --shows, --photos" in line
