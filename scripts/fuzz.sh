#!/usr/bin/env bash
# Fuzzing with cargo fuzz (libFuzzer, coverage-guided; needs the nightly toolchain, which
# rustup has on these machines). Targets, in fuzz/fuzz_targets/:
#   cursor     the cursor decoder (and the round trip of cursors it wrote)
#   query      the query validator and builders (and: a plain `type:` atom is never built)
#   stdio      the stdio line reader (every line: a message, an error reply, or nothing)
#   wire       Zoekt's wire decoder, and what it lets through paged by every tool
#   arguments  every tool's argument parser and checks, end to end over a fixed backend
#
#   scripts/fuzz.sh                 # 12 s per target
#   scripts/fuzz.sh 600 wire query  # longer, chosen targets
#   FUZZ_SANITIZER=none scripts/fuzz.sh 12   # CI's smoke run (a minute of runs, after the build)
#
# FUZZ_SANITIZER is cargo fuzz's --sanitizer: address (the default, with leak checks) for long
# runs; none for CI's smoke run. The crate has no unsafe code, so AddressSanitizer guards only
# its dependencies' code, and leaks, and it costs the smoke run most of what it could do: in CI
# on 2 CPUs with empty caches, its build took 643 s and the targets ran 345 (wire) to 40,857
# (cursor) inputs a second; without it, 453 s and 4,045 to 405,356 a second, ten times the
# inputs in the same 12 s. A planted panic still fails the run. (Built by hand, cold: a debug
# build took 347 s and ran them forty times slower; 16 codegen units took 824 s.)
#
# Seeds are committed in fuzz/corpus/TARGET; what a run finds goes to target/fuzz-corpus
# (not committed) and a crash to fuzz/artifacts/TARGET. Prints runs, speed and crashes per
# target, and exits non-zero on any crash.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUZZ_VERSION=0.13.2
SECONDS_PER_TARGET="${1:-12}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(cursor query stdio wire arguments)
# Passed to both the build and every run: a run with other flags would build everything again.
SANITIZER="${FUZZ_SANITIZER:-address}"

say() { printf 'fuzz.sh: %s\n' "$*" >&2; }
if ! cargo +nightly --version >/dev/null 2>&1; then
  say "the nightly toolchain is missing (rustup toolchain install nightly): cargo fuzz needs it"
  exit 1
fi
if ! cargo fuzz --version 2>/dev/null | grep -qwF "$FUZZ_VERSION"; then
  say "installing cargo-fuzz $FUZZ_VERSION (once)"
  env -u CARGO_TARGET_DIR cargo install cargo-fuzz --version "$FUZZ_VERSION" --locked
fi
# Its own build folder: instrumented builds must not evict the test build's artifacts.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz-build"
# The fuzz crate is a workspace of its own, so nothing else keeps its lock file in step with
# the crate's dependencies; a stale one would let every fuzz build pick whatever is newest.
if ! cargo +nightly metadata --manifest-path fuzz/Cargo.toml --locked --format-version 1 >/dev/null; then
  say "fuzz/Cargo.lock is out of date: run cargo +nightly metadata --manifest-path fuzz/Cargo.toml --format-version 1 >/dev/null, and commit fuzz/Cargo.lock"
  exit 1
fi
cargo +nightly fuzz build --sanitizer "$SANITIZER"

failed=0
printf '%-10s %12s %10s %8s  %s\n' target runs runs/s seconds crashes
for t in "${TARGETS[@]}"; do
  found="$ROOT/target/fuzz-corpus/$t"
  mkdir -p "$found"
  log="$ROOT/target/fuzz-$t.log"
  rc=0
  cargo +nightly fuzz run --sanitizer "$SANITIZER" "$t" "$found" "fuzz/corpus/$t" -- \
    -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ "$rc" -ne 0 ]; then
    failed=1
    printf '%-10s %12s %10s %8s  %s\n' "$t" "${runs:-?}" "${speed:-?}" "${secs:-?}" "CRASH (rc $rc): see $log and fuzz/artifacts/$t"
    grep -m5 -E "panicked|ERROR: libFuzzer|SUMMARY" "$log" >&2 || true
  else
    printf '%-10s %12s %10s %8s  %s\n' "$t" "${runs:-?}" "${speed:-?}" "${secs:-?}" 0
  fi
done
exit "$failed"
