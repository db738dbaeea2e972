#!/usr/bin/env python3
"""Chariot's parallel workloads on Dask distributed: training data, SPRT tests and SPSA tunes.

    run.py datagen --out DIR (--games N | --positions N) [...]   # shards of `chariot datagen`
    run.py sprt --base PATH --out DIR --nodes N --sprt elo0=0 elo1=5 [...]   # batches of `arena`
    run.py spsa --state FILE --iterations N --nodes N [...]   # an SPSA tune in batches of game pairs
    run.py spsa --resume FILE | run.py spsa-plot FILE

The driver plans the work, ships the builds to the workers (or names them on
a shared file system), checks every worker's engines against its own
(`--version` and the bench's node count) before any game, collects what the
workers return and hands it to Chariot's own tools: `chariot data add` and
`chariot data check` for the data, `arena pool --json` for the test. It
holds no chess logic: games, their rules, their scoring and the manifest
are the binaries'.

Datagen: shard k plays `--seed S + k*G` onwards for at most G games, so no
two shards share a game, and a shard run again with the same arguments
writes the same file byte for byte. Chunks join the directory's manifest
in shard order as they become complete.

SPRT: batch b plays the openings `b*M + 1 ..= b*M + M` (`--skip-openings`),
each pair once, into its own PGN; the batches that have arrived are pooled
after each arrival, and the first decision stops every worker (pending
tasks cancelled, running `arena` processes killed through the job's stop
event).

SPSA (`spsa.py` holds fishtest's formulas): the driver keeps as many
batches in flight as the cluster has task slots, each planned from the
theta of its submission (iterations k+1 .. k+B with their own random
signs; theta+ against theta-, one `arena` run per pair), applies each
batch's results as it arrives and rewrites the state file, from which
`--resume` goes on.

Each task's result is taken once, by shard or batch number: a task whose
worker died is run again (Dask reschedules it, or the driver resubmits it
after `KilledWorker`), and so is one whose program was killed by a signal
from outside (the dying worker's death signal, the kernel's OOM killer): a
program that fails by itself ends the job. A second result for the same
number is dropped.

Clusters: `--cluster local:N` (N worker processes on this machine, bound to
127.0.0.1, TLS with throw-away certificates), `ssh:HOST,HOST,...`
(`SSHCluster`: the first host runs the scheduler), `slurm:JOBS`
(`dask-jobqueue`), or `--scheduler ADDRESS` for a running one. See the
docs/tools.md, "Data and SPRT tests on a cluster", and for SPSA the
docs/tools.md, "SPSA tunes on a cluster".
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import cloudpickle
import dask
from distributed import Client, Event, LocalCluster, wait
from distributed.security import Security

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chariot_tasks as tasks
import spsa

# The shipment plugin travels by value: a worker that joins later unpickles
# it before anything else is there. The tasks name their functions, which
# the scheduler and the workers import from the copy `ship` uploads.
cloudpickle.register_pickle_by_value(tasks)

MANIFEST = "MANIFEST.toml"


def log(text: str) -> None:
    print(text, flush=True)


class JobError(RuntimeError):
    """The job cannot go on: the message says why."""


# --------------------------------------------------------------------------
# Clusters


def tls_security(args) -> Security | None:
    """The TLS settings given on the command line (one certificate and key,
    signed by the CA, for every role), or None."""
    given = [args.tls_ca_file, args.tls_cert, args.tls_key]
    if not any(given):
        return None
    if not all(given):
        raise JobError("--tls-ca-file, --tls-cert and --tls-key go together")
    for path in given:
        if not Path(path).is_file():
            raise JobError(f"no such file: {path}")
    return Security(
        tls_ca_file=args.tls_ca_file,
        tls_client_cert=args.tls_cert,
        tls_client_key=args.tls_key,
        tls_scheduler_cert=args.tls_cert,
        tls_scheduler_key=args.tls_key,
        tls_worker_cert=args.tls_cert,
        tls_worker_key=args.tls_key,
        require_encryption=True,
    )


def count_of(cluster: str, text: str, default: int) -> int:
    """The N of `local:N` or `slurm:N` (`default` when absent)."""
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise JobError(f"--cluster {cluster}: the count must be a positive number")
    return int(text)


def local_cluster(n: int, security: Security | None) -> LocalCluster:
    """N single-threaded worker processes on this machine, reachable on
    127.0.0.1 only and only with TLS (certificates made for this run unless
    given): other users of the machine cannot connect either."""
    return LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        security=security or Security.temporary(),
        protocol="tls://",
        # The driver reports lost workers and re-runs itself; Dask's
        # own warnings about them would only repeat it.
        silence_logs=logging.ERROR,
    )


@contextlib.contextmanager
def open_client(args):
    """A client of the cluster the arguments name, closed (with the cluster
    it started) on leaving."""
    security = tls_security(args)
    if args.scheduler:
        with Client(args.scheduler, security=security or Security()) as client:
            yield client
        return
    kind, _, rest = args.cluster.partition(":")
    if kind == "local":
        n = count_of(args.cluster, rest, os.cpu_count() or 1)
        # Started with SIGINT ignored, the worker processes keep ignoring it:
        # a Ctrl-C reaches the driver alone, which stops the job and closes
        # the cluster in order.
        interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            cluster = local_cluster(n, security)
        finally:
            signal.signal(signal.SIGINT, interrupt)
    elif kind == "ssh":
        from distributed import SSHCluster

        # SSHCluster logs every line its remote processes print; their
        # warnings and errors are enough here.
        logging.getLogger("distributed.deploy.ssh").setLevel(logging.WARNING)

        hosts = [h for h in rest.split(",") if h]
        if len(hosts) < 2:
            raise JobError("--cluster ssh:SCHEDULER,WORKER[,WORKER...] names the scheduler's host first")
        if security is None and not args.insecure:
            raise JobError("an SSH cluster listens on the network: give --tls-ca-file/--tls-cert/--tls-key")
        scheduler = {"port": 0, "dashboard_address": None}
        if security is not None:
            # The remote processes inherit the driver's Dask configuration,
            # certificate paths included (the same paths on every host).
            dask.config.set(
                {
                    "distributed.comm.require-encryption": True,
                    "distributed.comm.tls.ca-file": args.tls_ca_file,
                    "distributed.comm.tls.scheduler.cert": args.tls_cert,
                    "distributed.comm.tls.scheduler.key": args.tls_key,
                    "distributed.comm.tls.worker.cert": args.tls_cert,
                    "distributed.comm.tls.worker.key": args.tls_key,
                    "distributed.comm.tls.client.cert": args.tls_cert,
                    "distributed.comm.tls.client.key": args.tls_key,
                }
            )
            scheduler["protocol"] = "tls"
        cluster = SSHCluster(
            hosts,
            worker_options={"nthreads": args.worker_threads, "n_workers": 1},
            scheduler_options=scheduler,
            remote_python=args.remote_python,
            security=security,
        )
    elif kind == "slurm":
        from dask_jobqueue import SLURMCluster

        cores = args.slurm_cores
        cluster = SLURMCluster(
            cores=cores,
            processes=cores,
            memory=args.slurm_memory,
            walltime=args.slurm_walltime,
            queue=args.slurm_queue,
            account=args.slurm_account,
            # Without certificates of its own, the job's throw-away ones
            # (written where the jobs can read them).
            security=security or True,
            scheduler_options={"dashboard_address": None},
        )
        cluster.scale(jobs=count_of(args.cluster, rest, 1))
    else:
        raise JobError(f"--cluster {args.cluster}: use local:N, ssh:HOSTS or slurm:JOBS")
    with cluster, Client(cluster, security=cluster.security) as client:
        yield client


# --------------------------------------------------------------------------
# Shipping and checking the builds


def require(files: dict[str, Path]) -> None:
    for role, path in files.items():
        if not path.is_file():
            raise JobError(f"{role}: no such file {path}")


def engine_signature(path: Path) -> str:
    try:
        return tasks.signature(path)
    except (OSError, subprocess.SubprocessError, RuntimeError) as e:
        raise JobError(f"{path}: not a working chariot build ({e})") from e


def ship(
    client: Client, args, files: dict[str, Path], engines: list[str], signatures: dict[str, str] | None = None
) -> set[str]:
    """Registers the shipment (files by role; `engines` are signed, or
    given their `signatures` as the driver found them already) and retires
    every worker that refuses it. Returns the refused workers."""
    require(files)
    expected = {role: (signatures or {}).get(role) or engine_signature(files[role]) for role in engines}
    for role in engines:
        log(f"{role}: {files[role]}: {expected[role]}")
    client.upload_file(tasks.__file__)
    entries = {}
    for role, path in files.items():
        data = None if args.shared else path.read_bytes()
        entries[role] = (path.name, tasks.sha256_of(path), data, str(path.resolve()))
    client.register_plugin(tasks.Shipment(entries, expected), name=tasks.PLUGIN)
    if not args.scheduler and args.cluster.startswith(("ssh", "slurm")):
        log("waiting for the first worker")
        client.wait_for_workers(1, timeout=args.worker_timeout)
    refused = set()
    for address, report in sorted(client.run(tasks.worker_report).items()):
        if report["refusal"]:
            log(f"refused: {report['refusal']}")
            client.retire_workers(workers=[address], close_workers=True)
            refused.add(address)
        else:
            log(f"worker {address} (pid {report['pid']} on {report['host']}): signatures match")
    return refused


def relative_path(path: Path, fallback_dir: str) -> str:
    """Where a worker's command names a shipped input file: the path as
    given when it is relative and stays below the working directory (so
    the recorded command runs again from the same place), else
    `fallback_dir/NAME`."""
    p = PurePosixPath(str(path))
    if not p.is_absolute() and ".." not in p.parts and str(p) not in ("", "."):
        return str(p)
    return f"{fallback_dir}/{p.name}"


# --------------------------------------------------------------------------
# Tasks, run once each


class Tasks:
    """Tasks by number: submitted, run again after their worker was lost or
    refused, and each number's first result taken once (a late second
    result is dropped)."""

    def __init__(self, client: Client, fn, specs: dict[int, dict], what: str, attempts: int, refused: set[str]):
        self.client, self.fn, self.specs, self.what, self.attempts = client, fn, specs, what, attempts
        self.tries: dict[int, int] = {}
        self.live: dict = {}
        self.taken: set[int] = set()
        self.refused = set(refused)
        self.dropped = 0
        for number in specs:
            self.submit(number)

    def add(self, number: int, spec: dict) -> None:
        """Submits one more task, planned while others run."""
        self.specs[number] = spec
        self.submit(number)

    def submit(self, number: int, counts: bool = True) -> None:
        """Submits task `number`; a run again after a lost worker `counts`
        towards `--attempts`, one after a refusal does not (each refusal
        retires a worker, so they are bounded by the cluster)."""
        tries = self.tries.get(number, 0) + counts
        if tries > self.attempts:
            raise JobError(f"{self.what} {number}: its worker was lost {self.attempts - 1} times; giving up")
        self.tries[number] = tries
        spec = self.specs[number]
        key = f"{spec['job']}-{spec['name']}-{uuid.uuid4().hex[:8]}"
        self.live[self.client.submit(self.fn, spec, key=key, pure=False)] = number

    def take(self, number: int) -> bool:
        """Whether a result for `number` is the first (and so counts)."""
        if number in self.taken:
            self.dropped += 1
            log(f"{self.what} {number}: a second result, dropped")
            return False
        self.taken.add(number)
        return True

    def results(self):
        """Yields (number, result) as results arrive, each number once."""
        while self.live:
            try:
                done, _ = wait(list(self.live), timeout=5, return_when="FIRST_COMPLETED")
            except TimeoutError:
                self.check_workers()
                continue
            for future in done:
                number = self.live.pop(future)
                try:
                    result = future.result()
                except Exception as e:  # noqa: BLE001 - sorted below by kind
                    self.failed(number, e)
                    continue
                if not result.get("stopped") and self.take(number):
                    yield number, result

    def failed(self, number: int, e: Exception) -> None:
        kind = type(e).__name__
        if kind == "WorkerRefused":
            address = re.search(r"worker (\S+)", str(e))
            log(f"refused: {e}")
            if address and address.group(1) not in self.refused:
                self.refused.add(address.group(1))
                with contextlib.suppress(Exception):
                    self.client.retire_workers(workers=[address.group(1)], close_workers=True)
            self.submit(number, counts=False)
        elif kind in ("KilledWorker", "CommClosedError", "FutureCancelledError", "CancelledError"):
            log(f"{self.what} {number}: its worker was lost ({kind}); run again")
            self.submit(number)
        elif isinstance(e, subprocess.CalledProcessError) and e.returncode < 0:
            # Killed by a signal, not failed: the worker's own death can
            # reach its child first, and the task is lost work like the
            # worker's.
            log(f"{self.what} {number}: {e.cmd[0]} was killed by signal {-e.returncode}; run again")
            self.submit(number)
        elif isinstance(e, subprocess.CalledProcessError):
            tail = (e.stderr or e.stdout or "").strip().splitlines()[-5:]
            raise JobError(
                f"{self.what} {number}: {shlex.join(map(str, e.cmd))} exited {e.returncode}: " + " / ".join(tail)
            )
        else:
            raise JobError(f"{self.what} {number}: {kind}: {e}")

    def check_workers(self) -> None:
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        if self.refused and not workers:
            raise JobError("every worker refused the builds (see 'refused:' above); none is left")

    def cancel(self) -> None:
        self.client.cancel(list(self.live))
        self.live.clear()


@contextlib.contextmanager
def stop_event(client: Client, job: str):
    """The job's stop event: set on leaving, however the job ends, so no
    worker goes on with a child process of this job."""
    event = Event(f"{job}-stop", client=client)
    try:
        yield event.name
    finally:
        with contextlib.suppress(Exception):
            event.set()


def refuse_owned(extra: list[str], owned: tuple[str, ...]) -> None:
    """Refuses, among the words passed through after `--`, an option the
    driver sets for every task itself."""
    for word in extra:
        if word.split("=")[0] in owned:
            raise JobError(f"{word}: run.py sets it (see --help)")


def run_tool(argv: list[str]) -> str:
    """Runs one of Chariot's tools on the driver; its stdout, or JobError."""
    done = subprocess.run(argv, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise JobError(f"{shlex.join(argv)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


# --------------------------------------------------------------------------
# datagen


@dataclass
class Shard:
    index: int
    seed: int
    cap: int
    args: list[str]

    @property
    def file(self) -> str:
        return f"seed-{self.seed}.games.xz"


def plan_shards(args, openings_rel: str, eval_arg: str) -> list[Shard]:
    """Shards of `--games` (G = `--shard-games` each) or of `--positions`
    (`--shard-positions` each, at most G games): shard k starts at seed
    S + k*G."""
    g = args.shard_games
    if g < 1:
        raise JobError("--shard-games must be at least 1")
    if args.games is not None:
        count = math.ceil(args.games / g)
        sizes = [("--games", min(g, args.games - k * g)) for k in range(count)]
    else:
        p = args.shard_positions
        if p < 1:
            raise JobError("--shard-positions must be at least 1")
        count = math.ceil(args.positions / p)
        sizes = [("--positions", min(p, args.positions - k * p)) for k in range(count)]
    shards = []
    for k, (flag, size) in enumerate(sizes):
        seed = args.seed + k * g
        cap = size if flag == "--games" else g
        a = ["--out", f"seed-{seed}.games.xz", "--seed", str(seed), "--games", str(cap)]
        if flag == "--positions":
            a += ["--positions", str(size)]
        a += ["--openings", openings_rel, "--eval", eval_arg, "--threads", str(args.threads)]
        a += args.extra + ["--manifest", MANIFEST]
        shards.append(Shard(k, seed, cap, a))
    return shards


def already_done(out: Path, shards: list[Shard]) -> set[int]:
    """The shards a directory's manifest lists already, made by the very
    same command (a job run again goes on where it stopped). A chunk of
    the same name made otherwise, or one whose seeds overlap a shard's,
    stops the job: its games would count twice."""
    path = out / MANIFEST
    if not path.exists():
        return set()
    try:
        listed = tomllib.loads(path.read_text()).get("chunk", [])
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise JobError(f"{path}: {e}") from e
    done = set()
    for shard in shards:
        for chunk in listed:
            same_file = chunk.get("file") == shard.file
            if same_file and shlex.split(chunk.get("command", ""))[1:] == ["datagen", *shard.args]:
                done.add(shard.index)
                break
            seed, games = chunk.get("seed", 0), chunk.get("games", 0)
            if same_file or (seed < shard.seed + shard.cap and shard.seed < seed + games):
                raise JobError(
                    f"{path} lists {chunk.get('file')} (seeds {seed}..{seed + games - 1}), "
                    f"which shard {shard.index} (seeds {shard.seed}..{shard.seed + shard.cap - 1}) "
                    "would play again with other settings: choose another --seed or --out"
                )
    return done


def datagen(client: Client, args) -> int:
    chariot = Path(args.chariot)
    out = Path(args.out)
    files = {"chariot": chariot, "openings": Path(args.openings)}
    openings_rel = relative_path(Path(args.openings), "openings")
    links = {openings_rel: "openings"}
    eval_arg = args.eval
    if args.eval not in ("builtin", "hand"):
        files["eval"] = Path(args.eval)
        eval_arg = relative_path(Path(args.eval), "eval")
        links[eval_arg] = "eval"
    refuse_owned(
        args.extra,
        ("--out", "--seed", "--games", "--positions", "--manifest", "--openings", "--eval", "--threads", "--pgn"),
    )
    shards = plan_shards(args, openings_rel, eval_arg)
    done = already_done(out, shards)
    todo = [s for s in shards if s.index not in done]
    log(
        f"datagen: {len(shards)} shards of at most {args.shard_games} games from seed {args.seed}"
        + (f", {len(done)} already in {out}" if done else "")
    )
    incoming = out / ".incoming"
    shutil.rmtree(incoming, ignore_errors=True)
    incoming.mkdir(parents=True)
    refused = ship(client, args, files, ["chariot"])
    job = f"datagen-{uuid.uuid4().hex[:8]}"
    start = time.monotonic()
    with stop_event(client, job) as stop:
        specs = {
            s.index: {
                "job": job,
                "name": f"shard-{s.index}",
                "number": s.index,
                "file": s.file,
                "args": s.args,
                "links": links,
                "stop": stop,
            }
            for s in todo
        }
        running = Tasks(client, tasks.datagen_shard, specs, "shard", args.attempts, refused)
        staged: dict[int, Path] = {}
        order = [s.index for s in todo]
        added = 0
        for number, result in running.results():
            shard = shards[number]
            stage = incoming / f"shard-{number}"
            stage.mkdir()
            (stage / shard.file).write_bytes(result["data"])
            (stage / MANIFEST).write_text(result["manifest"])
            staged[number] = stage
            kept = re.search(r"Kept positions \(default filters\): (\d+)", result["summary"])
            log(
                f"shard {number} (seed {shard.seed}): {kept.group(1) if kept else '?'} kept positions, "
                f"{result['seconds']:.1f} s, worker pid {result['pid']} on {result['host']}"
            )
            # Chunks join the manifest in shard order.
            while added < len(order) and order[added] in staged:
                stage = staged.pop(order[added])
                run_tool([str(chariot), "data", "add", str(out), str(stage)])
                shutil.rmtree(stage)
                added += 1
    shutil.rmtree(incoming, ignore_errors=True)
    totals = run_tool([str(chariot), "data", "check", str(out)]).strip()
    log(f"datagen: {len(todo)} shards in {time.monotonic() - start:.1f} s")
    log(totals)
    return 0


# --------------------------------------------------------------------------
# sprt


def count_openings(path: Path) -> int:
    """Positions in an openings file: its lines that are not blank or `#`
    comments (the arena reads one FEN or EPD per line and refuses a bad
    one itself)."""
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise JobError(f"--openings {path}: {e}") from e
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def engine_words(name: str, role: str, options: list[str]) -> list[str]:
    return ["--engine", f"name={name}", f"cmd={{{role}}}", "proto=ucci", *(f"option.{o}" for o in options)]


def pool(arena: Path, files: list[Path], sprt: list[str], as_json: bool) -> str:
    argv = [str(arena), "pool", "--engine", "new", "--sprt", *sprt]
    if as_json:
        argv.append("--json")
    return run_tool([*argv, "--", *map(str, files)])


def sprt(client: Client, args) -> int:
    arena, new, base = Path(args.arena), Path(args.new), Path(args.base)
    openings = Path(args.openings)
    out = Path(args.out)
    limits = [("--nodes", args.nodes), ("--depth", args.depth), ("--tc", args.tc)]
    limit = [(flag, str(v)) for flag, v in limits if v is not None]
    if len(limit) != 1:
        raise JobError("give one limit: --nodes, --depth or --tc")
    refuse_owned(
        args.extra,
        (
            "--engine",
            "--games",
            "--openings",
            "--skip-openings",
            "--pgn",
            "--sprt",
            "--concurrency",
            "--nodes",
            "--depth",
            "--tc",
        ),
    )
    require({"arena": arena, "new": new, "base": base})
    available = count_openings(openings)
    pairs = min(args.pairs or available, available)
    m = args.batch_pairs
    if m < 1 or pairs < 1:
        raise JobError("--batch-pairs and --pairs must be at least 1")
    out.mkdir(parents=True, exist_ok=True)
    if any(out.glob("batch-*.pgn")):
        raise JobError(f"{out} holds batch PGNs of another test: choose a new --out")
    openings_rel = relative_path(openings, "openings")
    common = [*limit[0], "--concurrency", "1", "--openings", openings_rel, *args.extra]
    words = engine_words("new", "new", args.option + args.new_option)
    words += engine_words("base", "base", args.option + args.base_option)
    batches = math.ceil(pairs / m)
    log(f"sprt: {pairs} pairs of {available} openings in {batches} batches of {m}; SPRT {' '.join(args.sprt)}")
    refused = ship(client, args, {"arena": arena, "new": new, "base": base, "openings": openings}, ["new", "base"])
    job = f"sprt-{uuid.uuid4().hex[:8]}"
    planned = {b: min(m, pairs - b * m) for b in range(batches)}
    arrived: dict[int, Path] = {}
    verdict = None
    with stop_event(client, job) as stop:
        specs = {
            b: {
                "job": job,
                "name": f"batch-{b}",
                "number": b,
                "args": [*words, *common, "--skip-openings", str(b * m), "--games", str(2 * n)],
                "links": {openings_rel: "openings"},
                "stop": stop,
            }
            for b, n in planned.items()
        }
        running = Tasks(client, tasks.sprt_batch, specs, "batch", args.attempts, refused)
        try:
            for number, result in running.results():
                path = out / f"batch-{number:05d}.pgn"
                part = path.with_suffix(".part")
                part.write_text(result["pgn"])
                part.replace(path)
                arrived[number] = path
                faults = [line for line in result["output"].splitlines() if line.startswith("Fault")]
                state = json.loads(pool(arena, sorted(arrived.values()), args.sprt, True))
                for f in state["files"]:
                    b = int(re.search(r"batch-(\d+)\.pgn$", f["name"]).group(1))
                    if f["pairs"] != planned[b] or f["left_out"]:
                        raise JobError(
                            f"{f['name']}: {f['pairs']} pairs, {f['left_out']} incomplete; planned {planned[b]}"
                        )
                g, s = state["games"], state["sprt"]
                log(
                    f"batch {number} (openings {number * m + 1}-{number * m + planned[number]}) "
                    f"from worker pid {result['pid']} on {result['host']}, {result['seconds']:.1f} s | "
                    f"{len(arrived)}/{batches} batches, {state['pairs']['total']} pairs "
                    f"{state['pairs']['counts']}: W {g['wins']} D {g['draws']} L {g['losses']}, "
                    f"Elo {state['elo']} | LLR {s['llr']:.2f} ({s['lower']:.2f}, {s['upper']:.2f})"
                )
                for line in faults:
                    log(f"  batch {number}: {line}")
                if s["state"] != "continue":
                    verdict = s["state"]
                    break
        finally:
            running.cancel()
    log(f"sprt: {'decided (' + verdict + ')' if verdict else 'undecided'} after {len(arrived)} of {batches} batches")
    log(pool(arena, sorted(arrived.values()), args.sprt, False).rstrip())
    return 0


# --------------------------------------------------------------------------
# spsa

# What a tune's state fixes: given again with --resume, they are refused.
TUNE_SHAPING = ("params", "only", "iterations", "nodes", "depth", "tc", "openings", "seed", "option", "extra")
SPSA_OPENINGS = ["arena/data/openings-wide.epd", "arena/data/openings-deep.epd"]


def engine_params(engine: Path, params_file: str | None) -> list[spsa.Param]:
    """The parameters to tune: `--params FILE`, else what `ENGINE params`
    prints (both in fishtest's format)."""
    try:
        if params_file:
            return spsa.parse_params(Path(params_file).read_text(), params_file)
        return spsa.parse_params(run_tool([str(engine), "params"]), f"{engine} params")
    except (OSError, spsa.SpsaError) as e:
        raise JobError(str(e)) from e


def check_tunable(engine: Path, rows: list[dict]) -> None:
    """Refuses an engine that does not take every parameter as an option
    over the tune's whole range (a play build answers `unknown option`, a
    narrower range `ignored`): each is set to its min, its max and its
    start through the protocol, and the engine's complaints are read back."""
    lines = ["uci"]
    for r in rows:
        for value in (r["min"], r["max"], r["start"]):
            lines.append(f"setoption name {r['name']} value {spsa.engine_value(r, value)}")
    lines += ["isready", "quit"]
    try:
        done = subprocess.run(
            [str(engine)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError) as e:
        raise JobError(f"{engine}: {e}") from e
    complaints = [
        line for line in done.stdout.splitlines() if "unknown option" in line or line.rstrip().endswith("ignored")
    ]
    if complaints:
        raise JobError(
            f"{engine} does not take the parameters as options (not a tuning build, or a range wider than its own? "
            "cargo build --release -p chariot-cli --features tune --target-dir target/tune): "
            + " / ".join(complaints[:3])
        )


def pair_result(output: str) -> tuple[int, int, int]:
    """A game pair's (wins, draws, losses) for theta+ ("plus"), from the
    arena's closing summary."""
    found = re.findall(r"^plus vs minus: W (\d+) D (\d+) L (\d+)", output, re.MULTILINE)
    if not found:
        raise JobError("an arena run printed no 'plus vs minus: W … D … L …' line")
    w, d, losses = map(int, found[-1])
    if w + d + losses != 2:
        raise JobError(f"an arena run of one pair counted {w + d + losses} games")
    return w, d, losses


def pair_args(settings: dict, state: dict, number: int, pair: dict) -> list[str]:
    """The arena command of one game pair: theta+ ("plus") against theta-
    ("minus"), both the shipped engine, from the pair's opening, colours
    swapped."""
    names = [r["name"] for r in state["params"]]
    suite, index = pair["opening"]
    words = []
    for side in ("plus", "minus"):
        values = [f"{n}={v}" for n, v in zip(names, pair[side], strict=True)]
        words += engine_words(side, "engine", settings["options"] + values)
    return [
        *words,
        settings["limit"][0],
        settings["limit"][1],
        "--games",
        "2",
        "--concurrency",
        "1",
        "--openings",
        settings["openings"][suite]["rel"],
        "--skip-openings",
        str(index),
        "--event",
        f"spsa-b{number}-i{pair['iteration']}",
        *settings["extra"],
    ]


def new_tune(args, engine: Path, signature: str) -> dict:
    """A new tune's state from the command line."""
    limits = [("--nodes", args.nodes), ("--depth", args.depth), ("--tc", args.tc)]
    limit = [(flag, str(v)) for flag, v in limits if v is not None]
    if len(limit) != 1:
        raise JobError("give one limit: --nodes, --depth or --tc")
    refuse_owned(
        args.extra,
        ("--engine", "--games", "--openings", "--skip-openings", "--pgn", "--sprt", "--concurrency", "--event")
        + ("--nodes", "--depth", "--tc"),
    )
    try:
        params = spsa.select(engine_params(engine, args.params), args.only)
    except spsa.SpsaError as e:
        raise JobError(str(e)) from e
    openings = []
    for k, name in enumerate(args.openings or SPSA_OPENINGS):
        path = Path(name)
        count = count_openings(path)
        if count < 1:
            raise JobError(f"--openings {path}: no positions")
        openings.append({"path": name, "rel": relative_path(path, f"openings-{k}"), "count": count})
    settings = {
        "engine": str(engine),
        "signature": signature,
        "arena": args.arena or "target/release/arena",
        "params": args.params or f"{engine} params",
        "limit": list(limit[0]),
        "openings": openings,
        "options": args.option,
        "extra": args.extra,
    }
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    try:
        return spsa.new_state(params, args.iterations or 0, seed, settings)
    except spsa.SpsaError as e:
        raise JobError(str(e)) from e


def spsa_precheck(args) -> None:
    """What can be refused before a cluster starts."""
    if args.resume:
        given = [name for name in TUNE_SHAPING if getattr(args, name) not in (None, [])]
        if given:
            raise JobError(
                f"--resume takes the tune's settings from {args.resume}; drop --{given[0].replace('_', '-')}"
            )
        if not Path(args.resume).is_file():
            raise JobError(f"--resume {args.resume}: no such file")
    elif Path(args.state).exists():
        raise JobError(f"{args.state} exists: continue it with --resume {args.state}, or choose another --state")


def spsa_tune(client: Client, args) -> int:
    if args.resume:
        path = Path(args.resume)
        try:
            state = spsa.load_state(path)
        except spsa.SpsaError as e:
            raise JobError(str(e)) from e
        settings = state["settings"]
        engine = Path(args.engine or settings["engine"])
        require({"engine": engine})
        signature = engine_signature(engine)
        if signature != settings["signature"]:
            raise JobError(
                f"{engine} signs '{signature}'; the tune in {path} was started with '{settings['signature']}'"
            )
        log(
            f"spsa: resuming {path} at iteration {state['iter']} of {state['iterations']} "
            f"(batch {state['next_batch']} next): {spsa.summary(state)}"
        )
    else:
        path = Path(args.state)
        engine = Path(args.engine or "target/tune/release/chariot")
        require({"engine": engine})
        signature = engine_signature(engine)
        state = new_tune(args, engine, signature)
        settings = state["settings"]
    arena = Path(args.arena or settings["arena"])
    require({"arena": arena})
    check_tunable(engine, state["params"])
    if not args.resume:
        path.parent.mkdir(parents=True, exist_ok=True)
        spsa.save_state(path, state)
        log(
            f"spsa: {len(state['params'])} parameters, {state['iterations']} iterations (game pairs) from "
            f"{settings['params']}, A {state['A']}, alpha {state['alpha']}, gamma {state['gamma']}, "
            f"seed {state['seed']}; state {path}"
        )
    files = {"arena": arena, "engine": engine}
    links = {}
    for k, suite in enumerate(settings["openings"]):
        files[f"openings-{k}"] = Path(suite["path"])
        links[suite["rel"]] = f"openings-{k}"
        if count_openings(Path(suite["path"])) != suite["count"]:
            raise JobError(f"{suite['path']}: {suite['count']} positions when the tune began, another number now")
    order = spsa.opening_order(state["seed"], [suite["count"] for suite in settings["openings"]])
    if state["iter"] < state["iterations"]:
        run_spsa(client, args, state, path, files, links, order, signature)
    finish_spsa(state, path)
    return 0


def run_spsa(client: Client, args, state: dict, path: Path, files, links, order, signature: str) -> None:
    """Plays the tune's remaining iterations: batches planned from the
    current theta, as many at once as the cluster has task slots, each
    applied and saved as it arrives."""
    settings, n, m = state["settings"], state["iterations"], args.pairs_per_batch
    if m < 1:
        raise JobError("--pairs-per-batch must be at least 1")
    refused = ship(client, args, files, ["engine"], {"engine": signature})
    job = f"spsa-{uuid.uuid4().hex[:8]}"

    def slots() -> int:
        if args.in_flight:
            return args.in_flight
        workers = client.scheduler_info(n_workers=-1)["workers"]
        return max(1, sum(w.get("nthreads", 1) for a, w in workers.items() if a not in running.refused))

    with stop_event(client, job) as stop:
        running = Tasks(client, tasks.spsa_batch, {}, "batch", args.attempts, refused)
        plans: dict[int, dict] = {}

        def fill() -> None:
            while len(plans) < slots():
                pending = sum(len(p["pairs"]) for p in plans.values())
                pairs = min(m, n - state["iter"] - pending)
                if pairs < 1:
                    return
                plan = spsa.plan_batch(state, pairs, order)
                number = plan["number"]
                plans[number] = plan
                running.add(
                    number,
                    {
                        "job": job,
                        "name": f"batch-{number}",
                        "number": number,
                        "pairs": [pair_args(settings, state, number, pair) for pair in plan["pairs"]],
                        "links": links,
                        "stop": stop,
                    },
                )

        try:
            fill()
            for number, result in running.results():
                plan = plans.pop(number)
                wdl = [pair_result(output) for output in result["outputs"]]
                spsa.apply_batch(state, plan, wdl)
                spsa.save_state(path, state)
                first, last = plan["pairs"][0]["iteration"], plan["pairs"][-1]["iteration"]
                w, d, losses = state["history"][-1]["wdl"]
                log(
                    f"batch {number} (iterations {first}-{last}) from worker pid {result['pid']} on "
                    f"{result['host']}, {result['seconds']:.1f} s: W {w} D {d} L {losses} | "
                    f"{state['iter']}/{n} iterations, {state['games']} games: W {state['wins']} D {state['draws']} "
                    f"L {state['losses']} | {spsa.summary(state)}"
                )
                for output in result["outputs"]:
                    for line in output.splitlines():
                        if line.startswith("Fault"):
                            log(f"  batch {number}: {line}")
                fill()
        except KeyboardInterrupt:
            # An interrupt can land after a batch is applied in memory but
            # before its file is replaced: name what a resume will find.
            log(f"spsa: interrupted at iteration {spsa.load_state(path)['iter']}; continue with --resume {path}")
            raise
        finally:
            running.cancel()


def finish_spsa(state: dict, path: Path) -> None:
    """The tuned values, the CSV of every parameter's path and its plot."""
    log(
        f"spsa: {state['iter']} of {state['iterations']} iterations, {state['games']} games "
        f"(theta+ W {state['wins']} D {state['draws']} L {state['losses']})"
    )
    log(spsa.final_table(state))
    table = path.with_suffix(".csv")
    spsa.write_csv(state, table)
    picture = path.with_suffix(".png")
    if spsa.plot(state, picture):
        log(f"spsa: each parameter's path in {picture} (and {table})")
    else:
        log(
            f"spsa: each parameter's path in {table}; for a plot, pip install matplotlib and run run.py spsa-plot {path}"
        )


def spsa_plot(args) -> int:
    try:
        state = spsa.load_state(Path(args.state))
    except spsa.SpsaError as e:
        raise JobError(str(e)) from e
    finish_spsa(state, Path(args.state))
    return 0


# --------------------------------------------------------------------------
# Command line


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def cluster_options(q: argparse.ArgumentParser) -> None:
        g = q.add_argument_group("cluster")
        g.add_argument(
            "--cluster",
            default=f"local:{os.cpu_count() or 1}",
            help="local:N | ssh:HOST,HOST,... | slurm:JOBS (default local:<cores>)",
        )
        g.add_argument("--scheduler", help="address of a running scheduler (tls://HOST:PORT) instead of --cluster")
        g.add_argument("--tls-ca-file", help="CA certificate (PEM) of the cluster's TLS")
        g.add_argument("--tls-cert", help="certificate (PEM), signed by the CA, for every role")
        g.add_argument("--tls-key", help="its private key (PEM)")
        g.add_argument(
            "--insecure",
            action="store_true",
            help="allow an SSH cluster without TLS (anyone who reaches its ports runs code on it)",
        )
        g.add_argument(
            "--shared",
            action="store_true",
            help="workers read the builds at the driver's paths (a shared file system) instead of receiving them",
        )
        g.add_argument(
            "--worker-threads",
            type=int,
            default=os.cpu_count() or 1,
            help="ssh: tasks at once per host (default: this machine's cores)",
        )
        g.add_argument("--remote-python", help="ssh: the Python on the hosts (with distributed installed)")
        g.add_argument("--slurm-cores", type=int, default=8, help="slurm: cores per job (one task each)")
        g.add_argument("--slurm-memory", default="8GB", help="slurm: memory per job")
        g.add_argument("--slurm-walltime", default="02:00:00", help="slurm: time limit per job")
        g.add_argument("--slurm-queue", help="slurm: partition")
        g.add_argument("--slurm-account", help="slurm: account")
        g.add_argument(
            "--worker-timeout", type=float, default=600, help="ssh/slurm: seconds to wait for the first worker"
        )
        g.add_argument(
            "--attempts", type=int, default=3, help="runs of a task whose workers keep dying before the job fails"
        )

    d = sub.add_parser("datagen", help="NNUE training games in shards of `chariot datagen`")
    d.add_argument("--out", required=True, help="data directory (MANIFEST.toml and one chunk per shard)")
    size = d.add_mutually_exclusive_group(required=True)
    size.add_argument("--games", type=int, help="games in all")
    size.add_argument(
        "--positions",
        type=int,
        help="positions the default filters keep, in all (approximately: each shard stops after its share)",
    )
    d.add_argument(
        "--shard-games",
        type=int,
        default=50,
        help="games a shard plays (with --positions, at most; also the seed stride)",
    )
    d.add_argument("--shard-positions", type=int, default=20000, help="with --positions: kept positions per shard")
    d.add_argument("--seed", type=int, default=1, help="seed of the first shard's first game")
    d.add_argument("--chariot", default="target/release/chariot", help="the build that plays")
    d.add_argument("--openings", default="arena/data/openings.epd")
    d.add_argument("--eval", default="builtin", help="builtin | hand | a network file (shipped)")
    d.add_argument("--threads", type=int, default=1, help="threads of each datagen run")
    d.add_argument("extra", nargs="*", help="after --: more `chariot datagen` options (e.g. --nodes 1000)")
    cluster_options(d)

    s = sub.add_parser("sprt", help="an SPRT test in batches of `arena`")
    s.add_argument("--new", default="target/release/chariot", help="the build under test")
    s.add_argument("--base", required=True, help="the build it is compared with")
    s.add_argument("--arena", default="target/release/arena")
    s.add_argument("--out", required=True, help="directory for the batches' PGN files")
    s.add_argument("--openings", default="arena/data/openings.epd", help="each opening is played once, as a pair")
    s.add_argument("--nodes", type=int)
    s.add_argument("--depth", type=int)
    s.add_argument("--tc", help="BASE+INC seconds")
    s.add_argument(
        "--sprt", nargs="+", required=True, metavar="KEY=VALUE", help="elo0=… elo1=… [alpha=…] [beta=…] [model=…]"
    )
    s.add_argument("--pairs", type=int, help="at most this many pairs (default: one per opening)")
    s.add_argument("--batch-pairs", type=int, default=10, help="pairs per batch")
    s.add_argument(
        "--option",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="engine option for both (default hashsize=16 usebook=false)",
    )
    s.add_argument("--new-option", action="append", default=[], metavar="KEY=VALUE")
    s.add_argument("--base-option", action="append", default=[], metavar="KEY=VALUE")
    s.add_argument("extra", nargs="*", help="after --: more arena options (e.g. --resign score=1000 moves=4)")
    cluster_options(s)

    t = sub.add_parser("spsa", help="an SPSA tune of the engine's search parameters in batches of game pairs")
    start = t.add_mutually_exclusive_group(required=True)
    start.add_argument("--state", help="a new tune's state file (JSON, rewritten after every batch)")
    start.add_argument("--resume", metavar="STATE", help="continue the tune of this state file")
    t.add_argument("--engine", help="the tuning build (default target/tune/release/chariot)")
    t.add_argument("--arena", help="default target/release/arena")
    t.add_argument(
        "--params", help="the parameters, 'name, int, default, min, max, c_end, r_end' (default: ENGINE params)"
    )
    t.add_argument("--only", help="tune only these parameters (comma-separated names)")
    t.add_argument("--iterations", type=int, help="game pairs in all (fishtest's games / 2)")
    t.add_argument("--pairs-per-batch", type=int, default=8, help="game pairs per task (default 8)")
    t.add_argument("--in-flight", type=int, help="batches at once (default: the cluster's task slots)")
    t.add_argument(
        "--openings",
        action="append",
        help="opening suite, repeatable (default: arena/data/openings-wide.epd and openings-deep.epd)",
    )
    t.add_argument("--seed", type=int, help="seed of the random signs and the order of the openings (default: random)")
    t.add_argument("--nodes", type=int)
    t.add_argument("--depth", type=int)
    t.add_argument("--tc", help="BASE+INC seconds")
    t.add_argument(
        "--option",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="engine option for both sides (default hashsize=16 usebook=false)",
    )
    t.add_argument("extra", nargs="*", help="after --: more arena options (e.g. --resign score=1000 moves=4)")
    cluster_options(t)

    plot = sub.add_parser("spsa-plot", help="a tune's final values, the CSV and the plot of its parameters' paths")
    plot.add_argument("state", help="the tune's state file")
    return p


def stop_on_signals() -> None:
    """Make SIGINT and SIGTERM stop a job the way Ctrl-C does (a tune
    saves its state and says how to resume). A shell that starts a command
    with `&` and no job control hands it SIGINT already ignored, and Python
    then installs no handler, so a background tune could only be killed
    without its last batches' state; this restores both signals."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.default_int_handler)


def main(argv: list[str] | None = None) -> int:
    stop_on_signals()
    args = parser().parse_args(argv)
    if getattr(args, "option", []) is None and not getattr(args, "resume", None):
        args.option = ["hashsize=16", "usebook=false"]
    job = {"datagen": datagen, "sprt": sprt, "spsa": spsa_tune}.get(args.command)
    try:
        if job is None:
            return spsa_plot(args)
        if job is spsa_tune:
            spsa_precheck(args)
        with open_client(args) as client:
            return job(client, args)
    except (JobError, spsa.SpsaError) as e:
        print(f"run.py {args.command}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"run.py {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
