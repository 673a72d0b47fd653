#!/usr/bin/env bash
# shellcheck shell=bash
#
# The JUnit example (examples/junit, its own Maven project using roboco-sandbox-junit), run by test.sh after
# the main verify: once against the standalone server with a CI job's client token, once with no
# ROBOCO_SANDBOX_URL against the local Docker host. Source it (after prereqs.sh and images.sh).
#
# Where the example finds the reactor's artifacts without `mvn install` into ~/.m2 (which would hand
# every other build on the machine our SNAPSHOT jars): a Maven repository of its own,
# target/example-m2, in which every group of ~/.m2/repository is a symlink (third-party artifacts are
# read where they are, nothing is copied) except io/roboco, a real directory that
# `mvn install -pl junit -am -Dmaven.repo.local=target/example-m2` fills. Maven 3.8 has no chained local
# repository (maven.repo.local.tail is 3.9); this is that, by hand.

if [[ -n "${_ROBOCO_EXAMPLE_SOURCED:-}" ]]; then return 0; fi
_ROBOCO_EXAMPLE_SOURCED=1

EXAMPLE_POM=examples/junit/pom.xml
EXAMPLE_SERVER_PID=
EXAMPLE_STATE=

# example_cleanup: stops the example's server (SIGTERM: a graceful stop removes its live sandboxes) and
# deletes its state directory. test.sh's EXIT trap calls it, so a failed check leaves nothing running.
example_cleanup() {
  if [[ -n "$EXAMPLE_SERVER_PID" ]]; then
    kill "$EXAMPLE_SERVER_PID" 2>/dev/null || true
    wait "$EXAMPLE_SERVER_PID" 2>/dev/null || true
    EXAMPLE_SERVER_PID=
  fi
  if [[ -n "$EXAMPLE_STATE" ]]; then
    rm -rf "$EXAMPLE_STATE"
    EXAMPLE_STATE=
  fi
}

