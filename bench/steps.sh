#!/usr/bin/env bash
# Sourced by the one-call device scripts (bench/test_ahead_probe.sh,
# bench/device_plan.sh): `step NAME LIMIT COMMAND...` runs COMMAND with a
# time-out, prints its exit status and the seconds since `start`, and keeps
# its log under $work (copied to $out only when it fails: $OUT returns at
# most 8 files). A step starts only where at least 30 s of BUDGET (default
# 570: one device command runs at most 600 s) is left, and its time-out is
# cut to what is left.
start=${start:-$(date +%s)}
budget=${BUDGET:-570}
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((budget - ($(date +%s) - start)))
  if [ "$left" -lt 30 ]; then echo "$name: skipped (no time left)"; return; fi
  [ "$limit" -gt "$left" ] && limit=$left
  timeout "$limit" "$@" > "$work/$name.log" 2>&1
  local rc=$?
  echo "$name: rc $rc at $(($(date +%s) - start)) s"
  if [ "$rc" -ne 0 ]; then tail -c 20000 "$work/$name.log" > "$out/$name.log"; fi
}
