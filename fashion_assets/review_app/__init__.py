"""The review web page: the queue of drafts, one draft with its photos, and the review forms.

A thin Starlette layer over ``catalog/review.py``: every action goes through the same
``review(...)`` as the CLI, so the page can never do what the rule refuses.
"""

from fashion_assets.review_app.app import create_app
from fashion_assets.review_app.security import is_loopback

__all__ = ["create_app", "is_loopback"]
