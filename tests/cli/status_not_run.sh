#!/usr/bin/env bash
# make status where the GPU has no room for the student's programs (another program holds its memory): the
# rows say the step was not run here, not that it has no kernel yet, and the next line says why. Stand-in
# programs on a copy of common/make, so the checkout's remembered progress is not touched. Needs no GPU.
#   status_not_run.sh MAKE_DIR
set -u
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/common" "$tree/build/bin"
cp -r "$1" "$tree/common/make" && cp -r "$1/../room" "$tree/common/room"
for step in 1 2 3 4 5; do
    mkdir -p "$tree/step$step"
    : >"$tree/step$step/transpose.cu"
    : >"$tree/step$step/matmul.cu"
done

# A solution: correct, with a rate on its step row.
solution='#!/usr/bin/env bash
case " $* " in *" --check "*) exit 0 ;; esac
echo "track,name,kind,shape,median_ms,min_ms,max_ms,runs,check,rate"
echo "transpose,solution,step,4096x4096,1,1,1,5,PASS,1000.0"'
# A student's program on a GPU with no room left: every run stops before the student's code, exit 4.
no_room='#!/usr/bin/env bash
echo "not enough device memory: no room for a CUDA context on GPU 0 (NVIDIA H200); other programs hold its memory" >&2
exit 4'
# Step 1's matmul as it starts: correct on the CPU path, no kernel, so no step row.
no_kernel='#!/usr/bin/env bash
case " $* " in *" --check "*) exit 0 ;; esac
echo "track,name,kind,shape,median_ms,min_ms,max_ms,runs,check,rate"'
for step in 1 2 3 4 5; do
    for track in transpose matmul; do
        printf '%s\n' "$solution" >"$tree/build/bin/solution${step}_$track"
        printf '%s\n' "$no_room" >"$tree/build/bin/step${step}_$track"
    done
done
printf '%s\n' "$no_kernel" >"$tree/build/bin/step1_matmul"
chmod +x "$tree/build/bin/"*

# Built already (as in a launcher's job), and no launcher, class folder or GPU pick from the environment.
out=$(WORKSHOP_STATUS_BUILT=yes WORKSHOP_LAUNCHER= WORKSHOP_CLASS_DIR= WORKSHOP_GPU=any TERM=dumb \
    "$tree/common/make/status.sh" "$tree/build" 2>&1)
echo "$out"
status=0
check() {  # WHAT COUNT REGEX: COUNT lines of the output match REGEX
    local n
    n=$(grep -c -E -- "$3" <<<"$out")
    if [ "$n" -eq "$2" ]; then echo "ok: $1"; else echo "FAIL: $1: $n lines match '$3', wanted $2"; status=1; fi
}
check "nine rows not run here" 9 '^[1-5] +(transpose|matmul) +yes +- +- +not run here'
check "step 1 matmul: no kernel yet" 1 '^1 +matmul +yes +PASS +- +no kernel yet'
check "'no kernel yet' only where there is none" 1 'no kernel yet'
check "the next line says why" 1 '^next: step 1 \(transpose\): part of the check could not run here'
exit $status
