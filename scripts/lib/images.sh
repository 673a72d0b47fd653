#!/usr/bin/env bash
# shellcheck shell=bash
#
# The one table of local image tags (source it). scripts/build-images.sh builds from it and
# the other scripts read tags from it; Java code names the same tags (LocalImages in the
# tests, the bench, run.sh's defaults): change a tag here and grep for the old one.
#
# A base image is a Debian rootfs per suite (images/base/, packages-SUITE.list); a thin
# image is a `docker build` of images/DIR FROM its suite's base, with build args.

if [[ -n "${_ROBOCO_IMAGES_SOURCED:-}" ]]; then return 0; fi
_ROBOCO_IMAGES_SOURCED=1

# suite -> base image tag
declare -A BASE_TAGS=(
  [bookworm]=roboco-sandbox/base:bookworm
  [trixie]=roboco-sandbox/base:trixie
)

# thin image name -> tag
declare -A THIN_TAGS=(
  [postgres]=roboco-sandbox/postgres:15
  [postgres-17]=roboco-sandbox/postgres:17
  [redis]=roboco-sandbox/redis:7
  [mongo-compat]=roboco-sandbox/mongo-compat:3
  [postgres-official-like]=roboco-sandbox/postgres-official-like:15
)
# thin image name -> recipe directory under images/
declare -A THIN_DIRS=(
  [postgres]=postgres
  [postgres-17]=postgres
  [redis]=redis
  [mongo-compat]=mongo-compat
  [postgres-official-like]=postgres-official-like
)
# thin image name -> base suite
declare -A THIN_SUITES=(
  [postgres]=bookworm
  [postgres-17]=trixie
  [redis]=bookworm
  [mongo-compat]=bookworm
  [postgres-official-like]=bookworm
)
# thin image name -> docker build args (space separated KEY=VALUE; BASE_IMAGE is added)
declare -A THIN_ARGS=(
  [postgres]="PG_MAJOR=15"
  [postgres-17]="PG_MAJOR=17"
  [redis]=""
  [mongo-compat]=""
  [postgres-official-like]="PG_MAJOR=15"
)
# build order (and the default set)
THIN_ORDER=(postgres postgres-17 redis mongo-compat postgres-official-like)

# Postgres major -> local image (the engine's test/dev images per major).
declare -A POSTGRES_MAJOR_IMAGES=(
  [15]="${THIN_TAGS[postgres]}"
  [17]="${THIN_TAGS[postgres-17]}"
)

# Engine -> thin image name of the local image the engine runs by default (run.sh, bench.sh).
declare -A ENGINE_IMAGES=(
  [postgres]=postgres
  [redis]=redis
  [mongo]=mongo-compat
)

# engine_image ENGINE: the tag of the local image ENGINE runs by default.
engine_image() {
  local name="${ENGINE_IMAGES[$1]:-}"
  if [[ -z "$name" ]]; then
    printf 'ERROR: no local image for engine %s (known: %s)\n' "$1" "${!ENGINE_IMAGES[*]}" >&2
    return 1
  fi
  printf '%s\n' "${THIN_TAGS[$name]}"
}

# export_engine_images: ROBOCO_SANDBOX_IMAGE_<ENGINE> = the engine's local image, and
# ROBOCO_SANDBOX_IMAGE_POSTGRES_<MAJOR> = each Postgres major's local image (the majors a
# project may pick with sandbox_versions), for every variable not set already (an
# operator's own values win).
export_engine_images() {
  local engine var major
  for engine in "${!ENGINE_IMAGES[@]}"; do
    var="ROBOCO_SANDBOX_IMAGE_${engine^^}"
    if [[ -z "${!var:-}" ]]; then
      export "$var=$(engine_image "$engine")"
    fi
  done
  for major in "${!POSTGRES_MAJOR_IMAGES[@]}"; do
    var="ROBOCO_SANDBOX_IMAGE_POSTGRES_${major}"
    if [[ -z "${!var:-}" ]]; then
      export "$var=${POSTGRES_MAJOR_IMAGES[$major]}"
    fi
  done
}
