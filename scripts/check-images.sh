#!/usr/bin/env bash
#
# check-images.sh [RUNS]
#
# Smoke test + ready-time measurement of the local sandbox images, under the flags the
# sandbox runtime uses (host network, service bound to 127.0.0.1 on a free port, tmpfs
# data dir, capabilities dropped). Containers are named imgtest-* and always removed.
# Needs psql, redis-cli and python3 on the host. RUNS (default 5) timed starts per image.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/prereqs.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/prereqs.sh"
# shellcheck source-path=SCRIPTDIR source=lib/images.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/images.sh"
cd "$ROBOCO_REPO_ROOT"

RUNS="${1:-5}"
PG_IMAGE="${THIN_TAGS[postgres]}"
REDIS_IMAGE="${THIN_TAGS[redis]}"
MONGO_IMAGE="${THIN_TAGS[mongo-compat]}"
REDISEARCH=/usr/lib/redis/modules/redisearch.so
PW="pw-$RANDOM$RANDOM"
FAILURES=0

# The runtime's hardening flags; the tmpfs target differs per image.
RUNTIME_FLAGS=(--network host --cap-drop ALL --cap-add CHOWN --cap-add SETUID
  --cap-add SETGID --cap-add FOWNER --cap-add DAC_OVERRIDE
  --security-opt no-new-privileges --memory 512m --cpus 1 --pids-limit 512)