# example_repo_farm SOURCE DEST: DEST mirrors SOURCE (a local Maven repository) by symlinks, except
# io/roboco, which is a real directory of DEST's own (emptied). Idempotent.
example_repo_farm() {
  local src="$1" dest="$2" entry name
  mkdir -p "$dest/io"
  rm -rf "$dest/io/roboco"
  mkdir -p "$dest/io/roboco"
  for entry in "$src"/*; do
    [[ -e "$entry" ]] || continue
    name="$(basename "$entry")"
    if [[ "$name" == io ]]; then
      continue
    fi
    [[ -e "$dest/$name" || -L "$dest/$name" ]] || ln -s "$entry" "$dest/$name"
  done
  for entry in "$src"/io/*; do
    [[ -e "$entry" ]] || continue
    name="$(basename "$entry")"
    [[ "$name" == roboco ]] && continue
    [[ -e "$dest/io/$name" || -L "$dest/io/$name" ]] || ln -s "$entry" "$dest/io/$name"
  done
}

# example_api PORT METHOD PATH TOKEN [BODY]: one HTTP call to the server; prints "STATUS BODY".
example_api() {
  python3 - "$@" <<'PY'
import sys, urllib.request, urllib.error
port, method, path, token = sys.argv[1:5]
body = sys.argv[5].encode() if len(sys.argv) > 5 else None
req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
req.add_header("Authorization", f"Bearer {token}")
if body is not None:
    req.add_header("Content-Type", "application/json")
try:
    with urllib.request.urlopen(req, timeout=180) as r:
        print(r.status, r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode())
except OSError as e:
    print(0, str(e))
PY
}

# example_json FIELD...: reads JSON on stdin (after the status), prints the field path's value
# (a number for a list: its length).
example_json() {
  python3 -c '
import json, sys
line = sys.stdin.read()
v = json.loads(line.split(" ", 1)[1])
for k in sys.argv[1:]:
    v = v[int(k)] if isinstance(v, list) else v.get(k)
print(len(v) if isinstance(v, list) else v)' "$@"
}

# example_install REPO: installs the extension and what it needs (-pl junit -am) into REPO only.
example_install() {
  local repo="$1"
  example_repo_farm "${ROBOCO_M2_REPOSITORY:-$HOME/.m2/repository}" "$repo"
  step "installing roboco-sandbox-junit and its reactor modules into $repo (not ~/.m2)"
  # shellcheck disable=SC2086 # extra Maven arguments, word-split on purpose (e.g. -o)
  mvn -B -q ${ROBOCO_EXAMPLE_MAVEN_ARGS:-} install -pl junit -am -DskipTests -DskipITs -Dspotless.check.skip=true -Dmaven.repo.local="$repo"
}

# example_against_server REPO: the standalone jar on a free port with a temporary state dir; a client
# token for a CI job's owner (minted by the CLI with the admin token) under a quota of 2; the example
# through it; then nothing of the job live, its records deleted, the quota refusing a third.
example_against_server() {
  local repo="$1" jar=server/target/roboco-sandbox.jar state port admin job token reply i
  [[ -f "$jar" ]] || die "$jar is missing: the main verify builds it"
  state="$(mktemp -d)"
  EXAMPLE_STATE="$state"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  admin="admin-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  job="job:example-${CI_JOB_ID:-$$}"
  step "example against the server: java -jar $jar on 127.0.0.1:$port, owner $job, quota 2"
  (
    export_engine_images
    export ROBOCO_SANDBOX_PORT="$port" ROBOCO_SANDBOX_STATE_DIR="$state/state" ROBOCO_SANDBOX_ADMIN_TOKEN="$admin" \
      ROBOCO_SANDBOX_API_TOKEN="api-$admin" ROBOCO_SANDBOX_DB_ENABLED=true ROBOCO_SANDBOX_NETWORK=host \
      ROBOCO_SANDBOX_MAX_PER_OWNER=2
    exec java -Xmx512m -jar "$jar" serve >"$state/server.log" 2>&1
  ) &
  EXAMPLE_SERVER_PID=$!
  for ((i = 0; i < 180; i++)); do
    [[ "$(example_api "$port" GET /healthz none)" == *'"running"'* ]] && break
    kill -0 "$EXAMPLE_SERVER_PID" 2>/dev/null || { cat "$state/server.log"; die "the server exited before it was running"; }
    sleep 1
  done
  [[ "$(example_api "$port" GET /healthz none)" == *'"running"'* ]] || { tail -50 "$state/server.log"; die "the server was not running after 180 s"; }
  reply="$(example_api "$port" PUT /api/projects/ci-example "$admin" '{"sandbox_services":["postgres","redis"]}')"
  [[ "$reply" == 200* ]] || die "PUT /api/projects/ci-example: $reply"
  token="$(ROBOCO_SANDBOX_URL="http://127.0.0.1:$port" ROBOCO_SANDBOX_ADMIN_TOKEN="$admin" java -jar "$jar" client-token "$job")"
  [[ "$token" == rbxc_* ]] || die "roboco-sandbox client-token $job printed no token"

  ROBOCO_SANDBOX_URL="http://127.0.0.1:$port" ROBOCO_SANDBOX_CLIENT_TOKEN="$token" ROBOCO_SANDBOX_PROJECT=ci-example \
    mvn -B -q ${ROBOCO_EXAMPLE_MAVEN_ARGS:-} -f "$EXAMPLE_POM" verify -Dmaven.repo.local="$repo" || { tail -50 "$state/server.log"; die "the example failed against the server"; }

  local live all
  live="$(example_api "$port" GET "/api/sandboxes?owner=$job" "$admin" | example_json sandboxes)"
  all="$(example_api "$port" GET "/api/sandboxes?owner=$job&state=all" "$admin" | example_json sandboxes)"
  info "owner $job: $all sandbox(es) made through the server, $live live after the run: $(example_api "$port" GET "/api/sandboxes?owner=$job&state=all" "$admin" | python3 -c 'import json,sys; print(" ".join(s["name"]+"="+s["state"] for s in json.loads(sys.stdin.read().split(" ",1)[1])["sandboxes"]))')"
  [[ "$live" == 0 ]] || die "the example left $live live sandbox(es) of $job on the server"
  [[ "$all" == 3 ]] || die "the example made $all sandbox(es) of $job through the server; expected 3 (a class and two methods)"

  # The owner's quota applies to its client token: two live, the third refused.
  for i in 1 2; do
    [[ "$(example_api "$port" POST /api/sandboxes "$token" '{"project":"ci-example","services":["redis"]}' | example_json ok)" == True ]] \
      || die "client token create $i refused"
  done
  reply="$(example_api "$port" POST /api/sandboxes "$token" '{"project":"ci-example","services":["redis"]}')"
  [[ "$reply" == *'quota of 2'* ]] || die "a third create of $job was not refused by its quota of 2: $reply"
  [[ "$(example_api "$port" GET /api/flags "$token")" == 403* ]] || die "the client token reached /api/flags"
  info "quota 2 refused the third create of $job; its client token gets 403 on /api/flags"
  # Named sandboxes outlive a graceful stop (re-adoption keeps them for the next start), and the state
  # directory goes with the cleanup: the two quota probes are deleted here, or every run leaves their
  # containers on the host.
  local id
  for id in $(example_api "$port" GET "/api/sandboxes?owner=$job" "$admin" \
    | python3 -c 'import json, sys; print(" ".join(s["id"] for s in json.loads(sys.stdin.read().split(" ", 1)[1])["sandboxes"]))'); do
    [[ "$(example_api "$port" DELETE "/api/sandboxes/$id" "$token" | example_json ok)" == True ]] \
      || die "the client token could not delete its sandbox $id"
  done
  live="$(example_api "$port" GET "/api/sandboxes?owner=$job" "$admin" | example_json sandboxes)"
  [[ "$live" == 0 ]] || die "$live sandbox(es) of $job still live after deleting the quota probes"
  ROBOCO_SANDBOX_URL="http://127.0.0.1:$port" ROBOCO_SANDBOX_ADMIN_TOKEN="$admin" java -jar "$jar" client-token --revoke "$job" >/dev/null
  example_cleanup
}

# example_local REPO: the example with no server configured: the embedded plugin on this Docker host;
# no container of a junit-* instance is left after.
example_local() {
  local repo="$1" left
  step "example against the local Docker host (no ROBOCO_SANDBOX_URL; the embedded plugin)"
  (
    export_engine_images
    env -u ROBOCO_SANDBOX_URL -u ROBOCO_SANDBOX_CLIENT_TOKEN -u ROBOCO_SANDBOX_PROJECT \
      mvn -B -q ${ROBOCO_EXAMPLE_MAVEN_ARGS:-} -f "$EXAMPLE_POM" verify -Dmaven.repo.local="$repo"
  ) || die "the example failed against the local Docker host"
  left="$(docker ps -a --filter label=roboco.sandbox=1 --format '{{.Label "roboco.sandbox.instance"}}' | grep -c '^junit-' || true)"
  [[ "$left" == 0 ]] || die "the local example left $left container(s) of a junit-* instance"
  info "no container of a junit-* instance left"
}
