-- The client reading an origin's robots.txt right now, until when its claim holds
-- (crawl/robots.py: ROBOTS_READ_CLAIM_S). Clients that start together would each find no
-- kept robots.txt and each ask the host; with a claim, one asks and the others wait for
-- what it keeps in robots_files. A claim past its time (its client died) is taken over.
CREATE TABLE robots_readers (
    origin TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    claimed_until DOUBLE PRECISION NOT NULL
);
