#!/usr/bin/env bash
#
# selftest.sh
#
# Checks the scripts' own logic in a second, touching nothing on the machine (no Docker, no apt,
# no root needed; temporary files only): how test.sh reads its arguments and Maven's skip flags,
# when it would run DockerRestartIT (and that .ci/run asks for it), that the policy-rc.d
# written around apt-get is removed on success, failure, Ctrl-C and SIGTERM, and that the image
# tags live in scripts/lib/images.sh alone, and how the JUnit example gets a Maven repository of
# its own. Run by .ci/run before test.sh.
set -euo pipefail

SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$SCRIPTS")"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
export ROBOCO_POLICY_RC_D="$SCRATCH/policy-rc.d"

# shellcheck source-path=SCRIPTDIR source=lib/prereqs.sh
source "$SCRIPTS/lib/prereqs.sh"
# shellcheck source-path=SCRIPTDIR source=lib/test-args.sh
source "$SCRIPTS/lib/test-args.sh"
# shellcheck source-path=SCRIPTDIR source=lib/images.sh
source "$SCRIPTS/lib/images.sh"

FAILURES=0
CHECKS=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  CHECKS=$((CHECKS + 1))
  if [[ "$2" != "$3" ]]; then
    printf '  FAIL  %s: expected [%s], got [%s]\n' "$1" "$2" "$3"
    FAILURES=$((FAILURES + 1))
  fi
}

# --- Maven skip flags ----------------------------------------------------------------------
skips() { if maven_skips_its "$@"; then echo skip; else echo run; fi; }
check "no arguments" run "$(skips)"
check "-DskipITs" skip "$(skips -DskipITs)"
check "-DskipITs=true" skip "$(skips -DskipITs=true)"
check "-DskipITs=TRUE" skip "$(skips -DskipITs=TRUE)"
check "-DskipITs=false" run "$(skips -DskipITs=false)"
check "-DskipTests" skip "$(skips -q -DskipTests)"
check "-DskipTests=true" skip "$(skips -DskipTests=true -pl engines)"
check "-Dmaven.test.skip" skip "$(skips -Dmaven.test.skip)"
check "-Dmaven.test.skip=true" skip "$(skips -Dmaven.test.skip=true)"
check "-D skipITs (two words)" skip "$(skips -D skipITs)"
check "--define skipTests=true" skip "$(skips --define skipTests=true)"
check "--define=skipITs" skip "$(skips --define=skipITs)"
check "the last definition wins" run "$(skips -DskipITs -DskipITs=false)"
check "-DskipITsNot is another property" run "$(skips -DskipITsNot=true)"
check "-Dit.test=X does not skip" run "$(skips -Dit.test=KillStormIT)"
check "a value naming skipITs does not skip" run "$(skips -Dfoo=skipITs)"
check "maven_property reads the value" "KillStormIT" "$(maven_property it.test -q -Dit.test=KillStormIT)"

# --- test.sh arguments and DockerRestartIT ---------------------------------------------------
plan() { parse_test_args "$@"; docker_restart_plan; }
check "DockerRestartIT is not run by default" not-asked "$(unset ROBOCO_IT_DOCKER_RESTART; plan)"
check "DockerRestartIT: --with-docker-restart" run "$(unset ROBOCO_IT_DOCKER_RESTART; plan --with-docker-restart)"
check "DockerRestartIT: ROBOCO_IT_DOCKER_RESTART=1" run "$(ROBOCO_IT_DOCKER_RESTART=1 plan)"
check "DockerRestartIT: ROBOCO_IT_DOCKER_RESTART=0" not-asked "$(ROBOCO_IT_DOCKER_RESTART=0 plan)"
check "DockerRestartIT: asked, -DskipTests=true" its-skipped "$(unset ROBOCO_IT_DOCKER_RESTART; plan --with-docker-restart -DskipTests=true)"
check "DockerRestartIT: asked, -DskipITs" its-skipped "$(unset ROBOCO_IT_DOCKER_RESTART; plan -DskipITs --with-docker-restart)"
check "the flag is not passed to Maven" "-q -pl server" "$(unset ROBOCO_IT_DOCKER_RESTART; parse_test_args -q --with-docker-restart -pl server; echo "${MAVEN_ARGS[*]}")"
check ".ci/run asks for DockerRestartIT" 1 "$(grep -c -- '^exec ./scripts/test.sh --with-docker-restart' "$ROOT/.ci/run")"
check "test.sh keeps DockerRestartIT out of the main run" 1 "$(grep -c '^env -u ROBOCO_IT_DOCKER_RESTART mvn -B verify' "$SCRIPTS/test.sh")"

# --- policy-rc.d around apt-get --------------------------------------------------------------
policy_state() { if [[ -e "$ROBOCO_POLICY_RC_D" ]]; then echo present; else echo absent; fi; }
seen="$(without_service_starts bash -c 'cat "$ROBOCO_POLICY_RC_D"; "$ROBOCO_POLICY_RC_D"; echo "exit $?"' | tr '\n' ' ')"
check "the policy forbids service starts while the command runs" "#!/bin/sh exit 101 exit 101 " "$seen"
check "the policy is removed after success" absent "$(policy_state)"
rc=0; without_service_starts false || rc=$?
check "a failing command's status is kept" 1 "$rc"
check "the policy is removed after a failure" absent "$(policy_state)"

