"""Tests of `run.py spsa` and `spsa.py`: fishtest's formulas, the state
file, and tunes end to end on local Dask clusters of two worker processes
(127.0.0.1 only) with a fake engine and a fake `arena` whose games are won
by the side nearer a hidden optimum; one tune loses a worker, one is
interrupted and resumed.

The fake arena goes through the same driver and worker code as the real
one (shipment, `{engine}` paths, one run per pair, its closing summary
line); only its games are a formula. `smoke.sh` runs these tests.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import run
import spsa
from test_cluster import descendants, processes

# Two parameters 80 and 100 from a hidden optimum. Simulated 1000 times
# through spsa.py with two batches in flight, 128 iterations of this
# setting end at most 20 from the optimum in each coordinate (median 6):
# the end-to-end test allows 25.
PARAMS = "alpha_x, int, 40, 0, 200, 10, 0.08\nbeta_y, int, 160, 0, 200, 10, 0.08\n"
OPTIMUM = {"alpha_x": 120, "beta_y": 60}
TOLERANCE = 25

PRINTF = PARAMS.replace("\n", "\\n")
FAKE_ENGINE = f"""#!/bin/sh
case "$1" in
  --version) echo "chariot fake-tune" ;;
  bench) echo "Nodes searched: 4242" ;;
  params) printf '{PRINTF}' ;;
  *) cat >/dev/null ;;
esac
"""

# Each game: theta+ ("plus") wins with the logistic probability of the
# difference of -sum(((x - optimum) / 40)^2), a fifth of the games drawn;
# seeded by its command line. A shell script (a Python one costs more to
# start than its games take), after `sleep` seconds.
FAKE_ARENA = """#!/bin/sh
for a in "$@"; do
  case "$a" in
    name=*) side=${a#name=} ;;
    option.alpha_x=*) eval "${side}_x=${a#option.alpha_x=}" ;;
    option.beta_y=*) eval "${side}_y=${a#option.beta_y=}" ;;
  esac
done
seed=$(printf '%s' "$*" | cksum | cut -d' ' -f1)
awk -v px="$plus_x" -v py="$plus_y" -v mx="$minus_x" -v my="$minus_y" -v seed="$seed" 'BEGIN {
  srand(seed % 2147483647)
  s = -(((px - OX) / 40) ^ 2 + ((py - OY) / 40) ^ 2) + (((mx - OX) / 40) ^ 2 + ((my - OY) / 40) ^ 2)
  p = 1 / (1 + 10 ^ (-s))
  w = 0; d = 0; l = 0
  for (g = 0; g < 2; g++) { u = rand(); if (u < 0.8 * p) w++; else if (u > 1 - 0.8 * (1 - p)) l++; else d++ }
  print "Finished 2 games, time control nodes=1."
  printf "plus vs minus: W %d D %d L %d [50.0 %%] Elo +0.0 +- n/a\\n", w, d, l
}'
sleep SLEEP
""".replace("OX", str(OPTIMUM["alpha_x"])).replace("OY", str(OPTIMUM["beta_y"]))


def fakes(tmp_path: Path, sleep: float = 0) -> tuple[Path, Path]:
    """A fake tuning build and a fake arena (playing `sleep` seconds longer)."""
    engine, arena = tmp_path / "chariot", tmp_path / "arena"
    engine.write_text(FAKE_ENGINE)
    arena.write_text(FAKE_ARENA.replace("SLEEP", str(sleep)))
    engine.chmod(0o755)
    arena.chmod(0o755)
    return engine, arena


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The tunes' cluster: two single-threaded workers on 127.0.0.1 with
    TLS, shared by the tests (one start instead of one per tune); the
    words that connect the driver to it."""
    from distributed import LocalCluster
    from distributed.security import Security

    where = tmp_path_factory.mktemp("tls")
    temporary = Security.temporary()
    pem = {"ca": temporary.tls_ca_file, "cert": temporary.tls_client_cert, "key": temporary.tls_client_key}
    for name, text in pem.items():
        (where / f"{name}.pem").write_text(text)
    files = {k: str(where / f"{k}.pem") for k in pem}
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
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        security=security,
        protocol="tls://",
        silence_logs=logging.ERROR,
    ) as local:
        yield [
            "--scheduler",
            local.scheduler_address,
            "--tls-ca-file",
            files["ca"],
            "--tls-cert",
            files["cert"],
            "--tls-key",
            files["key"],
        ]


