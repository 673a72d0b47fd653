#!/usr/bin/env bash
# shellcheck shell=bash
#
# Shared prerequisites for the RoboCo Sandbox scripts. Source it, do not run it:
#
#   source "$(dirname "$0")/lib/prereqs.sh"
#   ensure_packages          # docker.io, debootstrap + PREREQ_APT_PACKAGES
#   ensure_dockerd           # start dockerd when `docker info` does not answer
#   ensure_java_maven        # Java 17+ and Maven on PATH, or a clear message
#
# Works on a bare Debian 12 machine without systemd (CI); everything is idempotent and
# fast when already satisfied. No hostnames live in this file: the Debian mirror is read
# from the machine's own apt sources at run time (see debian_mirror).

# Guard against double sourcing.
if [[ -n "${_ROBOCO_PREREQS_SOURCED:-}" ]]; then return 0; fi
_ROBOCO_PREREQS_SOURCED=1

# Repository root (scripts/lib/.. /..), usable by every script that sources this file.
ROBOCO_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export ROBOCO_REPO_ROOT

# Debian packages the scripts need. Extend before calling ensure_packages, e.g.
#   PREREQ_APT_PACKAGES+=(chromium chromium-driver)
# docker.io and debootstrap build and run the images; the clients help debugging and
# host-side checks against 127.0.0.1 sandboxes; chromium + chromium-driver run the
# dashboard's headless browser tests (DashboardBrowserIT); python3-pymongo is the standard
# Python driver the Mongo ITs use with the handed-out URL (Debian's /usr/bin/python3).
if ! declare -p PREREQ_APT_PACKAGES >/dev/null 2>&1; then
  PREREQ_APT_PACKAGES=(docker.io debootstrap postgresql-client redis-tools chromium chromium-driver python3-pymongo)
fi

# Where dockerd logs when we have to start it ourselves. (The server's state directory is the
# server's business: it creates it itself, mode 0700; the scripts never make it.)
DOCKERD_LOG="${ROBOCO_DOCKERD_LOG:-/var/log/roboco-sandbox-dockerd.log}"
DOCKERD_WAIT_SECONDS="${ROBOCO_DOCKERD_WAIT_SECONDS:-60}"

# --- output helpers ---------------------------------------------------------------------

step() { printf '==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Seconds since the epoch with millisecond precision, for timing output.
now_s() { date +%s.%N; }
# elapsed START -> "12.3s"
elapsed() { awk -v s="$1" -v e="$(now_s)" 'BEGIN { printf "%.1fs", e - s }'; }

as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# --- Debian packages ---------------------------------------------------------------------

# is_installed PKG: true when dpkg knows PKG as installed.
is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# ensure_packages [PKG...]: apt-get install whatever is missing from
# PREREQ_APT_PACKAGES plus the arguments. Runs apt-get update only if something is missing.
# shellcheck disable=SC2120  # extra packages are optional
ensure_packages() {
  local pkg missing=()
  for pkg in "${PREREQ_APT_PACKAGES[@]}" "$@"; do
    if ! is_installed "$pkg"; then missing+=("$pkg"); fi
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    step "Debian packages present: ${PREREQ_APT_PACKAGES[*]}${*:+ $*}"
    return 0
  fi
  local t0; t0="$(now_s)"
  step "installing ${missing[*]} ..."
  local rc=0
  without_service_starts apt_install "${missing[@]}" || rc=$?
  [[ $rc -eq 0 ]] || die "apt-get failed (exit $rc) installing: ${missing[*]}"
  info "installed ${missing[*]} in $(elapsed "$t0")"
}

# apt_install PKG...: apt-get update, then install (nothing is installed when the update fails).
apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

# Where Debian's invoke-rc.d looks for a policy (overridable for scripts/selftest.sh only).
POLICY_RC_D="${ROBOCO_POLICY_RC_D:-/usr/sbin/policy-rc.d}"

# without_service_starts CMD...: runs CMD with a policy-rc.d that forbids package maintainer
# scripts to start services (dockerd is started by ensure_dockerd, under our control, with or
# without systemd). The policy is added only if none exists, and then removed whatever happens:
# CMD's failure, Ctrl-C, SIGTERM or SIGHUP (a subshell's traps; the signal is passed on).
without_service_starts() {
  if [[ -e "$POLICY_RC_D" ]]; then
    "$@"
    return
  fi
  (
    remove_policy() { as_root rm -f "$POLICY_RC_D"; }
    trap remove_policy EXIT
    for sig in INT TERM HUP; do
      # shellcheck disable=SC2064  # $sig expands now, on purpose
      trap "remove_policy; trap - $sig EXIT; kill -$sig \$BASHPID" "$sig"
    done
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$POLICY_RC_D" >/dev/null
    as_root chmod 0755 "$POLICY_RC_D"
    "$@"
  )
}

# debian_mirror: print the Debian mirror URI of this machine's main (non-security) apt
# source. Reads deb822 .sources files first, then the one-line sources.list format.
debian_mirror() {
  local f uri=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -r "$f" ]] || continue
    # Stanzas are separated by blank lines; take the first "Types: deb" stanza whose
    # Suites are not *-security and print its first URI.
    uri="$(awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && suites !~ /-security/ && uris != "" && out == "") {
          split(uris, u, " "); out = u[1]
        }
        types = ""; suites = ""; uris = ""
      }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      tolower($1) == "types:"  { $1 = ""; types = $0 }
      tolower($1) == "suites:" { $1 = ""; suites = $0 }
      tolower($1) == "uris:"   { $1 = ""; uris = $0; sub(/^ +/, "", uris) }
      END { flush(); if (out != "") print out }
    ' "$f")"
    [[ -n "$uri" ]] && break
  done
  if [[ -z "$uri" ]]; then
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -r "$f" ]] || continue
      # deb [options] URI suite components...
      uri="$(awk '
        $1 == "deb" {
          i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
          if ($(i + 1) !~ /-security/) { print $i; exit }
        }' "$f")"
      [[ -n "$uri" ]] && break
    done
  fi
  [[ -n "$uri" ]] || die "no Debian mirror found in /etc/apt/sources.list{,.d/} (need a main, non-security 'deb' entry)"
  printf '%s\n' "${uri%/}"
}

