#!/usr/bin/env bash
# Cross-checks the NEON kernels on an x86-64 host: builds the kernels crate for aarch64 and runs
# its tests (scalar/NEON/NEON+dotprod parity) under qemu-user, once with a CPU that has the
# dot-product extension and once with one that has not.
# Needs: rustup target aarch64-unknown-linux-gnu, apt qemu-user gcc-aarch64-linux-gnu.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
for cpu in max cortex-a53; do
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu $cpu"
    cargo test -p pocket-kernels --target aarch64-unknown-linux-gnu -- --nocapture 2>&1 \
        | grep -E "kernel families|test result"
done
