"""Tests of `run.py`: the plans, and both jobs end to end on local Dask
clusters of two worker processes (127.0.0.1 only), with and without a
worker killed in the middle.

Needs the release builds (`cargo build --release -p chariot-cli -p arena`);
`smoke.sh` makes them and runs these tests.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import chariot_tasks as tasks
import run

CHARIOT = ROOT / "target/release/chariot"
ARENA = ROOT / "target/release/arena"
# Small and quick: 12 games in 4 shards (a few hundred positions), and
# SPRT batches of 3 or 4 pairs at 500 nodes a move.
DATAGEN = [
    "datagen",
    "--cluster",
    "local:2",
    "--games",
    "12",
    "--shard-games",
    "3",
    "--seed",
    "11",
    "--",
    "--nodes",
    "500",
]
SPRT = ["sprt", "--base", str(CHARIOT), "--base-option", "usennue=false", "--nodes", "500"]


def driver(args: list[str], kill: str | None = None, timeout: float = 300):
    """Runs `run.py ARGS` from the repository root; with `kill`, the Dask
    worker process running the first child named `kill` is killed
    (SIGKILL) while it runs. Returns the finished process and the killed
    child's (command line, worker pid), or None."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "run.py"), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    killed = []
    if kill:
        watcher = threading.Thread(target=lambda: killed.append(kill_worker_running(proc, kill)), daemon=True)
        watcher.start()
    out, _ = proc.communicate(timeout=timeout)
    proc.stdout = out
    return proc, (killed[0] if killed else None)


def processes() -> dict[int, tuple[int, list[str]]]:
    """Every process: pid -> (parent pid, command line)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        table[int(entry)] = (ppid, [c.decode(errors="replace") for c in cmd if c])
    return table


def descendants(root: int, table) -> set[int]:
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        for child, (ppid, _) in table.items():
            if ppid == pid and child not in found:
                found.add(child)
                todo.append(child)
    return found


def kill_worker_running(proc: subprocess.Popen, program: str):
    while proc.poll() is None:
        table = processes()
        for pid in descendants(proc.pid, table):
            ppid, cmd = table[pid]
            if cmd[:1] == [program]:
                os.kill(ppid, signal.SIGKILL)
                return cmd, ppid
        time.sleep(0.01)
    return None


def manifest(directory: Path) -> list[dict]:
    return tomllib.loads((directory / "MANIFEST.toml").read_text())["chunk"]


# --------------------------------------------------------------------------
# Plans


def plan_args(**kw):
    defaults = {
        "games": None,
        "positions": None,
        "shard_games": 50,
        "shard_positions": 1000,
        "seed": 1,
        "threads": 1,
        "extra": [],
    }
    return type("Args", (), {**defaults, **kw})


def test_shards_never_share_a_game():
    shards = run.plan_shards(plan_args(games=10, shard_games=4, seed=5), "o.epd", "builtin")
    assert [(s.seed, s.cap) for s in shards] == [(5, 4), (9, 4), (13, 2)]
    assert [s.file for s in shards] == ["seed-5.games.xz", "seed-9.games.xz", "seed-13.games.xz"]
    assert shards[2].args[:6] == ["--out", "seed-13.games.xz", "--seed", "13", "--games", "2"]
    by_positions = run.plan_shards(plan_args(positions=2500, shard_positions=1000, shard_games=30), "o.epd", "hand")
    assert [(s.seed, s.cap) for s in by_positions] == [(1, 30), (31, 30), (61, 30)]
    assert by_positions[2].args[6:8] == ["--positions", "500"]
    assert by_positions[0].args[-2:] == ["--manifest", "MANIFEST.toml"]


def test_a_directory_resumes_and_never_takes_a_seed_twice(tmp_path):
    shards = run.plan_shards(plan_args(games=6, shard_games=3, seed=1), "o.epd", "builtin")
    assert run.already_done(tmp_path, shards) == set()
    done = {
        "file": "seed-1.games.xz",
        "command": shlex.join(["chariot", "datagen", *shards[0].args]),
        "seed": 1,
        "games": 3,
    }
    (tmp_path / "MANIFEST.toml").write_text(
        "[[chunk]]\n" + "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in done.items())
    )
    assert run.already_done(tmp_path, shards) == {0}
    later = run.plan_shards(plan_args(games=6, shard_games=3, seed=3), "o.epd", "builtin")
    with pytest.raises(run.JobError, match=r"seeds 1\.\.3.*seeds 3\.\.5"):
        run.already_done(tmp_path, later)


def test_each_number_counts_once():
    ledger = run.Tasks(client=None, fn=None, specs={}, what="batch", attempts=3, refused=set())
    assert ledger.take(4) and ledger.take(5)
    assert not ledger.take(4)
    assert ledger.dropped == 1


def test_input_paths_stay_relative_where_they_can():
    assert run.relative_path(Path("arena/data/openings.epd"), "openings") == "arena/data/openings.epd"
    assert run.relative_path(Path("/abs/x.epd"), "openings") == "openings/x.epd"
    assert run.relative_path(Path("../x.epd"), "openings") == "openings/x.epd"


def test_openings_are_counted_as_the_arena_reads_them(tmp_path):
    f = tmp_path / "o.epd"
    f.write_text("# comment\n\nfen one\n  fen two  \r\n#x\n")
    assert run.count_openings(f) == 2
    assert run.count_openings(ROOT / "arena/data/openings.epd") == 240


# --------------------------------------------------------------------------
# Signatures


def fake_engine(tmp_path: Path) -> Path:
    """A 'chariot' whose bench counts its own calls: the driver's run
    signs 1, every worker's a larger number."""
    script = tmp_path / "chariot"
    count = tmp_path / "count"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then echo "chariot fake"; exit 0; fi\n'
        f"n=$(($(cat {count} 2>/dev/null || echo 0) + 1)); echo $n > {count}\n"
        'echo "Nodes searched: $n"\n'
    )
    script.chmod(0o755)
    return script


