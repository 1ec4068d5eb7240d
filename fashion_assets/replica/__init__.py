"""An offline replica of the source sites: Vogue Runway and theImpression, their site models,
pages and photos, and the server that gives each site and CDN an origin of its own.

The machines have no internet, so tests, the demo and the benchmarks crawl this replica,
which speaks each real site's page format (shared/sources.md for Vogue, docs/theimpression.md
for theImpression) with its variations and faults.
"""

from fashion_assets.replica.build import ReplicaSite, build_site, with_changed_looks
from fashion_assets.replica.faults import FaultPlan
from fashion_assets.replica.images import photo_body, photo_bytes, warm_photos
from fashion_assets.replica.impression_site import (
    ImpressionArticle,
    ImpressionSite,
    RunwaySeason,
    StreetWeek,
)
from fashion_assets.replica.server import ReplicaServer, serve_forever, start_replica
from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    PHOTO_FAULTS,
    ROBOTS_BLOCKED_BRAND,
    ReplicaBrand,
    ReplicaGallery,
    ReplicaPhoto,
    ReplicaShow,
)
from fashion_assets.replica.stats import ReplicaStats

__all__ = [
    "HOSTILE_BRAND",
    "PHOTO_FAULTS",
    "ROBOTS_BLOCKED_BRAND",
    "FaultPlan",
    "ImpressionArticle",
    "ImpressionSite",
    "ReplicaBrand",
    "ReplicaGallery",
    "ReplicaPhoto",
    "ReplicaServer",
    "ReplicaShow",
    "ReplicaSite",
    "ReplicaStats",
    "RunwaySeason",
    "StreetWeek",
    "build_site",
    "photo_body",
    "photo_bytes",
    "serve_forever",
    "start_replica",
    "warm_photos",
    "with_changed_looks",
]
