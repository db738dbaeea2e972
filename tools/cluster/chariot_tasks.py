"""What runs on a Dask worker for `run.py`: Chariot's own programs, nothing else.

The driver (`run.py`) uploads this module to the scheduler and the workers
(`Client.upload_file`, which also reaches workers that join later), so a
worker needs only Python and `distributed`. It owns:

* `Shipment`, the worker plugin that puts the driver's builds (and the
  openings or network files they read) on every worker, present and
  future, named by their SHA-256, and checks there, once per worker
  process and before any task, that each engine answers `--version` and
  `bench` ("Nodes searched") exactly as it did on the driver;
* `datagen_shard`: one `chariot datagen` run in a scratch directory,
  returned as its games file and the one-chunk manifest it wrote;
* `sprt_batch`: one `arena` run over a slice of the openings, returned as
  its PGN;
* `spsa_batch`: one `arena` run per SPSA game pair, each with its own
  option values, returned as their outputs.

Every child process runs in its own process group under `setpriv
--pdeathsig KILL` (where util-linux has it), so it dies with the worker
process that started it, and is killed when the driver sets the job's stop
`Event`. The games, their rules and their scoring stay in the binaries.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

from distributed import Event, get_worker
from distributed.diagnostics.plugin import WorkerPlugin

PLUGIN = "chariot-shipment"
"""The shipment's plugin name on every worker."""

POLL_SECONDS = 0.5
"""How often a running child is checked against the job's stop event."""


class WorkerRefused(RuntimeError):
    """This worker's builds do not behave as the driver's: no task runs here."""


def sha256_of(path: Path) -> str:
    """SHA-256 of a file, hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def signature(exe: Path) -> str:
    """An engine's behaviour signature: its `--version` line and the node
    count of its bench (CONTRIBUTING.md, "Testing a change with SPRT")."""
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True, timeout=60)
    bench = subprocess.run([exe, "bench"], capture_output=True, text=True, check=True, timeout=600)
    nodes = re.search(r"^Nodes searched: *(\d+)", bench.stdout, re.MULTILINE)
    if nodes is None:
        raise RuntimeError(f"{exe} bench printed no 'Nodes searched' line")
    return f"{version.stdout.strip()}, bench {nodes.group(1)}"


class Shipment(WorkerPlugin):
    """The job's files on a worker, and the check of its engines.

    `files` maps a role ("chariot", "new", "base", "arena", "openings",
    "eval") to `(name, sha256, data)`: `data` is the file's bytes when the
    driver uploads it, or `None` when every worker reads it at the driver's
    own path (`path`, a shared file system). `expected` maps each engine role to
    the driver's `signature`. Set up on every worker that joins, before it
    takes a task; a worker whose files or signatures differ keeps the
    reason in `refusal`, and every task there raises `WorkerRefused`.
    """

    name = PLUGIN

    def __init__(self, files: dict[str, tuple[str, str, bytes | None, str]], expected: dict[str, str]):
        self.files = files
        self.expected = expected
        self.paths: dict[str, Path] = {}
        self.refusal: str | None = None
        self.signatures: dict[str, str] = {}

    async def setup(self, worker):
        await asyncio.to_thread(self._prepare, Path(worker.local_directory), worker.address)

    def _prepare(self, local: Path, address: str) -> None:
        try:
            for role, (name, sha, data, shared_path) in self.files.items():
                if data is None:
                    path = Path(shared_path)
                else:
                    path = local / "chariot-ship" / sha / name
                    if not path.exists():
                        path.parent.mkdir(parents=True, exist_ok=True)
                        part = path.with_name(f".{name}.{uuid.uuid4().hex}")
                        part.write_bytes(data)
                        part.chmod(0o755)
                        part.replace(path)
                found = sha256_of(path)
                if found != sha:
                    raise WorkerRefused(f"{role} {path}: SHA-256 {found}, the driver's {sha}")
                self.paths[role] = path
            for role, wanted in self.expected.items():
                got = signature(self.paths[role])
                self.signatures[role] = got
                if got != wanted:
                    raise WorkerRefused(f"{role} signs '{got}', the driver's '{wanted}'")
        except Exception as e:  # noqa: BLE001 - every failure refuses the worker, with its reason
            self.refusal = f"worker {address} on {socket.gethostname()}: {e}"


def _shipment() -> tuple[Shipment, object]:
    worker = get_worker()
    plugin = worker.plugins.get(PLUGIN)
    if plugin is None:
        raise WorkerRefused(f"worker {worker.address} has no shipment")
    if plugin.refusal is not None:
        raise WorkerRefused(plugin.refusal)
    return plugin, worker


def worker_report(dask_worker) -> dict:
    """What a worker is: host, process and the signatures it checked, or
    why it refused (for the driver's banner; run through `Client.run`,
    which passes the worker)."""
    plugin = dask_worker.plugins.get(PLUGIN)
    return {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "signatures": dict(plugin.signatures) if plugin else {},
        "refusal": plugin.refusal if plugin else "no shipment",
    }


def _scratch(worker, job: str, name: str) -> Path:
    path = Path(worker.local_directory) / "chariot-work" / job / f"{name}-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    return path


def _bin_dir(work: Path, programs: dict[str, Path]) -> Path:
    """A directory on `PATH` in which each program is found by its plain
    name, so that argv[0] (and the command a manifest records) reads
    `chariot …`, not a scratch path."""
    bin_dir = work / ".bin"
    bin_dir.mkdir()
    for name, path in programs.items():
        (bin_dir / name).symlink_to(path)
    return bin_dir


def run_child(argv: list[str], cwd: Path, bin_dir: Path, stop: str) -> subprocess.CompletedProcess:
    """Runs `argv` (its program found in `bin_dir`) to its end, unless the
    job's stop event is set first: then its process group is ended
    (SIGTERM, SIGKILL 5 s later) and the result's `returncode` is not 0.
    Raises `subprocess.CalledProcessError` for a run that failed by itself."""
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    guard = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
    proc = subprocess.Popen(
        guard + argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    event = Event(stop)
    while True:
        try:
            out, err = proc.communicate(timeout=POLL_SECONDS)
            break
        except subprocess.TimeoutExpired:
            if event.is_set():
                _end_group(proc)
                out, err = proc.communicate()
                return subprocess.CompletedProcess(argv, proc.returncode, out, err)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, argv, out, err)
    return subprocess.CompletedProcess(argv, 0, out, err)


def _end_group(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _place(work: Path, links: dict[str, str], paths: dict[str, Path]) -> None:
    """Links shipped files at the relative paths the command names."""
    for rel, role in links.items():
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(paths[role])


def _origin(worker) -> dict:
    return {"worker": worker.address, "host": socket.gethostname(), "pid": os.getpid()}


_lock = threading.Lock()


def _with_paths(word: str, paths: dict[str, Path]) -> str:
    """`word` with each `{ROLE}` replaced by that shipped file's path here."""
    for role, path in paths.items():
        word = word.replace(f"{{{role}}}", str(path))
    return word


