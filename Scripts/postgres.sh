#!/usr/bin/env bash
# A local PostgreSQL server for the PostgreSQL store's tests and `make run-postgres`.
#
#   postgres.sh start   installs Debian's postgresql when missing (as root), then starts a server
#                       (or reuses the running one) and prints its URL: postgres://og@127.0.0.1:PORT/postgres
#   postgres.sh env     start, then print `export` lines: OBJECTGRAPH_POSTGRES_URL and PGPASSWORD
#   postgres.sh database NAME   start, then create database NAME when missing (prints "created" or "exists")
#   postgres.sh stop    stops the server and removes its folder
#
# The cluster lives in a temporary folder ($OBJECTGRAPH_POSTGRES_DIR, default
# /tmp/objectgraph-postgres), owned by an unprivileged user (the caller, or when run as root the
# `postgres` user Debian's package creates, else `nobody`), and listens only on 127.0.0.1 on a
# free port. Clients log in as `og` with a password generated at `initdb`, kept in the folder.
# Messages go to standard error; only the URL (or the export lines) goes to standard output.
set -euo pipefail

dir=${OBJECTGRAPH_POSTGRES_DIR:-/tmp/objectgraph-postgres}
command=${1:-start}

say() { echo "postgres: $*" >&2; }

binaries() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$bin" ] && [ -x "$bin/initdb" ] && echo "$bin"
}

install_server() {
    binaries >/dev/null && return 0
    if [ "$(id -u)" -ne 0 ]; then
        say "the PostgreSQL server is not installed; run: sudo apt-get install -y postgresql"
        return 1
    fi
    say "installing postgresql (Debian's package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # The package's own cluster is not needed: keep it from being created and started.
    mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/objectgraph.conf
    apt-get install -y -qq postgresql >/dev/null
    binaries >/dev/null || { say "postgresql was installed but initdb is missing"; return 1; }
}

# Runs a command as the cluster's owner.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u "$owner" -- "$@"
    else
        "$@"
    fi
}

choose_owner() {
    if [ "$(id -u)" -ne 0 ]; then owner=$(id -un)
    elif id postgres >/dev/null 2>&1; then owner=postgres
    else owner=nobody
    fi
}

port_in_use() { (echo > "/dev/tcp/127.0.0.1/$1") >/dev/null 2>&1; }

running() {
    [ -f "$dir/port" ] && [ -f "$dir/data/postmaster.pid" ] || return 1
    local bin; bin=$(binaries) || return 1
    as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

start() {
    install_server
    choose_owner
    local bin; bin=$(binaries)
    if running; then
        echo "postgres://og@127.0.0.1:$(cat "$dir/port")/postgres"
        return 0
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$dir/password"
        chmod 644 "$dir/password"
        [ "$(id -u)" -eq 0 ] && chown -R "$owner" "$dir"
        say "creating a cluster in $dir (owner $owner)"
        as_owner "$bin/initdb" -D "$dir/data" -U og --pwfile="$dir/password" --auth-local=trust \
            --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; say "initdb failed"; return 1; }
    fi
    local port=54329
    while port_in_use "$port"; do port=$((port + 1)); done
    echo "$port" > "$dir/port"
    [ "$(id -u)" -eq 0 ] && chown "$owner" "$dir/port"
    say "starting the server on 127.0.0.1:$port"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null \
        || { tail -20 "$dir/server.log" >&2; say "the server did not start"; return 1; }
    echo "postgres://og@127.0.0.1:$port/postgres"
}

case "$command" in
    start) start ;;
    env)
        url=$(start)
        echo "export OBJECTGRAPH_POSTGRES_URL=$url"
        echo "export PGPASSWORD=$(cat "$dir/password")"
        ;;
    database)
        name=${2:?usage: postgres.sh database NAME}
        start >/dev/null
        bin=$(binaries)
        psql=("$bin/psql" -h "$dir" -p "$(cat "$dir/port")" -U og -d postgres -tAq)
        if [ "$(as_owner "${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '${name//\'/}'")" = 1 ]; then
            echo exists
        else
            as_owner "${psql[@]}" -c "CREATE DATABASE \"${name//\"/}\"" && echo created
        fi
        ;;
    stop)
        choose_owner
        if running; then as_owner "$(binaries)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; fi
        rm -rf "$dir"
        ;;
    *) say "usage: postgres.sh start|env|stop"; exit 2 ;;
esac
