#!/usr/bin/env python3
"""Soak test: many short games of an engine against itself, judged by
pyffish, under protocol stress, watching for faults.

Every game draws its own settings: time control (from `--tc`), opening,
and per side the protocol (UCCI or UCI), `threads` 1 or 2, a hash size,
the book on or off, and pondering on or off. During searches `isready`
(must be answered promptly) and early `stop`s (exactly one final line must
still come) are sent at random moments; a side that ponders gets `go ponder`
on the move it expects, then `ponderhit` or `stop` (its answer discarded).

Engine processes live for many games (`setoption newgame` / `ucinewgame`
between them, new settings each game); a process is restarted only after a
fault. The referee, the engine driver and the PGN writer are refmatch's;
this file adds the stress, the fault bookkeeping and the memory watch.

Faults: crash, hang, illegal move (or ponder move), time forfeit (clock
plus `--margin`), missing or doubled final line, a final line while
pondering, slow or missing `readyok`, slow answer to `stop`, stderr lines,
and resident memory growth after warm-up (reported, not counted). Each
faulty game goes to the PGN with a `Fault` tag, and its protocol lines to
the `.log` beside it. Exit status 1 when a fault not `--tolerate`d
occurred. See README.md beside this file.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refmatch as rm  # the sibling module, found through the path above

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

OPTION_NAMES = {
    "ucci": {"threads": "threads", "hash": "hashsize", "book": "usebook", "ponder": "ponder"},
    "uci": {"threads": "Threads", "hash": "Hash", "book": "OwnBook", "ponder": "Ponder"},
}
"""Each setting's option name in each dialect (Chariot takes either name
in either dialect; a GUI uses its dialect's)."""

KEEP_PROCESS = {"time forfeit", "slow readyok", "slow stop"}
"""Faults after which the engine is in a clean state and keeps its
process (a starved machine causes them); any other fault restarts it."""

WARM_UP = 10
"""Games a process plays before its memory samples count for growth."""


# --------------------------------------------------------------------------
# Per-game settings


def parse_tcs(text: str) -> list:
    """`1+0.01,0.5+0.005` -> [(label, base s, increment s), ...]."""
    out = []
    for part in text.split(","):
        base, _, inc = part.strip().partition("+")
        try:
            out.append((part.strip(), float(base), float(inc or 0)))
        except ValueError:
            raise SystemExit(f"soak: bad time control {part!r} (want BASE+INC in seconds)") from None
    return out


def parse_range(text: str) -> tuple:
    """`1-64` or `16` -> (low, high)."""
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def draw_side(rng: random.Random, args) -> dict:
    """One side's settings for one game."""
    return {
        "proto": rng.choice(args.protocols),
        "threads": rng.choice(args.threads),
        "hash": rng.randint(*args.hash),
        "book": rng.random() < args.p_book,
        "ponder": rng.random() < args.p_ponder,
    }


def side_text(side: dict) -> str:
    """`ucci t2 h37 book ponder` for progress lines and PGN tags."""
    words = [side["proto"], f"t{side['threads']}", f"h{side['hash']}"]
    words += ["book"] if side["book"] else []
    words += ["ponder"] if side["ponder"] else []
    return " ".join(words)


def table_mb(hash_mb: int) -> int:
    """The hash table Chariot allocates for `hash_mb`: rounded down to a
    power of two (engine/src/tt.rs), all of it resident once `newgame`
    clears it."""
    return 1 << (max(hash_mb, 1).bit_length() - 1)


def run_queue_ms(pid: int) -> tuple | None:
    """(ran, waited): ms all threads of a process have spent on a CPU and
    runnable but waiting for one (/proc/PID/task/*/schedstat). A move over
    its clock with as much waiting in it was the machine's, not the
    engine's; a stuck engine that spins runs, one that deadlocks neither
    runs nor waits."""
    ran = waited = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as fh:
                fields = fh.read().split()
                ran += int(fields[0])
                waited += int(fields[1])
    except (OSError, ValueError, IndexError):
        return None
    return ran / 1e6, waited / 1e6