# --- Docker daemon -----------------------------------------------------------------------

docker_answers() { docker info >/dev/null 2>&1; }

# ensure_dockerd: make `docker info` answer. Uses systemd when it is PID 1, otherwise
# starts dockerd in the background (no systemd needed) and waits for it.
ensure_dockerd() {
  command -v docker >/dev/null 2>&1 || die "docker CLI not found; run ensure_packages first (package docker.io)"
  if docker_answers; then
    step "dockerd is running ($(docker version --format '{{.Server.Version}}, API {{.Server.APIVersion}}' 2>/dev/null))"
    return 0
  fi
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
    step "starting docker via systemctl ..."
    as_root systemctl start docker || warn "systemctl start docker failed; starting dockerd directly"
  fi
  if ! docker_answers && ! pgrep -x dockerd >/dev/null 2>&1; then
    command -v dockerd >/dev/null 2>&1 || die "dockerd not found; install the docker.io package"
    as_root mkdir -p "$(dirname "$DOCKERD_LOG")"
    step "starting dockerd (log: $DOCKERD_LOG) ..."
    # setsid + nohup: the daemon outlives this script and its terminal.
    # shellcheck disable=SC2016  # $1 expands in the inner shell
    as_root bash -c 'nohup setsid dockerd >"$1" 2>&1 </dev/null &' _ "$DOCKERD_LOG"
  fi
  local waited=0
  until docker_answers; do
    if (( waited >= DOCKERD_WAIT_SECONDS )); then
      warn "dockerd did not answer within ${DOCKERD_WAIT_SECONDS}s; last lines of $DOCKERD_LOG:"
      tail -n 30 "$DOCKERD_LOG" >&2 2>/dev/null || true
      die "docker daemon unavailable"
    fi
    if (( waited % 5 == 0 )); then info "waiting for dockerd ... ${waited}s"; fi
    sleep 1
    waited=$((waited + 1))
  done
  step "dockerd is up after ${waited}s"
}

# --- Java / Maven ------------------------------------------------------------------------

# Node.js 18+ and npm: the MCP IT drives the server with the official MCP TypeScript SDK client
# (server/src/test/mcp-client, installed by the IT with `npm ci`). A machine image that ships its own
# Node keeps it; otherwise Debian's nodejs + npm are installed.
ensure_node() {
  local major=0
  if command -v node >/dev/null 2>&1; then
    major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  fi
  if [[ "$major" -ge 18 ]] && command -v npm >/dev/null 2>&1; then
    step "Node.js $(node --version) and npm $(npm --version) present"
    return 0
  fi
  ensure_packages nodejs npm
}

ensure_java_maven() {
  local hint="install them with: apt-get install -y openjdk-17-jdk-headless maven"
  command -v java >/dev/null 2>&1 || die "java not found on PATH (Java 17+ JDK required); $hint"
  command -v mvn  >/dev/null 2>&1 || die "mvn not found on PATH (Maven 3.8+ required); $hint"
  local spec major
  spec="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ { print $2 }')"
  major="${spec#1.}"; major="${major%%.*}"
  [[ "$major" =~ ^[0-9]+$ && "$major" -ge 17 ]] || die "Java 17+ required, found '${spec:-unknown}'; $hint"
  step "Java $spec and $(mvn -v 2>/dev/null | head -n 1 | sed 's/\x1b\[[0-9;]*m//g') found"
}

# ensure_all: the standard preamble of test.sh / run.sh (extra packages: extend
# PREREQ_APT_PACKAGES before calling it).
ensure_all() {
  # shellcheck disable=SC2119
  ensure_packages
  ensure_dockerd
  ensure_java_maven
  ensure_node
}
