#!/usr/bin/env bash
#
# test.sh [--with-docker-restart] [MAVEN_ARGS...]
#
# The full check, from any directory, on a bare Debian 12 machine or a prepared one:
#   1. install missing Debian packages (docker.io, debootstrap, ...) and start dockerd if it is
#      not running (a running daemon is left alone);
#   2. check Java 17+ and Maven;
#   3. build the local sandbox images when absent or changed (scripts/build-images.sh);
#   4. the mongo-compat stand-in's own unit tests (images/mongo-compat/server);
#   5. mvn -B verify, with any extra arguments passed through (e.g. -DskipITs -q);
#   6. the JUnit example (examples/junit) against the built server with a client token, then
#      against the local Docker host (unless the arguments skip the ITs).
#
# DockerRestartIT stops and restarts this machine's Docker daemon, which disrupts everything else
# using it, so it runs only when asked: --with-docker-restart or ROBOCO_IT_DOCKER_RESTART=1 (CI's
# .ci/run asks). It then runs alone, after everything else, unless the arguments skip the ITs
# (-DskipITs, -DskipTests, -Dmaven.test.skip, with or without =true).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/prereqs.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/prereqs.sh"
# shellcheck source-path=SCRIPTDIR source=lib/test-args.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/test-args.sh"
# shellcheck source-path=SCRIPTDIR source=lib/images.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/images.sh"
# shellcheck source-path=SCRIPTDIR source=lib/example.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/example.sh"
cd "$ROBOCO_REPO_ROOT"

case "${1:-}" in -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
parse_test_args "$@"

T0="$(now_s)"
STATUS=failed
# One summary line, whatever happens.
trap 'example_cleanup; printf "==> test.sh %s in %s\n" "$STATUS" "$(elapsed "$T0")"' EXIT

ensure_all
"$ROBOCO_REPO_ROOT/scripts/build-images.sh"

# The Mongo stand-in's server is its own Maven project (images/mongo-compat/server, outside the
# reactor): its unit tests (SCRAM vectors, access control with the Java driver) run here.
if maven_true skipTests "${MAVEN_ARGS[@]}" || maven_true maven.test.skip "${MAVEN_ARGS[@]}"; then
  step "mongo-compat server tests skipped (the arguments skip tests)"
else
  step "mongo-compat server tests (mvn -B -q -f images/mongo-compat/server/pom.xml test)"
  mvn -B -q -f images/mongo-compat/server/pom.xml test
fi

step "mvn -B verify ${MAVEN_ARGS[*]}"
# Never inside the main run, even when asked for: DockerRestartIT runs alone, below.
env -u ROBOCO_IT_DOCKER_RESTART mvn -B verify "${MAVEN_ARGS[@]}"

# The JUnit example (examples/junit), an application's own build on roboco-sandbox-junit: against the
# server with a CI job's client token, then against the local Docker host (scripts/lib/example.sh).
if maven_skips_its "${MAVEN_ARGS[@]}"; then
  step "JUnit example not run: the arguments skip the integration tests"
else
  example_install "$ROBOCO_REPO_ROOT/target/example-m2"
  example_against_server "$ROBOCO_REPO_ROOT/target/example-m2"
  example_local "$ROBOCO_REPO_ROOT/target/example-m2"
fi

case "$(docker_restart_plan)" in
  not-asked)
    step "DockerRestartIT not run: it restarts this machine's dockerd (ask with --with-docker-restart or ROBOCO_IT_DOCKER_RESTART=1)" ;;
  its-skipped)
    step "DockerRestartIT not run: the arguments skip the integration tests" ;;
  run)
    step "DockerRestartIT (restarts dockerd; alone)"
    ROBOCO_IT_DOCKER_RESTART=1 mvn -B verify -pl server -am -Dit.test=DockerRestartIT \
      -Dfailsafe.failIfNoSpecifiedTests=false -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false ;;
esac
STATUS=passed