def rss_kb(pid: int) -> int | None:
    """Resident set size of a process (VmRSS), None if it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


# --------------------------------------------------------------------------
# Stress during games


class Pondering:
    """A `go ponder` in flight: the move expected and the moves searched."""

    def __init__(self, move: str, moves: list, start_fen: str):
        self.move = move  # referee notation
        self.moves = moves  # referee moves of the pondered position
        self.start_fen = start_fen


class StressDriver(rm.Driver):
    """refmatch's move loop plus pondering, `isready`s and early `stop`s."""

    def __init__(self, rng: random.Random, args, ponder: dict, stats: dict):
        self.rng = rng
        self.args = args
        self.ponder_on = ponder  # engine -> ponders this game
        self.pondering: dict = {}  # engine -> Pondering
        self.stats = stats  # shared maxima: ready, stop (seconds)
        self.notes: list = []  # fault details for the PGN tag
        self.waited: tuple | None = None  # run_queue_ms of the searching engine at its search's start

    # -- helpers

    def note(self, eng: rm.Engine, kind: str, detail: str = "") -> None:
        """Count a fault and keep a word on it for the game's record."""
        eng.fault(kind)
        self.notes.append(f"{eng.spec.name}: {kind}" + (f" ({detail})" if detail else ""))

    def actions(self, clock: float, inc: float) -> list:
        """Random `isready`s and an early `stop` for one search."""
        typical = clock / 30 + inc  # about what a move takes
        out = []
        if self.rng.random() < self.args.p_isready:
            out.append((self.rng.uniform(0, typical), "isready"))
        if self.rng.random() < self.args.p_isready / 4:
            out.append((self.rng.uniform(0, typical), "isready"))
        if self.rng.random() < self.args.p_stop:
            out.append((self.rng.uniform(0, typical / 2), "stop"))
        return out

    def check(self, eng: rm.Engine, res: rm.SearchResult, clock: float | None = None, how: str = "") -> None:
        """Answer times of `isready` and `stop` against their limits; for
        a move over its clock (a time forfeit, counted by play_game), the
        figures that tell an engine's overrun from a starved machine."""
        limit = self.args.answer_limit / 1000
        if clock is not None and (res.timed_out or res.elapsed > clock + self.args.margin / 1000):
            stop = f", answer {res.stop_latency * 1000:.0f} ms after stop" if res.stop_latency is not None else ""
            now = run_queue_ms(eng.proc.pid)
            if now is not None and self.waited is not None:
                stop += f", its threads ran {now[0] - self.waited[0]:.0f} ms and waited {now[1] - self.waited[1]:.0f} ms for a CPU"
            self.notes.append(
                f"{eng.spec.name}: {res.elapsed * 1000:.0f} ms on a clock of {clock * 1000:.0f} ms {how}{stop}".replace(
                    "  ", " "
                ).replace(" ,", ",")
            )
        for lat in res.ready_latencies:
            self.stats["ready"] = max(self.stats["ready"], lat)
            if lat > limit:
                self.note(eng, "slow readyok", f"{lat * 1000:.0f} ms")
        if res.ready_missing:
            self.note(eng, "no readyok", f"{res.ready_missing} unanswered")
        if res.stop_latency is not None and res.final is not None:
            self.stats["stop"] = max(self.stats["stop"], res.stop_latency)
            if res.stop_latency > limit:
                self.note(eng, "slow stop", f"{res.stop_latency * 1000:.0f} ms")

    # -- the hooks

    def search(self, eng, referee, clocks, stm, settings) -> rm.SearchResult:
        """Resolve a ponder search (hit: it becomes the answer; miss: stop
        and discard), else an ordinary search with stress actions."""
        limit = clocks[stm] + settings.margin
        self.waited = run_queue_ms(eng.proc.pid)
        ponder = self.pondering.pop(eng, None)
        if ponder is not None:
            early = self.early_final(eng)
            if early is not None:
                self.note(eng, "bestmove while pondering", early)
            elif referee.moves[-1] == ponder.move:
                start = time.monotonic()
                eng.send("ponderhit")
                res = eng.await_final(start, limit, settings.grace, self.actions(clocks[stm], settings.increment))
                self.check(eng, res, clocks[stm], "after ponderhit")
                return res
            else:
                res = self.stop_ponder(eng, ponder, settings.grace)
                if res.final is None:
                    return res  # a hang: play_game ends the game
        res = eng.go(
            rm.position_line(eng, referee),
            rm.go_line(eng, clocks, stm, settings.increment),
            limit,
            settings.grace,
            self.actions(clocks[stm], settings.increment),
        )
        self.check(eng, res, clocks[stm])
        return res

    def after_move(self, eng, referee, clocks, stm, res, settings) -> None:
        """Start pondering on the engine's expected reply."""
        if not self.ponder_on.get(eng) or res.ponder is None:
            return
        move = rm.from_engine(res.ponder, eng.spec.proto)
        if move is None or move not in referee.legal():
            self.note(eng, "illegal ponder move", res.ponder)
            return
        position = rm.position_line(eng, referee)
        position += (" " if " moves " in position else " moves ") + rm.to_engine(move, eng.spec.proto)
        go = rm.go_line(eng, clocks, stm, settings.increment).replace("go ", "go ponder ", 1)
        try:
            eng.begin_search(position, go)
        except rm.EngineDied:
            return  # found dead at its next search
        self.pondering[eng] = Pondering(move, [*referee.moves, move], referee.start_fen)
        if self.rng.random() < self.args.p_isready:
            self.ping_pondering(eng)

    def end_game(self, engines) -> None:
        """Stop ponder searches; sync each engine so that late lines
        (a doubled `bestmove`) are charged to this game."""
        for eng, ponder in list(self.pondering.items()):
            del self.pondering[eng]
            if eng.alive() and self.early_final(eng) is None:
                try:
                    if self.stop_ponder(eng, ponder, self.args.grace).final is None:
                        eng.fault("hang")
                        eng.kill()
                except rm.EngineDied:
                    pass
        for eng in engines.values():
            if eng.alive():
                try:
                    eng.ready(self.args.grace)
                except (rm.EngineDied, TimeoutError):
                    pass  # seen by the next game's start

    # -- pondering

    def early_final(self, eng: rm.Engine) -> str | None:
        """A final line a ponder search printed before `ponderhit` or
        `stop` (forbidden, docs/ucci.md §6); other queued lines dropped."""
        while True:
            try:
                _, line = eng.next_line(0)
            except queue.Empty:
                return None
            except rm.EngineDied:
                return None
            if line.split()[:1] in (["bestmove"], ["nobestmove"]):
                return line

    def stop_ponder(self, eng: rm.Engine, ponder: Pondering, grace: float) -> rm.SearchResult:
        """`stop` a ponder search; its move must come, once, legal in the
        pondered position, and is discarded."""
        start = time.monotonic()
        eng.send("stop")
        res = eng.await_final(start, grace, grace, stopped_at=start)
        if res.final is None:  # a hang: the caller counts it
            self.notes.append(f"{eng.spec.name}: no final line after stop while pondering")
            return res
        self.check(eng, res)
        legal = rm.sf.legal_moves(rm.VARIANT, ponder.start_fen, ponder.moves)
        move = rm.from_engine(res.move, eng.spec.proto) if res.move else None
        if legal and move not in legal:
            self.note(eng, "illegal move", f"{res.final} after stopped ponder")
        return res

    def ping_pondering(self, eng: rm.Engine) -> None:
        """`isready` while the engine ponders: `readyok`, and no final line."""
        time.sleep(self.rng.uniform(0, 0.03))
        start = time.monotonic()
        try:
            eng.send("isready")
            while True:
                stamp, line = eng.next_line(start + self.args.grace - time.monotonic())
                if line.split()[:1] == ["readyok"]:
                    lat = stamp - start
                    self.stats["ready"] = max(self.stats["ready"], lat)
                    if lat > self.args.answer_limit / 1000:
                        self.note(eng, "slow readyok", f"{lat * 1000:.0f} ms while pondering")
                    return
                if line.split()[:1] in (["bestmove"], ["nobestmove"]):
                    self.note(eng, "bestmove while pondering", line)
                    self.pondering.pop(eng, None)
        except queue.Empty:
            self.note(eng, "no readyok", "while pondering")
        except rm.EngineDied:
            pass


