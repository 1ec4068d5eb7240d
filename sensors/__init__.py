"""Dagster sensors, imported as ``fashion_assets.sensors`` (the link ``fashion_assets/sensors``;
docs/architecture.md): a top-level ``sensors`` module would collide with other distributions."""
