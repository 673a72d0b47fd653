#!/usr/bin/env bash
#
# bench.sh [--quick] [--rounds N] [--out FILE] [--only contender,... | --only templates]
#
# Time to working credentials, side by side on this machine, in one run (docs/performance.md):
#   raw (DockerContainerRuntime + readiness + prepareAgent: the floor), testcontainers
#   (GenericContainer, same image and flags), cold request_sandbox over HTTP (per engine and the
#   full set), cache hits, warm-pool claims, a seeded project from the seeded pool next to its seed
#   at request time (on a claim, on a cold start); then 20 agents at once and idle memory per engine;
#   then a sandbox seeded from a 50 MB and a 500 MB template, physical copy vs dump, cold and from the
#   seeded pool (bench TemplateBench; --only templates runs just those, about 15 minutes here).
# Sets up like test.sh (packages, dockerd, Java/Maven, local images), builds the bench jar, runs it.
# Writes target/bench/summary.json at the repository root (override with --out).
# --quick: 1 warm-up + 4 counted rounds (about 2-3 minutes); default: 2 + 12 rounds.
# --only burst: issue 21's bursts (20/50/100 agents at once, the full set at 20, 20 on a pool) and the
#   contenders their ratios need; bound them with --burst-sizes N,N --burst-pool-sizes N --burst-full-set N.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/prereqs.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/prereqs.sh"
# shellcheck source-path=SCRIPTDIR source=lib/images.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/images.sh"
cd "$ROBOCO_REPO_ROOT"

ensure_all
"$ROBOCO_REPO_ROOT/scripts/build-images.sh"

readonly BENCH_JAR=bench/target/roboco-sandbox-bench.jar
step "building the bench (mvn -B -q -DskipTests -DskipITs package -pl bench -am) ..."
mvn -B -q ${MVN_OFFLINE:+-o} -DskipTests -DskipITs package -pl bench -am

# The local images (scripts/lib/images.sh), unless ROBOCO_SANDBOX_IMAGE_* are set already.
export_engine_images

# Testcontainers here: /.dockerenv exists and no registry is reachable (DESIGN.md section 3).
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_CHECKS_DISABLE=true
export TESTCONTAINERS_HOST_OVERRIDE=localhost

step "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
step "java -jar $BENCH_JAR $*"
exec java -jar "$BENCH_JAR" "$@"
