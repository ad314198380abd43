#!/usr/bin/env python3
"""The CSV that workshop_results writes, read by Python's csv module (RFC 4180): a results file written here with
a note holding a comma, a quote and a newline goes through `workshop_results --replot`, which reads it and writes
it again, and Python reads back every field as it was, in the same columns.

usage: csv_round_trip.py WORKSHOP_RESULTS SCRATCH_DIR
"""
import csv
import pathlib
import shutil
import subprocess
import sys

COLUMNS = ["track", "name", "kind", "shape", "status", "reps", "median_ms", "min_ms", "max_ms", "rate", "unit",
           "pct_of_reference", "pct_of_peak", "device", "note", "date"]
HOSTILE = 'first, "quoted"\nsecond line, ""'


def rows():
    base = dict(track="matmul", kind="step", shape="4096x4096x4096", status="PASS", reps="9", median_ms="15.6",
                min_ms="15.5", max_ms="15.7", unit="GFLOP/s", pct_of_reference="17.06", pct_of_peak="13.16",
                device="GPU, \"test\"", date="2026-11-25")
    return [dict(base, name="step 3: shared-memory tiles", rate="8806", note=HOSTILE),
            dict(base, name='step 4: "1D", several', rate="16945", note="plain")]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    results, scratch = sys.argv[1], pathlib.Path(sys.argv[2])
    shutil.rmtree(scratch, ignore_errors=True)
    source, out = scratch / "in", scratch / "out"
    source.mkdir(parents=True)
    with open(source / "matmul.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows())
    subprocess.run([results, "--replot", str(source), "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    with open(out / "matmul.csv", newline="") as f:
        reader = csv.reader(f)
        header, back = next(reader), list(reader)
    problems = []
    if header != COLUMNS:
        problems.append(f"the header is {header}")
    if len(back) != 2:
        problems.append(f"{len(back)} records read back, expected 2")
    for written, read in zip(rows(), back):
        for column, value in zip(COLUMNS, read):
            if column in ("track", "name", "kind", "shape", "status", "unit", "device", "note", "date") and \
                    value != written[column]:
                problems.append(f"{column}: wrote {written[column]!r}, read back {value!r}")
            if column == "rate" and float(value) != float(written[column]):
                problems.append(f"rate: wrote {written[column]}, read back {value}")
    print("csv round trip through workshop_results and Python's csv module: " + ("; ".join(problems) or "ok"))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
