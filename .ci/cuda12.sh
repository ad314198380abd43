#!/usr/bin/env bash
# The whole project built and its tests run with a CUDA 12 toolkit, beside the installed CUDA 13 that `make test`
# uses: kernels for every architecture CUDA 12.4 knows from sm_75 on (sm_100 and sm_120 need 12.8), then every
# program and test, then the tests (host and command line pass; GPU tests are skipped without a GPU).
# The toolkit is assembled once in a cache folder (.ci/cuda12_toolkit.sh); nothing a README user does changes.
set -euo pipefail
cd "$(dirname "$0")/.."
build="build-ci/cuda12"
jobs=$(nproc 2>/dev/null || echo 2)

start=$SECONDS
nvcc12=$(.ci/cuda12_toolkit.sh)
echo "cuda12: toolkit ready in $((SECONDS - start)) s: $nvcc12"

.ci/compile_all_archs.sh "$build" "75 80 86 89 90" "-DCMAKE_CUDA_COMPILER=$nvcc12"

start=$SECONDS
cmake --build "$build" -j "$jobs" >"$build/build.log" 2>&1 ||
    { tail -40 "$build/build.log"; echo "FAILED: the build with CUDA 12"; exit 1; }
grep -E 'warning' "$build/build.log" | grep -v 'ptxas' || true
echo "cuda12: every program and test built with $("$nvcc12" --version | grep -o 'release [0-9.]*') in $((SECONDS - start)) s"

start=$SECONDS
common/make/run_tests.sh "$build" -j "$jobs" >"$build/tests.log" 2>&1 ||
    { cat "$build/tests.log"; echo "FAILED: the tests of the CUDA 12 build"; exit 1; }
echo "cuda12: $(tail -1 "$build/tests.log") ($((SECONDS - start)) s)"
