-- fashion-assets catalog, version 13: editors with their own accounts, and their sessions.

-- An editor signs in to the review page with a name and a password, kept only as a salted
-- scrypt hash (domain/passwords.py). An admin may also manage the other editors. A disabled
-- editor can no longer sign in, and their sessions end at once.
CREATE TABLE editors (
    id AUTO_ID,
    name TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('editor', 'admin')),
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    password_changed_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    disabled_at TIMESTAMP
);

-- A signed-in browser: the cookie carries a random token, this table only its sha256, so a
-- copy of the table signs nobody in. A session ends at sign-out, when its editor is disabled
-- or changes password, after its idle time, and after its absolute lifetime, whichever is
-- first (catalog/editors.py).
CREATE TABLE editor_sessions (
    token_hash TEXT PRIMARY KEY,
    editor_id INTEGER NOT NULL REFERENCES editors (id),
    created_at TIMESTAMP NOT NULL,
    last_seen_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP
);
CREATE INDEX ix_editor_sessions_editor ON editor_sessions (editor_id);