# --------------------------------------------------------------------------
# The run


class Soak:
    """Shared state of a run: counts, faults, memory samples, output."""

    def __init__(self, args, openings: list):
        self.args = args
        self.openings = openings
        self.lock = threading.Lock()
        self.abort = threading.Event()
        self.t0 = time.monotonic()
        self.load_start = os.getloadavg()[0]
        self.done = 0
        self.results = {"1-0": 0, "0-1": 0, "1/2-1/2": 0}
        self.by_tc: dict = {}
        self.faults: dict = {}  # kind -> count
        self.faulty_games = 0
        self.stats = {"ready": 0.0, "stop": 0.0}
        self.processes: list = []  # (label, samples [(rss kb, table mb)]) per engine process
        self.engines: list = []  # every Engine started, for Ctrl-C
        self.pgn = open(args.pgn, "w", encoding="utf-8")  # noqa: SIM115 (closed by finish)
        self.log = open(re.sub(r"\.pgn$", "", args.pgn) + ".log", "w", encoding="utf-8")  # noqa: SIM115

    def start_engine(self, proto: str, slot: int, worker: int) -> tuple:
        """A new engine process and its memory record."""
        name = f"chariot-{proto}{slot}" + (f"w{worker}" if self.args.concurrency > 1 else "")
        eng = rm.Engine(rm.EngineSpec(name, self.args.engine_cmd, proto, {}))
        eng.stray_kinds = ("nobestmove",) if proto == "ucci" else ()  # docs/ucci.md §9 j
        if self.args.benign:
            eng.benign_stderr = re.compile(self.args.benign)
        samples: list = []
        with self.lock:
            self.engines.append(eng)
            self.processes.append((name, samples))
        try:
            eng.start()
        except (rm.EngineDied, TimeoutError, OSError) as exc:
            eng.fault("start failure")
            print(f"soak: cannot start {name}: {exc}", file=sys.stderr, flush=True)
        return eng, samples

    def worker(self, wid: int, jobs: list) -> None:
        """Play games from `jobs` with this worker's own engine processes:
        one per protocol and colour slot, reused until a fault."""
        pool: dict = {}
        try:
            while not self.abort.is_set():
                with self.lock:
                    if not jobs:
                        return
                    index = jobs.pop(0)
                self.play(index, pool, wid)
        finally:
            for eng, _ in pool.values():
                eng.quit()

    def play(self, index: int, pool: dict, wid: int) -> None:
        """One game with freshly drawn settings."""
        args = self.args
        rng = random.Random(f"{args.seed}:{index}")
        tc_label, base, inc = rng.choice(args.tc)
        opening = rng.randrange(len(self.openings))
        sides = [draw_side(rng, args), draw_side(rng, args)]
        players = []
        before = []  # fault counts before the game, to charge it with the new ones
        for slot, side in enumerate(sides):
            key = (side["proto"], slot)
            if key in pool and pool[key][0].alive():
                eng = pool[key][0]
                before.append(dict(eng.faults, stderr=eng.stderr_lines))
            else:
                if key in pool:
                    pool[key][0].kill()
                pool[key] = self.start_engine(side["proto"], slot, wid)
                eng = pool[key][0]
                before.append({})
            names = OPTION_NAMES[side["proto"]]
            try:
                eng.set_option(names["threads"], side["threads"])
                eng.set_option(names["hash"], side["hash"])
                eng.set_option(names["book"], "true" if side["book"] else "false")
                eng.set_option(names["ponder"], "true" if side["ponder"] else "false")
            except rm.EngineDied:
                pass  # play_game finds it dead
            players.append(eng)
        red, black = players
        lines: list = []  # this game's protocol lines, kept if it is faulty
        t0 = time.monotonic()

        def log(text: str) -> None:
            lines.append(f"{time.monotonic() - t0:9.3f} {text}")

        for eng in players:
            eng.log = log
        driver = StressDriver(
            random.Random(f"{args.seed}:{index}:stress"),
            args,
            {red: sides[0]["ponder"], black: sides[1]["ponder"]},
            self.stats,
        )
        settings = rm.Settings(base, inc, args.margin / 1000, args.grace, args.max_plies)
        try:
            rec = rm.play_game(index, opening, self.openings[opening], red, black, settings, self.abort, driver)
        except KeyboardInterrupt:
            return
        if self.abort.is_set():
            return
        faults = {}
        faulty = []
        restart = []
        for eng, was in zip(players, before):
            now = dict(eng.faults, stderr=eng.stderr_lines)
            mine = {k: v - was.get(k, 0) for k, v in now.items() if v - was.get(k, 0) > 0}
            if "stderr" in mine:
                mine["stderr lines"] = mine.pop("stderr")
            for kind, n in mine.items():
                faults[kind] = faults.get(kind, 0) + n
            if mine:
                faulty.append(eng)
            if set(mine) - KEEP_PROCESS:
                restart.append(eng)
        for slot, (eng, side) in enumerate(zip(players, sides)):
            rss = rss_kb(eng.proc.pid) if eng.alive() else None
            if rss is not None:
                pool[(side["proto"], slot)][1].append((rss, table_mb(side["hash"])))
        rec.red = f"{red.spec.name} ({side_text(sides[0])})"
        rec.black = f"{black.spec.name} ({side_text(sides[1])})"
        self.record(index, rec, tc_label, faults, driver.notes, faulty, lines)
        for eng in restart:  # a fresh process after a fault that may leave a trace
            for key, (pooled, _) in list(pool.items()):
                if pooled is eng:
                    eng.quit()
                    del pool[key]

    def record(self, index, rec, tc_label, faults, notes, faulty, lines) -> None:
        """Count a finished game, print its progress line, keep it if faulty."""
        with self.lock:
            self.done += 1
            self.results[rec.result] += 1
            self.by_tc[tc_label] = self.by_tc.get(tc_label, 0) + 1
            for kind, n in faults.items():
                self.faults[kind] = self.faults.get(kind, 0) + n
            if faults:
                self.faulty_games += 1
                details = list(notes)
                for eng in faulty:
                    if eng.stderr_text:
                        details.append(f"{eng.spec.name} stderr: {eng.stderr_text[-1]}")
                    if not eng.alive() and eng.proc is not None and eng.proc.returncode is not None:
                        killed = " (killed by the soak after the hang)" if eng.proc.returncode == -9 else ""
                        details.append(f"{eng.spec.name} exit status {eng.proc.returncode}{killed}")
                detail = "; ".join(details)
                kinds = ", ".join(f"{k} {v}" for k, v in sorted(faults.items()))
                rec.tags = [("Fault", kinds + (f"; {detail}" if detail else "")), ("Seed", f"{self.args.seed}:{index}")]
                self.pgn.write(rm.pgn_text(rec, "soak", tc_label))
                self.pgn.flush()
                self.log.write(f"== game {index + 1}: {kinds}\n" + "\n".join(lines) + "\n")
                self.log.flush()
            if not self.args.quiet:
                mark = f"FAULT {', '.join(sorted(faults))}" if faults else "ok"
                print(
                    f"[{self.done}/{self.args.games}] game {index + 1} {tc_label} {rec.red} - {rec.black}: "
                    f"{rec.result} {rec.reason}, {rec.plies} plies, {rec.seconds:.1f} s | {mark}",
                    flush=True,
                )

    def memory(self) -> tuple:
        """Per-process memory lines; the longest-lived process's (name,
        games, first MB, last MB); the worst (growth MB, name).

        Samples are the resident size after each game less the hash table
        it had (settings change every game); after a process's first
        `WARM_UP` games, growth is the largest sample of the last quarter
        less the largest of the first quarter.
        """
        lines = []
        longest, worst = None, None
        for name, samples in self.processes:
            if not samples:
                continue
            net = [(rss / 1024 - table) for rss, table in samples]
            text = (
                f"rss {name}: {len(samples)} games, {samples[0][0] / 1024:.1f} -> {samples[-1][0] / 1024:.1f} MB,"
                f" less hash table {net[0]:.1f} -> {net[-1]:.1f} MB"
            )
            after = net[WARM_UP:]
            if len(after) >= 4:
                q = len(after) // 4
                growth = max(after[-q:]) - max(after[:q])
                text += f", growth after warm-up {growth:+.1f} MB over {len(after)} games"
                if worst is None or growth > worst[0]:
                    worst = (growth, name)
            if longest is None or len(samples) > longest[1]:
                longest = (name, len(samples), net[0], net[-1])
            lines.append(text)
        return lines, longest, worst

    def summary(self) -> str:
        """Memory lines, then the one-line summary."""
        mem_lines, longest, worst = self.memory()
        faults = ", ".join(f"{k} {v}" for k, v in sorted(self.faults.items())) or "none"
        tcs = " ".join(f"{k}: {v}" for k, v in sorted(self.by_tc.items()))
        rss = "RSS not sampled"
        if longest:
            name, games, first, last = longest
            rss = f"RSS less hash first {first:.1f} MB last {last:.1f} MB ({name}, {games} games)"
        if worst:
            rss += f", worst growth after warm-up {worst[0]:+.1f} MB ({worst[1]})"
        line = (
            f"== soak: {self.done} games ({tcs}); red {self.results['1-0']} black {self.results['0-1']}"
            f" draw {self.results['1/2-1/2']}; faults: {faults} in {self.faulty_games} games; {rss};"
            f" readyok max {self.stats['ready'] * 1000:.0f} ms, stop max {self.stats['stop'] * 1000:.0f} ms;"
            f" {time.monotonic() - self.t0:.0f} s; load {self.load_start:.1f} -> {os.getloadavg()[0]:.1f}"
            f" on {os.cpu_count()} cores"
        )
        return "\n".join([*mem_lines, line])

    def finish(self) -> None:
        """Close the output files."""
        self.pgn.close()
        self.log.close()