def tune_args(cluster: list[str], fakes, state: Path, iterations: int, batch: int) -> list[str]:
    engine, arena = fakes
    return [
        "spsa",
        *cluster,
        "--engine",
        str(engine),
        "--arena",
        str(arena),
        "--state",
        str(state),
        "--iterations",
        str(iterations),
        "--pairs-per-batch",
        str(batch),
        "--seed",
        "7",
        "--nodes",
        "1",
    ]


def start(args: list[str], **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(HERE / "run.py"), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **popen,
    )


def kill_worker_running_arena(proc: subprocess.Popen):
    """Kills (SIGKILL) the Dask worker process (of this process's cluster)
    running the first fake arena seen while the driver `proc` runs;
    returns the arena's command line and the worker's pid."""
    while proc.poll() is None:
        table = processes()
        for pid in descendants(os.getpid(), table):
            ppid, cmd = table[pid]
            if len(cmd) > 1 and cmd[1].endswith("/.bin/arena"):
                os.kill(ppid, signal.SIGKILL)
                return cmd, ppid
        time.sleep(0.01)
    return None


def progress(log: str) -> list[tuple[int, int, int, int]]:
    """(batch, first iteration, last iteration, worker pid) per progress line."""
    found = re.findall(r"^batch (\d+) \(iterations (\d+)-(\d+)\) from worker pid (\d+)", log, re.MULTILINE)
    return [tuple(map(int, f)) for f in found]


def consistent(state: dict, iterations: int) -> None:
    """Every batch counted once, and the counts add up."""
    batches = [h["batch"] for h in state["history"][1:]]
    assert len(batches) == len(set(batches))
    assert state["iter"] == iterations
    assert state["games"] == 2 * iterations == state["wins"] + state["draws"] + state["losses"]
    assert sum(sum(h["wdl"]) for h in state["history"]) == state["games"]
    steps = [b["iter"] - a["iter"] for a, b in zip(state["history"], state["history"][1:], strict=False)]
    assert sum(steps) == iterations and all(s > 0 for s in steps)


# --------------------------------------------------------------------------
# Formulas


def fresh(iterations: int = 1000, text: str = PARAMS) -> dict:
    return spsa.new_state(spsa.parse_params(text), iterations, 3, {})


def test_the_engines_format_and_fishtests_are_read():
    params = spsa.parse_params("futility_base, int, 80, 20, 200, 10, 0.0020\n# c\n\nx,1.5,0,3,0.5,0.002\n")
    assert params[0] == spsa.Param("futility_base", "int", 80, 20, 200, 10, 0.002)
    assert params[1] == spsa.Param("x", "int", 1.5, 0, 3, 0.5, 0.002)
    assert [p.name for p in spsa.select(params, "x")] == ["x"]
    for bad, why in [
        ("a b, int, 1, 0, 2, 1, 0.002", "not a parameter name"),
        ("a, int, 5, 0, 2, 1, 0.002", "outside"),
        ("a, int, 1, 0, 2, 0, 0.002", "c_end > 0"),
        ("a, int, 1, 0, 2, 1, 0.002\na, int, 1, 0, 2, 1, 0.002", "twice"),
        ("a, int, 1, 0, 2", "is not 'name, int"),
    ]:
        with pytest.raises(spsa.SpsaError, match=why):
            spsa.parse_params(bad)
    with pytest.raises(spsa.SpsaError, match="no parameter nope"):
        spsa.select(params, "x,nope")


def test_the_gains_are_fishtests():
    state = fresh(1000)
    assert state["A"] == 100 and state["alpha"] == 0.602 and state["gamma"] == 0.101
    row = state["params"][0]
    assert row["c"] == pytest.approx(10 * 1000**0.101)
    assert row["a"] == pytest.approx(0.08 * 10**2 * 1100**0.602)
    # At the last iteration c_k is c_end and R_k is r_end.
    state["iter"] = 999
    pair = spsa.plan_batch(state, 1, [(0, 0)])["pairs"][0]
    assert pair["iteration"] == 1000
    assert pair["c"][0] == pytest.approx(10) and pair["R"][0] == pytest.approx(0.08)


