#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test suite: a temp data directory, 127.0.0.1 on a free
# port, trust auth, durability off (tests never need a crash-safe cluster), no autovacuum (its
# launcher visits each of the hundreds of test databases a run makes, ~5 % of a core by the end).
#   test/support/postgres.sh start DIR   initialises DIR/data, starts it, prints the database URL
#   test/support/postgres.sh stop DIR    stops it and removes DIR
# initdb refuses to run as root, so under root the server runs as the `postgres` user.
set -euo pipefail

bindir() {
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then dirname "$(command -v pg_ctl)"; return; fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  done
  return 1
}

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

case "$cmd" in
  start)
    bin=$(bindir) || { echo "postgres.sh: no initdb/pg_ctl found (apt-get install -y postgresql)" >&2; exit 1; }
    mkdir -p "$dir/data"
    [ "$(id -u)" = 0 ] && chown -R postgres: "$dir"
    port=$(bun -e 'const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() }); console.log(s.port); s.stop(true)')
    as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o \
      "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c autovacuum=off -c max_connections=400" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    bin=$(bindir) || exit 0
    [ -d "$dir/data" ] && as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