def parse_args(argv: list) -> argparse.Namespace:
    """Command-line options."""
    ap = argparse.ArgumentParser(description="Soak test: self-play under protocol stress, refereed by pyffish.")
    ap.add_argument("--engine", default=os.path.join(ROOT, "target/release/chariot"), help="engine command line")
    ap.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    ap.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    ap.add_argument("--tc", default="1+0.01,0.5+0.005", help="time controls to draw from (default 1+0.01,0.5+0.005)")
    ap.add_argument("--protocols", default="ucci,uci", help="protocols to draw from (default ucci,uci)")
    ap.add_argument("--threads", default="1,2", help="thread counts to draw from (default 1,2)")
    ap.add_argument("--hash", default="1-64", help="hash MB range (default 1-64)")
    ap.add_argument("--p-book", type=float, default=0.5, help="chance a side uses its book (default 0.5)")
    ap.add_argument("--p-ponder", type=float, default=0.3, help="chance a side ponders (default 0.3)")
    ap.add_argument("--p-isready", type=float, default=0.2, help="chance of an isready in a search (default 0.2)")
    ap.add_argument("--p-stop", type=float, default=0.05, help="chance of an early stop in a search (default 0.05)")
    ap.add_argument("--margin", type=float, default=100, help="ms an engine may overstep its clock (default 100)")
    ap.add_argument("--grace", type=float, default=2.0, help="s to wait for an answer before a hang (default 2)")
    ap.add_argument("--answer-limit", type=float, default=500, help="ms for readyok and stop answers (default 500)")
    ap.add_argument("--max-plies", type=int, default=400, help="draw after this many plies (default 400)")
    ap.add_argument("--openings", default=os.path.join(ROOT, "arena/data/openings.epd"), help="EPD/FEN file")
    ap.add_argument("--seed", default="1", help="seed of the per-game settings (default 1)")
    ap.add_argument("--benign", help="regex of stderr lines that are not faults (default: none)")
    ap.add_argument("--tolerate", action="append", default=[], help="fault kind that does not fail the exit status")
    ap.add_argument("--pgn", default="soak-faults.pgn", help="PGN of faulty games; their protocol lines go to .log")
    ap.add_argument("--quiet", action="store_true", help="no line per game")
    args = ap.parse_args(argv)
    args.engine_cmd = rm.shlex.split(args.engine)
    args.tc = parse_tcs(args.tc)
    args.protocols = [p.strip() for p in args.protocols.split(",")]
    if not set(args.protocols) <= set(OPTION_NAMES):
        raise SystemExit("soak: --protocols takes ucci and uci")
    args.threads = [int(t) for t in args.threads.split(",")]
    args.hash = parse_range(args.hash)
    return args


def main(argv: list | None = None) -> int:
    """Run the soak; exit status 1 on a fault not tolerated."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    rm.stop_on_signals()
    if rm.sf is None:
        print("soak: pyffish is not installed (pip install pyffish)", file=sys.stderr)
        return 2
    rm.sf.load_variant_config(rm.VARIANT_CONFIG)
    soak = Soak(args, rm.load_openings(args.openings))
    jobs = list(range(args.games))
    threads = [threading.Thread(target=soak.worker, args=(w, jobs), daemon=True) for w in range(args.concurrency)]
    for t in threads:
        t.start()
    interrupted = False
    try:
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=0.2)
    except KeyboardInterrupt:
        interrupted = True
        soak.abort.set()
        print("\nsoak: interrupted; stopping engines", file=sys.stderr, flush=True)
        with soak.lock:
            for eng in soak.engines:
                eng.kill()
        for t in threads:
            t.join(timeout=3)
    soak.finish()
    print(soak.summary(), flush=True)
    if interrupted:
        return 130
    return 1 if set(soak.faults) - set(args.tolerate) else 0


if __name__ == "__main__":
    sys.exit(main())
