#!/usr/bin/env bash
# Compiles every target with CUDA sources (CMake's `cuda_objects`: every kernel of every step, solution, test and
# the harness) for each GPU architecture of a list, in one fat build, so that a launch bound, a shared-memory
# size or an intrinsic that breaks on one architecture fails CI. Then prints, per architecture, how many
# kernels ptxas compiled, their largest register and shared-memory use, and any spill to local memory.
#   .ci/compile_all_archs.sh BUILD_DIR "75 80 86 89 90 100 120" [more cmake arguments, e.g. the compiler]
# Fails on a compile error, on a ptxas or nvcc warning (other than the spill reports asked for here), and when
# the architectures did not all compile the same, non-zero number of kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
read -r -a archs <<<"$2"
shift 2
jobs=$(nproc 2>/dev/null || echo 2)
log="$build/compile_all_archs.log"
names=$(printf 'sm_%s ' "${archs[@]}")
names=${names% }
start=$SECONDS
rm -rf "$build"  # a fresh build: every file compiled, every ptxas report in the log
mkdir -p "$build"

cmake_archs=$(printf '%s-real;' "${archs[@]}")
# The GPU tests on, though there is no GPU here: a full build of this folder afterwards (.ci/cuda12.sh) then links
# every program and test program as well.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=${cmake_archs%;}" \
    "-DCMAKE_CUDA_FLAGS=-Xptxas=-v,-warn-spills,-warn-lmem-usage" -DWORKSHOP_GPU_TESTS=ON "$@" \
    >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
compiler=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
version=$("$compiler" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
targets=$(sed -n 's/^-- cuda_objects: the \([0-9]*\) targets.*/\1/p' "$build/configure.log")
echo "per-architecture compile: CUDA $version, $names, $targets targets with CUDA sources"

# --output-sync keeps each file's ptxas report in one piece, so each line can be read in its file's context.
if ! cmake --build "$build" --target cuda_objects -j "$jobs" -- --output-sync=target >"$log" 2>&1; then
    grep -E -A3 'error' "$log" | grep -vE '^(ptxas info|    [0-9]+ bytes)' | head -40
    echo "FAILED: a kernel does not compile for one of $names with CUDA $version (full log: $log)"
    exit 1
fi

status=0
summary=$(awk -v archs="${archs[*]}" '
    /Building CUDA object/ { file = $NF; sub(/^.*CMakeFiles\/[^\/]*\.dir\//, "", file); sub(/\.o$/, "", file) }
    match($0, /Compiling entry function .* for .sm_[0-9]+./) {
        split($0, q, "\047"); fn = q[2]; arch = q[4]; sub(/^sm_/, "", arch); kernels[arch]++
    }
    # ptxas -v: "Compiling entry function F for sm_N", then "N bytes stack frame, N bytes spill stores, ...".
    /bytes stack frame/ && match($0, /[0-9]+ bytes spill stores/) {
        bytes = substr($0, RSTART, RLENGTH) + 0
        if (bytes > 0) spills[arch] = spills[arch] sprintf("\n      spills %d bytes: %s in %s", bytes, fn, file)
    }
    match($0, /Used [0-9]+ registers/) { r = substr($0, RSTART + 5, RLENGTH - 15) + 0; if (r > regs[arch]) regs[arch] = r }
    match($0, /[0-9]+ bytes smem/) { s = substr($0, RSTART, RLENGTH) + 0; if (s > smem[arch]) smem[arch] = s }
    # ptxas prints its warnings before the entry line they belong to: name the file only.
    /(ptxas|nvcc) warning/ && !/Registers are spilled|Local memory used/ { bad = bad sprintf("\n  %s: %s", file, $0) }
    END {
        n = split(archs, list, " ")
        for (i = 1; i <= n; i++) {
            a = list[i]
            printf "  sm_%-4s %3d kernels, at most %3d registers and %5d bytes of static shared memory per block%s\n",
                   a, kernels[a], regs[a], smem[a], spills[a]
            if (kernels[a] == 0 || kernels[a] != kernels[list[1]]) bad = bad sprintf("\n  sm_%s compiled %d kernels, sm_%s %d", a, kernels[a], list[1], kernels[list[1]])
        }
        if (bad != "") { printf "PROBLEMS:%s\n", bad; exit 1 }
    }' "$log") || status=$?
printf '%s\n' "$summary" | c++filt
if [ "$status" -ne 0 ]; then
    echo "FAILED: the per-architecture compile with CUDA $version has the problems above (full log: $log)"
    exit 1
fi
echo "per-architecture compile: CUDA $version, every kernel compiles for $names ($((SECONDS - start)) s)"
