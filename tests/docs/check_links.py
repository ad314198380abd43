#!/usr/bin/env python3
"""Every relative link in the project's Markdown files leads somewhere: the file exists and, for a link to
a section (#anchor), the file has a heading with that anchor. The lessons send students from page to page
(README -> step README -> hints, RESULTS.md, MEASURED.md); a link that lands nowhere is a dead end mid-lesson.

usage: check_links.py PROJECT_ROOT     prints one line per broken link; exit 1 if there is any
"""
import functools
import os
import re
import subprocess
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def outside_fences(path):
    """The file's lines, with those of fenced code blocks (fences included) left empty, so line numbers hold."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                yield "\n"
            else:
                yield "\n" if in_fence else line


def anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path):
    """Every heading's anchor in the file; a repeated heading gets -1, -2, ... as on GitHub."""
    found, repeats = set(), {}
    for line in outside_fences(path):
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            base = anchor(m.group(1))
            n = repeats.get(base, 0)
            found.add(f"{base}-{n}" if n else base)
            repeats[base] = n + 1
    return frozenset(found)


def markdown_files(root):
    """The Markdown files git tracks; without git, every one outside hidden and build folders."""
    try:
        tracked = subprocess.run(["git", "-C", root, "ls-files", "-z", "*.md"], capture_output=True, check=True)
        names = [n for n in tracked.stdout.decode().split("\0") if n]
        if names:
            yield from (os.path.join(root, n) for n in names)
            return
    except (OSError, subprocess.CalledProcessError):
        pass
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for name in files:
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def main(root):
    broken = 0
    checked = 0
    for page in sorted(markdown_files(root)):
        # Link text may run over a line break, so links are found in the page's prose as a whole.
        prose = re.sub(r"`[^`\n]*`", "", "".join(outside_fences(page)))
        for match in LINK.finditer(prose):
            target = match.group(1)
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            checked += 1
            file_part, _, section = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part else page
            where = f"{os.path.relpath(page, root)}:{prose.count(chr(10), 0, match.start()) + 1}"
            if not os.path.exists(dest):
                print(f"{where}: link to {target}: no such file")
                broken += 1
            elif section and dest.endswith(".md") and section not in anchors(dest):
                print(f"{where}: link to {target}: no heading with that anchor in {os.path.relpath(dest, root)}")
                broken += 1
    print(f"{checked} relative links checked, {broken} broken")
    return 1 if broken or checked == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    sys.exit(main(sys.argv[1]))
