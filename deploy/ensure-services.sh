#!/usr/bin/env bash
# Make sure the local Postgres and Redis answer; start them if installed and stopped.
set -euo pipefail

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "starting PostgreSQL"
    for v in $(ls /etc/postgresql); do pg_ctlcluster --skip-systemctl-redirect "$v" main start || true; done
  fi
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  pg_up || { echo "PostgreSQL is not reachable on 127.0.0.1:5432 and could not be started" >&2; exit 1; }
fi

if ! redis_up; then
  if command -v redis-server >/dev/null; then
    echo "starting Redis"
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/turnpost.log
  fi
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
  redis_up || { echo "Redis is not reachable on 127.0.0.1:6379 and could not be started" >&2; exit 1; }
fi
echo "PostgreSQL and Redis are up"
