#!/bin/sh
#
# Entrypoint of roboco-sandbox/redis:7, compatible with the official redis image:
# a first argument starting with '-' or ending in '.conf' gets `redis-server` prepended;
# redis-server started as root chowns /data and drops to the redis user.
set -eu

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi

if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
  find . \! -user redis -exec chown redis '{}' + 2>/dev/null || true
  exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi

if [ "$1" = redis-server ]; then
  # The official image is built with protected mode off; match it unless the caller
  # passes a config file or chooses protected mode explicitly.
  case " $* " in
    *" --protected-mode "*|*.conf\ *) ;;
    *) set -- "$@" --protected-mode no ;;
  esac
  # Official image behaviour: a restrictive umask unless one was set.
  if [ "$(umask)" = 0022 ]; then umask 0077; fi
fi

exec "$@"
