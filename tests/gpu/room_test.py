#!/usr/bin/env python3
"""A busy room on one GPU: N students' make checks started at once, each on a copy of a solution.

    room_test.py CHECK_SH BIN [--students 16] [--rounds 1] [--alone]

CHECK_SH is common/make/check.sh, BIN the build's bin folder (the solution programs). Each student gets a scratch
folder of their own holding a copy of a solution program in the student's slot (stepN_TRACK) beside the solutions,
so that what each check times is code identical to the solution. Students take the steps and tracks in turn (step 1
transpose, step 1 matmul, step 2 transpose, ...), then start their checks at the same moment, as check.sh runs in
make check. Each verdict is printed, then a summary line a round.

What must hold: every check PASSes; every ratio to the solution lies within 90-110%, or is marked uncertain (at most
one in 24 marked); with --alone, each step and track is first checked alone, reading 97-103% of the solution, and
every "x step N-1" in the room not marked uncertain lies within 10% of the figure the same check read alone.
Exit 0 when all of it holds, 1 when not, kExitNoDevice (skipped) where there is no GPU.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

def exit_code(name):
    """An exit code of the programs', read from the one place it is written."""
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "base", "exit_codes.hpp")
    with open(header, encoding="utf-8") as text:
        return int(re.search(rf"\b{name} = (\d+)", text.read()).group(1))


NO_GPU = exit_code("kExitNoDevice")  # check.sh passes it on; ctest counts it as skipped
VERDICT = re.compile(r"^VERDICT step (\d) (\w+): (PASS|FAIL|NOT CHECKED)(.*)$", re.M)
PERCENT = re.compile(r"(\d+)% of the solution( \(uncertain: [^)]*\))?")
TIMES = re.compile(r"([\d.]+)x step \d( \(uncertain: [^)]*\))?")


def slots(students):
    order = [(step, track) for step in range(1, 6) for track in ("transpose", "matmul")]
    return [order[i % len(order)] for i in range(students)]


def scratch_bin(root, name, bin_dir, taken):
    """A student's folder: a copy of the solution in the slot of each step and track `taken`, the solutions beside."""
    folder = os.path.join(root, name)
    os.mkdir(folder, 0o700)
    for step in range(1, 6):
        for track in ("transpose", "matmul"):
            solution = os.path.join(bin_dir, f"solution{step}_{track}")
            os.symlink(solution, os.path.join(folder, f"solution{step}_{track}"))
            if (step, track) in taken:
                shutil.copy2(solution, os.path.join(folder, f"step{step}_{track}"))
    return folder


def start_check(check_sh, folder, step, track, bin_dir):
    env = dict(os.environ, WORKSHOP_ROOM_BIN=bin_dir)
    env.pop("WORKSHOP_COLOR", None)
    return subprocess.Popen(["bash", check_sh, folder, str(step), track], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)


def read_verdict(output):
    """(outcome, percent, percent uncertain, times step N-1, times uncertain, line) of a check's output."""
    found = VERDICT.findall(output)
    if not found:
        return ("NO VERDICT", None, False, None, False, output.strip().splitlines()[-1:] or [""])
    step, track, outcome, rest = found[-1]
    line = f"VERDICT step {step} {track}: {outcome}{rest}"
    percent = PERCENT.search(rest)
    times = TIMES.search(rest)
    return (outcome, int(percent.group(1)) if percent else None, bool(percent and percent.group(2)),
            float(times.group(1)) if times else None, bool(times and times.group(2)), line)


