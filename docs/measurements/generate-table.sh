#!/bin/sh
# Reproduces the strategy table of `shakedown generate` (issue 15):
# random, constrained, the paper's pipeline (surrogate), the local search
# and the confirmed search, on missions 2, 4 and 5, budgets 200 and 100,
# seeds 1–5, mean ± sd of hit rate (critical flights / simulations),
# critical and confirmed tests / simulations, precision of the first 20
# and of the best 20 by test score (each re-flown 3 times), timed-out
# flights, input and output diversity of the first 20, RMSE and legs
# probed.
#
#   docs/measurements/generate-table.sh [OUT]        # the full table
#   SEEDS=1,2 BUDGETS=100 docs/measurements/generate-table.sh /tmp/t
#   MISSIONS=gen/testdata/zigzag.plan,gen/testdata/square.plan STRATEGIES=surrogate,local \
#     docs/measurements/generate-table.sh /tmp/shapes
#
# Each generation is appended to OUT/runs.jsonl as it ends and skipped on
# a rerun, so an interrupted table resumes; OUT/table.md is the table. The
# canonical training dataset (2716 flights) is built once into OUT/cache.
# It takes hours on 2 cores; it runs niced.
set -eu
out=${1:-/tmp/shakedown-table}
root=$(cd "$(dirname "$0")/../.." && pwd)
# Plan paths are taken from the repository root; the test runs in cmd/shakedown.
missions=$(printf '%s' "${MISSIONS:-mission2,mission4,mission5}" | tr ',' '\n' |
	sed "s|^gen/|$root/gen/|" | paste -sd, -)
cd "$root"
SHAKEDOWN_TABLE="$out" \
SHAKEDOWN_TABLE_MISSIONS="$missions" \
SHAKEDOWN_TABLE_BUDGETS="${BUDGETS:-200,100}" \
SHAKEDOWN_TABLE_SEEDS="${SEEDS:-1,2,3,4,5}" \
SHAKEDOWN_TABLE_STRATEGIES="${STRATEGIES:-random,constrained,surrogate,local,search}" \
	nice -n 10 go test -tags long -run TestGenerateTable -timeout 0 -v ./cmd/shakedown/
echo "table: $out/table.md"
