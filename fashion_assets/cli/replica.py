"""``fashion-assets replica``: the offline replica of the source sites, served on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from fashion_assets.cli.common import PORT, WholeNumber
from fashion_assets.demo import replica_env


@click.group()
def replica() -> None:
    """The project's offline replica of the source sites."""


@replica.command("serve")
@click.option("--port", type=PORT, default=8801, show_default=True,
              help="Site origin port (0: any free).")
@click.option("--cdn-port", type=PORT, default=8802, show_default=True,
              help="CDN origin port (0: any free).")
@click.option("--impression-port", type=PORT, default=8803, show_default=True,
              help="theImpression site origin port (0: any free).")
@click.option("--impression-cdn-port", type=PORT, default=8804, show_default=True,
              help="theImpression CDN origin port (0: any free).")
@click.option("--brands", "brand_count", type=WholeNumber(), default=3, show_default=True,
              help="Brands, besides the hostile ones (--hostile).")
@click.option("--shows", type=WholeNumber(), default=4, show_default=True,
              help="Shows per brand.")
@click.option("--photos", type=WholeNumber(), default=12, show_default=True,
              help="Photos per show.")
@click.option("--seed", type=WholeNumber(), default=0, show_default=True,
              help="Seed of the generated pages and photos: the same seed, the same site.")
@click.option("--hostile/--no-hostile", default=True, show_default=True,
              help="Include the brands that serve bad input.")
@click.option("--warm", is_flag=True, help="Encode every photo before announcing readiness.")
@click.option("--archive", "corpus", type=click.Path(exists=True, file_okay=False,
                                                     path_type=Path),
              help="Serve the archive-shaped replica instead, Vogue only: every designer and "
                   "show of the real listings in this folder (vogue_designers.txt and "
                   "vogue_show_titles.csv, as in the repository's tests/data), each show of "
                   "--photos looks. --brands, --shows and --hostile do not apply.")
@click.option("--fraction", default=1.0, show_default=True, type=click.FloatRange(0, 1,
                                                                                  min_open=True),
              help="With --archive: the part of its designers to serve (0.05: about 5%).")
def replica_serve(port: int, cdn_port: int, impression_port: int, impression_cdn_port: int,
                  brand_count: int, shows: int, photos: int, seed: int, hostile: bool,
                  warm: bool, corpus: Path | None, fraction: float) -> None:
    """Serve the replica (Vogue and theImpression) until interrupted.

    The first line printed is the four origins as JSON (for scripts); the settings that point
    the pipeline at the replica follow on stderr.
    """
    from fashion_assets.replica.server import origins, serve_forever

    if corpus is not None:
        from fashion_assets.replica.archive import Corpus, build_archive

        site = build_archive(Corpus.read(corpus), fraction=fraction, photos_per_show=photos,
                             seed=seed)
    else:
        from fashion_assets.replica.build import build_site

        site = build_site(brands=brand_count, shows_per_brand=shows, photos_per_show=photos,
                          seed=seed, hostile=hostile)

    def announce(server: Any) -> None:
        click.echo(json.dumps(origins(server)))
        click.echo("point the pipeline at the replica with:\n" + "\n".join(
            f"  export {k}={v}" for k, v in replica_env(server).items()), err=True)

    serve_forever(site, port=port, cdn_port=cdn_port, impression_port=impression_port,
                  impression_cdn_port=impression_cdn_port, warm=warm, announce=announce)
