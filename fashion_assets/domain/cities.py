"""The fashion-week cities the catalog starts with, and the spellings the sources use.

Street-style albums are keyed by city, and Vogue prefixes some show titles with a city or a
country (`Tokyo Fall 2015`, `Ukraine Spring 2019`). A country prefix stands for the
city its fashion week is held in, so it is an alias of that city. Short forms
(`NYFW`, `PFW`, `CPHFW`) are how listings and captions write the weeks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeedCity:
    slug: str
    name: str
    aliases: tuple[str, ...] = ()


SEED_CITIES: tuple[SeedCity, ...] = (
    SeedCity("paris", "Paris", ("PFW", "Paris Fashion Week")),
    SeedCity("milan", "Milan", ("Milano", "MFW", "Milan Fashion Week")),
    SeedCity("london", "London", ("LFW", "London Fashion Week")),
    SeedCity("new-york", "New York", ("New York City", "NYC", "NYFW", "New York Fashion Week")),
    SeedCity("copenhagen", "Copenhagen", ("København", "CPHFW", "Copenhagen Fashion Week")),
    SeedCity("tokyo", "Tokyo", ("TFW", "Tokyo Fashion Week")),
    SeedCity("seoul", "Seoul", ("SFW", "Seoul Fashion Week")),
    SeedCity("berlin", "Berlin", ("BFW", "Berlin Fashion Week")),
    SeedCity("stockholm", "Stockholm", ("Stockholm Fashion Week",)),
    SeedCity("tbilisi", "Tbilisi", ("Tbilisi Fashion Week",)),
    SeedCity("kyiv", "Kyiv", ("Kiev", "Ukraine", "UFW", "Ukrainian Fashion Week")),
    SeedCity("sao-paulo", "São Paulo", ("São Paolo", "SPFW", "São Paulo Fashion Week")),
    SeedCity("mexico-city", "Mexico City", ("Mexico", "Ciudad de México")),
    SeedCity("madrid", "Madrid", ("Spain", "MBFW Madrid")),
    SeedCity("shanghai", "Shanghai", ("Shanghai Fashion Week",)),
    SeedCity("istanbul", "Istanbul", ("İstanbul",)),
    SeedCity("sydney", "Sydney", ("Australia", "AAFW", "Australian Fashion Week")),
    SeedCity("moscow", "Moscow", ("Russia", "MBFW Russia")),
    SeedCity("los-angeles", "Los Angeles", ("LA",)),
    SeedCity("florence", "Florence", ("Firenze", "Pitti Uomo")),
    SeedCity("oslo", "Oslo", ("Oslo Runway",)),
    SeedCity("helsinki", "Helsinki", ()),
    SeedCity("amsterdam", "Amsterdam", ()),
    SeedCity("lisbon", "Lisbon", ("Lisboa",)),
)
