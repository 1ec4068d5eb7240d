"""``blanket_verdict``: the answer robots.txt gives every URL of an origin, when it gives one,
is exactly what ``RobotFileParser.can_fetch`` answers for each URL."""

from __future__ import annotations

import random

from fashion_assets.crawl.robots import blanket_verdict, rules_from

AGENTS = ("fashion-assets/1.0 (+https://example.org)", "Googlebot", "other")
LINES = ("User-agent: *", "User-agent: fashion-assets", "User-agent: googlebot",
         "Disallow:", "Disallow: /", "Disallow: *", "Allow: *", "Allow: /", "Allow:",
         "Disallow: /fashion-shows/designer/robots-blocked", "Allow: /photos/",
         "Disallow: /photos/%7Epriv", "Disallow: /a b", "Crawl-delay: 2", "# a comment", "",
         "Sitemap: https://example.org/sitemap.xml", "garbage line")
URLS = ("https://cdn.example.org/", "https://cdn.example.org/photos/look.jpg",
        "https://cdn.example.org/photos/~priv/a.jpg", "https://cdn.example.org/a%20b/c",
        "https://www.example.org/fashion-shows/designer/robots-blocked",
        "https://www.example.org/fashion-shows/designer/robots-blocked-not?x=1",
        "https://www.example.org/fashion-shows/spring-2024-ready-to-wear/x",
        "https://www.example.org", "https://www.example.org/?q=%2F", "https://www.example.org?q")


def test_a_blanket_verdict_is_can_fetchs_answer_for_every_url() -> None:
    rng = random.Random(16)
    given = 0
    for _ in range(3000):
        text = None if rng.random() < 0.05 else "\n".join(
            rng.choice(LINES) for _ in range(rng.randint(0, 8)))
        rules = rules_from(text)
        if rng.random() < 0.05:
            rules.disallow_all, rules.allow_all = rng.choice([(True, False), (False, True)])
        for agent in AGENTS:
            verdict = blanket_verdict(rules, agent)
            if verdict is None:
                continue
            given += 1
            assert all(rules.can_fetch(agent, url) is verdict for url in URLS), (text, agent)
    assert given > 3000  # most generated files give one: the check above ran


def test_the_usual_files_give_a_verdict_and_a_path_rule_gives_none() -> None:
    agent = AGENTS[0]

    assert blanket_verdict(rules_from(None), agent) is True
    assert blanket_verdict(rules_from("User-agent: *\nDisallow:\n"), agent) is True
    # "/" matches no URL whose path is empty and query is not ("https://host?q"): a path rule
    assert blanket_verdict(rules_from("User-agent: *\nDisallow: /\n"), agent) is None
    assert blanket_verdict(rules_from("User-agent: googlebot\nDisallow: /\n"), agent) is True
    assert blanket_verdict(rules_from("User-agent: *\nDisallow: /private\n"), agent) is None
    # The agent's own group is the one that counts, not "*"'s.
    assert blanket_verdict(rules_from("User-agent: fashion-assets\nDisallow: /private\n"
                                      "\nUser-agent: *\nDisallow:\n"), agent) is None
    assert blanket_verdict(rules_from("User-agent: googlebot\nDisallow: /private\n"
                                      "\nUser-agent: *\nDisallow:\n"), agent) is True
