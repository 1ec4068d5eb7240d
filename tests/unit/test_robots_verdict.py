"""The client's verdicts on robots.txt are Protego's own: ``allows_every_url``, its one
shortcut past Protego (no URL judged when a file holds no rule), never allows a URL Protego
refuses, for any file, agent or URL; and ``Rules.allows`` answers what ``can_fetch`` does."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st
from protego import Protego

from fashion_assets.crawl.robots import allows_every_url, rules_from

AGENTS = ("fashion-assets-test", "fashion-assets/1.0 (+https://example.org)", "Googlebot",
          "other")
# Field names as Protego reads them, its aliases and tolerated misspellings included, and
# lines it reads as no directive at all.
FIELDS = ("User-agent", "user-agent", "User agent", "Useragent", "Disallow", "DISALLOW",
          "Dissalow", "Disalow", "Diasllow", "Allow", "allow", "Sitemap", "Site-map",
          "Crawl-delay", "Crawl delay", "Host", "Request-rate", "Visit-time", "Noindex",
          "\ufeffUser-agent", "garbage", "")
VALUES = ("", " ", "*", "/", "/*", "/*.pdf$", "/photos/", "/photos/*/master/pass/", "$",
          "/a b", "/%7Epriv", "/~priv", "fashion-assets", "googlebot", "2", "1/5s",
          "0400-0845", "https://example.org/sitemap.xml", "http://example.org/a",
          "/fashion-shows/designer/robots-blocked", "/*?*utm_", "/index.html", "/x:y")
SEPARATORS = (": ", ":", " ", ":\t", " : ", "\t")
COMMENTS = ("", " # a comment", "#x", "# Disallow: /")
lines = st.one_of(
    st.builds(lambda f, s, v, c: f + s + v + c, st.sampled_from(FIELDS),
              st.sampled_from(SEPARATORS), st.sampled_from(VALUES), st.sampled_from(COMMENTS)),
    st.sampled_from(("", "# a comment", "   ", "User-agent: *", "Disallow:", "Allow:")),
    st.text(max_size=30),
)
files = st.lists(lines, max_size=10).map("\n".join)
# Files of lines that make no rule, mostly: the shortcut's own ground, where it answers.
quiet_lines = st.builds(lambda f, s, v, c: f + s + v + c,
                        st.sampled_from(("User-agent", "Sitemap", "Crawl-delay", "Host",
                                         "Disallow", "Allow", "Noindex", "# Disallow")),
                        st.sampled_from((":", ": ", " ")),
                        st.sampled_from(("", "", "*", "/", "/private", "googlebot")),
                        st.sampled_from(COMMENTS))
quiet_files = st.lists(quiet_lines, max_size=8).map("\n".join)
paths = st.text(string.ascii_letters + string.digits + "/.-_~%*$?=&;:@ é", max_size=40)
urls = st.one_of(
    st.sampled_from(("https://cdn.example.org/", "https://cdn.example.org",
                     "https://cdn.example.org?q", "https://www.example.org/robots.txt",
                     "https://cdn.example.org/photos/x/master/pass/look.jpg",
                     "https://cdn.example.org/lookbook.pdf", "https://cdn.example.org/a%20b",
                     "https://www.example.org/fashion-shows/designer/robots-blocked")),
    paths.map(lambda p: "https://cdn.example.org/" + p),
)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(files, quiet_files), st.sampled_from(AGENTS), st.lists(urls, max_size=6))
def test_the_clients_verdict_is_protegos_and_the_shortcut_never_allows_what_it_refuses(
        text: str, agent: str, some_urls: list[str]) -> None:
    parser, rules = Protego.parse(text), rules_from(text)
    for url in some_urls:
        answer = parser.can_fetch(url, agent)
        assert rules.allows(url, agent) is answer, (text, agent, url)
        if allows_every_url(text):
            assert answer, (text, agent, url)


def test_the_usual_files_take_the_shortcut_and_a_possible_rule_does_not() -> None:
    assert rules_from(None).allow_all  # a 4xx or a redirect: no rules
    for text in ("", "User-agent: *\nDisallow:\n", "User-agent: *\nDisallow: \n# Disallow: /\n",
                 "Sitemap: https://example.org/sitemap.xml\nUser-agent: *\nCrawl-delay: 2\n",
                 "User-agent: googlebot\nAllow:\n"):
        assert allows_every_url(text), text
    # Any line that might be a rule to Protego, however it is spelt, is left to it.
    for text in ("User-agent: *\nDisallow: /private\n", "User-agent: googlebot\nDisallow: /\n",
                 "User-agent: *\nDisallow /private\n", "User-agent: *\nDissalow: /x\n",
                 "User-agent: *\nDiasllow: /x\n", "User-agent: *\nAllow: /\n",
                 "User-agent: *\nnonsense\n"):
        assert not allows_every_url(text), text
