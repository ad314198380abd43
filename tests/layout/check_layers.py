#!/usr/bin/env python3
"""The layout of common/ as common/README.md draws it, checked.

    check_layers.py COMMON_DIR layers|sizes|functions

layers     a C++/CUDA file includes headers of its own folder or of a lower layer only (the order below), and
           never of make/, which holds shell glue (room/, the optional top layer, is included by nothing below it);
sizes      no folder of common/ holds more than 20 files;
functions  no function in common/'s C++/CUDA is longer than 80 lines, from its opening brace to its closing one
           (a scan that counts braces outside comments, strings and preprocessor lines).

Prints every offender, one a line, and exits 1 if there is one, 0 if none, 2 on bad arguments.
"""

import re
import sys
from pathlib import Path

# Bottom-up: a folder may include its own headers and those of the folders before it.
# room/ is the top: optional, for a shared room, and so included by nothing below it.
LAYERS = ["base", "step", "verify", "ledger", "measure", "check", "report", "progress", "programs", "room"]
NOT_INCLUDABLE = {"make"}
MAX_FILES = 20
MAX_FUNCTION_LINES = 80
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh", ".h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)
# What opens a block that is not a function body: a namespace, a type, an initializer, extern "C".
CONTAINER = re.compile(r'\b(namespace|class|struct|union|enum)\b|extern\s+"C"|=\s*$')


def sources(common):
    return sorted(p for p in common.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES)


def check_layers(common):
    problems = []
    for path in sources(common):
        folder = path.relative_to(common).parts[0]
        if folder not in LAYERS:
            problems.append(f"{path.relative_to(common.parent)}: C++ in {folder}/, which is no layer of the core")
            continue
        for included in INCLUDE.findall(path.read_text(errors="replace")):
            if included in NOT_INCLUDABLE:
                problems.append(f"{path.relative_to(common.parent)}: includes {included}/, which C++ may not use")
            elif included in LAYERS and LAYERS.index(included) > LAYERS.index(folder):
                problems.append(f"{path.relative_to(common.parent)}: includes {included}/, a layer above {folder}/")
    return problems


def check_sizes(common):
    problems = []
    for folder in sorted(p for p in common.iterdir() if p.is_dir()):
        count = sum(1 for p in folder.iterdir() if p.is_file())
        if count > MAX_FILES:
            problems.append(f"{folder.relative_to(common.parent)}/: {count} files (at most {MAX_FILES})")
    return problems


def code_only(text):
    """The text with comments, string and character literals and preprocessor lines blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and text[i:].lstrip(" \t").startswith("#"):
            # A preprocessor line, with its continuations.
            while i < n and text[i] != "\n":
                i += 2 if text[i] == "\\" and i + 1 < n else 1
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif text.startswith('R"', i):
            delimiter = text[i + 2:text.find("(", i + 2)]
            end = text.find(")" + delimiter + '"', i)
            end = n if end < 0 else end + len(delimiter) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(path):
    """(name, first line, lines) of each function body in path longer than MAX_FUNCTION_LINES."""
    code = code_only(path.read_text(errors="replace"))
    found = []
    stack = []  # per open brace: "container", "function" or "block"
    function_start = None
    statement_start = 0  # where the text before the next brace begins
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            before = code[statement_start:i]
            if "function" in stack:
                stack.append("block")
            elif CONTAINER.search(before) or "(" not in before:
                stack.append("container")
            else:
                stack.append("function")
                names = re.findall(r"([~A-Za-z_][\w:<>~]*)\s*\(", before)
                function_start = (names[0] if names else "?", line)
            statement_start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "container"
            if kind == "function" and function_start:
                name, first = function_start
                if line - first + 1 > MAX_FUNCTION_LINES:
                    found.append((name, first, line - first + 1))
                function_start = None
            statement_start = i + 1
        elif c == ";" and "function" not in stack:
            statement_start = i + 1
    return found


def check_functions(common):
    problems = []
    for path in sources(common):
        for name, first, lines in long_functions(path):
            problems.append(f"{path.relative_to(common.parent)}:{first}: {name} is {lines} lines "
                            f"(at most {MAX_FUNCTION_LINES})")
    return problems


CHECKS = {"layers": check_layers, "sizes": check_sizes, "functions": check_functions}


def main(argv):
    if len(argv) != 3 or argv[2] not in CHECKS or not Path(argv[1]).is_dir():
        print(f"usage: {argv[0]} COMMON_DIR {'|'.join(CHECKS)}", file=sys.stderr)
        return 2
    problems = CHECKS[argv[2]](Path(argv[1]).resolve())
    for problem in problems:
        print(problem)
    print(f"{argv[2]}: {len(problems)} offender(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
