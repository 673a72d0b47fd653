#!/usr/bin/env bash
#
# build-images.sh [--force | --check] [NAME...]
#
# Builds the local sandbox images (no container registry needed); tags in scripts/lib/images.sh:
#   roboco-sandbox/base:bookworm      debootstrap rootfs + packages, `docker import`ed
#   roboco-sandbox/base:trixie        the same for trixie (Postgres 17 + pgvector)
#   roboco-sandbox/postgres:15        thin `docker build` FROM base:bookworm (images/postgres/)
#   roboco-sandbox/postgres:17        thin `docker build` FROM base:trixie (images/postgres/)
#   roboco-sandbox/redis:7            thin `docker build` FROM base:bookworm (images/redis/)
#   roboco-sandbox/mongo-compat:3     thin `docker build` FROM base:bookworm (images/mongo-compat/)
#
# An image is (re)built only when it is absent or its recipe changed. The recipe hash is
# a sha256 over its images/<dir>/ files, its build args and its suite's base recipe, stored
# as the image label io.roboco.sandbox.recipe. --force rebuilds everything. --check builds
# nothing and prints one line per thin image, "<tag> current|stale|missing" (what doctor reads).
# NAME restricts the thin images built (with only the bases they need): postgres postgres-17 redis mongo-compat
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/prereqs.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/prereqs.sh"
# shellcheck source-path=SCRIPTDIR source=lib/images.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/images.sh"
cd "$ROBOCO_REPO_ROOT"

readonly LABEL=io.roboco.sandbox.recipe
readonly SCRATCH="${ROBOCO_BUILD_DIR:-/var/tmp/roboco-sandbox-build}"
readonly LOCK_FILE="${ROBOCO_BUILD_LOCK:-/var/lock/roboco-sandbox-images.lock}"

FORCE=""

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

# --- recipe hashing ----------------------------------------------------------------------

# dir_hash DIR: sha256 over (relative path, content hash) of every file below DIR,
# ignoring build output (target/). Stable across checkouts and machines.
dir_hash() {
  (cd "$1" && find . -type f -not -path '*/target/*' -print0 | LC_ALL=C sort -z \
     | xargs -0 -r sha256sum) | sha256sum | cut -c1-64
}

# base_recipe_hash SUITE: the rootfs script plus that suite's package list, so editing one
# suite's list rebuilds only that suite's images.
base_recipe_hash() {
  { sha256sum < images/base/build-rootfs.sh; sha256sum < "images/base/packages-$1.list"; printf '%s\n' "$1"; } \
    | sha256sum | cut -c1-64
}

# recipe_hash NAME: the thin image's own files, its build args and its base recipe.
recipe_hash() {
  printf '%s %s %s\n' "$(dir_hash "images/${THIN_DIRS[$1]}")" "${THIN_ARGS[$1]}" \
    "$(base_recipe_hash "${THIN_SUITES[$1]}")" | sha256sum | cut -c1-64
}

# image_recipe TAG: the recipe label of a local image, empty when the image is absent.
image_recipe() {
  docker image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$1" 2>/dev/null || true
}

# up_to_date TAG HASH: true when TAG exists with recipe HASH (and no --force).
up_to_date() {
  [[ -z "$FORCE" && "$(image_recipe "$1")" == "$2" ]]
}

# --- base image --------------------------------------------------------------------------

# build_base SUITE: the Debian SUITE rootfs as roboco-sandbox/base:SUITE. The mirror is the
# machine's own (bookworm's) apt mirror: it serves trixie too.
build_base() {
  local suite="$1" tag="${BASE_TAGS[$1]}" hash; hash="$(base_recipe_hash "$1")"
  if up_to_date "$tag" "$hash"; then
    step "$tag is up to date (recipe ${hash:0:12})"
    return 0
  fi
  local t0 mirror rootfs; t0="$(now_s)"
  step "building $tag (recipe ${hash:0:12}) ..."
  mirror="$(debian_mirror)"
  rootfs="$SCRATCH/rootfs"
  clean_scratch
  mkdir -p "$SCRATCH"
  as_root bash images/base/build-rootfs.sh "$rootfs" "$mirror" "$suite"
  info "importing rootfs ..."
  as_root tar --numeric-owner -C "$rootfs" -c . | docker import \
    --change "LABEL $LABEL=$hash" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["bash"]' \
    --message "roboco-sandbox base rootfs $suite (recipe $hash)" \
    - "$tag" >/dev/null
  clean_scratch
  step "built $tag in $(elapsed "$t0") ($(image_size "$tag"))"
}