def _run_task(spec: dict, program: str, args: list[str], collect) -> dict:
    """The frame of every task: checks the shipment, makes a scratch
    directory with the shipped inputs at their relative paths, runs
    `program args` there (`{ROLE}` in an argument: a shipped file's path
    on this worker), and returns `spec["number"]`, where it ran, and
    what `collect(work, done)` takes from the finished run; only `stopped`
    when the job's stop event ended it. The scratch directory goes."""
    return _run_tasks(spec, program, [args], lambda work, dones: collect(work, dones[0]))


def _run_tasks(spec: dict, program: str, runs: list[list[str]], collect) -> dict:
    """`_run_task` for several runs of `program`, one after the other in
    the same scratch directory (`collect(work, dones)` sees them all); a
    stop ends the task at the run it interrupted."""
    plugin, worker = _shipment()
    with _lock:
        work = _scratch(worker, spec["job"], spec["name"])
    try:
        _place(work, spec["links"], plugin.paths)
        bin_dir = _bin_dir(work, {program: plugin.paths[program]})
        start = time.monotonic()
        dones = []
        for args in runs:
            args = [_with_paths(a, plugin.paths) for a in args]
            done = run_child([program, *args], work, bin_dir, spec["stop"])
            if done.returncode != 0:
                return {"number": spec["number"], "stopped": True, **_origin(worker)}
            dones.append(done)
        result = {"number": spec["number"], "stopped": False, **_origin(worker)}
        result.update(collect(work, dones), seconds=time.monotonic() - start)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def datagen_shard(spec: dict) -> dict:
    """One shard: `chariot datagen` with `spec["args"]` (which write
    `spec["file"]` and `MANIFEST.toml` in the scratch directory). Returns
    the games file's bytes, the manifest's text and the summary."""
    return _run_task(
        spec,
        "chariot",
        ["datagen", *spec["args"]],
        lambda work, done: {
            "data": (work / spec["file"]).read_bytes(),
            "manifest": (work / "MANIFEST.toml").read_text(),
            "summary": done.stdout,
        },
    )


def sprt_batch(spec: dict) -> dict:
    """One batch: `arena` with `spec["args"]`, the engines at their shipped
    paths (`{new}`, `{base}` in the arguments), writing `batch.pgn`.
    Returns the PGN's text and the run's output."""
    return _run_task(
        spec,
        "arena",
        [*spec["args"], "--pgn", "batch.pgn"],
        lambda work, done: {"pgn": (work / "batch.pgn").read_text(), "output": done.stdout},
    )


def spsa_batch(spec: dict) -> dict:
    """One SPSA batch: `arena` once per game pair, with that pair's
    arguments from `spec["pairs"]` (its opening and each side's option
    values; the engine at its shipped path, `{engine}`). Returns each run's
    output, in the pairs' order."""
    return _run_tasks(spec, "arena", spec["pairs"], lambda work, dones: {"outputs": [d.stdout for d in dones]})
