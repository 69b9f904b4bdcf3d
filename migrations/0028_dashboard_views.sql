-- +goose Up
-- The integrator dashboard's saved views of the requests (docs/dashboard.md, Requests): a named
-- query of GET /dashboard/api/requests, shared by every user of its integrator. The built-in
-- views (Failed, Refunds) are not stored: the API answers them before these.
CREATE TABLE dashboard_views (
    id            uuid PRIMARY KEY,
    integrator_id uuid        NOT NULL REFERENCES integrators (id) ON DELETE CASCADE,
    name          text        NOT NULL,
    icon          text        NOT NULL,
    colour        text        NOT NULL,
    query         jsonb       NOT NULL,
    sort          text        NOT NULL DEFAULT '',
    columns       jsonb,
    created_by    uuid        REFERENCES dashboard_users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_views_integrator_idx ON dashboard_views (integrator_id, created_at);

-- An operator is a dashboard user of the engine's own staff: the request page links them to the
-- request's workflow in the Temporal Web UI. Only the admin API sets it.
ALTER TABLE dashboard_users ADD COLUMN operator boolean NOT NULL DEFAULT false;
