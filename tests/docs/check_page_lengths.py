#!/usr/bin/env python3
"""The pages stay short enough to be read when they are needed: the README in minutes, a lesson in one sitting.
What does not fit belongs one link away (docs/, stepN/MORE.md, step5/MEASURED.md).

usage: check_page_lengths.py PROJECT_ROOT     prints one line per page over its limit; exit 1 if there is any
"""
import os
import sys

# Lines at most, per page. Step 5 has two long tracks, so its lesson gets more room.
LIMITS = {"README.md": 150, **{f"step{n}/README.md": 250 for n in range(1, 5)}, "step5/README.md": 350}


def main(root):
    over = 0
    for page, limit in LIMITS.items():
        path = os.path.join(root, page)
        try:
            with open(path, encoding="utf-8") as f:
                lines = sum(1 for _ in f)
        except OSError as e:
            print(f"{page}: cannot be read: {e.strerror}")
            over += 1
            continue
        if lines > limit:
            print(f"{page}: {lines} lines, over its limit of {limit}: move the details to a page it links")
            over += 1
    print(f"{len(LIMITS)} pages measured, {over} over their limits" if over else f"{len(LIMITS)} pages within their limits")
    return 1 if over else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
