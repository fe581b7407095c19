#!/usr/bin/env bash
# The rustc wrapper of `scripts/test.sh --coverage` (cargo's RUSTC_WORKSPACE_WRAPPER, which it
# calls for this crate's own targets only, as `coverage-rustc.sh rustc ARGS...`): instruments
# the crate for LLVM's source-based coverage. Dependencies are built as usual, so the
# instrumented suite runs at nearly its normal speed and the build adds no dependency rebuild.
# bash, not sh: dash drops environment variables whose names are not shell names, such as
# CARGO_BIN_EXE_zoekt-pager, which the integration tests are compiled with.
exec "$@" -C instrument-coverage
