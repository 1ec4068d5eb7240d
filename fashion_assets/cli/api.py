"""``fashion-assets api serve``: the read API, the promoted catalog as JSON."""

from __future__ import annotations

import os

import click

from fashion_assets import settings
from fashion_assets.cli.common import PORT, catalog_engine


@click.group()
def api() -> None:
    """The read API: the catalog's shows and street-style albums as JSON."""


@api.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=PORT, default=8820, show_default=True, help="Port to listen on.")
def api_serve(host: str, port: int) -> None:
    """Serve the read API: brands, shows and street-style albums of the catalog with their
    photos, a page at a time (OpenAPI at /api/v1/openapi.json), and the look search
    (POST /api/v1/looks/search: a photo in, the catalog's closest looks out).

    Read-only and open to anyone, unless FASHION_API_TOKEN is set: then every request must
    carry it (Authorization: Bearer ...). Only promoted entries are shown, never a draft.
    """
    import uvicorn

    from fashion_assets.catalog.look_search import SearchRules
    from fashion_assets.catalog_api import create_api
    from fashion_assets.review_app.hosts import answered_hosts, trusted_proxies, url_host
    from fashion_assets.review_app.server import listening_socket, timed_config
    from fashion_assets.storage import answering_store

    try:
        cache_s = settings.positive_int(os.environ, "FASHION_API_CACHE_SECONDS")
        head_s = settings.positive_int(os.environ, "FASHION_REVIEW_HEAD_TIMEOUT")
        body_s = settings.positive_int(os.environ, "FASHION_REVIEW_BODY_TIMEOUT")
        proxies = trusted_proxies(settings.setting(os.environ, "FASHION_TRUSTED_PROXIES"))
        search = SearchRules.from_env(os.environ)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    token = settings.setting(os.environ, "FASHION_API_TOKEN")
    app = create_api(catalog_engine(), answering_store(settings.store_url(),
                                                       home=settings.home_dir()),
                     cache_s=cache_s, token=token, hosts=answered_hosts(
                         host, settings.setting(os.environ, "FASHION_API_HOSTS")),
                     search=search)
    sock = listening_socket(host, port)
    port = sock.getsockname()[1]  # the port it got, when asked for any (0)
    base = f"http://{url_host(host)}:{port}"
    click.echo(f"read API on {base}/api/v1/, catalog pages on {base}/catalog/ ("
               + ("a token is required" if token else "open to anyone") + ")")
    uvicorn.Server(timed_config(app, host=host, port=port, log_level="info",
                                head_timeout_s=head_s, body_timeout_s=body_s,
                                proxies=proxies)).run(sockets=[sock])
