#!/usr/bin/env python3
"""check_layers.py on small trees made for it: each rule finds what breaks it, and nothing else.

    test_check_layers.py
"""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_layers  # noqa: E402


def function(name, body_lines):
    """A function whose body, braces included, spans body_lines + 2 lines."""
    return f"int {name}(int x) {{\n" + "    x += 1;\n" * body_lines + "    return x;\n}\n"


class Tree:
    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()
        self.common = Path(self.dir.name) / "common"

    def write(self, path, text):
        target = self.common / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.dir.cleanup()


class Layers(unittest.TestCase):
    def test_an_include_from_below_or_beside_is_fine(self):
        with Tree() as t:
            t.write("check/a.cpp", '#include "check/a.hpp"\n#include "measure/timing.hpp"\n#include "base/x.hpp"\n')
            self.assertEqual(check_layers.check_layers(t.common), [])

    def test_an_include_from_above_is_named(self):
        with Tree() as t:
            t.write("verify/v.cpp", '#include "verify/v.hpp"\n#include "report/report.hpp"\n')
            problems = check_layers.check_layers(t.common)
            self.assertEqual(len(problems), 1)
            self.assertIn("common/verify/v.cpp: includes report/, a layer above verify/", problems[0])

    def test_the_room_and_make_are_not_for_cpp(self):
        with Tree() as t:
            t.write("programs/p.cpp", '#include "room/turns.hpp"\n')
            self.assertIn("includes room/", check_layers.check_layers(t.common)[0])


class Sizes(unittest.TestCase):
    def test_twenty_files_fit_and_twenty_one_do_not(self):
        with Tree() as t:
            for i in range(20):
                t.write(f"check/f{i}.cpp", "")
            self.assertEqual(check_layers.check_sizes(t.common), [])
            t.write("check/README.md", "")
            self.assertEqual(check_layers.check_sizes(t.common), ["common/check/: 21 files (at most 20)"])


class Functions(unittest.TestCase):
    def long_ones(self, text):
        with Tree() as t:
            t.write("measure/m.cpp", text)
            return check_layers.check_functions(t.common)

    def test_eighty_lines_fit_and_eighty_one_do_not(self):
        self.assertEqual(self.long_ones(function("fits", 77)), [])
        problems = self.long_ones("namespace workshop {\n" + function("too_long", 78) + "}\n")
        self.assertEqual(problems, ["common/measure/m.cpp:2: too_long is 81 lines (at most 80)"])

    def test_methods_in_a_class_are_counted(self):
        text = "struct S {\n    " + function("S::method", 90).replace("\n", "\n    ") + "};\n"
        self.assertIn("S::method is 93 lines", self.long_ones(text)[0])

    def test_braces_in_comments_strings_and_macros_do_not_count(self):
        noise = '    // }\n    const char* s = "}}";\n    char c = \'}\';\n    /* } */\n#define CLOSE }\n'
        text = "int f() {\n" + noise * 20 + "    return 0;\n}\n" + function("g", 10)
        self.assertEqual(self.long_ones(text), ["common/measure/m.cpp:1: f is 103 lines (at most 80)"])

    def test_a_table_is_not_a_function(self):
        text = "const int table[] = {\n" + "    1,\n" * 100 + "};\n"
        self.assertEqual(self.long_ones(text), [])


if __name__ == "__main__":
    unittest.main()
