#!/usr/bin/env bash
# The machine's own PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379): started if
# installed and stopped. Without them this is no error: `make run` and the tests then use
# embedded servers from pip packages (infra/servers/embedded.py, standard library only, so this runs
# before anything is installed). TURNPOST_SERVERS=embedded skips the local ones.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-python3}" -m infra.servers.embedded local