def test_a_pair_moves_theta_by_r_c_result_flip():
    state = fresh(100)
    plan = spsa.plan_batch(state, 2, [(0, 5), (1, 9)])
    first, second = plan["pairs"]
    assert (first["iteration"], second["iteration"], first["opening"], second["opening"]) == (1, 2, [0, 5], [1, 9])
    c1 = 10 * 100**0.101
    for idx, row in enumerate(state["params"]):
        flip = first["flips"][idx]
        assert first["c"][idx] == pytest.approx(c1)
        assert first["plus"][idx] == math.floor(row["start"] + c1 * flip + 0.5)
        assert first["minus"][idx] == math.floor(row["start"] - c1 * flip + 0.5)
    spsa.apply_batch(state, plan, [(2, 0, 0), (0, 1, 1)])
    for idx, row in enumerate(state["params"]):
        theta = row["start"] + 2 * first["R"][idx] * first["c"][idx] * first["flips"][idx]
        theta -= second["R"][idx] * second["c"][idx] * second["flips"][idx]
        assert row["theta"] == pytest.approx(theta)
    assert (state["iter"], state["games"], state["wins"], state["draws"], state["losses"]) == (2, 4, 2, 1, 1)
    assert state["history"][-1] == {
        "iter": 2,
        "batch": 0,
        "wdl": [2, 1, 1],
        "theta": [r["theta"] for r in state["params"]],
    }
    # Clipped to the range, inside and given to the engine.
    row = state["params"][0]
    assert spsa.clip(row, -3) == 0 and spsa.engine_value(row, 250) == 200 and spsa.engine_value(row, 7.5) == 8


def test_a_saved_state_plans_what_it_would_have(tmp_path):
    state = fresh(100)
    order = spsa.opening_order(3, [4, 5])
    assert sorted(order) == [(s, i) for s, n in ((0, 4), (1, 5)) for i in range(n)]
    spsa.apply_batch(state, spsa.plan_batch(state, 3, order), [(1, 1, 0), (0, 2, 0), (0, 0, 2)])
    path = tmp_path / "state.json"
    spsa.save_state(path, state)
    again = spsa.load_state(path)
    assert again == json.loads(json.dumps(state))
    assert spsa.plan_batch(again, 3, order) == json.loads(json.dumps(spsa.plan_batch(state, 3, order)))
    assert not list(tmp_path.glob(".*part"))


def test_a_pairs_result_is_the_arenas_summary():
    output = "[2/2] minus - plus 1-0 | plus vs minus: W 0 D 1 L 1 [25.0 %]\n\nplus vs minus: W 0 D 1 L 1 [25.0 %] Elo\n"
    assert run.pair_result(output) == (0, 1, 1)
    with pytest.raises(run.JobError, match="no 'plus vs minus"):
        run.pair_result("Fault: engine crashed\n")
    settings = {
        "limit": ["--nodes", "500"],
        "options": ["hashsize=16"],
        "openings": [{"rel": "a.epd"}, {"rel": "b.epd"}],
        "extra": ["--max-plies", "300"],
    }
    state = fresh(100)
    pair = {"iteration": 4, "plus": [50, 150], "minus": [30, 170], "opening": [1, 17]}
    words = run.pair_args(settings, state, 2, pair)
    assert words[:6] == [
        "--engine",
        "name=plus",
        "cmd={engine}",
        "proto=ucci",
        "option.hashsize=16",
        "option.alpha_x=50",
    ]
    assert words[6:12] == [
        "option.beta_y=150",
        "--engine",
        "name=minus",
        "cmd={engine}",
        "proto=ucci",
        "option.hashsize=16",
    ]
    assert words[14:] == [
        "--nodes",
        "500",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--openings",
        "b.epd",
        "--skip-openings",
        "17",
        "--event",
        "spsa-b2-i4",
        "--max-plies",
        "300",
    ]


def test_a_play_build_is_refused(tmp_path):
    engine = tmp_path / "chariot"
    engine.write_text('#!/bin/sh\nwhile read line; do\n  echo "info string unknown option: alpha_x"\ndone\n')
    engine.chmod(0o755)
    with pytest.raises(run.JobError, match="not a tuning build"):
        run.check_tunable(engine, fresh(10)["params"])


