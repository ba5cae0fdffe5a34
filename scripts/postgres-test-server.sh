#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 server with pgvector for the test suite's second run.
#
#   install  installs Debian's postgresql-15 and postgresql-server-dev-15 if missing, and builds
#            pgvector from Debian's own source package (Debian 13's, pgvector 0.8.0: bookworm has none)
#   start    initdb in a new temporary directory, owned by the postgres user (the server refuses to
#            run as root), listening on 127.0.0.1 only, trust authentication, fsync off (test data);
#            `start durable`: with PostgreSQL's defaults instead (fsync on), for benchmarks;
#            prints `export TEST_POSTGRES_DIR=<dir> TEST_POSTGRES_URL=<admin url>` for eval
#   stop DIR stops the server started in DIR and removes DIR
#   down DIR stops it the way an operator's restart does (fast: sessions are ended, transactions
#            rolled back), keeping DIR; `up DIR` starts it again as it was (test/faults.test.ts)
#
# CI runs `install`, then `eval "$(... start)"` before npm test (.ci/run); on a developer's machine
# with PostgreSQL 15 and pgvector installed, `start` alone is enough.
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
PG_CONFIG=$PG_BIN/pg_config

install() {
  local need=()
  [ -x "$PG_BIN/postgres" ] || need+=(postgresql-15)
  [ -x "$PG_CONFIG" ] && [ -d "$("$PG_CONFIG" --includedir-server 2>/dev/null)" ] || need+=(postgresql-server-dev-15)
  command -v dpkg-source >/dev/null 2>&1 || need+=(dpkg-dev)
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  if [ -f "$("$PG_CONFIG" --sharedir)/extension/vector.control" ]; then
    return
  fi
  # Only source packages from Debian 13: nothing from it is installed.
  echo 'deb-src http://deb.debian.org/debian trixie main' >/etc/apt/sources.list.d/trixie-src.list
  apt-get update -qq
  local build
  build=$(mktemp -d)
  (
    cd "$build"
    apt-get source -qq pgvector >/dev/null 2>&1
    cd pgvector-*/
    # OPTFLAGS empty: no -march=native, so the build runs on any x86-64.
    make -s -j2 PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
    make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
  )
  rm -rf "$build"
}

start() {
  local dir port durability
  # `start durable`: PostgreSQL's own defaults (fsync, synchronous_commit, full_page_writes on), as in
  # production, for benchmarks whose figures depend on commits reaching the disk (bench/events.ts).
  durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [ "${1:-}" = durable ] && durability=""
  dir=$(mktemp -d /tmp/bwk-postgres-XXXXXX)
  chown postgres "$dir" 2>/dev/null || true
  as_postgres "$PG_BIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale >/dev/null
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  echo "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir $durability -c max_connections=300 -c shared_buffers=256MB" >"$dir/.options"
  echo "$dir" >"$dir/.dir"
  up "$dir"
  echo "export TEST_POSTGRES_DIR=$dir TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$port/postgres"
}

as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

up() {
  local dir=$1
  [ -f "$dir/.dir" ] || { echo "not a test server directory: $dir" >&2; exit 2; }
  as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$(cat "$dir/.options")" start >/dev/null
}

down() {
  local dir=$1
  [ -f "$dir/.dir" ] || { echo "not a test server directory: $dir" >&2; exit 2; }
  as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
}

stop() {
  local dir=$1
  [ -f "$dir/.dir" ] || { echo "not a test server directory: $dir" >&2; exit 2; }
  as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null || true
  rm -rf "$dir"
}

case "${1:-}" in
  install) install ;;
  start) start "${2:-}" ;;
  stop) stop "${2:?stop needs the directory start made}" ;;
  down) down "${2:?down needs the directory start made}" ;;
  up) up "${2:?up needs the directory start made}" ;;
  *) echo "usage: $0 install | start [durable] | stop DIR | down DIR | up DIR" >&2; exit 2 ;;
esac
