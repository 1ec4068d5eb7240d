-- fashion-assets catalog, version 14: failed sign-ins to the review page, counted per account
-- ('account:<name>') and per client address ('address:<ip>') over the current window, and
-- the lockout they led to. The rule is domain/sign_in_limits.py; a success clears the
-- account's row, and `fashion-assets editors unlock` lifts an account's lockout.
CREATE TABLE sign_in_failures (
    subject TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    first_failure_at TIMESTAMP NOT NULL,
    locked_until TIMESTAMP
);
