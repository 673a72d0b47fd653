#!/usr/bin/env bash
# shellcheck shell=bash
#
# The arguments of scripts/test.sh, and Maven's command line read the way Maven reads it.
# Source it, do not run it:
#
#   source "$(dirname "$0")/lib/test-args.sh"
#   parse_test_args "$@"       # sets DOCKER_RESTART (0/1) and MAVEN_ARGS (array)
#   docker_restart_plan        # run | not-asked | its-skipped
#
# Checked by scripts/selftest.sh.

if [[ -n "${_ROBOCO_TEST_ARGS_SOURCED:-}" ]]; then return 0; fi
_ROBOCO_TEST_ARGS_SOURCED=1

# parse_test_args ARGS...: --with-docker-restart (or ROBOCO_IT_DOCKER_RESTART=1 in the
# environment) sets DOCKER_RESTART=1; every other argument goes to MAVEN_ARGS, in order.
parse_test_args() {
  DOCKER_RESTART="${ROBOCO_IT_DOCKER_RESTART:-0}"
  [[ "$DOCKER_RESTART" == 1 ]] || DOCKER_RESTART=0
  MAVEN_ARGS=()
  local arg
  for arg in "$@"; do
    case "$arg" in
      --with-docker-restart) DOCKER_RESTART=1 ;;
      *) MAVEN_ARGS+=("$arg") ;;
    esac
  done
}

# docker_restart_plan: what test.sh does about DockerRestartIT after the main run, from
# DOCKER_RESTART and MAVEN_ARGS: "run", "not-asked" (the default: the machine's dockerd is
# left alone) or "its-skipped" (asked, but the Maven arguments skip the integration tests).
docker_restart_plan() {
  if [[ "$DOCKER_RESTART" != 1 ]]; then
    echo not-asked
  elif maven_skips_its "${MAVEN_ARGS[@]}"; then
    echo its-skipped
  else
    echo run
  fi
}

# maven_property NAME ARGS...: print the value the Maven arguments give user property NAME
# (-DNAME, -DNAME=V, -D NAME=V, --define NAME=V, --define=NAME=V; the last one wins; a bare
# -DNAME means "true"). Returns 1, printing nothing, when no argument defines it.
maven_property() {
  local name="$1" found="" value="" def
  shift
  local args=("$@") i
  for ((i = 0; i < ${#args[@]}; i++)); do
    def=""
    case "${args[i]}" in
      -D|--define) def="${args[i + 1]:-}"; i=$((i + 1)) ;;
      --define=*) def="${args[i]#--define=}" ;;
      -D*) def="${args[i]#-D}" ;;
    esac
    if [[ -n "$def" && "${def%%=*}" == "$name" ]]; then
      found=1
      if [[ "$def" == *=* ]]; then value="${def#*=}"; else value=true; fi
    fi
  done
  [[ -n "$found" ]] || return 1
  printf '%s\n' "$value"
}

# maven_true NAME ARGS...: true when the arguments set boolean property NAME to true (Maven's
# Boolean.valueOf: "true" in any case; -DNAME alone counts as true, -DNAME=false does not).
maven_true() {
  local value
  value="$(maven_property "$@")" || return 1
  [[ "${value,,}" == true ]]
}

# maven_skips_its ARGS...: true when these Maven arguments skip the integration tests
# (-DskipITs, -DskipTests, -Dmaven.test.skip; with or without =true).
maven_skips_its() {
  maven_true skipITs "$@" || maven_true skipTests "$@" || maven_true maven.test.skip "$@"
}
