#!/bin/sh
# The Temporal schema job of the compose topology: creates (if missing) and updates the
# persistence and visibility schemas of the Temporal server's Postgres databases with the
# release's temporal-sql-tool. Safe to run on every start.
set -eu
export SQL_PASSWORD="$(cat "$SQL_PASSWORD_FILE")"
tool() { temporal-sql-tool --plugin postgres12 --ep postgres -p 5432 -u temporal "$@"; }
for db in temporal temporal_visibility; do
  tool --db "$db" setup-schema -v 0.0 2>/dev/null || true # already set up: the update below moves it on
done
tool --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
tool --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned
echo "temporal schemas up to date"
