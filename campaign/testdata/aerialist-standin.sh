#!/usr/bin/env bash
# A stand-in for Aerialist's CLI (`python3 aerialist exec --test <yaml>
# [--agent local|docker|k8s] [--path <folder>] [--id <id>]`), for the
# aerialist engine's tests: Aerialist, PX4 and Gazebo are not installed on
# the machines the tests run on. It checks the arguments and the test YAML
# the way Aerialist would fail on them (argparse: exit 2; a missing file:
# exit 1), then "flies" by copying a real PX4 log ($AERIALIST_STANDIN_ULOG)
# to <folder>/<id>.ulg, as the run's log. AERIALIST_STANDIN_FAIL=1 makes
# the simulation fail (exit 1); AERIALIST_STANDIN_NOLOG=1 makes it exit 0
# without a log.
set -u
usage() { echo "usage: aerialist exec --test TEST [--agent {local,docker,k8s}] [--path PATH] [--id ID]" >&2; exit 2; }
[ "${1:-}" = "exec" ] || usage
shift
test="" agent="docker" path="results" id="test"
while [ $# -gt 0 ]; do
	case "$1" in
	--test) test="${2:-}"; shift 2 ;;
	--agent) agent="${2:-}"; shift 2 ;;
	--path) path="${2:-}"; shift 2 ;;
	--id) id="${2:-}"; shift 2 ;;
	*) echo "aerialist: error: unrecognized arguments: $1" >&2; exit 2 ;;
	esac
done
[ -n "$test" ] || usage
case "$agent" in local|docker|k8s) ;; *) echo "aerialist: error: argument --agent: invalid choice: '$agent'" >&2; exit 2 ;; esac
if [ ! -f "$test" ]; then echo "FileNotFoundError: $test" >&2; exit 1; fi
grep -q "mission_file:" "$test" || { echo "TypeError: no drone.mission_file in $test" >&2; exit 1; }
plan="$(dirname "$test")/$(sed -n 's/^ *mission_file: *//p' "$test" | head -1)"
[ -f "$plan" ] || { echo "FileNotFoundError: $plan" >&2; exit 1; }
if [ "${AERIALIST_STANDIN_FAIL:-}" = "1" ]; then echo "simulation failed: PX4 did not start" >&2; exit 1; fi
echo "running $test on the $agent agent"
[ "${AERIALIST_STANDIN_NOLOG:-}" = "1" ] && exit 0
mkdir -p "$path"
cp "$AERIALIST_STANDIN_ULOG" "$path/$id.ulg"
echo "log: $path/$id.ulg"
