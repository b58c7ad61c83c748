#!/usr/bin/env bash
# Sets up the build before the token store's owner index (292005d) for `BENCH_BEFORE`: a detached
# worktree beside this checkout, its dependencies, the pinned harness's server side and the port of
# the token-endpoint server script. That build's token rate limit is a constant (1,200 a minute per
# client); it is lifted here as the benchmark lifts ours through RATE_LIMITS (the limiter still
# counts every request). Nothing is committed there. Usage: test/bench/ports/prepare-292005d.sh [dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
dir="${1:-$root/../bench-before-292005d}"
if [ ! -d "$dir" ]; then git -C "$root" worktree add --detach "$dir" 292005d; fi
mkdir -p "$dir/test/bench/pinned"
cp "$root"/test/bench/pinned/{server-side,allocation,allocation-profile,cpu-profile,protocol}.ts "$dir/test/bench/pinned/"
cp "$root/test/bench/ports/292005d/token-endpoint.ts" "$dir/test/bench/servers/token-endpoint-pinned.ts"
sed -i 's/tokenPerClient: { max: 1200, windowSeconds: 60 }/tokenPerClient: { max: 100_000_000, windowSeconds: 60 }/' \
  "$dir/services/auth/src/http/rate-limit.ts"
grep -q 'max: 100_000_000' "$dir/services/auth/src/http/rate-limit.ts"
(cd "$dir" && [ -d node_modules ] || npm ci --prefer-offline --no-audit --no-fund)
echo "BENCH_BEFORE=$dir/test/bench/servers/token-endpoint-pinned.ts"
