#!/usr/bin/env python3
"""Runs the user commands of the README and the training recipe.

Every ```sh block of README.md and docs/training.md is read; each command
(a line, with its backslash continuations) runs, at toy scale, in a
scratch copy of the repository's tracked files, with the release build's
binaries. A command that fails fails this check, so a documented command
cannot rot. What "toy scale" changes is the SCALE table below, and the
commands not run here are the SKIP table, each with its reason; a
skipped command's repository paths must still exist.

Usage: .ci/doc-commands.py [--keep] (after cargo build --release)
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "docs/training.md"]

# Toy scale: (pattern, replacement), applied in order to every command.
SCALE = [
    (r"--seconds \d+", "--games 2"),
    (r"(datagen .*)--games \d+", r"\1--games 2"),
    (r"(arena .*)--games \d+", r"\1--games 2"),
    (r"--tc 5\+0\.05", "--tc 1+0.01"),
    (r"--epochs \d+", "--epochs 1"),
    (r"--batch \d+", "--batch 256"),
    (r"--depth 8\b", "--depth 3"),
]

# Commands not run here: (pattern, reason).
SKIP = [
    (r"^cargo run --release", "starts the interactive engine"),
    (r"^cargo test", "CI runs the test suite itself"),
    (r"^cargo build --release", "CI has built the release binaries (this script uses them)"),
    (r"^cargo install", "installs into ~/.cargo/bin"),
    (r"^sudo |^xboard ", "a desktop GUI (README: tried by hand under Xvfb)"),
    (r"^python3 -m venv .*cchess|^venv/bin/", "the cchess client: tests/python/run.sh plays it in CI"),
    (r"^pip install|^python3 -m pip", "the Python package: CI installs and tests it"),
    (r"chariot-train train \$\(target/release/chariot data files data/chariot-\d+\)",
     "retrains the shipped network on all its data (twenty minutes): the same options run on toy data above"),
    (r"^cmp retrained\.nnue", "needs the full retraining above"),
]


def commands(path):
    """The commands of the ```sh blocks of a Markdown file, with their line."""
    out = []
    block = False
    pending, start = "", 0
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            stripped = line.rstrip("\n")
            if stripped.startswith("```"):
                block = stripped.strip() == "```sh" if not block else False
                continue
            if not block:
                continue
            text = stripped.split(" #")[0].rstrip() if not stripped.lstrip().startswith("#") else ""
            if not text and not pending:
                continue
            if not pending:
                start = n
            if text.endswith("\\"):
                pending += text[:-1].strip() + " "
                continue
            out.append((start, (pending + text.strip()).strip()))
            pending = ""
    return [(n, c) for n, c in out if c]


def toy(command):
    for pattern, replacement in SCALE:
        command = re.sub(pattern, replacement, command)
    return command


def skipped(command):
    for pattern, reason in SKIP:
        if re.search(pattern, command):
            return reason
    return None


def repo_paths_exist(command):
    """The arguments that name files of the repository exist."""
    missing = []
    for word in shlex.split(command):
        for part in word.split(";"):
            part = part.rstrip(")")  # the end of a `$(…)` substitution
            if re.match(r"^(data|docs|arena|engine|book|tests|tools)/", part):
                if not glob.glob(os.path.join(ROOT, part)):
                    missing.append(part)
    return missing


def main():
    keep = "--keep" in sys.argv
    release = os.path.join(ROOT, "target", "release")
    for tool in ("chariot", "chariot-train", "arena"):
        if not os.access(os.path.join(release, tool), os.X_OK):
            sys.exit(f"doc-commands: {release}/{tool} is missing: run cargo build --release first")
    scratch = tempfile.mkdtemp(prefix="chariot-doc-commands-")
    repo = os.path.join(scratch, "repo")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = os.path.join(ROOT, name)
        if not os.path.isfile(source):
            continue
        target = os.path.join(repo, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
    os.makedirs(os.path.join(repo, "target"), exist_ok=True)
    os.symlink(release, os.path.join(repo, "target", "release"))
    env = dict(os.environ, PATH=release + os.pathsep + os.environ.get("PATH", ""))
    ran, skips, failures = 0, 0, []
    for doc in DOCS:
        for line, command in commands(doc):
            where = f"{doc}:{line}"
            reason = skipped(command)
            if reason:
                skips += 1
                missing = repo_paths_exist(command)
                print(f"skip {where}: {command[:70]}… ({reason})")
                if missing:
                    failures.append(f"{where}: names missing files {missing}")
                continue
            run = toy(command)
            print(f"run  {where}: {run}", flush=True)
            done = subprocess.run(["bash", "-o", "pipefail", "-c", run], cwd=repo, env=env,
                                  capture_output=True, text=True, timeout=600)
            ran += 1
            if done.returncode != 0:
                tail = (done.stdout + done.stderr).strip().splitlines()[-8:]
                failures.append(f"{where}: exit {done.returncode}: {run}\n    " + "\n    ".join(tail))
    if keep:
        print(f"scratch kept in {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{ran} passed, {len(failures)} failed, {skips} skipped")
    for f in failures:
        print("FAILED " + f, file=sys.stderr)
    sys.exit(1 if failures or ran == 0 else 0)


if __name__ == "__main__":
    main()
