#!/usr/bin/env bash
# NL→Malloy with qeval: mirror two Spider dev databases into DuckDB, compile the Malloy
# answers to DuckDB SQL with the official compiler, and score them against the Spider
# gold on SQLite. SPIDER points at Spider's dev.json and database/ (default: the shared
# data beside the repository); QEVAL runs qeval (default: go run from this checkout).
set -euo pipefail
cd "$(dirname "$0")"
SPIDER=${SPIDER:-../../../shared/data/spider}
QEVAL=${QEVAL:-go run ../../cmd/qeval}
mkdir -p build
$QEVAL mirror --replace --to duckdb:build/mirror "$SPIDER/database/concert_singer" "$SPIDER/database/pets_1"
# npm ci rejects this lock file (npm drops the other platforms' optional DuckDB bindings
# from it); install honours the lock just the same
npm install --no-audit --no-fund --loglevel=error
node compile.mjs --spider "$SPIDER"
$QEVAL run build/suite.json -o build/report "$@"
