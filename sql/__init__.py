"""The catalog migrations, shipped inside the package as ``fashion_assets.sql`` (the link
``fashion_assets/sql``; docs/architecture.md)."""
