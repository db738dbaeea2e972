#!/usr/bin/env python3
"""Finds circles of imports between the modules of each crate.

The rule (CONTRIBUTING.md, "Modules"): inside a crate, the modules that
share a parent use each other one way only. A module and the files under
it count as one unit when their siblings are compared, and a child file
may use its parent (a child file is part of the parent's implementation),
so `search/worker.rs` using `search.rs` is allowed, but `pool.rs` using
`search.rs` while anything under `search/` uses `pool.rs` is a circle.

An edge is a path in the code through `crate::`, `super::` or `self::`
(in `use` lines and in expressions), resolved to the longest module that
exists; paths inside inline `mod name { ... }` blocks and in `tests.rs`
files (unit tests, which may use any module of their crate) are skipped. Usage, from the workspace root:

    python3 tools/house/cycles.py [CRATE_DIR ...]

With no arguments every workspace member with a `src/` is checked. Exit
status 1 and one line per circle when there is one.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def strip(text: str) -> str:
    """The code without comments, strings and char literals (same line breaks)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if text[i] == "\n" else "")
                    i += 1
        elif (
            c == "r"
            and re.match(r'r#*"', text[i : i + 10])
            and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))
        ):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i : i + 12]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i : i + 12])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_inline_mods(code: str) -> str:
    """The code outside inline `mod name { ... }` blocks."""
    out, i = [], 0
    for m in re.finditer(r"\bmod\s+\w+\s*\{", code):
        if m.start() < i:
            continue
        out.append(code[i : m.start()])
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        i = j
    out.append(code[i:])
    return "".join(out)


def module_files(src: Path) -> dict[tuple[str, ...], Path]:
    """Module path -> file, for every `.rs` file under `src` that is a module."""
    mods: dict[tuple[str, ...], Path] = {}
    for f in sorted(src.rglob("*.rs")):
        rel = f.relative_to(src).with_suffix("").parts
        if rel[0] == "bin" or rel[-1] == "tests":
            continue
        if rel in (("lib",), ("main",)):
            mods[()] = f
        elif rel[-1] == "mod":
            mods[rel[:-1]] = f
        else:
            mods[rel] = f
    return mods


PATH = re.compile(r"\b(crate|super|self)((?:\s*::\s*\w+)+)")
USE = re.compile(r"\buse\s+([^;]+);")


def expand_use(tree: str) -> list[str]:
    """`a::{b, c::{d}}` -> ['a::b', 'a::c::d'] (spaces removed)."""
    tree = re.sub(r"\s+", "", tree)
    depth, parts, cur = 0, [], ""
    if "{" not in tree:
        return [tree]
    head, rest = tree.split("{", 1)
    body = rest[: rest.rfind("}")]
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    return [p2 for p in parts if p for p2 in expand_use(head + p)]


def references(code: str) -> list[str]:
    refs = []
    for m in USE.finditer(code):
        refs.extend(expand_use(m.group(1)))
    for m in PATH.finditer(USE.sub("", code)):
        refs.append(m.group(1) + re.sub(r"\s+", "", m.group(2)))
    return refs


def resolve(ref: str, here: tuple[str, ...], mods) -> tuple[str, ...] | None:
    parts = [p for p in ref.split("::") if p]
    if not parts:
        return None
    if parts[0] == "crate":
        base, parts = (), parts[1:]
    elif parts[0] in ("super", "self"):
        base = here
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
    else:
        return None
    best = base
    for k in range(1, len(parts) + 1):
        if base + tuple(parts[:k]) in mods:
            best = base + tuple(parts[:k])
        else:
            break
    return best


def circles(crate: Path) -> list[list[str]]:
    src = crate / "src"
    mods = module_files(src)
    edges: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for here, f in mods.items():
        code = without_inline_mods(strip(f.read_text(encoding="utf-8")))
        for ref in references(code):
            to = resolve(ref, here, mods)
            if to is not None and to != here:
                edges.add((here, to))
    found = []
    for parent in sorted({m[:-1] for m in mods if m} | {()}):
        kids = sorted({m[: len(parent) + 1] for m in mods if len(m) > len(parent) and m[: len(parent)] == parent})
        graph = {k: set() for k in kids}
        for a, b in edges:
            ka = a[: len(parent) + 1]
            kb = b[: len(parent) + 1]
            if ka in graph and kb in graph and ka != kb and a[: len(parent)] == parent and b[: len(parent)] == parent:
                graph[ka].add(kb)
        for scc in strongly_connected(graph):
            if len(scc) > 1:
                found.append(["::".join(k) for k in sorted(scc)])
    return found


def strongly_connected(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            out.append(scc)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def members() -> list[Path]:
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    names = re.findall(r'"([^"]+)"', re.search(r"members\s*=\s*\[([^\]]*)\]", text).group(1))
    return [ROOT / n for n in names if (ROOT / n / "src").is_dir()]


def main(argv: list[str]) -> int:
    crates = [Path(a) for a in argv] or members()
    bad = 0
    for crate in crates:
        for scc in circles(crate):
            bad += 1
            print(f"{crate.name}: circle of imports between {', '.join(scc)}")
    if not bad:
        print(f"no circle of imports in {len(crates)} crates")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
