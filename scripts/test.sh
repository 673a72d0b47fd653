#!/usr/bin/env bash
#
# test.sh [MAVEN_ARGS...]
#
# The full check, from any directory, on a bare Debian 12 machine or a prepared one:
#   1. install missing Debian packages (docker.io, debootstrap, ...) and start dockerd;
#   2. check Java 17+ and Maven;
#   3. build the local sandbox images when absent or changed (scripts/build-images.sh);
#   4. mvn -B verify, with any extra arguments passed through (e.g. -DskipITs -q).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/prereqs.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/prereqs.sh"
cd "$ROBOCO_REPO_ROOT"

T0="$(now_s)"
STATUS=failed
# One summary line, whatever happens.
trap 'printf "==> test.sh %s in %s\n" "$STATUS" "$(elapsed "$T0")"' EXIT

ensure_all
"$ROBOCO_REPO_ROOT/scripts/build-images.sh"

step "mvn -B verify $*"
mvn -B verify "$@"
STATUS=passed
