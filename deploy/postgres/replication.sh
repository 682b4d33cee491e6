#!/bin/sh
# Runs once, when the primary's data directory is created: a replication role for the replica.
set -eu
psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -c "CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD 'replicator-dev-only'"
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
