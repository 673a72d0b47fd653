#!/usr/bin/env bash
#
# build-rootfs.sh ROOTFS_DIR MIRROR_URI [SUITE]
#
# Builds the Debian root filesystem behind roboco-sandbox/base:SUITE (default bookworm;
# trixie for the Postgres 17 image): debootstrap (minbase) + the packages in
# packages-SUITE.list, then slims it. Called by scripts/build-images.sh, which imports the
# directory with `docker import`. Part of every base recipe: editing this file rebuilds all
# images; editing one packages-SUITE.list rebuilds that suite's images only.
set -euo pipefail

ROOTFS="${1:?usage: build-rootfs.sh ROOTFS_DIR MIRROR_URI}"
MIRROR="${2:?usage: build-rootfs.sh ROOTFS_DIR MIRROR_URI}"
SUITE="${3:-bookworm}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PACKAGE_LIST="$HERE/packages-$SUITE.list"
[[ -r "$PACKAGE_LIST" ]] || { echo "no package list for suite '$SUITE' ($PACKAGE_LIST)" >&2; exit 2; }

log() { printf '    [base:%s] %s\n' "$SUITE" "$*"; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1fs", e - s }'; }

# Unmount everything we mounted below ROOTFS (deepest first). Safe to call repeatedly.
unmount_all() {
  local m
  for m in dev/pts dev proc sys; do
    if mountpoint -q "$ROOTFS/$m" 2>/dev/null; then umount -l "$ROOTFS/$m" || true; fi
  done
}
trap unmount_all EXIT

in_root() { chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 HOME=/root "$@"; }

# --- 1. minimal Debian ------------------------------------------------------------------
t=$(now)
log "debootstrap --variant=minbase $SUITE (mirror from the machine's apt sources) ..."
mkdir -p "$ROOTFS"
if ! debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >"$ROOTFS.debootstrap.log" 2>&1; then
  tail -n 30 "$ROOTFS.debootstrap.log" >&2
  [[ -f "$ROOTFS/debootstrap/debootstrap.log" ]] && tail -n 30 "$ROOTFS/debootstrap/debootstrap.log" >&2
  echo "debootstrap failed" >&2
  exit 1
fi
log "debootstrap done in $(since "$t")"

# --- 2. configure before installing -----------------------------------------------------
# No service may start inside the chroot / image build.
printf '#!/bin/sh\nexit 101\n' >"$ROOTFS/usr/sbin/policy-rc.d"
chmod 0755 "$ROOTFS/usr/sbin/policy-rc.d"
# postgresql-common must not create a "main" cluster: the entrypoint runs initdb itself.
mkdir -p "$ROOTFS/etc/postgresql-common"
printf 'create_main_cluster = false\n' >"$ROOTFS/etc/postgresql-common/createcluster.conf"
# Never unpack docs, man pages or translations (smaller and faster than deleting later).
cat >"$ROOTFS/etc/dpkg/dpkg.cfg.d/01-roboco-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
CFG
# No recommends/suggests, no apt caches kept.
cat >"$ROOTFS/etc/apt/apt.conf.d/01-roboco-slim" <<'CFG'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
CFG
# openjdk's postinst registers man-page alternatives and fails without this directory.
mkdir -p "$ROOTFS/usr/share/man/man1"

mount -t proc proc "$ROOTFS/proc"
mount -t sysfs sysfs "$ROOTFS/sys" 2>/dev/null || true
mount --bind /dev "$ROOTFS/dev"
mount --bind /dev/pts "$ROOTFS/dev/pts" 2>/dev/null || true
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf" 2>/dev/null || true

# --- 3. packages ------------------------------------------------------------------------
mapfile -t PACKAGES < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PACKAGE_LIST")
t=$(now)
log "apt-get install ${PACKAGES[*]} ..."
{
  in_root apt-get update -qq
  in_root apt-get install -y -qq "${PACKAGES[@]}"
} >"$ROOTFS.apt.log" 2>&1 || { tail -n 40 "$ROOTFS.apt.log" >&2; echo "apt-get install failed" >&2; exit 1; }
log "packages installed in $(since "$t")"

# --- 4. slim down -----------------------------------------------------------------------
unmount_all
in_root apt-get clean
# The image carries no apt sources (nor the mirror's name): it is never updated in place.
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin \
       "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/cache/debconf/*-old \
       "$ROOTFS"/etc/apt/sources.list "$ROOTFS"/etc/apt/sources.list.d/* \
       "$ROOTFS"/var/log/* "$ROOTFS"/tmp/* "$ROOTFS"/var/tmp/* "$ROOTFS"/debootstrap \
       "$ROOTFS"/root/.cache
find "$ROOTFS/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete 2>/dev/null || true
find "$ROOTFS/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
rm -rf "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/info/* "$ROOTFS"/usr/share/locale/* \
       "$ROOTFS"/usr/share/lintian "$ROOTFS"/usr/share/i18n
# Postgres JIT: LLVM alone is ~110 MB and JIT only slows short test queries. Postgres
# checks for llvmjit.so at first use and silently disables JIT when it is absent.
rm -rf "$ROOTFS"/usr/lib/postgresql/*/lib/llvmjit*.so "$ROOTFS"/usr/lib/postgresql/*/lib/bitcode \
       "$ROOTFS"/usr/lib/x86_64-linux-gnu/libLLVM-*.so* "$ROOTFS"/usr/lib/x86_64-linux-gnu/libLLVM.so*
# resolv.conf / hostname are provided by Docker at run time.
: >"$ROOTFS/etc/resolv.conf"
printf 'localhost\n' >"$ROOTFS/etc/hostname"
log "rootfs size: $(du -sh --one-file-system "$ROOTFS" | cut -f1)"
