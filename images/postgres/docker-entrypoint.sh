#!/usr/bin/env bash
#
# Entrypoint of roboco-sandbox/postgres:{15,17}, compatible with the official postgres image:
#   POSTGRES_PASSWORD          required unless POSTGRES_HOST_AUTH_METHOD=trust
#   POSTGRES_USER              superuser name (default postgres)
#   POSTGRES_DB                database created at init (default = POSTGRES_USER)
#   POSTGRES_INITDB_ARGS       extra initdb arguments
#   POSTGRES_HOST_AUTH_METHOD  pg_hba method for TCP connections (default scram-sha-256)
#   PGDATA                     data directory (default /var/lib/postgresql/data)
# Differences: no temporary init server (single-user mode instead, much faster) and no
# /docker-entrypoint-initdb.d support.
#
# Initialisation has two paths:
#   fast:   copy the data directory initdb'ed at image build ($PG_TEMPLATE), then name
#           the superuser, set its password and create POSTGRES_DB in ONE single-user
#           session (~0.4 s instead of ~1.7 s for initdb). Used when
#           POSTGRES_INITDB_ARGS is empty and ROBOCO_PG_TEMPLATE is not 0.
#   initdb: initdb --pwfile + single-user CREATE DATABASE (any POSTGRES_INITDB_ARGS).
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
: "${PG_TEMPLATE:=/opt/roboco/pgdata-template}"
: "${ROBOCO_PG_TEMPLATE:=1}"
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

# SQL quoting helpers. Identifiers: "..." with " doubled. Literals: E'...' with
# backslash, quote, newline and CR escaped, so every statement stays on one line
# (single-user mode ends a statement at a newline).
sql_ident() { local s="${1//\"/\"\"}"; printf '"%s"' "$s"; }
sql_literal() {
  local s="${1//\\/\\\\}"
  s="${s//\'/\\\'}"; s="${s//$'\n'/\\n}"; s="${s//$'\r'/\\r}"
  printf "E'%s'" "$s"
}

# single_user SQL_LINES: run statements (one per line, read from stdin) in a single-user
# backend: no server, no port. Statement text is never logged (it may hold the password).
single_user() {
  local out
  if ! out="$(postgres --single -D "$PGDATA" -c fsync=off -c log_min_error_statement=panic \
                -c log_min_messages=warning postgres 2>&1 >/dev/null)" || [[ "$out" == *ERROR* ]]; then
    log "initialisation failed: $out"
    exit 1
  fi
}

# Access configuration shared by both paths (appended, as the official image does).
configure_access() {
  printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
}

init_from_template() {
  cp -a "$PG_TEMPLATE/." "$PGDATA/"
  # The template was made with --auth-host=scram-sha-256; apply the requested method.
  if [[ "$POSTGRES_HOST_AUTH_METHOD" != scram-sha-256 ]]; then
    sed -i -E "s/^(host[[:space:]].*[[:space:]])scram-sha-256\$/\\1$POSTGRES_HOST_AUTH_METHOD/" "$PGDATA/pg_hba.conf"
  fi
  configure_access
  {
    # The bootstrap superuser (oid 10) is "postgres" in the template. Single-user mode
    # runs AS that role, which ALTER ROLE ... RENAME refuses, so rename it in the catalog.
    if [[ "$POSTGRES_USER" != postgres ]]; then
      printf 'UPDATE pg_authid SET rolname = %s WHERE oid = 10;\n' "$(sql_literal "$POSTGRES_USER")"
    fi
    if [[ -n "${POSTGRES_PASSWORD:-}" ]]; then
      printf 'ALTER ROLE %s PASSWORD %s;\n' "$(sql_ident "$POSTGRES_USER")" "$(sql_literal "$POSTGRES_PASSWORD")"
    fi
    if [[ "$POSTGRES_DB" != postgres ]]; then
      printf 'CREATE DATABASE %s STRATEGY = FILE_COPY;\n' "$(sql_ident "$POSTGRES_DB")"
    fi
  } | single_user
}

init_with_initdb() {
  local pw_args=() locale=C
  # The password travels through a pipe (stdin), never argv or the log.
  if [[ -n "${POSTGRES_PASSWORD:-}" ]]; then pw_args=(--pwfile=/dev/stdin); fi
  if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then locale=C.UTF-8; fi

  # shellcheck disable=SC2086  # POSTGRES_INITDB_ARGS is a word list by contract
  printf '%s' "${POSTGRES_PASSWORD:-}" | initdb --username="$POSTGRES_USER" "${pw_args[@]}" \
    --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" \
    -E UTF8 --locale="$locale" --no-sync --no-instructions \
    $POSTGRES_INITDB_ARGS >/dev/null
  configure_access
  if [[ "$POSTGRES_DB" != postgres ]]; then
    printf 'CREATE DATABASE %s STRATEGY = FILE_COPY;\n' "$(sql_ident "$POSTGRES_DB")" | single_user
  fi
}

init_database() {
  if [[ -z "${POSTGRES_PASSWORD:-}" && "$POSTGRES_HOST_AUTH_METHOD" != trust ]]; then
    log 'Database is uninitialized and superuser password is not specified.'
    log '  Set POSTGRES_PASSWORD to a non-empty value for the superuser,'
    log '  or POSTGRES_HOST_AUTH_METHOD=trust to allow all connections without a password.'
    exit 1
  fi
  if [[ -d /docker-entrypoint-initdb.d ]] && [[ -n "$(ls -A /docker-entrypoint-initdb.d 2>/dev/null)" ]]; then
    log 'WARNING: /docker-entrypoint-initdb.d is not supported by this image; ignoring it'
  fi
  if [[ -z "$POSTGRES_INITDB_ARGS" && "$ROBOCO_PG_TEMPLATE" != 0 && -s "$PG_TEMPLATE/PG_VERSION" ]]; then
    init_from_template
  else
    init_with_initdb
  fi
  log "initialized $PGDATA (user \"$POSTGRES_USER\", database \"$POSTGRES_DB\")"
}

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  init_database
fi

exec "$@"
