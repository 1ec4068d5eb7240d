"""Dagster sensors. Installed as ``fashion_assets.sensors`` (see pyproject): a top-level
``sensors`` module would collide with other distributions."""
