"""``python -m fashion_assets.replica``: serve a replica until SIGTERM/SIGINT.

For crawlers and benchmarks in another process (the Scrapy comparison runs one); the first
stdout line is the two origins' URLs as JSON.
"""

from __future__ import annotations

import argparse

from fashion_assets.replica.server import serve_forever


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m fashion_assets.replica", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="site origin port (0: any free)")
    parser.add_argument("--cdn-port", type=int, default=0, help="CDN origin port (0: any free)")
    parser.add_argument("--brands", type=int, default=3)
    parser.add_argument("--shows", type=int, default=4, help="shows per brand")
    parser.add_argument("--photos", type=int, default=12, help="photos per show")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-hostile", dest="hostile", action="store_false")
    parser.add_argument(
        "--warm", action="store_true", help="encode every photo before announcing readiness"
    )
    args = parser.parse_args(argv)
    serve_forever(**vars(args))


if __name__ == "__main__":
    main()
