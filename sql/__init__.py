"""The catalog migrations, shipped inside the package as ``fashion_assets.sql`` (see pyproject)."""