# Remove the scratch directory, never following mounts out of it.
clean_scratch() {
  [[ -d "$SCRATCH" ]] || return 0
  local m
  # Unmount anything a crashed earlier run left mounted below the scratch dir.
  while read -r m; do as_root umount -l "$m" || true; done \
    < <(awk -v d="$SCRATCH/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r)
  as_root rm -rf --one-file-system "$SCRATCH"
}

image_size() {
  docker image inspect --format '{{.Size}}' "$1" | awk '{ printf "%.0f MB", $1 / 1e6 }'
}

# --- thin images -------------------------------------------------------------------------

# prepare_context NAME DIR: fill the docker build context DIR for image NAME.
prepare_context() {
  local name="$1" ctx="$2"
  cp -a "images/${THIN_DIRS[$name]}/." "$ctx/"
  rm -rf "$ctx/server"
  if [[ "$name" == mongo-compat ]]; then
    local pom=images/mongo-compat/server/pom.xml
    info "building the mongo-java-server launcher (mvn package) ..."
    # Output goes to a log, shown only when Maven fails.
    if ! { mvn -B -q -f "$pom" package -DskipTests &&
           mvn -B -q -f "$pom" dependency:copy-dependencies \
             -DincludeScope=runtime -DoutputDirectory="$ctx/lib"; } >"$ctx.mvn.log" 2>&1; then
      tail -n 40 "$ctx.mvn.log" >&2
      die "building the mongo-compat launcher failed"
    fi
    rm -f "$ctx.mvn.log"
    cp images/mongo-compat/server/target/mongo-compat-server.jar "$ctx/lib/"
  fi
}

build_thin() {
  local name="$1" tag="${THIN_TAGS[$1]}" hash
  hash="$(recipe_hash "$name")"
  if up_to_date "$tag" "$hash"; then
    step "$tag is up to date (recipe ${hash:0:12})"
    return 0
  fi
  local t0 ctx; t0="$(now_s)"
  step "building $tag (recipe ${hash:0:12}) ..."
  ctx="$SCRATCH/context-$name"
  rm -rf "$ctx"; mkdir -p "$ctx"
  prepare_context "$name" "$ctx"
  local args=(--build-arg "BASE_IMAGE=${BASE_TAGS[${THIN_SUITES[$name]}]}") kv
  for kv in ${THIN_ARGS[$name]}; do args+=(--build-arg "$kv"); done
  # The legacy builder works offline FROM a local image (no pull is attempted).
  if ! DOCKER_BUILDKIT=0 docker build "${args[@]}" --label "$LABEL=$hash" -t "$tag" "$ctx" >"$ctx.log" 2>&1; then
    tail -n 30 "$ctx.log" >&2
    die "docker build of $tag failed"
  fi
  rm -f "$ctx.log"
  rm -rf "$ctx"
  step "built $tag in $(elapsed "$t0") ($(image_size "$tag"))"
}

# --- main --------------------------------------------------------------------------------

main() {
  local names=() check=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --force) FORCE=1 ;;
      --check) check=1 ;;
      -h|--help) usage; exit 0 ;;
      -*) die "unknown option: $1 (try --help)" ;;
      *) [[ -n "${THIN_TAGS[$1]:-}" ]] || die "unknown image '$1' (known: ${THIN_ORDER[*]})"
         names+=("$1") ;;
    esac
    shift
  done
  [[ ${#names[@]} -gt 0 ]] || names=("${THIN_ORDER[@]}")

  command -v docker >/dev/null 2>&1 || die "docker not found; run scripts/test.sh (installs prerequisites)"
  docker_answers || die "docker daemon not reachable; run scripts/test.sh or start dockerd"

  if [[ -n "$check" ]]; then
    local n have
    for n in "${names[@]}"; do
      have="$(image_recipe "${THIN_TAGS[$n]}")"
      if [[ -z "$have" ]]; then echo "${THIN_TAGS[$n]} missing"
      elif [[ "$have" == "$(recipe_hash "$n")" ]]; then echo "${THIN_TAGS[$n]} current"
      else echo "${THIN_TAGS[$n]} stale"; fi
    done
    return 0
  fi

  # Serialise concurrent builds (several worktrees may share this docker daemon).
  as_root mkdir -p "$(dirname "$LOCK_FILE")"
  exec 9>"$LOCK_FILE"
  if ! flock -n 9; then
    step "another image build is running; waiting for it ..."
    flock 9
  fi

  local t0; t0="$(now_s)"
  local n suite
  declare -A suites=()
  for n in "${names[@]}"; do suites[${THIN_SUITES[$n]}]=1; done
  for suite in bookworm trixie; do
    if [[ -n "${suites[$suite]:-}" ]]; then build_base "$suite"; fi
  done
  for n in "${names[@]}"; do build_thin "$n"; done
  # Superseded (now untagged) versions of our images would only hold disk space.
  docker image prune -f --filter "label=$LABEL" >/dev/null 2>&1 || true
  step "images ready in $(elapsed "$t0")"
}

main "$@"
