"""How a count reads: "1 photo", "2 photos", "0 photos"; the one rule every line a person
reads takes its counted nouns from (the CLI's outputs, the crawl's lines), so that none says
"1 waiting articles" or "1 brands".

English plurals of the nouns the project counts are regular but for their endings: a
consonant and "y" become "ies" (city, gallery), a hissing end takes "es" (pass, re-fetch,
box). The last word of a phrase is the one that changes ("1 waiting article", "2 street
albums"). A noun whose plural is none of these is given its plural by the caller.
"""

from __future__ import annotations

_VOWELS = frozenset("aeiou")
_HISSING_ENDS = ("s", "x", "z", "ch", "sh")


def plural(noun: str) -> str:
    """The plural of ``noun`` (a word or a phrase ending in the counted word)."""
    if noun.endswith("y") and len(noun) > 1 and noun[-2].lower() not in _VOWELS:
        return noun[:-1] + "ies"
    if noun.endswith(_HISSING_ENDS):
        return noun + "es"
    return noun + "s"


def counted(count: int, noun: str, plural_form: str | None = None) -> str:
    """``count`` and ``noun``, singular for exactly one and plural otherwise (zero too):
    "1 show", "0 shows", "3 cities", "12,400 bytes"; ``plural_form`` when the rule does not
    make it."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count:,} {plural_form or plural(noun)}"


def agreeing(count: int, singular: str, plural_form: str) -> str:
    """The verb that agrees with ``count`` of a counted noun: "1 article waits", "3 articles
    wait" (the same exactly-one rule as ``counted``)."""
    return singular if count == 1 else plural_form
