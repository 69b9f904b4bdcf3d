-- +goose Up
-- The integrator dashboard's accounts (docs/dashboard.md): the people of an integrator who sign
-- in to /dashboard, their sessions, the one-time sign-in links an admin or an owner issues, and
-- the sign-in attempts the limits count.
--
-- No credential is stored as it is: a password is kept as its argon2id hash (the parameters in
-- the encoded string, so they can be raised later), a session token and a link token as their
-- SHA-256 (both are 256 random bits, so no stretching is needed), and an attempt's email or
-- client address as its SHA-256, so that the attempts table is no list of who tried to sign in.

CREATE TABLE dashboard_users (
    id            uuid PRIMARY KEY,
    integrator_id uuid        NOT NULL REFERENCES integrators (id),
    email         text        NOT NULL,  -- lower case, compared as such
    role          text        NOT NULL CHECK (role IN ('owner', 'developer', 'support')),
    password_hash text,                  -- NULL: no password yet (signs in by link)
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_sign_in  timestamptz
);
CREATE UNIQUE INDEX dashboard_users_email_idx ON dashboard_users (email);
CREATE INDEX dashboard_users_integrator_idx ON dashboard_users (integrator_id, created_at);

-- A session ends at expires_at, at sign-out (the row is deleted), or with its user.
CREATE TABLE dashboard_sessions (
    token_hash bytea PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    remote     text        NOT NULL DEFAULT ''
);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at);

-- A one-time link is used once (used_at), before expires_at.
CREATE TABLE dashboard_links (
    token_hash bytea PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX dashboard_links_user_idx ON dashboard_links (user_id);

-- Every sign-in attempt not (yet) known to have succeeded, by the SHA-256 of what it is counted
-- under ('email:<address>' or 'ip:<client>'); a success removes its email's row.
CREATE TABLE dashboard_signin_attempts (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subject   bytea       NOT NULL,
    at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_signin_attempts_subject_idx ON dashboard_signin_attempts (subject, at);
