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

# DockerRestartIT stops and restarts this machine's dockerd, so it runs alone, after everything else
# (set ROBOCO_SKIP_DOCKER_RESTART=1 to leave it out, e.g. on a machine shared with other work).
case " $* " in
  *" -DskipITs "*|*" -DskipITs=true "*|*" -DskipTests "*) ;;
  *)
    if [[ "${ROBOCO_SKIP_DOCKER_RESTART:-0}" != 1 ]]; then
      step "DockerRestartIT (restarts dockerd; alone)"
      ROBOCO_IT_DOCKER_RESTART=1 mvn -B verify -pl server -am -Dit.test=DockerRestartIT \
        -Dfailsafe.failIfNoSpecifiedTests=false -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
    fi
    ;;
esac
STATUS=passed
