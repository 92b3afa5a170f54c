#!/bin/sh
# First start: initialise $PGDATA with POSTGRES_USER (password POSTGRES_PASSWORD, or the content
# of the file POSTGRES_PASSWORD_FILE names; scram-sha-256 over TCP) and create POSTGRES_DB, as the
# official image does. Then PostgreSQL replaces this shell, so it is PID 1 and gets the stop
# signal itself (SIGINT: fast shutdown).
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    echo "POSTGRES_PASSWORD, POSTGRES_PASSWORD_FILE: both are set" >&2
    exit 1
  fi
  if [ ! -r "$POSTGRES_PASSWORD_FILE" ] || [ -d "$POSTGRES_PASSWORD_FILE" ]; then
    echo "POSTGRES_PASSWORD_FILE: cannot read $POSTGRES_PASSWORD_FILE as uid $(id -u)" >&2
    exit 1
  fi
  # $(...) drops the trailing line breaks, as the official image does.
  POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
fi
if [ -z "${POSTGRES_PASSWORD:-}" ]; then
  echo "POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE) must be set" >&2
  exit 1
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" |
      postgres --single -j -D "$PGDATA" postgres >/dev/null
  fi
  echo "initialised $PGDATA with database $POSTGRES_DB" >&2
fi
if [ "$1" = postgres ]; then
  shift
  exec postgres -D "$PGDATA" "$@"
fi
exec "$@"
