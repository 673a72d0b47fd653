#!/usr/bin/env bash
#
# Entrypoint of roboco-sandbox/postgres:15, compatible with the official postgres image:
#   POSTGRES_PASSWORD          required unless POSTGRES_HOST_AUTH_METHOD=trust
#   POSTGRES_USER              superuser name (default postgres)
#   POSTGRES_DB                database created at init (default = POSTGRES_USER)
#   POSTGRES_INITDB_ARGS       extra initdb arguments
#   POSTGRES_HOST_AUTH_METHOD  pg_hba method for TCP connections (default scram-sha-256)
#   PGDATA                     data directory (default /var/lib/postgresql/data)
# Differences: no temporary init server (the database is created in single-user mode,
# which is much faster) and /docker-entrypoint-initdb.d is not supported.
set -Eeuo pipefail

# Arguments starting with '-' are postgres options: `docker run img -c fsync=off`.
if [[ $# -eq 0 || "${1:0:1}" == '-' ]]; then
  set -- postgres "$@"
fi

# Anything other than the server (bash, psql, ...) runs as asked.
if [[ "$1" != postgres ]]; then
  exec "$@"
fi

: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_INITDB_ARGS:=}"
: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
export PGDATA

log() { printf 'docker-entrypoint: %s\n' "$*" >&2; }

# As root: prepare directories, then re-exec as the postgres user (no gosu needed).
if [[ "$(id -u)" == 0 ]]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  chmod 2777 /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

# init_database: initdb + access config + POSTGRES_DB, all without starting a server.
init_database() {
  if [[ -z "${POSTGRES_PASSWORD:-}" && "$POSTGRES_HOST_AUTH_METHOD" != trust ]]; then
    log 'Database is uninitialized and superuser password is not specified.'
    log '  Set POSTGRES_PASSWORD to a non-empty value for the superuser,'
    log '  or POSTGRES_HOST_AUTH_METHOD=trust to allow all connections without a password.'
    exit 1
  fi
  local pw_args=()
  # The password travels through a pipe (stdin), never argv, the environment of a
  # child listing, or the log.
  if [[ -n "${POSTGRES_PASSWORD:-}" ]]; then pw_args=(--pwfile=/dev/stdin); fi
  local locale=C
  if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then locale=C.UTF-8; fi

  # shellcheck disable=SC2086  # POSTGRES_INITDB_ARGS is a word list by contract
  printf '%s' "${POSTGRES_PASSWORD:-}" | initdb --username="$POSTGRES_USER" "${pw_args[@]}" \
    --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" \
    -E UTF8 --locale="$locale" --no-sync --no-instructions \
    $POSTGRES_INITDB_ARGS >/dev/null

  printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"

  if [[ "$POSTGRES_DB" != postgres ]]; then
    # Single-user backend: no temporary server, no port, ~tens of milliseconds.
    local out ident="\"${POSTGRES_DB//\"/\"\"}\""
    if ! out="$(printf 'CREATE DATABASE %s;\n' "$ident" \
                  | postgres --single -D "$PGDATA" -c fsync=off postgres 2>&1 >/dev/null)"; then
      log "creating database failed: $out"
      exit 1
    fi
    if [[ "$out" == *ERROR* ]]; then log "creating database failed: $out"; exit 1; fi
  fi
  log "initialized $PGDATA (user \"$POSTGRES_USER\", database \"$POSTGRES_DB\")"
}

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  if [[ -d /docker-entrypoint-initdb.d ]] && [[ -n "$(ls -A /docker-entrypoint-initdb.d 2>/dev/null)" ]]; then
    log 'WARNING: /docker-entrypoint-initdb.d is not supported by this image; ignoring it'
  fi
  init_database
fi

exec "$@"
