#!/usr/bin/env python3
"""Every performance figure in the README and the lessons names its GPU and date and matches the published
results (results/<gpu>/*.csv), so a figure cannot go stale silently when a kernel or a measurement changes.

A figure is a number with one of the units GB/s, GFLOP/s or ms, or a percentage "of the copy kernel" or "of
cuBLAS". Each must be in one of three places:

  - a table or fenced block right after a marker line naming the CSV files it quotes,
        <!-- figures: results/h100/transpose.csv -->
    whose caption (the paragraph right above the marker) names the GPU (H100) and the date of the rows quoted.
    A table row or block line is matched to the CSV row whose name starts it (`step 3: shared-memory tile`,
    `copy kernel`, ...). In a table, the columns are told apart by their headers (median ms, GB/s or GFLOP/s,
    % of copy or % of cuBLAS, % of peak); in a block, as `make run` prints them (check, median ms, rate, % of the
    reference, % of peak).
  - prose, followed later in its paragraph by a tag naming the GPU and the date, "(H100, 2026-11-26)"; the
    figure must equal, at the precision written, a value of that GPU's CSV rows of that date.
  - a table or block after <!-- figures: illustration -->, for sample output that is not a measurement (a
    verdict line shown as an example); the text around it must say so.

usage: check_figures.py PROJECT_ROOT     prints one line per figure that is wrong or unsourced; exit 1 if any
"""
import csv
import glob
import os
import re
import sys

