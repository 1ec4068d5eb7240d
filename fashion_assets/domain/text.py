"""The rules for text from outside: what the catalog keeps and people read (titles and names
whichever source and page they come from, ``titles.stored_title``, ``names.clean_name``;
editors' reasons, ``review.kept_reason``), and what a request may carry at all
(``refused_character``).

Sources send what they like: a title ending in a terminal escape (``\\x1b[0m`` recolours
the terminal that lists it), control characters, bidirectional overrides that reorder what
follows them on a page. Kept text holds none of them: escape sequences go whole (their
printable tail would survive a per-character filter), then every character of Unicode's
"other" categories (controls, format characters, surrogates, private use, unassigned)
except the zero-width joiners that some scripts and emoji need; line breaks and tabs become
spaces, runs of spaces one, and the text is cut at the caller's limit.
"""

from __future__ import annotations

import re
import unicodedata

# An ANSI/VT escape sequence: CSI (ESC [ ... final byte, or the one-byte CSI), OSC (ESC ] ...
# up to BEL or ESC \), or a two-character escape.
_TERMINAL_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])"
                              r"|\x9b[0-?]*[ -/]*[@-~]")
_SPACING = frozenset("\t\n\r\x0b\x0c\x85\u2028\u2029")
_JOINERS = frozenset("\u200c\u200d")  # zero-width non-joiner and joiner


def clean_text(text: str, limit: int) -> str:
    """``text`` as the catalog keeps it (see the module's docstring), at most ``limit``
    characters."""
    text = _TERMINAL_ESCAPE.sub("", text)
    kept = "".join(" " if c in _SPACING else c for c in text
                   if c in _SPACING or c in _JOINERS or unicodedata.category(c)[0] != "C")
    return " ".join(kept.split())[:limit]


# Control characters a form's text may hold: tab and the line breaks of a text area.
_FORM_SPACING = frozenset("\t\n\r")


def refused_character(text: str) -> str | None:
    """The first control character of ``text`` that no request may carry (NUL, escape, the
    other C0 and C1 controls but tab, CR and LF), or None. A filter, a name, a cursor or a
    path holding one names nothing in the catalog, PostgreSQL refuses a NUL in any string,
    and an escape reaches the terminal or page that shows it: refused where the request is
    read (``review_app/security.py``), a 400 that names the character."""
    for c in text:
        if c not in _FORM_SPACING and unicodedata.category(c) == "Cc":
            return c
    return None
