"""The read API: the catalog's promoted shows and street-style albums as JSON, for anyone,
and the look search (which show and look a photo is).

A thin Starlette layer over ``catalog/published.py`` (what is published) and
``domain/paging.py`` (how it pages); ``fashion-assets api serve`` runs it.
"""

from fashion_assets.catalog_api.app import create_api

__all__ = ["create_api"]
