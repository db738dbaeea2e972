"""Tests of cycles.py on small crates written to a scratch directory:
`python3 -m unittest tools/house/test_cycles.py` (CI runs it)."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cycles


def crate(files: dict[str, str]) -> Path:
    root = Path(tempfile.mkdtemp(prefix="cycles-"))
    for name, text in files.items():
        path = root / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


class Circles(unittest.TestCase):
    def test_siblings_that_use_each_other_are_a_circle(self):
        c = crate(
            {
                "lib.rs": "mod a;\nmod b;\n",
                "a.rs": "use crate::b::Thing;\n",
                "b.rs": "pub fn f() { super::a::g() }\n",
            }
        )
        self.assertEqual(cycles.circles(c), [["a", "b"]])

    def test_a_circle_through_a_child_file_counts_for_its_parent(self):
        c = crate(
            {
                "lib.rs": "mod pool;\nmod search;\n",
                "pool.rs": "use crate::search::Worker;\n",
                "search.rs": "mod worker;\npub use worker::Worker;\n",
                "search/worker.rs": "use crate::pool::{Shared, Task};\nuse super::Search;\n",
            }
        )
        self.assertEqual(cycles.circles(c), [["pool", "search"]])

    def test_grouped_uses_and_nested_modules(self):
        c = crate(
            {
                "lib.rs": "mod nnue;\n",
                "nnue/mod.rs": "mod accumulator;\nmod stack;\n",
                "nnue/accumulator.rs": "use super::{stack::Stack, Other};\n",
                "nnue/stack.rs": "use crate::nnue::{accumulator::{Accumulator, Delta}};\n",
            }
        )
        self.assertEqual(cycles.circles(c), [["nnue::accumulator", "nnue::stack"]])

    def test_one_way_uses_child_to_parent_and_unit_tests_are_no_circle(self):
        c = crate(
            {
                "lib.rs": "mod a;\nmod b;\nuse a::X;\n",
                "a.rs": "use crate::b::Y;\nmod inner;\n#[cfg(test)]\nmod tests {\n    use crate::b::Z;\n}\n",
                "a/inner.rs": "use super::X;\n",
                "b.rs": '// crate::a::X in a comment\nconst S: &str = "crate::a::X";\n#[cfg(test)]\nmod tests;\n',
                "b/tests.rs": "use crate::a::X;\n",
            }
        )
        self.assertEqual(cycles.circles(c), [])


if __name__ == "__main__":
    unittest.main()
