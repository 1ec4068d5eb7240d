"""The mistakes a user can make, each ended in one line and a non-zero exit, never a
traceback: a catalog database that is not there or not a database URL, a data folder that
cannot be made or written (FASHION_HOME), an object store URL that is none or a store out of
reach, a Dagster deployment the command cannot reach or start, a port another program listens
on or an address that is not this machine's, a replica shape too large to build, a command
stopped by a signal.

Caught once, where every command starts (``OneLineErrors``, the ``main`` group), so a
command written later gets the same lines without a try block of its own.
"""

from __future__ import annotations

import atexit
import errno
import gc
from typing import Any

import click


class OneLineErrors(click.Group):
    """A click group whose commands end a user's mistake with one line (``one_line``)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command; at the interpreter's exit, its objects are frozen (``gc.freeze``)
        before Python tears them down: the last collection over Dagster's and SQLAlchemy's
        objects took half a second of every command's end, for memory the exit frees anyway.
        Exit handlers still run (files, pools and loggers are closed by them)."""
        atexit.unregister(gc.freeze)  # once, however many commands a process invokes
        atexit.register(gc.freeze)
        return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SystemExit as stopped:
            message = getattr(stopped, "message", "")  # launch.crawl.CrawlStopped's line
            if message:
                click.echo(message, err=True)
            raise
        except Exception as exc:
            line = one_line(exc)
            if line is None:
                raise
            raise click.ClickException(line) from None


def one_line(exc: Exception) -> str | None:
    """The line that says what went wrong and what to do, for an error a user's setting or
    machine caused; None for any other error (a bug: its traceback is wanted)."""
    from sqlalchemy.exc import OperationalError

    from fashion_assets import settings
    from fashion_assets.catalog.db import CatalogURLError, redact_url
    from fashion_assets.folders import FolderError
    from fashion_assets.launch.deployment import DeploymentError
    from fashion_assets.replica.vogue_brands import ShapeError
    from fashion_assets.review_app.server import ListenError
    from fashion_assets.storage import MissingBucketError, StoreError, StoreURLError

    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:  # only a bind says it
        return (f"{exc.strerror}: another program listens there; stop it, or choose another "
                "port (--port)")
    if isinstance(exc, ShapeError):
        return f"{exc} (--brands, --shows, --photos; with --archive, --photos and --fraction)"
    if isinstance(exc, ListenError):  # an address that is not this machine's, a port denied
        return (f"{exc.strerror}: give an address of this machine (--host, e.g. 127.0.0.1) "
                "and a port this user may open (--port, 1024 or above)")
    if isinstance(exc, CatalogURLError):
        return f"{exc} (FASHION_DATABASE_URL)"
    if isinstance(exc, StoreURLError):
        return f"{exc} (FASHION_STORE_URL)"
    if isinstance(exc, StoreError | MissingBucketError):  # out of reach, no credentials
        return (f"the object store {settings.store_url()} cannot be used: {exc}; start it, or "
                "set FASHION_STORE_URL (with AWS_ENDPOINT_URL_S3 and the credentials) to one "
                "that answers")
    if isinstance(exc, DeploymentError | FolderError):
        return str(exc)
    if isinstance(exc, OperationalError):
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        return (f"the catalog database {redact_url(settings.database_url())} cannot be used: "
                f"{reason}; start it, or set FASHION_DATABASE_URL to one that runs")
    return None
