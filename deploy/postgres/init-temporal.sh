#!/bin/sh
# Runs once, on the first start of the compose topology's Postgres: the temporal role (its
# password from the temporal_db_password secret) and its two databases, apart from intentd's.
set -eu
password=$(cat /run/secrets/temporal_db_password)
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE temporal LOGIN PASSWORD '$password';
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;
SQL
