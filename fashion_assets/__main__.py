"""``python -m fashion_assets``: the same as the ``fashion-assets`` command."""

from fashion_assets.cli import main

main()