def test_a_program_killed_by_a_signal_runs_again_and_one_that_fails_ends_the_job():
    class Client:
        def __init__(self):
            self.submitted = []

        def submit(self, fn, spec, key, pure):
            self.submitted.append(key)
            return key

    client = Client()
    tasks = run.Tasks(client, None, {3: {"job": "spsa-x", "name": "batch-3"}}, "batch", 3, set())
    tasks.live.clear()
    tasks.failed(3, subprocess.CalledProcessError(-9, ["arena", "--nodes", "1"]))
    assert len(client.submitted) == 2 and tasks.tries[3] == 2
    with pytest.raises(run.JobError, match="batch 3: arena --nodes 1 exited 1: bad option"):
        tasks.failed(3, subprocess.CalledProcessError(1, ["arena", "--nodes", "1"], "", "bad option\n"))
    tasks.failed(3, subprocess.CalledProcessError(-9, ["arena"]))
    with pytest.raises(run.JobError, match="lost 2 times; giving up"):
        tasks.failed(3, subprocess.CalledProcessError(-9, ["arena"]))


# --------------------------------------------------------------------------
# Tunes on a local cluster


def test_a_tune_approaches_the_hidden_optimum(cluster, tmp_path):
    state_path = tmp_path / "tune.json"
    proc = start(tune_args(cluster, fakes(tmp_path), state_path, 128, 8))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    state = json.loads(state_path.read_text())
    consistent(state, 128)
    assert len(progress(out)) == 16
    for row in state["params"]:
        assert abs(row["theta"] - OPTIMUM[row["name"]]) <= TOLERANCE, out
    assert state["settings"]["openings"][0]["path"] == "arena/data/openings-wide.epd"
    assert state["next_opening"] == 128
    lines = (tmp_path / "tune.csv").read_text().splitlines()
    assert lines[0] == "iter,batch,wins,draws,losses,alpha_x,beta_y" and len(lines) == 18
    assert "alpha_x" in out and "change/c_end" in out


def test_a_killed_worker_costs_at_most_its_batch(cluster, tmp_path):
    state_path = tmp_path / "tune.json"
    proc = start(tune_args(cluster, fakes(tmp_path, 0.05), state_path, 48, 4))
    killed = []
    watcher = threading.Thread(target=lambda: killed.append(kill_worker_running_arena(proc)), daemon=True)
    watcher.start()
    out, _ = proc.communicate(timeout=300)
    watcher.join(timeout=5)
    assert proc.returncode == 0, out
    assert killed and killed[0], "no arena seen to kill"
    cmd, worker_pid = killed[0]
    number = int(re.search(r"spsa-b(\d+)-", cmd[cmd.index("--event") + 1]).group(1))
    # The killed batch was played again elsewhere and counted once; the
    # tune counts every iteration once.
    lines = [p for p in progress(out) if p[0] == number]
    assert len(lines) == 1 and lines[0][3] != worker_pid, out
    state = json.loads(state_path.read_text())
    consistent(state, 48)


def test_an_interrupted_tune_resumes_from_its_state(cluster, tmp_path):
    state_path = tmp_path / "tune.json"
    # Slow enough pairs (half a second each, a tune of 12 s on two workers)
    # that the interrupt comes before the end on a loaded machine too. The
    # driver starts with SIGINT ignored, as a shell's `&` leaves it: it
    # must still stop on one.
    proc = start(
        tune_args(cluster, fakes(tmp_path, 0.5), state_path, 48, 4),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if state_path.exists() and len(json.loads(state_path.read_text())["history"]) >= 4:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    before = json.loads(state_path.read_text())
    k = before["iter"]
    assert 0 < k < 48, out
    assert f"interrupted at iteration {k}; continue with --resume {state_path}" in out
    proc = start(["spsa", *cluster, "--resume", str(state_path)])
    again, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, again
    # It goes on from the saved iteration and theta, with new batch numbers.
    assert f"resuming {state_path} at iteration {k} of 48 (batch {before['next_batch']} next): " in again
    assert spsa.summary(before) in again
    first = progress(again)[0]
    assert first[0] >= before["next_batch"] and first[1] == k + 1, again
    after = json.loads(state_path.read_text())
    assert after["history"][: len(before["history"])] == before["history"]
    assert after["seed"] == before["seed"] and after["params"][0]["a"] == before["params"][0]["a"]
    consistent(after, 48)
    refused = start(["spsa", "--resume", str(state_path), "--nodes", "5"])
    text, _ = refused.communicate(timeout=60)
    assert refused.returncode == 1 and "drop --nodes" in text, text