def check_alone(check_sh, root, bin_dir):
    """Each step and track checked alone: its "x step N-1" figure; its share of the solution must be 97-103%."""
    folder = scratch_bin(root, "alone", bin_dir, slots(10))
    alone, off = {}, 0
    for step, track in slots(10):
        process = start_check(check_sh, folder, step, track, bin_dir)
        output, _ = process.communicate()
        if process.returncode == NO_GPU:
            return None
        verdict = read_verdict(output)
        print(f"alone: {verdict[5]}")
        alone[(step, track)] = verdict[3]
        off += 0 if verdict[0] == "PASS" and verdict[1] is not None and 97 <= verdict[1] <= 103 else 1
    print(f"alone: {10 - off} of 10 PASS at 97-103% of the solution", flush=True)
    return alone, off


def room_round(check_sh, root, bin_dir, students, number, alone):
    assigned = slots(students)
    folders = [scratch_bin(root, f"round{number}_student{i}", bin_dir, [assigned[i]]) for i in range(students)]
    processes = [start_check(check_sh, folders[i], *assigned[i], bin_dir) for i in range(students)]
    results = []
    for i, process in enumerate(processes):
        output, _ = process.communicate()
        if process.returncode == NO_GPU:
            return None
        results.append((assigned[i], read_verdict(output)))
        print(f"student {i:2}: {results[-1][1][5]}")
    passed = sum(1 for _, v in results if v[0] == "PASS")
    uncertain = sum(1 for _, v in results if v[2])
    outside = sum(1 for _, v in results if v[1] is not None and not v[2] and not 90 <= v[1] <= 110)
    no_ratio = sum(1 for _, v in results if v[0] == "PASS" and v[1] is None)
    times_off, times_seen, times_uncertain = 0, 0, 0
    if alone:
        for slot, v in results:
            if v[3] is not None and alone.get(slot):
                times_seen += 1
                times_uncertain += 1 if v[4] else 0
                times_off += 0 if v[4] or abs(v[3] / alone[slot] - 1) <= 0.10 else 1
    summary = (f"round {number}: {students} students: {passed} of {students} PASS; ratios to the solution outside "
               f"90-110%: {outside} of {students} ({uncertain} marked uncertain, {no_ratio} without a ratio)")
    if alone:
        summary += (f"; x step N-1 more than 10% from alone: {times_off} of {times_seen} ({times_uncertain} marked "
                    "uncertain)")
    print(summary, flush=True)
    return passed, outside, uncertain, no_ratio, times_off


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check_sh")
    parser.add_argument("bin")
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--alone", action="store_true")
    args = parser.parse_args()
    if args.students < 1 or args.rounds < 1:
        print("error: --students and --rounds take a whole number of at least 1", file=sys.stderr)
        return 2
    bin_dir = os.path.abspath(args.bin)
    for step in range(1, 6):
        for track in ("transpose", "matmul"):
            if not os.access(os.path.join(bin_dir, f"solution{step}_{track}"), os.X_OK):
                print(f"error: {bin_dir}/solution{step}_{track} is not built (make build)", file=sys.stderr)
                return 2
    root = tempfile.mkdtemp(prefix="room_test_")
    try:
        alone, alone_off = None, 0
        if args.alone:
            checked = check_alone(args.check_sh, root, bin_dir)
            if checked is None:
                print("skipped: no CUDA device")
                return NO_GPU
            alone, alone_off = checked
        totals = [0, 0, 0, 0, 0]
        for number in range(1, args.rounds + 1):
            counts = room_round(args.check_sh, root, bin_dir, args.students, number, alone)
            if counts is None:
                print("skipped: no CUDA device")
                return NO_GPU
            totals = [t + c for t, c in zip(totals, counts)]
        checks = args.students * args.rounds
        passed, outside, uncertain, no_ratio, times_off = totals
        print(f"all rounds: {passed} of {checks} PASS; {outside} ratios outside 90-110%, {uncertain} uncertain, "
              f"{no_ratio} without a ratio" + (f"; {times_off} x step N-1 more than 10% from alone" if alone else ""))
        ok = passed == checks and outside == 0 and no_ratio == 0 and uncertain <= max(1, checks // 24)
        return 0 if ok and times_off == 0 and alone_off == 0 else 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
