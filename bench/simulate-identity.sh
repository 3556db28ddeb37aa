#!/usr/bin/env bash
# Whether this checkout routes exactly as another revision does offline: builds REV in a temporary worktree, takes
# both builds' fingerprints (bench/simulate-fingerprint.sh: every figure and branch count of `homing simulate` and
# `homing compare`, multi-turn, generated-shared-prefix and Mooncake, every policy, seed 1, wall times aside) and
# prints their difference. Exit status 0 when they are identical.
#
#   bench/simulate-identity.sh REV        (this checkout must be built: ./mvnw -q package -DskipTests)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rev=${1:?usage: simulate-identity.sh REV}
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$repo" worktree add --detach "$work/base" "$rev" >/dev/null
(cd "$work/base" && ./mvnw -q -B -ntp package -DskipTests >/dev/null)
export MOONCAKE_TRACE=${MOONCAKE_TRACE:-$repo/../shared/data/mooncake/conversation_trace.jsonl}
"$repo/bench/simulate-fingerprint.sh" "$work/before" "$work/base/bin/homing" >/dev/null
"$repo/bench/simulate-fingerprint.sh" "$work/after" "$repo/bin/homing" >/dev/null
if diff -r "$work/before" "$work/after"; then
  echo "identical: $(git -C "$repo" rev-parse --short "$rev") and this checkout give the same figures"
else
  echo "different: see the diff above" >&2
  exit 1
fi
