"""An offline replica of Vogue Runway: the site model, its pages and photos, and its server.

The machines have no internet, so tests, the demo and the benchmarks crawl this replica,
which speaks the real site's page format (shared/sources.md) with its variations and faults.
"""

from fashion_assets.replica.images import photo_body, photo_bytes, warm_photos
from fashion_assets.replica.server import (
    FaultPlan,
    ReplicaServer,
    ReplicaStats,
    serve_forever,
    start_replica,
)
from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    PHOTO_FAULTS,
    ROBOTS_BLOCKED_BRAND,
    ReplicaBrand,
    ReplicaGallery,
    ReplicaPhoto,
    ReplicaShow,
    ReplicaSite,
    build_site,
)

__all__ = [
    "HOSTILE_BRAND",
    "PHOTO_FAULTS",
    "ROBOTS_BLOCKED_BRAND",
    "FaultPlan",
    "ReplicaBrand",
    "ReplicaGallery",
    "ReplicaPhoto",
    "ReplicaServer",
    "ReplicaShow",
    "ReplicaSite",
    "ReplicaStats",
    "build_site",
    "photo_body",
    "photo_bytes",
    "serve_forever",
    "start_replica",
    "warm_photos",
]
