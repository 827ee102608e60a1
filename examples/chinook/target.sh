#!/bin/sh
# A toy "system under test" for `qeval run --target-command examples/chinook/target.sh`.
# qeval writes one case as JSON on stdin, {"id":...,"question":...,"dialect":...,
# "database":...,"tags":[...]}, and reads {"query": "..."} from stdout. This script knows
# the answers to a few case ids of suite.yaml and answers SELECT 1 to everything else.
set -eu

input=$(cat)
# qeval sends compact JSON with "id" first; take the first "id" string value.
id=$(printf '%s\n' "$input" | tr -d '\n' |
	sed -n 's/^[[:space:]]*{[[:space:]]*"id"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')

case "$id" in
c1) query="SELECT COUNT(*) FROM Customer WHERE Country = 'Brazil'" ;;
c5) query="SELECT COUNT(*) AS customers FROM Customer WHERE Country = 'France'" ;;
c9) query="SELECT AVG(Total) AS avg_total FROM Invoice" ;;
c12) query="SELECT DISTINCT Country FROM Customer" ;;
c38) query="SELECT BillingCountry, SUM(Total) AS total_sales FROM Invoice GROUP BY BillingCountry ORDER BY total_sales DESC LIMIT 1 OFFSET 2" ;;
*) query="SELECT 1" ;;
esac

printf '{"query": "%s"}\n' "$query"
