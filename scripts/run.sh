#!/usr/bin/env bash
#
# run.sh [SERVER_ARGS...]
#
# Runs the standalone RoboCo Sandbox server against the local images:
# prerequisites + images (like test.sh), then builds the server module and its
# dependencies and execs server/target/roboco-sandbox.jar.
# Image/network settings default to the local images unless already set in the
# environment (ROBOCO_SANDBOX_IMAGE_POSTGRES / _REDIS / _MONGO, ROBOCO_SANDBOX_NETWORK).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/prereqs.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/prereqs.sh"
# shellcheck source-path=SCRIPTDIR source=lib/images.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/images.sh"
cd "$ROBOCO_REPO_ROOT"

readonly SERVER_JAR=server/target/roboco-sandbox.jar

ensure_all
"$ROBOCO_REPO_ROOT/scripts/build-images.sh"

# Local defaults (scripts/lib/images.sh); an operator's own values win.
export_engine_images
export ROBOCO_SANDBOX_NETWORK="${ROBOCO_SANDBOX_NETWORK:-host}"
# The local demo keeps one ready container per engine (production default: 0, no warm pool),
# so a first request_sandbox is a claim (~tens of ms) instead of a cold start.
export ROBOCO_SANDBOX_POOL_POSTGRES="${ROBOCO_SANDBOX_POOL_POSTGRES:-1}"
export ROBOCO_SANDBOX_POOL_REDIS="${ROBOCO_SANDBOX_POOL_REDIS:-1}"
export ROBOCO_SANDBOX_POOL_MONGO="${ROBOCO_SANDBOX_POOL_MONGO:-1}"
# ... and one already seeded container per seeded Postgres project (docs/data.md#seeded-warm-pool).
export ROBOCO_SANDBOX_POOL_SEEDED="${ROBOCO_SANDBOX_POOL_SEEDED:-1}"

step "building the server (mvn -B -q -DskipTests -DskipITs package -pl server -am) ..."
mvn -B -q -DskipTests -DskipITs package -pl server -am

if [[ ! -f "$SERVER_JAR" ]]; then
  die "the build did not produce $SERVER_JAR; run 'mvn -B package -pl server -am' to see why"
fi

step "starting the server on 127.0.0.1:${ROBOCO_SANDBOX_PORT:-7070} (mongo is the mongo-compat stand-in: wire protocol and SCRAM authentication, data in memory)"
exec java -jar "$SERVER_JAR" serve "$@"
