#!/bin/sh
#
# Entrypoint of roboco-sandbox/mongo-compat:3 (Mongo wire-compatible stand-in).
# Honours `mongod [--port N] [--bind_ip ADDR|--bind_ip_all] [--auth] [--setParameter ttlMonitorSleepSecs=N]`;
# other mongod options (logging, storage) have no meaning for an in-memory server and are
# ignored. As with the official image, MONGO_INITDB_ROOT_USERNAME and
# MONGO_INITDB_ROOT_PASSWORD (or their _FILE variants) create a root user in `admin` and turn
# access control on; the server reads them from its environment (never from argv). A first argument starting with '-' gets `mongod` prepended, like
# the official image; any other command runs as given.
set -eu

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
  set -- mongod "$@"
fi
if [ "$1" != mongod ]; then
  exec "$@"
fi
shift

# Keep only the options the stand-in understands.
port=27017
bind_ip=0.0.0.0
auth=""
ttl=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --port) port="${2:?--port needs a value}"; shift ;;
    --port=*) port="${1#--port=}" ;;
    --bind_ip) bind_ip="${2:?--bind_ip needs a value}"; shift ;;
    --bind_ip=*) bind_ip="${1#--bind_ip=}" ;;
    --bind_ip_all) bind_ip=0.0.0.0 ;;
    --auth) auth=--auth ;;
    --setParameter)
      case "${2:-}" in ttlMonitorSleepSecs=*) ttl="--setParameter $2" ;; esac
      if [ "$#" -gt 1 ]; then shift; fi ;;
    *) ;; # other mongod options have no meaning here
  esac
  shift
done

home="${MONGO_COMPAT_HOME:-/opt/mongo-compat}"
cds=""
if [ -f "$home/app.jsa" ]; then cds="-XX:SharedArchiveFile=$home/app.jsa"; fi

# Fast, small JVM: C1 only, serial GC, small stacks/heap. -Xshare:auto falls back
# silently if the archive does not match.
# shellcheck disable=SC2086  # $cds, $auth and $ttl are empty or fixed words
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -Xmx128m -Xshare:auto $cds \
  -XX:+ExitOnOutOfMemoryError \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -jar "$home/lib/mongo-compat-server.jar" --port "$port" --bind_ip "$bind_ip" $auth $ttl