PAGES = ["README.md"] + [f"step{n}/README.md" for n in range(1, 6)]
MARKER = re.compile(r"^\s*<!--\s*figures:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
NUMBER = r"(\d+(?:\.\d+)?)"
UNIT_FIGURE = re.compile(NUMBER + r"\s?(GB/s|GFLOP/s|ms)\b")
PERCENT_FIGURE = re.compile(NUMBER + r"% of (?:the copy kernel|cuBLAS)")
RANGE_START = re.compile(r"(?:between|from)\s+" + NUMBER + r"%?\s+(?:and|to)\s+$")
TAG = re.compile(r"\((H\d00),\s+(\d{4}-\d{2}-\d{2})\)")
# A table header's words, and the CSV field the column quotes.
COLUMNS = [(re.compile(r"median\s*ms|^ms$"), "median_ms"), (re.compile(r"GB/s|GFLOP/s"), "rate"),
           (re.compile(r"% of (copy|cuBLAS|the copy)|% copy|% cuBLAS"), "pct_of_reference"),
           (re.compile(r"% of peak|% peak"), "pct_of_peak")]
UNIT_FIELD = {"GB/s": "rate", "GFLOP/s": "rate", "ms": "median_ms"}


def matches(written, value):
    """True when the CSV value, rounded to as many decimals as the page writes, is the figure written."""
    decimals = len(written.partition(".")[2])
    try:
        return abs(float(written) - float(value)) <= 0.5 * 10 ** -decimals + 1e-9
    except ValueError:
        return False


def read_rows(root, paths):
    rows = []
    for path in paths:
        with open(os.path.join(root, path), encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                row["gpu"] = os.path.basename(os.path.dirname(path)).upper()
                rows.append(row)
    return rows


def rows_of(root, gpu, date, cache={}):
    """Every row of results/<gpu>/*.csv measured on that date."""
    key = (root, gpu)
    if key not in cache:
        cache[key] = read_rows(root, sorted(os.path.relpath(p, root) for p in
                                            glob.glob(os.path.join(root, "results", gpu.lower(), "*.csv"))))
    return [r for r in cache[key] if r["date"] == date]


def row_named(rows, text):
    """The row whose name starts the text (the longest such name), or None."""
    text = re.sub(r"[*`]", "", text).strip()
    found = [r for r in rows if text.startswith(r["name"])]
    return max(found, key=lambda r: len(r["name"])) if found else None


def has_figure(text):
    return UNIT_FIGURE.search(text) or PERCENT_FIGURE.search(text)


class Page:
    def __init__(self, root, name):
        self.root, self.name, self.errors = root, name, []
        with open(os.path.join(root, name), encoding="utf-8") as f:
            self.lines = f.read().split("\n")

    def error(self, number, message):
        self.errors.append(f"{self.name}:{number + 1}: {message}")

    def compare(self, number, row, field, written):
        if written in ("-", ""):
            return
        if not matches(written, row.get(field, "")):
            self.error(number, f"'{row['name']}' {field.replace('_', ' ')} reads {written} here and "
                               f"{row.get(field)} in results/{row['gpu'].lower()} ({row['date']})")

    def caption_before(self, number):
        """The paragraph right above line `number` (a marker), joined."""
        i, text = number - 1, []
        while i >= 0 and not self.lines[i].strip():
            i -= 1
        while i >= 0 and self.lines[i].strip():
            text.insert(0, self.lines[i])
            i -= 1
        return " ".join(text)

    def check_caption(self, number, rows):
        caption = self.caption_before(number)
        for gpu, date in sorted({(r["gpu"], r["date"]) for r in rows}):
            if gpu not in caption or date not in caption:
                self.error(number, f"the caption above these figures does not name {gpu} and {date}")

    def check_table_line(self, number, line, header, rows):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        row = row_named(rows, cells[0])
        if row is None:
            if any(re.fullmatch(NUMBER + "%?", c) for c in cells[1:]):
                self.error(number, f"'{cells[0]}' names no row of the CSV files in its marker")
            return
        for cell, field in zip(cells[1:], header[1:]):
            if field:
                self.compare(number, row, field, cell.rstrip("%"))

    def check_block_line(self, number, line, rows):
        row = row_named(rows, line)
        if row is None:
            return
        tokens = re.sub(r"[*`]", "", line).strip()[len(row["name"]):].split()
        if tokens and tokens[0] in ("PASS", "FAIL", "-"):
            tokens = tokens[1:]
        for token, field in zip(tokens, ["median_ms", "rate", "pct_of_reference", "pct_of_peak"]):
            if not re.fullmatch(NUMBER + "%?|-", token):
                break
            self.compare(number, row, field, token.rstrip("%"))

    def check_marked(self, number, spec):
        """The table or fenced block after a marker; returns the line after it."""
        i = number + 1
        while i < len(self.lines) and not self.lines[i].strip():
            i += 1
        if i == len(self.lines):
            self.error(number, "a figures marker with no table or block after it")
            return i
        fenced = bool(FENCE.match(self.lines[i]))
        end = i + 1
        if fenced:
            while end < len(self.lines) and not FENCE.match(self.lines[end]):
                end += 1
            end += 1
        else:
            while end < len(self.lines) and self.lines[end].strip().startswith("|"):
                end += 1
        if spec == "illustration":
            return end
        try:
            rows = read_rows(self.root, spec.split())
        except OSError as e:
            self.error(number, f"the marker names {e.filename}, which cannot be read")
            return end
        used = []
        if fenced:
            for k in range(i + 1, end - 1):
                row = row_named(rows, self.lines[k])
                if row:
                    used.append(row)
                    self.check_block_line(k, self.lines[k], rows)
        else:
            header = [next((f for pattern, f in COLUMNS if pattern.search(c.strip())), None)
                      for c in self.lines[i].strip().strip("|").split("|")]
            for k in range(i + 2, end):
                row = row_named(rows, self.lines[k].strip().strip("|").split("|")[0])
                if row:
                    used.append(row)
                self.check_table_line(k, self.lines[k], header, rows)
        if not used:
            self.error(number, "a figures marker whose table or block quotes no row of its CSV files")
        self.check_caption(number, used)
        return end

    def check_prose(self, start, end):
        """A paragraph's figures, each followed in the paragraph by its (GPU, date) tag."""
        text = "\n".join(self.lines[start:end])
        # Inline code is a command or a printed line, not a claim: "--min-time", `1602 GB/s` in a verdict quoted.
        text = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), text)
        for pattern, unit_of in ((UNIT_FIGURE, lambda m: m.group(2)), (PERCENT_FIGURE, lambda m: "%")):
            for m in pattern.finditer(text):
                number = start + text.count("\n", 0, m.start())
                tag = TAG.search(text, m.end())
                if not tag:
                    self.error(number, f"'{m.group(0)}' names no GPU and date after it in its paragraph, "
                                       "as (H100, 2026-11-26)")
                    continue
                field = UNIT_FIELD.get(unit_of(m), "pct_of_reference")
                rows = rows_of(self.root, tag.group(1), tag.group(2))
                if not rows:
                    self.error(number, f"no results/{tag.group(1).lower()}/*.csv row was measured on {tag.group(2)}")
                    continue
                # "between 447.7 and 476.4 GB/s": the first number of a range is a figure of the same unit.
                low = RANGE_START.search(text, 0, m.start())
                for written in ([low.group(1)] if low else []) + [m.group(1)]:
                    if not any(matches(written, r.get(field, "")) for r in rows):
                        shown = f"{written}%" if unit_of(m) == "%" else f"{written} {unit_of(m)}"
                        self.error(number, f"'{shown}' is no {field.replace('_', ' ')} of results/"
                                           f"{tag.group(1).lower()} on {tag.group(2)}")

    def check(self):
        i, paragraph = 0, None
        while i < len(self.lines):
            line = self.lines[i]
            marker = MARKER.match(line)
            if marker or not line.strip() or FENCE.match(line) or line.strip().startswith("|"):
                if paragraph is not None:
                    self.check_prose(paragraph, i)
                    paragraph = None
            if marker:
                i = self.check_marked(i, marker.group(1))
                continue
            if FENCE.match(line):
                end = i + 1
                while end < len(self.lines) and not FENCE.match(self.lines[end]):
                    end += 1
                self.unmarked(i, end)
                i = end + 1
                continue
            if line.strip().startswith("|"):
                end = i
                while end < len(self.lines) and self.lines[end].strip().startswith("|"):
                    end += 1
                self.unmarked(i, end)
                i = end
                continue
            if line.strip() and paragraph is None:
                paragraph = i
            i += 1
        if paragraph is not None:
            self.check_prose(paragraph, len(self.lines))
        return self.errors

    def unmarked(self, start, end):
        """A table or block with no marker: its figures are unsourced (a table cell may carry its own tag)."""
        for k in range(start, end):
            if self.lines[k].strip().startswith("|"):
                self.check_prose(k, k + 1)
            elif has_figure(self.lines[k]):
                self.error(k, "a figure in a block with no <!-- figures: ... --> marker above it")


def main(root):
    errors = []
    for page in PAGES:
        errors += Page(root, page).check()
    for e in errors:
        print(e)
    print(f"{len(errors)} figures wrong or unsourced in {len(PAGES)} pages" if errors
          else f"every figure in {len(PAGES)} pages matches results/")
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