# interrupted SIG: runs without_service_starts as a job of its own (job control, so the job
# does not ignore SIGINT), waits until the wrapped command runs (it touches a latch file: the
# policy is written by then), signals the job's process group. Signalling as soon as the policy
# file appeared raced the subshell's own fork of the command (about 1 run in 100 kept the file).
interrupted() {
  local sig="$1" pid waited=0 rc=0 running="$SCRATCH/running"
  rm -f "$ROBOCO_POLICY_RC_D" "$running"
  set -m
  (without_service_starts bash -c 'touch "$1"; exec sleep 30' _ "$running") &
  pid=$!
  set +m
  until [[ -e "$running" ]] || (( waited > 500 )); do sleep 0.01; waited=$((waited + 1)); done
  kill -"$sig" -- -"$pid"
  wait "$pid" 2>/dev/null || rc=$?
  # The job's outer shell may die before the inner one has run its trap: allow it 5 s.
  waited=0
  while [[ -e "$ROBOCO_POLICY_RC_D" ]] && (( waited < 500 )); do sleep 0.01; waited=$((waited + 1)); done
  echo "$rc $(policy_state)"
}
check "the policy is removed on Ctrl-C (SIGINT), which is passed on" "130 absent" "$(interrupted INT 2>/dev/null)"
check "the policy is removed on SIGTERM, which is passed on" "143 absent" "$(interrupted TERM 2>/dev/null)"
printf '#!/bin/sh\nexit 0\n' >"$ROBOCO_POLICY_RC_D"
without_service_starts true
check "an existing policy is left as it was" "exit 0" "$(tail -n 1 "$ROBOCO_POLICY_RC_D")"
rm -f "$ROBOCO_POLICY_RC_D"
check "prereqs.sh never creates the server's state directory" 0 "$(grep -c 'mkdir.*STATE_DIR' "$SCRIPTS/lib/prereqs.sh" || true)"

# --- image tags in one place -----------------------------------------------------------------
check "every image in the build order has a tag" "${#THIN_TAGS[@]}" "${#THIN_ORDER[@]}"
for name in "${THIN_ORDER[@]}"; do
  check "image $name has a tag" 1 "$([[ -n "${THIN_TAGS[$name]:-}" ]] && echo 1 || echo 0)"
  check "image $name has a recipe directory" 1 "$([[ -f "$ROOT/images/${THIN_DIRS[$name]:-?}/Dockerfile" ]] && echo 1 || echo 0)"
  check "image $name has a base" 1 "$([[ -n "${BASE_TAGS[${THIN_SUITES[$name]:-?}]:-}" ]] && echo 1 || echo 0)"
done
for engine in "${!ENGINE_IMAGES[@]}"; do
  check "engine $engine runs a known local image" 1 "$(engine_image "$engine" >/dev/null 2>&1 && echo 1 || echo 0)"
done
# Comments may mention tags; code outside lib/images.sh must not define or use one literally.
check "no script but lib/images.sh names an image tag in code" "" \
  "$(grep -rnE 'roboco-sandbox/[a-z-]+:[A-Za-z0-9._-]+' "$SCRIPTS" "$ROOT/.ci" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' \
     | grep -v '/lib/images.sh:' || true)"
check "export_engine_images keeps an operator's value" "mine:1 ${THIN_TAGS[redis]}" \
  "$(ROBOCO_SANDBOX_IMAGE_POSTGRES=mine:1; unset ROBOCO_SANDBOX_IMAGE_REDIS; export_engine_images; echo "$ROBOCO_SANDBOX_IMAGE_POSTGRES $ROBOCO_SANDBOX_IMAGE_REDIS")"

# --- the JUnit example's Maven repository (scripts/lib/example.sh) ---------------------------
# shellcheck source-path=SCRIPTDIR source=lib/example.sh
source "$SCRIPTS/lib/example.sh"
mkdir -p "$SCRATCH/m2/org/x" "$SCRATCH/m2/io/netty" "$SCRATCH/m2/io/roboco/stale"
example_repo_farm "$SCRATCH/m2" "$SCRATCH/farm"
example_repo_farm "$SCRATCH/m2" "$SCRATCH/farm"
check "the example repository links third-party groups" "$SCRATCH/m2/org" "$(readlink "$SCRATCH/farm/org")"
check "the example repository links io/* groups" "$SCRATCH/m2/io/netty" "$(readlink "$SCRATCH/farm/io/netty")"
check "io/roboco is the example repository's own, empty" "dir " \
  "$([[ -d "$SCRATCH/farm/io/roboco" && ! -L "$SCRATCH/farm/io/roboco" ]] && echo dir) $(ls -A "$SCRATCH/farm/io/roboco")"
check "test.sh runs the example against the server and the local Docker host" 2 \
  "$(grep -cE '^  example_(against_server|local) ' "$SCRIPTS/test.sh")"
check "test.sh stops the example's server on exit" 1 "$(grep -c "^trap 'example_cleanup" "$SCRIPTS/test.sh")"

if (( FAILURES > 0 )); then
  printf 'selftest: %d of %d checks failed\n' "$FAILURES" "$CHECKS"
  exit 1
fi
printf '==> selftest: %d checks passed\n' "$CHECKS"
