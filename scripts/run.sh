#!/usr/bin/env bash
#
# run.sh [SERVER_ARGS...]
#
# Runs the standalone RoboCo Sandbox server against the local images:
# prerequisites + images (like test.sh), then builds the dashboard module and its
# dependencies and execs dashboard/target/roboco-sandbox-server.jar.
# Image/network settings default to the local images unless already set in the
# environment (ROBOCO_SANDBOX_IMAGE_POSTGRES / _REDIS / _MONGO, ROBOCO_SANDBOX_NETWORK).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/prereqs.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/prereqs.sh"
cd "$ROBOCO_REPO_ROOT"

readonly SERVER_JAR=dashboard/target/roboco-sandbox-server.jar
readonly MAIN_CLASS=io.roboco.sandbox.server.SandboxServer

ensure_all
"$ROBOCO_REPO_ROOT/scripts/build-images.sh"

# Local defaults; an operator's own values win.
export ROBOCO_SANDBOX_IMAGE_POSTGRES="${ROBOCO_SANDBOX_IMAGE_POSTGRES:-roboco-sandbox/postgres:15}"
export ROBOCO_SANDBOX_IMAGE_REDIS="${ROBOCO_SANDBOX_IMAGE_REDIS:-roboco-sandbox/redis:7}"
export ROBOCO_SANDBOX_IMAGE_MONGO="${ROBOCO_SANDBOX_IMAGE_MONGO:-roboco-sandbox/mongo-compat:1}"
export ROBOCO_SANDBOX_NETWORK="${ROBOCO_SANDBOX_NETWORK:-host}"

step "building the server (mvn -B -q -DskipTests -DskipITs package -pl dashboard -am) ..."
mvn -B -q -DskipTests -DskipITs package -pl dashboard -am

# server_ready: the jar exists and carries the main class (the dashboard module may
# already package a jar before the server class is written).
server_ready() {
  [[ -f "$SERVER_JAR" ]] || return 1
  command -v jar >/dev/null 2>&1 || return 0
  jar tf "$SERVER_JAR" | grep -qx "${MAIN_CLASS//.//}.class"
}

if ! server_ready; then
  step "$SERVER_JAR with $MAIN_CLASS does not exist yet (the server main class is still to come)."
  info "Once it exists this script runs:"
  info "  ROBOCO_SANDBOX_IMAGE_POSTGRES=$ROBOCO_SANDBOX_IMAGE_POSTGRES"
  info "  ROBOCO_SANDBOX_IMAGE_REDIS=$ROBOCO_SANDBOX_IMAGE_REDIS"
  info "  ROBOCO_SANDBOX_IMAGE_MONGO=$ROBOCO_SANDBOX_IMAGE_MONGO"
  info "  ROBOCO_SANDBOX_NETWORK=$ROBOCO_SANDBOX_NETWORK"
  info "  java -jar $SERVER_JAR $*"
  exit 0
fi

step "starting the server on 127.0.0.1:${ROBOCO_SANDBOX_PORT:-7070} (mongo is a stand-in WITHOUT authentication)"
exec java -jar "$SERVER_JAR" "$@"