def test_a_worker_whose_bench_differs_is_refused(tmp_path):
    script = fake_engine(tmp_path)
    shipment = tasks.Shipment(
        {"chariot": ("chariot", tasks.sha256_of(script), None, str(script))}, {"chariot": tasks.signature(script)}
    )
    shipment._prepare(tmp_path, "tcp://127.0.0.1:1")
    assert shipment.refusal.endswith("chariot signs 'chariot fake, bench 2', the driver's 'chariot fake, bench 1'")
    assert shipment.refusal.startswith("worker tcp://127.0.0.1:1 on ")
    proc, _ = driver(
        ["datagen", "--cluster", "local:2", "--chariot", str(script), "--out", str(tmp_path / "data"), "--games", "2"]
    )
    assert proc.returncode == 1, proc.stdout
    assert proc.stdout.count("refused: worker tls://127.0.0.1:") == 2, proc.stdout
    assert "every worker refused the builds" in proc.stdout, proc.stdout
    assert not (tmp_path / "data" / "MANIFEST.toml").exists()


# --------------------------------------------------------------------------
# datagen


@pytest.fixture(scope="module")
def clean_datagen(tmp_path_factory):
    out = tmp_path_factory.mktemp("datagen") / "gen"
    proc, _ = driver([*DATAGEN[:1], "--out", str(out), *DATAGEN[1:]])
    assert proc.returncode == 0, proc.stdout
    return out, proc.stdout


