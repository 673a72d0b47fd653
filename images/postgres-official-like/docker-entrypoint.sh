#!/usr/bin/env bash
#
# Entrypoint of roboco-sandbox/postgres-official-like:15: the official postgres image's start-up
# sequence (docker_init_database_dir, pg_setup_hba_conf, docker_temp_server_start,
# docker_setup_db, docker_temp_server_stop, exec postgres), on Debian's Postgres:
#   1. initdb --username=$POSTGRES_USER --pwfile=<password on a pipe> $POSTGRES_INITDB_ARGS
#   2. pg_hba.conf: host all all all $POSTGRES_HOST_AUTH_METHOD (default scram-sha-256)
#   3. a temporary server: pg_ctl -w start with the given options plus listen_addresses='' (no TCP)
#   4. psql creates POSTGRES_DB unless it exists; /docker-entrypoint-initdb.d/*.sql and *.sh run
#   5. pg_ctl -m fast -w stop, then exec the real server
# Like the official image it logs "database system is ready to accept connections" twice (the
# temporary server, then the real one).
set -Eeuo pipefail

if [[ $# -eq 0 || "${1:0:1}" == '-' ]]; then
  set -- postgres "$@"
fi
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

if [[ "$(id -u)" == 0 ]]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  chmod 2777 /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

temp_server_start() {
  shift   # "postgres"
  local opts=("$@" -c "listen_addresses=" -p "${PGPORT:-5432}")
  PGUSER="$POSTGRES_USER" pg_ctl -D "$PGDATA" -o "$(printf '%q ' "${opts[@]}")" -w start
}

temp_server_stop() {
  PGUSER="$POSTGRES_USER" pg_ctl -D "$PGDATA" -m fast -w stop
}

psql_local() {
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc -p "${PGPORT:-5432}" "$@"
}

setup_db() {
  local exists
  exists="$(printf "SELECT 1 FROM pg_database WHERE datname = :'db';\n" \
    | psql_local --dbname postgres --set db="$POSTGRES_DB" --tuples-only | tr -d '[:space:]')"
  if [[ -z "$exists" ]]; then
    printf 'CREATE DATABASE :"db";\n' | psql_local --dbname postgres --set db="$POSTGRES_DB" >/dev/null
  fi
}

run_init_files() {
  local f
  [[ -d /docker-entrypoint-initdb.d ]] || return 0
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) log "running $f"; . "$f" ;;
      *.sql) log "running $f"; psql_local --dbname "$POSTGRES_DB" -f "$f" >/dev/null ;;
      *) if [[ -e "$f" ]]; then log "ignoring $f"; fi ;;
    esac
  done
}

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  if [[ -z "${POSTGRES_PASSWORD:-}" && "$POSTGRES_HOST_AUTH_METHOD" != trust ]]; then
    log 'Database is uninitialized and superuser password is not specified.'
    log '  Set POSTGRES_PASSWORD, or POSTGRES_HOST_AUTH_METHOD=trust.'
    exit 1
  fi
  pw_args=()
  if [[ -n "${POSTGRES_PASSWORD:-}" ]]; then pw_args=(--pwfile=/dev/stdin); fi
  # shellcheck disable=SC2086  # POSTGRES_INITDB_ARGS is a word list by contract
  printf '%s\n' "${POSTGRES_PASSWORD:-}" | initdb --username="$POSTGRES_USER" "${pw_args[@]}" \
    -E UTF8 --locale=C.UTF-8 $POSTGRES_INITDB_ARGS >/dev/null
  printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  temp_server_start "$@"
  setup_db
  run_init_files
  temp_server_stop
  log "PostgreSQL init process complete; ready for start up."
fi

exec "$@"