cleanup() {
  local ids
  ids="$(docker ps -aq --filter name='^imgtest-' 2>/dev/null || true)"
  if [[ -n "$ids" ]]; then
    # shellcheck disable=SC2086
    docker rm -f $ids >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ms_since() { awk -v s="$1" -v e="$(now_s)" 'BEGIN { printf "%d", (e - s) * 1000 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

ok()   { printf '  ok    %s\n' "$*"; }
fail() { printf '  FAIL  %s\n' "$*"; FAILURES=$((FAILURES + 1)); }
# expect_ok DESC CMD...: the command must succeed.
expect_ok()   { local d="$1"; shift; if "$@" >/dev/null 2>&1; then ok "$d"; else fail "$d"; fi; }
expect_fail() { local d="$1"; shift; if "$@" >/dev/null 2>&1; then fail "$d (unexpectedly succeeded)"; else ok "$d"; fi; }

# wait_until TIMEOUT_S CMD...: poll CMD every ~10 ms.
wait_until() {
  local deadline; deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do
    (( $(date +%s) < deadline )) || return 1
    sleep 0.01
  done
}

# --- probes ------------------------------------------------------------------------------
pg_ready() { PGPASSWORD="$PW" PGCONNECT_TIMEOUT=1 psql -h 127.0.0.1 -p "$1" -U app -d appdb -Atqc 'SELECT 1'; }
pg_sql()   { PGPASSWORD="$PW" psql -h 127.0.0.1 -p "$1" -U app -d appdb -v ON_ERROR_STOP=1 -Atqc "$2"; }
redis_ready() { redis-cli -h 127.0.0.1 -p "$1" --no-auth-warning --user default --pass "$PW" PING | grep -q PONG; }
mongo_ready() { python3 scripts/lib/mongo_ping.py 127.0.0.1 "$1"; }

# --- starters (print nothing; container name NAME, port PORT) ------------------------------
start_pg() {
  docker run -d --name "$1" "${RUNTIME_FLAGS[@]}" --tmpfs /var/lib/postgresql/data:rw,size=256m \
    -e POSTGRES_USER=app -e POSTGRES_PASSWORD="$PW" -e POSTGRES_DB=appdb "$PG_IMAGE" \
    postgres -c listen_addresses=127.0.0.1 -c port="$2" -c fsync=off >/dev/null
}
start_redis() {
  docker run -d --name "$1" "${RUNTIME_FLAGS[@]}" --tmpfs /data:rw,size=256m "$REDIS_IMAGE" \
    redis-server --bind 127.0.0.1 --port "$2" --requirepass "$PW" \
    --enable-module-command local --save '' --appendonly no >/dev/null
}
start_mongo() {
  docker run -d --name "$1" "${RUNTIME_FLAGS[@]}" --tmpfs /data/db:rw,size=256m \
    -e MONGO_INITDB_ROOT_USERNAME=app -e MONGO_INITDB_ROOT_PASSWORD="$PW" "$MONGO_IMAGE" \
    mongod --bind_ip 127.0.0.1 --port "$2" >/dev/null
}

# time_starts KIND: RUNS timed starts, `docker run -d` -> first successful probe.
# Prints each run and the medians of "docker run returned" and "ready".
time_starts() {
  local kind="$1" i port name t0 run_ms ms times=() runs=()
  for ((i = 1; i <= RUNS; i++)); do
    port="$(free_port)"; name="imgtest-$kind-t$i"
    t0="$(now_s)"
    "start_$kind" "$name" "$port"
    run_ms="$(ms_since "$t0")"
    if wait_until 30 "${kind}_ready" "$port"; then
      ms="$(ms_since "$t0")"; times+=("$ms"); runs+=("$run_ms")
    else
      fail "$kind run $i not ready in 30s"; docker logs --tail 20 "$name" 2>&1 | sed 's/^/      /'
    fi
    docker rm -f "$name" >/dev/null
  done
  printf '  ready %-6s runs(ms): %s  median: %s ms (docker run -d itself: median %s ms)\n' "$kind" \
    "${times[*]}" "$(printf '%s\n' "${times[@]}" | median)" "$(printf '%s\n' "${runs[@]}" | median)"
}

# --- checks ------------------------------------------------------------------------------
# check_postgres MAJOR: the image of that major (POSTGRES_MAJOR_IMAGES); pgvector only on 17.
check_postgres() {
  local major="$1"
  PG_IMAGE="${POSTGRES_MAJOR_IMAGES[$major]}"
  step "postgres $major ($PG_IMAGE)"
  local port name=imgtest-pg; port="$(free_port)"
  start_pg "$name" "$port"
  if ! wait_until 30 pg_ready "$port"; then
    fail "postgres ready"; docker logs --tail 30 "$name" 2>&1 | sed 's/^/      /'; return
  fi
  ok "psql over TCP with password (scram) as app@appdb"
  expect_fail "wrong password refused" env PGPASSWORD=wrong psql -h 127.0.0.1 -p "$port" -U app -d appdb -Atqc 'SELECT 1'
  local ext
  for ext in pg_trgm citext '"uuid-ossp"' postgis; do
    expect_ok "CREATE EXTENSION $ext" pg_sql "$port" "CREATE EXTENSION $ext"
  done
  if [[ "$(pg_sql "$port" 'SHOW server_version_num' 2>/dev/null)" == "$major"* ]]; then ok "server major is $major"
  else fail "server major is $major"; fi
  if [[ "$major" -ge 17 ]]; then
    expect_ok "CREATE EXTENSION vector + a <-> query" pg_sql "$port" \
      "CREATE EXTENSION vector; CREATE TABLE v (e vector(3)); INSERT INTO v VALUES ('[1,2,3]'); SELECT e <-> '[1,2,2]' FROM v"
  else
    expect_fail "CREATE EXTENSION vector is unavailable (expected)" pg_sql "$port" 'CREATE EXTENSION vector'
  fi
  expect_ok "pg_dump of the same major in the image" bash -c "docker exec $name pg_dump --version | grep -q ' $major\.'"
  expect_ok "docker exec psql (PATH)" docker exec "$name" psql -U app -d appdb -p "$port" -h /var/run/postgresql -Atqc 'SELECT 1'
  expect_ok "server runs as postgres" bash -c "docker exec $name ps -o user= -p 1 | grep -qx postgres"
  if docker logs "$name" 2>&1 | grep -qF "$PW"; then fail "password leaked into the log"; else ok "password not in the log"; fi
  docker rm -f "$name" >/dev/null
  time_starts pg
}

check_redis() {
  step "redis ($REDIS_IMAGE)"
  local port name=imgtest-redis; port="$(free_port)"
  start_redis "$name" "$port"
  if ! wait_until 30 redis_ready "$port"; then
    fail "redis ready"; docker logs --tail 30 "$name" 2>&1 | sed 's/^/      /'; return
  fi
  ok "redis-cli PING with password"
  local cli=(docker exec "$name" redis-cli -p "$port" --no-auth-warning --user default --pass "$PW")
  expect_ok "MODULE LOAD $REDISEARCH" bash -c "$(printf '%q ' "${cli[@]}") MODULE LOAD $REDISEARCH | grep -qx OK"
  expect_ok "MODULE LIST shows ft" bash -c "$(printf '%q ' "${cli[@]}") MODULE LIST | grep -qx ft"
  expect_ok "FT.CREATE + FT.ADD + FT.SEARCH" bash -c "
    $(printf '%q ' "${cli[@]}") FT.CREATE idx SCHEMA title TEXT | grep -qx OK &&
    $(printf '%q ' "${cli[@]}") FT.ADD idx doc1 1.0 FIELDS title 'hello sandbox' | grep -qx OK &&
    $(printf '%q ' "${cli[@]}") FT.SEARCH idx sandbox | grep -qx doc1"
  if "${cli[@]}" FT._LIST 2>&1 | grep -qi err; then
    ok "FT._LIST: not in RediSearch 1.2 ($("${cli[@]}" FT._LIST 2>&1 | head -1))"
  else
    ok "FT._LIST: $("${cli[@]}" FT._LIST 2>&1 | tr '\n' ' ')"
  fi
  expect_ok "server runs as redis" bash -c "docker exec $name ps -o user= -p 1 | grep -qx redis"
  docker rm -f "$name" >/dev/null
  time_starts redis
}

check_mongo() {
  step "mongo-compat ($MONGO_IMAGE)"
  local port name=imgtest-mongo; port="$(free_port)"
  start_mongo "$name" "$port"
  if ! wait_until 30 mongo_ready "$port"; then
    fail "mongo-compat ready"; docker logs --tail 30 "$name" 2>&1 | sed 's/^/      /'; return
  fi
  ok "OP_MSG ping answers ok:1"
  expect_ok "isMaster answers" python3 scripts/lib/mongo_ping.py 127.0.0.1 "$port" isMaster
  expect_ok "logs 'Waiting for connections'" bash -c "docker logs $name 2>/dev/null | grep -q 'Waiting for connections'"
  expect_fail "listDatabases refused before authentication" python3 scripts/lib/mongo_ping.py 127.0.0.1 "$port" listDatabases
  expect_ok "root user authenticates (pymongo, SCRAM-SHA-256)" env MONGO_URL="mongodb://app:$PW@127.0.0.1:$port/?authSource=admin" \
    /usr/bin/python3 -c 'import os, pymongo; c = pymongo.MongoClient(os.environ["MONGO_URL"], serverSelectionTimeoutMS=3000); c.admin.command("listDatabases")'
  expect_fail "a wrong root password is refused" env MONGO_URL="mongodb://app:wrong$PW@127.0.0.1:$port/?authSource=admin" \
    /usr/bin/python3 -c 'import os, pymongo; c = pymongo.MongoClient(os.environ["MONGO_URL"], serverSelectionTimeoutMS=3000); c.admin.command("listDatabases")'
  expect_fail "no password in the logs" bash -c "docker logs $name 2>&1 | grep -qF -- '$PW'"
  expect_ok "server runs as non-root" bash -c "docker exec $name sh -c 'id -u' | grep -qvx 0"
  docker rm -f "$name" >/dev/null
  time_starts mongo
}

cleanup
check_postgres 15
check_postgres 17
check_redis
check_mongo
if (( FAILURES > 0 )); then die "$FAILURES check(s) failed"; fi
step "all image checks passed"
