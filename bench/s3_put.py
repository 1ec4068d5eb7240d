"""What one S3 PUT of a photo costs the crawl's process: boto3's ``put_object`` against the
store's own ``put_async`` (a PUT signed by botocore's signer, sent with aiohttp), one after
the other against moto's S3 server over HTTP.

    python -m bench.s3_put [--count 400]

Prints, for each, the client's CPU time per PUT (``time.process_time``: this process
only, not the server) and the wall time per PUT, one request at a time; twice each,
alternating, so that a warming server favours neither. docs/performance.md quotes it.
"""

from __future__ import annotations

import argparse
import os
import time

import boto3

from fashion_assets.crawl import loop
from fashion_assets.storage import S3Store, object_key
from tests.s3server import start_moto_server

BUCKET = "bench-s3-put"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=400, help="PUTs per round")
    count = parser.parse_args().count
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
                       "AWS_DEFAULT_REGION": "us-east-1"})
    with start_moto_server() as server:
        store = S3Store(BUCKET, "photos", endpoint_url=server.endpoint_url)
        store.ensure_bucket()
        client = boto3.client("s3", endpoint_url=server.endpoint_url)

        def with_boto3(body: bytes) -> None:
            client.put_object(Bucket=BUCKET, Key=f"boto3/{object_key(body)}", Body=body,
                              ContentType="image/jpeg", IfNoneMatch="*")

        async def with_put_async(bodies: list[bytes]) -> None:
            for body in bodies:
                await store.put_async(object_key(body), body, "image/jpeg")

        for _ in range(2):
            bodies = [os.urandom(5700) for _ in range(count)]  # the replica's photo size
            cpu, wall = time.process_time(), time.perf_counter()
            for body in bodies:
                with_boto3(body)
            _report("boto3 put_object", count, cpu, wall)
            bodies = [os.urandom(5700) for _ in range(count)]
            cpu, wall = time.process_time(), time.perf_counter()
            loop.run(with_put_async(bodies))
            _report("S3Store.put_async", count, cpu, wall)


def _report(label: str, count: int, cpu: float, wall: float) -> None:
    print(f"{label}: {(time.process_time() - cpu) / count * 1000:.2f} ms of CPU and "
          f"{(time.perf_counter() - wall) / count * 1000:.2f} ms of wall time per PUT",
          flush=True)


if __name__ == "__main__":
    main()
