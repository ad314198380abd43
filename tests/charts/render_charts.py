#!/usr/bin/env python3
"""Redraws the charts of a results folder with this build's workshop_results (--replot), renders each SVG to
PNG with librsvg's rsvg-convert, and checks every picture: the SVG is well-formed XML, rsvg-convert succeeds,
the PNG has the size the SVG declares, it is a white page with ink on it, and every colour the SVG fills a
bar or a marker with is there in the pixels (so the bars and lines were drawn, not just the text). The matmul
roofline's points are checked against the CSV: each step at its measured rate, the steps moving right.

usage: render_charts.py WORKSHOP_RESULTS RESULTS_DIR OUT_DIR RSVG_CONVERT
The PNG files stay in OUT_DIR, to be looked at.
"""
import csv
import math
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
import zlib

EXPECTED = ["bench_matmul.svg", "bench_roofline.svg", "bench_transpose.svg", "matmul.svg", "roofline.svg", "transpose.svg"]


def read_png(path):
    """Width, height and the rows of RGBA pixels of an 8-bit RGB or RGBA, non-interlaced PNG."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    if depth != 8 or color_type not in (2, 6) or interlace:
        raise ValueError(f"{path}: depth {depth}, colour type {color_type}, interlace {interlace}: not handled here")
    channels = 4 if color_type == 6 else 3
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, up_left = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def check(svg_path, png_path, rsvg):
    root = ElementTree.parse(svg_path).getroot()  # raises on XML that is not well-formed
    width, height = round(float(root.get("width"))), round(float(root.get("height")))
    fills = set(re.findall(r'<(?:rect|circle) [^>]*fill="#([0-9a-f]{6})"', svg_path.read_text()))
    subprocess.run([rsvg, "-o", str(png_path), str(svg_path)], check=True)
    png_width, png_height, channels, rows = read_png(png_path)
    problems = []
    if (png_width, png_height) != (width, height):
        problems.append(f"the PNG is {png_width} x {png_height}, the SVG says {width} x {height}")
    counts, ink = {}, 0
    for line in rows:
        for x in range(0, len(line), channels):
            rgb = bytes(line[x:x + 3]).hex()
            counts[rgb] = counts.get(rgb, 0) + 1
            ink += min(line[x:x + 3]) < 200
    share = ink / (png_width * png_height)
    if counts.get("ffffff", 0) < 0.4 * png_width * png_height:
        problems.append("the page is not white")
    if not 0.01 <= share <= 0.5:
        problems.append(f"{100 * share:.1f}% of the pixels are dark: expected 1% to 50%")
    missing = sorted(color for color in fills - {"ffffff"} if counts.get(color, 0) < 12)
    if missing:
        problems.append("colours the SVG draws with are not in the PNG: #" + ", #".join(missing))
    print(f"{png_path.name}: {png_width} x {png_height}, {100 * share:.1f}% ink, "
          f"{len(fills - {'ffffff'}) - len(missing)} of {len(fills - {'ffffff'})} fill colours present"
          + ("" if not problems else ": " + "; ".join(problems)))
    return not problems


def check_roofline(svg_path, csv_path):
    """Each step's circle in the roofline sits at its rate in the CSV (read through the y axis's own tick labels),
    and the steps move right, or stay, from one to the next. The CSV names the rates; the intensities are the
    chart's own (report/roofline.cpp), checked by the host tests."""
    svg = svg_path.read_text()
    ticks = [(float(label[:-1]) * 1000 if label.endswith("k") else float(label), float(y) - 4)
             for y, label in re.findall(r'<text x="[-0-9.]+" y="([-0-9.]+)"[^>]*class="y-tick">([^<]*)</text>', svg)]
    (v0, p0), (v1, p1) = ticks[0], ticks[-1]
    def rate_at(y):
        return 10 ** (math.log10(v0) + (y - p0) / (p1 - p0) * (math.log10(v1) - math.log10(v0)))
    circles = {title: (float(x), float(y)) for x, y, title in
               re.findall(r'<circle cx="([-0-9.]+)" cy="([-0-9.]+)"[^>]*><title>([^<]*)</title>', svg)}
    problems = []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            match = re.match(r"step ([1-5])\b", row["name"])
            label = f"step {match.group(1)}" if match and row["kind"] == "step" else row["name"]
            if row["kind"] not in ("step", "reference") or label not in circles:
                continue
            drawn = rate_at(circles[label][1])
            if abs(drawn / float(row["rate"]) - 1) > 0.01:
                problems.append(f"{label} drawn at {drawn:.0f}, the CSV says {row['rate']}")
    steps = [circles.get(f"step {n}") for n in range(1, 6)]
    if None in steps:
        problems.append(f"the roofline has {sorted(circles)}: not every step")
    elif any(b[0] < a[0] - 0.01 for a, b in zip(steps, steps[1:])) or not steps[4][0] > steps[0][0]:
        problems.append("the steps do not move right as their tiles grow")
    print(f"{svg_path.name}: {len(circles)} points" + (": " + "; ".join(problems) if problems else ", each at its "
                                                        "rate in the CSV, the steps moving right"))
    return not problems


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    results, source, out, rsvg = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), sys.argv[4]
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    subprocess.run([results, "--replot", str(source), "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    svgs = sorted(path.name for path in out.glob("*.svg"))
    if svgs != EXPECTED:
        sys.exit(f"the replot wrote {svgs}, expected {EXPECTED}")
    ok = all([check(out / name, out / name.replace(".svg", ".png"), rsvg) for name in svgs])
    ok &= check_roofline(out / "roofline.svg", source / "matmul.csv")
    print(f"rendered with {subprocess.run([rsvg, '--version'], capture_output=True, text=True).stdout.strip()}"
          f" into {out}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