def test_datagen_shards_become_one_checked_directory(clean_datagen, tmp_path):
    out, log = clean_datagen
    chunks = manifest(out)
    assert [c["file"] for c in chunks] == [f"seed-{s}.games.xz" for s in (11, 14, 17, 20)]
    assert [(c["seed"], c["games"]) for c in chunks] == [(11, 3), (14, 3), (17, 3), (20, 3)]
    assert all(c["engine"].startswith("chariot ") for c in chunks)
    check = subprocess.run([CHARIOT, "data", "check", out], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr
    totals = re.search(r"4 chunks verified, 12 games, \d+ plies \(\d+ searched\), (\d+) positions kept", check.stdout)
    assert totals and 100 <= int(totals.group(1)), check.stdout
    assert totals.group(0) in log
    # A shard's recorded command, run again exactly as written (beside a
    # copy of the openings' relative path), writes the same file byte for byte.
    command = shlex.split(chunks[2]["command"])
    assert command[:2] == ["chariot", "datagen"]
    (tmp_path / "arena/data").mkdir(parents=True)
    (tmp_path / "arena/data/openings.epd").symlink_to(ROOT / "arena/data/openings.epd")
    rerun = subprocess.run([CHARIOT, *command[1:]], cwd=tmp_path, capture_output=True, check=False)
    assert rerun.returncode == 0, rerun.stderr
    assert tasks.sha256_of(tmp_path / chunks[2]["file"]) == chunks[2]["sha256"]


def test_datagen_survives_a_killed_worker(clean_datagen, tmp_path):
    out, _ = clean_datagen
    faulty = tmp_path / "gen"
    proc, killed = driver([*DATAGEN[:1], "--out", str(faulty), *DATAGEN[1:]], kill="chariot")
    assert proc.returncode == 0, proc.stdout
    assert killed is not None, "no datagen process seen to kill"
    cmd, worker_pid = killed
    seed = cmd[cmd.index("--seed") + 1]
    # The killed shard came back from another worker process; no shard is
    # missing or doubled, and each file is the one a clean run wrote.
    line = re.search(rf"shard \d+ \(seed {seed}\): .* worker pid (\d+)", proc.stdout)
    assert line and int(line.group(1)) != worker_pid, proc.stdout
    assert [(c["file"], c["sha256"]) for c in manifest(faulty)] == [(c["file"], c["sha256"]) for c in manifest(out)]
    assert subprocess.run([CHARIOT, "data", "check", faulty], capture_output=True, check=False).returncode == 0


# --------------------------------------------------------------------------
# sprt


def pooled_pairs(log: str) -> int:
    return int(re.search(r"Pentanomial \[0, 0\.5, 1, 1\.5, 2\]: \[[\d, ]+\] \((\d+) pairs\)", log).group(1))


def test_sprt_decides_and_stops_the_workers(tmp_path):
    """Wide bounds decide within a few batches; the driver, connected over
    TLS to a scheduler it did not start, leaves no arena running on it."""
    from distributed import LocalCluster
    from distributed.security import Security

    temporary = Security.temporary()
    pem = {"ca": temporary.tls_ca_file, "cert": temporary.tls_client_cert, "key": temporary.tls_client_key}
    for name, text in pem.items():
        (tmp_path / f"{name}.pem").write_text(text)
    files = {k: str(tmp_path / f"{k}.pem") for k in pem}
    security = Security(
        tls_ca_file=files["ca"],
        tls_client_cert=files["cert"],
        tls_client_key=files["key"],
        tls_scheduler_cert=files["cert"],
        tls_scheduler_key=files["key"],
        tls_worker_cert=files["cert"],
        tls_worker_key=files["key"],
        require_encryption=True,
    )
    out = tmp_path / "sprt"
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        security=security,
        protocol="tls://",
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:")
        args = [*SPRT, "--out", str(out), "--batch-pairs", "4", "--pairs", "60", "--sprt", "elo0=200", "elo1=400"]
        args += [
            "--scheduler",
            address,
            "--tls-ca-file",
            files["ca"],
            "--tls-cert",
            files["cert"],
            "--tls-key",
            files["key"],
        ]
        proc, _ = driver([*args, "--", "--max-plies", "300"])
        assert proc.returncode == 0, proc.stdout
        decided = re.search(r"sprt: decided \((H0|H1)\) after (\d+) of 15 batches", proc.stdout)
        assert decided, proc.stdout
        batches = sorted(out.glob("batch-*.pgn"))
        assert len(batches) == int(decided.group(2)) < 15
        assert pooled_pairs(proc.stdout) == 4 * len(batches)
        assert "H0 accepted (fail)" in proc.stdout or "H1 accepted (pass)" in proc.stdout
        # The workers live on; within a few seconds no arena of the job does.
        deadline = time.monotonic() + 15
        while True:
            table = processes()
            left = [p for p in descendants(os.getpid(), table) if table[p][1][:1] == ["arena"]]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert not left, "arena still running after the decision"


def test_sprt_capped_run_counts_each_pair_once_through_a_killed_worker(tmp_path):
    out = tmp_path / "sprt"
    args = [*SPRT, "--cluster", "local:2", "--out", str(out), "--batch-pairs", "3", "--pairs", "12"]
    proc, killed = driver([*args, "--sprt", "elo0=0", "elo1=5", "--", "--max-plies", "300"], kill="arena")
    assert proc.returncode == 0, proc.stdout
    assert killed is not None, "no arena seen to kill"
    cmd, worker_pid = killed
    skip = int(cmd[cmd.index("--skip-openings") + 1])
    line = re.search(rf"batch {skip // 3} \(openings {skip + 1}-{skip + 3}\) from worker pid (\d+)", proc.stdout)
    assert line and int(line.group(1)) != worker_pid, proc.stdout
    assert "undecided after 4 of 4 batches" in proc.stdout, proc.stdout
    # The pooled count is the sum of the batches, each batch its 3 pairs.
    per_file = re.findall(r"batch-(\d+)\.pgn: (\d+) pairs", proc.stdout)
    assert sorted(per_file) == [(f"{b:05d}", "3") for b in range(4)], proc.stdout
    assert pooled_pairs(proc.stdout) == 12
