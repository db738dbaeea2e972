#!/usr/bin/env python3
"""Xiangqi match runner with an independent referee.

Plays engines against each other over UCCI or UCI and judges every game
with pyffish (the Python binding of Fairy-Stockfish's rules code), not with
Chariot's own `board` crate, so a rules bug that engine and referee share
cannot hide.

The referee checks every move for legality and ends the game on checkmate,
stalemate (a loss in xiangqi), threefold repetition judged by pyffish's
perpetual-check and perpetual-chase rules, the 60-move rule (pyffish's
n-move rule, set to 60 moves here to match Chariot's), insufficient
material, or a ply cap. Engines lose on time forfeit (with a margin),
illegal moves, missing moves and crashes; protocol faults (doubled
`bestmove`, hangs, stderr noise) are counted per engine.

Square notation: pyffish writes xiangqi squares with files a-i and ranks
1-10 (`h3e3`); UCCI and Pikafish-style UCI use ranks 0-9 (`h2e2`), and
Fairy-Stockfish itself speaks pyffish's notation (`proto=uci-fairy`).

Run `refmatch.py --help` for the options and `README.md` beside this file
for examples.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import math
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

try:
    import pyffish as sf
except ImportError:  # reported by main(), so --help still works
    sf = None

VARIANT = "xiangqi60"
"""pyffish variant the referee uses: xiangqi with the 60-move rule."""

VARIANT_CONFIG = "[xiangqi60:xiangqi]\nnMoveRule = 60\n"
"""Fairy-Stockfish variant definition: the built-in xiangqi (perpetual
check and AXF chasing rules, threefold repetition) with a 60-move rather
than 50-move limit, as in the Chinese rules and Chariot."""

PROTOCOLS = ("ucci", "uci", "uci-fairy")

MOVE_RE = re.compile(r"^([a-i])(\d{1,2})([a-i])(\d{1,2})$")


# --------------------------------------------------------------------------
# Notation


def to_engine(move: str, proto: str) -> str:
    """Translate a referee (pyffish) move into the engine's dialect."""
    if proto == "uci-fairy":
        return move
    m = MOVE_RE.match(move)
    assert m, move
    return f"{m[1]}{int(m[2]) - 1}{m[3]}{int(m[4]) - 1}"


def from_engine(move: str, proto: str) -> str | None:
    """Translate an engine's move into pyffish notation (None if malformed)."""
    m = MOVE_RE.match(move.strip().lower())
    if not m:
        return None
    shift = 0 if proto == "uci-fairy" else 1
    fr, tr = int(m[2]) + shift, int(m[4]) + shift
    if not (1 <= fr <= 10 and 1 <= tr <= 10):
        return None
    return f"{m[1]}{fr}{m[3]}{tr}"


def iccs(move: str) -> str:
    """A referee move in ICCS notation (`h3e3` -> `H2-E2`)."""
    m = MOVE_RE.match(move)
    assert m, move
    return f"{m[1].upper()}{int(m[2]) - 1}-{m[3].upper()}{int(m[4]) - 1}"


def normalize_fen(line: str) -> str | None:
    """A full six-field FEN from an EPD/FEN line, or None for a comment.

    EPD lines carry four fields and then operations (`c0 "..."`); the
    move counters default to `0 1`. A red side to move written `r` becomes
    `w`, as pyffish expects.
    """
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    fields = line.split()
    if len(fields) < 2:
        return None
    board, side = fields[0], fields[1].lower()
    side = "w" if side in ("w", "r") else "b"
    rest = fields[2:4]
    while len(rest) < 2:
        rest.append("-")
    clocks = [f for f in fields[4:6] if f.isdigit()]
    if len(clocks) < 2:
        clocks = ["0", "1"]
    return " ".join([board, side, *rest, *clocks])


# --------------------------------------------------------------------------
# Engines


@dataclasses.dataclass
class EngineSpec:
    """One `--engine` argument: a name, a command line, a protocol, options."""

    name: str
    cmd: list
    proto: str
    options: dict
    cwd: str | None = None
    # (base s, increment s) for time odds; None plays the match's --tc.
    tc: tuple | None = None

    @classmethod
    def parse(cls, tokens: list) -> EngineSpec:
        """Parse `name=X cmd=PATH proto=ucci opt.K=V ...` tokens."""
        kv = {}
        options = {}
        for tok in tokens:
            if "=" not in tok:
                raise ValueError(f"engine token without '=': {tok!r}")
            key, value = tok.split("=", 1)
            if key.startswith(("opt.", "option.")):
                options[key.split(".", 1)[1]] = value
            elif key in ("name", "cmd", "proto", "dir", "tc"):
                kv[key] = value
            else:
                raise ValueError(f"unknown engine key {key!r}")
        if "cmd" not in kv:
            raise ValueError("engine needs cmd=")
        proto = kv.get("proto", "ucci")
        if proto not in PROTOCOLS:
            raise ValueError(f"proto must be one of {PROTOCOLS}, not {proto!r}")
        cmd = shlex.split(kv["cmd"])
        name = kv.get("name", os.path.basename(cmd[0]))
        tc = parse_tc(kv["tc"]) if "tc" in kv else None
        return cls(name, cmd, proto, options, kv.get("dir"), tc)


def parse_tc(text: str) -> tuple:
    """`BASE+INC` in seconds (`+INC` optional) as (base, inc)."""
    base_s, inc_s = (text.split("+", 1) + ["0"])[:2]
    try:
        base, inc = float(base_s), float(inc_s)
    except ValueError:
        raise ValueError(f"bad time control {text!r} (want BASE+INC in seconds)") from None
    if not (base > 0 and inc >= 0):
        raise ValueError(f"bad time control {text!r} (want BASE > 0, INC >= 0)")
    return base, inc


class Clocks(dict):
    """Seconds left by side (`w`, `b`), with each side's increment in
    `inc`: equal unless an engine has its own `tc=` (time odds)."""

    def __init__(self, base: dict, inc: dict):
        super().__init__(base)
        self.inc = dict(inc)


class EngineDied(Exception):
    """The engine process closed its output (crashed or exited)."""


@dataclasses.dataclass
class SearchResult:
    """What one `go` produced."""

    move: str | None  # raw engine move text, None if none came
    elapsed: float  # seconds from `go` to the final line
    final: str | None  # the final line itself
    score: int | None  # last reported score, side to move's view, centipawns
    score_text: str  # as the engine printed it (`cp 12`, `mate 3`, `9995`)
    depth: int | None
    timed_out: bool = False
    ponder: str | None = None  # raw `ponder` move of the final line
    ready_latencies: list = dataclasses.field(default_factory=list)  # s from `isready` to `readyok`
    ready_missing: int = 0  # `isready` sent during the search and never answered
    stop_latency: float | None = None  # s from a `stop` to the final line


class Engine:
    """A running engine process with a reader thread per output stream."""

    def __init__(self, spec: EngineSpec, log=None):
        self.spec = spec
        self.log = log
        self.faults: dict = {}
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.millis = True
        self.stderr_lines = 0
        # A `stop` that reaches an engine after it has finished searching
        # may be answered with a final line of its own (ElephantEye prints
        # `nobestmove`); one such line per `stop` sent is not a fault.
        # `stray_kinds` are the first words such a line may have.
        self.stray_allowed = 0
        self.stray_kinds = ("bestmove", "nobestmove")
        self.stderr_text: list = []  # the first stderr lines, for reports
        self.benign_stderr = None  # compiled regex of stderr lines not counted

    # -- process

    def start(self, timeout: float = 10.0) -> None:
        """Spawn the engine and complete the handshake (`ucci` or `uci`)."""
        self.lines = queue.Queue()
        self.proc = subprocess.Popen(
            self.spec.cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.spec.cwd,
            text=True,
            bufsize=1,
            start_new_session=True,  # Ctrl-C goes to the runner only
        )
        threading.Thread(target=self._pump_stdout, args=(self.proc, self.lines), daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(self.proc,), daemon=True).start()
        if self.spec.proto == "ucci":
            self.send("ucci")
            opts = self._wait_for("ucciok", timeout)
            self.millis = any(line.split()[1:2] == ["usemillisec"] for line in opts if line.startswith("option"))
            if self.millis:
                self.send("setoption usemillisec true")
        else:
            self.send("uci")
            self._wait_for("uciok", timeout)
            if self.spec.proto == "uci-fairy":
                self.send("setoption name UCI_Variant value xiangqi")
        for key, value in self.spec.options.items():
            self.set_option(key, value)
        self.ready(timeout)

    def set_option(self, key: str, value) -> None:
        """`setoption` in the engine's dialect."""
        if self.spec.proto == "ucci":
            self.send(f"setoption {key} {value}")
        else:
            self.send(f"setoption name {key} value {value}")

    def _pump_stdout(self, proc, lines) -> None:
        for line in proc.stdout:
            lines.put((time.monotonic(), line.rstrip("\r\n")))
        lines.put((time.monotonic(), None))  # EOF

    def _pump_stderr(self, proc) -> None:
        for line in proc.stderr:
            if line.strip() and not (self.benign_stderr and self.benign_stderr.search(line)):
                self.stderr_lines += 1
                if len(self.stderr_text) < 20:
                    self.stderr_text.append(line.rstrip())
                if self.log:
                    self.log(f"{self.spec.name} stderr: {line.rstrip()}")

    def alive(self) -> bool:
        """True while the process runs."""
        return self.proc is not None and self.proc.poll() is None

    def send(self, line: str) -> None:
        """Write one command line; a dead pipe raises EngineDied."""
        if self.log:
            self.log(f"> {self.spec.name}: {line}")
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise EngineDied(str(exc)) from exc

    def next_line(self, timeout: float):
        """(time stamp, line) of the next output line; queue.Empty on
        timeout, EngineDied at the end of output."""
        return self._get(timeout)

    def _get(self, timeout: float):
        """Next output line (or None at EOF); queue.Empty on timeout."""
        stamp, line = self.lines.get(timeout=max(timeout, 0.0))
        if line is None:
            raise EngineDied("end of output")
        if self.log:
            self.log(f"< {self.spec.name}: {line}")
        return stamp, line

    def _wait_for(self, token: str, timeout: float) -> list:
        """Lines up to the one starting with `token`; TimeoutError if late."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            try:
                _, line = self._get(deadline - time.monotonic())
            except queue.Empty:
                raise TimeoutError(f"{self.spec.name}: no {token!r} within {timeout} s") from None
            if line.split()[:1] == [token]:
                return seen
            self._stray(line)
            seen.append(line)

    def ready(self, timeout: float = 10.0) -> float:
        """`isready` / `readyok` round trip; returns its seconds."""
        start = time.monotonic()
        self.send("isready")
        self._wait_for("readyok", timeout)
        return time.monotonic() - start

    def new_game(self) -> None:
        """Tell the engine a new game starts, then sync."""
        self.drain()
        self.send("setoption newgame" if self.spec.proto == "ucci" else "ucinewgame")
        self.ready()

    def drain(self) -> None:
        """Consume stale output; a stale final line is a doubled bestmove."""
        while True:
            try:
                _, line = self._get(0)
            except queue.Empty:
                return
            self._stray(line)

    def _stray(self, line: str) -> None:
        """Count a final line that came when no search was running."""
        word = line.split()[:1]
        if word and word[0] in ("bestmove", "nobestmove"):
            if self.stray_allowed and word[0] in self.stray_kinds:
                self.stray_allowed -= 1
            else:
                self.fault("doubled bestmove")

    def fault(self, kind: str) -> None:
        """Count one fault of this kind."""
        self.faults[kind] = self.faults.get(kind, 0) + 1

    def quit(self) -> None:
        """Ask the engine to quit, then make sure it is gone."""
        if self.proc is None:
            return
        try:
            if self.alive():
                self.drain()
                self.send("quit")
                self.proc.wait(timeout=2)
        except (EngineDied, subprocess.TimeoutExpired):
            pass
        self.kill()

    def kill(self) -> None:
        """Kill the engine's process group (no-op when already gone)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    # -- search

    def go(self, position: str, go_line: str, limit: float, grace: float, actions=()) -> SearchResult:
        """Send a position and a `go`, and read until the final line.

        `limit` is how long the engine may take (its clock plus margin);
        past it the result is marked timed out, `stop` is sent, and up to
        `grace` more seconds are allowed for a final line before the engine
        is called hung (move None). `actions` as for `await_final`.
        """
        start = self.begin_search(position, go_line)
        return self.await_final(start, limit, grace, actions)

    def begin_search(self, position: str, go_line: str) -> float:
        """Settle stale output, send the position and the `go` (which may
        be `go ponder`); returns the time the `go` was sent.

        After a `stop` that may have crossed the last search's final line,
        the extra answer it may bring (UCCI `nobestmove`, docs/ucci.md §9 j)
        can still be on its way when a starved engine is slow: an `isready`
        round trip collects it (the engine answers in order), so it is
        never read as this search's line or as a ponder search's early
        final line. Without such a `stop`, stale lines are drained."""
        if self.stray_allowed:
            try:
                self.ready(10.0)
            except TimeoutError:
                pass  # a hang: the search below finds it
        else:
            self.drain()
        self.stray_allowed = 0
        self.send(position)
        self.send(go_line)
        return time.monotonic()

    def await_final(self, start: float, limit: float, grace: float, actions=(), stopped_at=None) -> SearchResult:
        """Read until the final line of the search whose clock started at
        `start` (its `go`, or its `ponderhit`); `limit` and `grace` as for
        `go`.

        `actions` are (seconds after `start`, command) pairs sent while the
        search runs, to stress the engine: each `isready` must be answered
        (its latency is returned; an answer not in by the final line is
        waited for up to `grace` more), a `stop` must bring the final line
        within `grace`. `stopped_at` is the time of a `stop` already sent.
        """
        pending = sorted(actions)
        asked: list = []  # send times of unanswered `isready`
        latencies: list = []
        score = None
        score_text = ""
        depth = None
        timed_out = False
        while True:
            deadline = stopped_at + grace if stopped_at is not None else start + limit
            wake = min(deadline, start + pending[0][0]) if pending else deadline
            try:
                stamp, line = self._get(wake - time.monotonic())
            except queue.Empty:
                if pending and time.monotonic() >= start + pending[0][0]:
                    _, command = pending.pop(0)
                    if command == "stop" and stopped_at is not None:
                        continue
                    self.send(command)
                    if command == "isready":
                        asked.append(time.monotonic())
                    elif command == "stop":
                        stopped_at = time.monotonic()
                        self.stray_allowed = 1
                    continue
                if stopped_at is not None:
                    return SearchResult(
                        None,
                        time.monotonic() - start,
                        None,
                        score,
                        score_text,
                        depth,
                        True,
                        ready_latencies=latencies,
                        ready_missing=len(asked),
                    )
                timed_out = True
                stopped_at = time.monotonic()
                self.stray_allowed = 1
                self.send("stop")
                continue
            words = line.split()
            if not words:
                continue
            if words[0] == "readyok" and asked:
                latencies.append(stamp - asked.pop(0))
            elif words[0] == "info" and words[1:2] != ["string"]:
                parsed = parse_score(words)
                if parsed is not None:
                    score, score_text = parsed
                    if "depth" in words:
                        try:
                            depth = int(words[words.index("depth") + 1])
                        except (ValueError, IndexError):
                            pass
            elif words[0] in ("bestmove", "nobestmove"):
                elapsed = stamp - start
                move = words[1] if words[0] == "bestmove" and len(words) > 1 else None
                if move in ("(none)", "none", "0000"):
                    move = None
                ponder = words[words.index("ponder") + 1] if "ponder" in words[:-1] else None
                result = SearchResult(
                    move, elapsed, line, score, score_text, depth, timed_out or elapsed > limit, ponder
                )
                result.stop_latency = stamp - stopped_at if stopped_at is not None else None
                self._await_ready(asked, latencies, grace)
                result.ready_latencies, result.ready_missing = latencies, len(asked)
                return result

    def _await_ready(self, asked: list, latencies: list, grace: float) -> None:
        """Wait up to `grace` for the answers to `isready`s still open."""
        end = time.monotonic() + grace
        while asked:
            try:
                stamp, line = self._get(end - time.monotonic())
            except queue.Empty:
                return
            if line.split()[:1] == ["readyok"]:
                latencies.append(stamp - asked.pop(0))
            else:
                self._stray(line)


def parse_score(words: list):
    """(score, text) from an `info` line's score, or None.

    Scores use the UCCI scale, side to move's view: centipawns, and mates
    as +-(10000 - plies) (ElephantEye's and Chariot's UCCI output as
    printed; ElephantEye's 9900-ish values are its repetition verdicts).
    UCI `score cp S` is taken as is and `score mate M` (moves) converted.
    """
    if "score" not in words:
        return None
    i = words.index("score")
    try:
        if words[i + 1] == "cp":
            return int(words[i + 2]), words[i + 2]
        if words[i + 1] == "mate":
            m = int(words[i + 2])
            plies = 2 * m - 1 if m > 0 else -2 * m
            return ((10000 - plies) if m > 0 else -(10000 - plies)), f"mate{m:+d}"
        return int(words[i + 1]), words[i + 1]
    except (ValueError, IndexError):
        return None


# --------------------------------------------------------------------------
# Referee


def side_of(fen: str, moves: list) -> str:
    """'w' (Red) or 'b' (Black) to move after `moves`."""
    first = fen.split()[1]
    if len(moves) % 2 == 0:
        return first
    return "b" if first == "w" else "w"


def placement(fen: str) -> str:
    """The repetition key of a FEN: placement and side to move."""
    return " ".join(fen.split()[:2])


@dataclasses.dataclass
class Verdict:
    """A finished game according to the referee."""

    result: str  # "1-0", "0-1", "1/2-1/2"
    reason: str  # in words
    loser: str | None = None  # 'w' or 'b' when someone lost
    cycle: list | None = None  # referee moves of the repeated sequence
    cycle_start: int | None = None  # ply index where the cycle starts


def stop_on_signals() -> None:
    """Make SIGINT and SIGTERM end a run the way Ctrl-C does (engines
    stopped, PGN and summary written). A shell that starts a command with
    `&` and no job control hands it SIGINT already ignored, and Python
    then installs no handler, so a background run could only be killed
    without its summary; this restores both signals."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.default_int_handler)


def win_for(side: str) -> str:
    """Result string for a win by `side`."""
    return "1-0" if side == "w" else "0-1"


def other(side: str) -> str:
    """The other side."""
    return "b" if side == "w" else "w"


class Referee:
    """Keeps one game's moves and judges them with pyffish."""

    def __init__(self, start_fen: str, max_plies: int):
        self.start_fen = start_fen
        self.max_plies = max_plies
        self.moves: list = []
        self.fens: list = [start_fen]  # FEN after each ply
        self.captures: list = []  # ply indices (1-based) of captures
        self._legal = sf.legal_moves(VARIANT, start_fen, [])

    def legal(self) -> list:
        """Legal moves in the current position (referee notation)."""
        return self._legal

    def side_to_move(self) -> str:
        """'w' or 'b'."""
        return side_of(self.start_fen, self.moves)

    def last_capture_ply(self) -> int:
        """Ply after which the last capture stands (0 = the start)."""
        return self.captures[-1] if self.captures else 0

    def play(self, move: str) -> None:
        """Append a move the caller has checked to be legal."""
        if sf.is_capture(VARIANT, self.start_fen, self.moves, move):
            self.captures.append(len(self.moves) + 1)
        self.moves.append(move)
        self.fens.append(sf.get_fen(VARIANT, self.start_fen, self.moves))
        self._legal = sf.legal_moves(VARIANT, self.start_fen, self.moves)

    def in_check(self, ply: int) -> bool:
        """Whether the side to move is in check after `ply` plies."""
        return sf.gives_check(VARIANT, self.start_fen, self.moves[:ply])

    def judge(self) -> Verdict | None:
        """The verdict after the last move, or None if the game goes on.

        Order as in Chariot's rules: no legal move, repetition verdict,
        move limit, insufficient material, then the ply cap.
        """
        stm = self.side_to_move()
        if not self._legal:
            value = sf.game_result(VARIANT, self.start_fen, self.moves)
            reason = "checkmate" if self.in_check(len(self.moves)) else "stalemate"
            if value < 0:
                return Verdict(win_for(other(stm)), reason, loser=stm)
            if value > 0:
                return Verdict(win_for(stm), reason, loser=other(stm))
            return Verdict("1/2-1/2", reason)
        ended, value = sf.is_optional_game_end(VARIANT, self.start_fen, self.moves)
        if ended:
            cycle_start = self._repetition_start()
            if cycle_start is None:
                reason = "move limit (60 moves without capture)"
                return Verdict("1/2-1/2", reason) if value == 0 else self._decided(value, stm, reason, None)
            if value == 0:
                return Verdict("1/2-1/2", "repetition draw", cycle=self.moves[cycle_start:], cycle_start=cycle_start)
            return self._decided(value, stm, None, cycle_start)
        white_short, black_short = sf.has_insufficient_material(VARIANT, self.start_fen, self.moves)
        if white_short and black_short:
            return Verdict("1/2-1/2", "insufficient material")
        if self.max_plies and len(self.moves) >= self.max_plies:
            return Verdict("1/2-1/2", f"ply cap ({self.max_plies})")
        return None

    def draw_claim_valid(self) -> bool:
        """Whether an engine that answers with no move (UCCI `nobestmove`)
        while it has legal moves may be claiming a draw the plain xiangqi
        rules allow: 50 moves without capture or a drawn threefold
        repetition. ElephantEye does this at its own 100-ply limit, before
        the referee's 60-move rule ends the game."""
        ended, value = sf.is_optional_game_end("xiangqi", self.start_fen, self.moves)
        return ended and value == 0

    def _repetition_start(self) -> int | None:
        """Ply of the first of the repeated occurrences of the current
        position since the last capture, if it occurred at least twice
        before; None when there is no threefold repetition."""
        key = placement(self.fens[-1])
        hits = [ply for ply in range(self.last_capture_ply(), len(self.fens) - 1) if placement(self.fens[ply]) == key]
        return hits[0] if len(hits) >= 2 else None

    def _decided(self, value: int, stm: str, reason: str | None, start: int | None) -> Verdict:
        """A won/lost optional game end; names the rule for repetitions."""
        loser = other(stm) if value > 0 else stm
        if reason is None:
            # The loser's moves in the repeated stretch: all checks means
            # perpetual check, anything else is pyffish's chase rule.
            loser_plies = [p for p in range(start, len(self.moves)) if side_of(self.start_fen, self.moves[:p]) == loser]
            checks = all(self.in_check(p + 1) for p in loser_plies)
            reason = "perpetual check" if checks else "perpetual chase"
        cycle = self.moves[start:] if start is not None else None
        return Verdict(win_for(other(loser)), reason, loser=loser, cycle=cycle, cycle_start=start)


# --------------------------------------------------------------------------
# Games


@dataclasses.dataclass
class GameRecord:
    """One finished game, for the PGN and the summary."""

    index: int
    opening_index: int
    fen: str
    red: str
    black: str
    moves: list
    comments: list
    result: str
    reason: str
    plies: int
    seconds: float
    loser_name: str | None = None
    cycle: list | None = None
    cycle_note: str = ""
    tags: list = dataclasses.field(default_factory=list)  # more (name, value) PGN tags


@dataclasses.dataclass
class Settings:
    """Match-wide settings."""

    base: float
    increment: float
    margin: float
    grace: float
    max_plies: int
    log: object = None


def go_line(engine: Engine, clocks: dict, side: str, inc: float) -> str:
    """The `go` command for `side` with the current clocks (and each side's
    own increment where `clocks` carries them, else `inc` for both)."""
    incs = getattr(clocks, "inc", None) or {"w": inc, "b": inc}
    if engine.spec.proto == "ucci":
        # UCCI engines without `usemillisec` read whole seconds; a clock is
        # sent as at least 1, since some engines read `time 0` as no clock.
        scale = 1000 if engine.millis else 1
        mine, theirs = (max(int(clocks[s] * scale), 1) for s in (side, other(side)))
        incr, oppincr = (int(incs[s] * scale) for s in (side, other(side)))
        return f"go time {mine} increment {incr} opptime {theirs} oppincrement {oppincr}"
    red, black = (max(int(clocks[s] * 1000), 1) for s in ("w", "b"))
    winc, binc = (int(incs[s] * 1000) for s in ("w", "b"))
    return f"go wtime {red} btime {black} winc {winc} binc {binc}"


def position_line(engine: Engine, referee: Referee) -> str:
    """`position fen F moves ...` from the last capture on (irreversible
    history is not needed for repetition and keeps lines short, as UCCI
    GUIs do)."""
    base = referee.last_capture_ply()
    fen = referee.fens[base]  # FEN letters and side are alike in all dialects
    moves = [to_engine(m, engine.spec.proto) for m in referee.moves[base:]]
    return f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")


class Driver:
    """How `play_game` gets a move from an engine: a position and a `go`
    with the clocks, read to the final line. The soak (`soak.py`) adds
    pondering and protocol stress through the two hooks."""

    def search(self, eng: Engine, referee: Referee, clocks: dict, stm: str, settings: Settings) -> SearchResult:
        """The engine's answer for the side to move `stm`."""
        return eng.go(
            position_line(eng, referee),
            go_line(eng, clocks, stm, settings.increment),
            clocks[stm] + settings.margin,
            settings.grace,
        )

    def after_move(self, eng: Engine, referee: Referee, clocks: dict, stm: str, res: SearchResult, settings) -> None:
        """Called when `eng`'s move has been played and the game goes on."""

    def end_game(self, engines: dict) -> None:
        """Called once the verdict is in, before the record is made."""


def play_game(
    index, opening_index, fen, red: Engine, black: Engine, settings: Settings, abort, driver: Driver | None = None
) -> GameRecord:
    """Play one game to the referee's verdict."""
    driver = driver or Driver()
    engines = {"w": red, "b": black}
    own = {s: e.spec.tc or (settings.base, settings.increment) for s, e in engines.items()}
    clocks = Clocks({s: own[s][0] for s in own}, {s: own[s][1] for s in own})
    referee = Referee(fen, settings.max_plies)
    comments: list = []
    scores: list = []  # (side, score, score_text) per ply
    started = time.monotonic()
    verdict: Verdict | None = None
    for eng in (red, black):
        try:
            eng.new_game()
        except (EngineDied, TimeoutError):
            eng.fault("crash" if not eng.alive() else "hang")
            loser = "w" if eng is red else "b"
            verdict = Verdict(win_for(other(loser)), "crash" if not eng.alive() else "hang", loser=loser)
            break
    while verdict is None:
        if abort.is_set():
            raise KeyboardInterrupt
        stm = referee.side_to_move()
        eng = engines[stm]
        if not referee.legal():  # start position already over
            verdict = referee.judge()
            break
        try:
            res = driver.search(eng, referee, clocks, stm, settings)
        except EngineDied:
            if abort.is_set():  # killed by Ctrl-C, not a crash
                raise KeyboardInterrupt from None
            eng.fault("crash")
            verdict = Verdict(win_for(other(stm)), "crash", loser=stm)
            break
        if res.move is None and res.final is None:
            eng.fault("hang")
            eng.kill()  # restarted before its next game
            verdict = Verdict(win_for(other(stm)), "time forfeit (hang)", loser=stm)
            break
        if res.timed_out or res.elapsed > clocks[stm] + settings.margin:
            eng.fault("time forfeit")
            verdict = Verdict(win_for(other(stm)), "time forfeit", loser=stm)
            break
        clocks[stm] = max(clocks[stm] - res.elapsed, 0.0) + clocks.inc[stm]
        if res.move is None:
            if referee.draw_claim_valid():
                eng.fault("draw claim accepted")
                verdict = Verdict("1/2-1/2", f"draw claimed by {eng.spec.name} ({res.final})")
            else:
                eng.fault("missing bestmove")
                verdict = Verdict(win_for(other(stm)), f"no move ({res.final})", loser=stm)
            break
        move = from_engine(res.move, eng.spec.proto)
        if move is None or move not in referee.legal():
            eng.fault("illegal move")
            verdict = Verdict(win_for(other(stm)), f"illegal move {res.move}", loser=stm)
            break
        referee.play(move)
        scores.append((stm, res.score, res.score_text))
        note = f"{res.score_text or '?'}/{res.depth if res.depth is not None else '?'} {res.elapsed:.2f}s"
        comments.append(note)
        verdict = referee.judge()
        if verdict is None:
            driver.after_move(eng, referee, clocks, stm, res, settings)
    driver.end_game(engines)
    rec = GameRecord(
        index,
        opening_index,
        fen,
        red.spec.name,
        black.spec.name,
        list(referee.moves),
        comments,
        verdict.result,
        verdict.reason,
        len(referee.moves),
        time.monotonic() - started,
    )
    if verdict.loser:
        rec.loser_name = engines[verdict.loser].spec.name
    if red.spec.tc or black.spec.tc:
        # Time odds: each side's own clock (`TimeControl` is the match's).
        for tag, side in (("RedTimeControl", "w"), ("BlackTimeControl", "b")):
            rec.tags.append((tag, f"{own[side][0]:g}+{own[side][1]:g}"))
    if verdict.cycle:
        rec.cycle = verdict.cycle
        rec.cycle_note = cycle_note(verdict, scores, referee)
    return rec


def cycle_note(verdict: Verdict, scores: list, referee: Referee) -> str:
    """The repeated sequence in engine (UCCI) notation with the losing
    side's reported scores on its moves in it, the first being the score
    with which it entered the cycle."""
    start = verdict.cycle_start
    moves = " ".join(to_engine(m, "ucci") for m in verdict.cycle)
    if verdict.loser is None:
        return f"cycle from ply {start + 1}: {moves}"
    inside = [text or "?" for p, (side, _, text) in enumerate(scores) if p >= start and side == verdict.loser]
    before = [text or "?" for p, (side, _, text) in enumerate(scores) if p < start and side == verdict.loser]
    return (
        f"cycle from ply {start + 1}: {moves}; loser's score entering it "
        f"{inside[0] if inside else '?'} (its move before: {before[-1] if before else '?'}); "
        f"its scores in it: {' '.join(inside)}"
    )


# --------------------------------------------------------------------------
# Statistics and output


def elo_with_error(wins: int, draws: int, losses: int):
    """(score, elo, 95 % half-width) from the first player's results."""
    n = wins + draws + losses
    if n == 0:
        return 0.5, 0.0, float("inf")
    p = (wins + 0.5 * draws) / n
    var = (wins * (1 - p) ** 2 + draws * (0.5 - p) ** 2 + losses * p**2) / n

    def elo(x: float) -> float:
        x = min(max(x, 1e-6), 1 - 1e-6)
        return -400.0 * math.log10(1.0 / x - 1.0)

    se = math.sqrt(var / n)
    lo, hi = elo(p - 1.96 * se), elo(p + 1.96 * se)
    return p, elo(p) + 0.0, (hi - lo) / 2


class Tally:
    """Results, termination reasons and rule losses of finished games."""

    def __init__(self, names: list):
        self.names = names
        self.games: dict = {}
        self.lock = threading.Lock()
        # Flag falls mean little on an overloaded machine: keep the load.
        self.load_start = os.getloadavg()[0]

    def add(self, rec: GameRecord) -> None:
        """Record a finished game."""
        with self.lock:
            self.games[rec.index] = rec

    def pair_line(self, a: str, b: str) -> str:
        """W-D-L, score and Elo of `a` against `b`."""
        w = d = l = 0
        for rec in self.games.values():
            if {rec.red, rec.black} != {a, b} or a == b and rec.red != rec.black:
                continue
            a_red = rec.red == a
            if rec.result == "1/2-1/2":
                d += 1
            elif (rec.result == "1-0") == a_red:
                w += 1
            else:
                l += 1
        p, elo, err = elo_with_error(w, d, l)
        return f"{a} vs {b}: W {w} D {d} L {l} [{100 * p:.1f} %] Elo {elo:+.1f} ± {err:.1f} ({w + d + l} games)"

    def summary(self, engines: list) -> str:
        """The final report."""
        out = []
        with self.lock:
            games = [self.games[k] for k in sorted(self.games)]
            names = self.names
            out.append(f"== refmatch summary: {len(games)} games")
            for i, a in enumerate(names):
                for b in names[i + 1 :]:
                    out.append(self.pair_line(a, b))
            if len(names) == 1:
                out.append(self.pair_line(names[0], names[0]))
            reasons: dict = {}
            for rec in games:
                key = re.sub(r"^illegal move .*", "illegal move", rec.reason)
                key = re.sub(r"^no move .*", "no move", key)
                key = re.sub(r"^draw claimed by .*", "draw claim", key)
                reasons[key] = reasons.get(key, 0) + 1
            out.append(
                "terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1]))
            )
            red = sum(1 for r in games if r.result == "1-0")
            black = sum(1 for r in games if r.result == "0-1")
            out.append(f"by colour: red wins {red}, black wins {black}, draws {len(games) - red - black}")
            out.append(
                f"machine load (1-min average): {self.load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end,"
                f" {os.cpu_count()} cores"
            )
            if games:
                plies = sum(r.plies for r in games) / len(games)
                secs = sum(r.seconds for r in games) / len(games)
                out.append(f"average game: {plies:.0f} plies, {secs:.1f} s")
            rule = [r for r in games if r.cycle and r.loser_name]
            if rule:
                out.append("rule losses:")
                for r in rule:
                    out.append(
                        f"  game {r.index + 1} ({r.red} - {r.black} {r.result}, {r.reason}, loser {r.loser_name}): {r.cycle_note}"
                    )
        faults = {}
        for eng in engines:
            for kind, n in eng.faults.items():
                faults.setdefault(eng.spec.name, {})
                faults[eng.spec.name][kind] = faults[eng.spec.name].get(kind, 0) + n
            if eng.stderr_lines:
                faults.setdefault(eng.spec.name, {})
                faults[eng.spec.name]["stderr lines"] = faults[eng.spec.name].get("stderr lines", 0) + eng.stderr_lines
        if faults:
            for name, kinds in sorted(faults.items()):
                out.append(f"faults {name}: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
        else:
            out.append("faults: none")
        return "\n".join(out)


def pgn_text(rec: GameRecord, event: str, tc: str) -> str:
    """One game as PGN with ICCS moves and per-move {score/depth time}."""
    tags = [
        ("Event", event),
        ("Site", "refmatch"),
        ("Date", datetime.date.today().strftime("%Y.%m.%d")),
        ("Round", str(rec.index + 1)),
        ("Red", rec.red),
        ("Black", rec.black),
        ("Result", rec.result),
        ("FEN", rec.fen),
        ("Format", "ICCS"),
        ("Opening", str(rec.opening_index + 1)),
        ("TimeControl", tc),
        ("PlyCount", str(rec.plies)),
        ("Termination", rec.reason),
        ("Referee", f"pyffish {'.'.join(map(str, sf.version()))} variant {VARIANT}"),
    ]
    if rec.cycle_note:
        tags.append(("RuleCycle", rec.cycle_note))
    tags.extend(rec.tags)
    head = "\n".join(f'[{k} "{v.replace(chr(34), chr(39))}"]' for k, v in tags)
    black_first = rec.fen.split()[1] == "b"
    body = []
    number = 1
    for ply, (move, note) in enumerate(zip(rec.moves, rec.comments)):
        red_move = (ply % 2 == 0) != black_first
        if red_move:
            body.append(f"{number}.")
        elif ply == 0:
            body.append(f"{number}...")
        body.append(f"{iccs(move)} {{{note}}}")
        if not red_move:
            number += 1
    body.append(f"{{{rec.reason}}} {rec.result}")
    lines, line = [], ""
    for word in " ".join(body).split(" "):
        if len(line) + len(word) + 1 > 79:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return head + "\n\n" + "\n".join(lines) + "\n\n"


# --------------------------------------------------------------------------
# Tournament


def schedule(openings: list, names: list, games: int, skip: int = 0) -> list:
    """(game index, opening index, red, black) for each game: every opening
    from index `skip` on twice with colours swapped, for every pair of
    engines, in order. Opening indices count from the file's first opening,
    so a match resumed with `skip` names its openings as the whole file
    does; game indices count from 0 in each run."""
    if not 0 <= skip < len(openings):
        raise ValueError(f"--skip-openings {skip}: {len(openings)} openings, so give 0 to {len(openings) - 1}")
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]] or [(names[0], names[0])]
    out = []
    k = 0
    while len(out) < games:
        opening = skip + k % (len(openings) - skip)
        for a, b in pairs:
            for red, black in ((a, b), (b, a)):
                if len(out) < games:
                    out.append((len(out), opening, red, black))
        k += 1
    return out


def worker(jobs, specs, openings, settings, tally, abort, all_engines, report, event_lock):
    """Play games from `jobs` with this worker's own engine processes."""
    mine: dict = {}
    try:
        while not abort.is_set():
            try:
                index, opening, red_name, black_name = jobs.get_nowait()
            except queue.Empty:
                return
            players = []
            for slot, name in enumerate((red_name, black_name)):
                key = (name, slot if red_name == black_name else 0)
                eng = mine.get(key)
                if eng is None or not eng.alive():
                    if eng is not None:
                        eng.kill()
                    eng = Engine(specs[name], settings.log)
                    with event_lock:
                        all_engines.append(eng)
                    mine[key] = eng
                    try:
                        eng.start()
                    except (EngineDied, TimeoutError, OSError) as exc:
                        eng.fault("start failure")
                        report(f"cannot start {name}: {exc}")
                players.append(eng)
            rec = play_game(index, opening, openings[opening], players[0], players[1], settings, abort)
            if abort.is_set():  # engines killed under the game: not a result
                return
            tally.add(rec)
            report(rec)
    except KeyboardInterrupt:
        pass
    finally:
        for eng in mine.values():
            eng.quit()


SLOW_STOP_ENGINE = r"""
import sys, time
searching = False
for line in sys.stdin:
    word = line.split()[:1]
    if word == ["ucci"]:
        print("id name slow-stop", flush=True)
        print("ucciok", flush=True)
    elif word == ["isready"]:
        print("readyok", flush=True)
    elif word == ["go"] and "ponder" in line.split():
        searching = True
    elif word == ["go"]:
        print("bestmove h0g2", flush=True)
    elif word == ["stop"] and searching:
        searching = False
        print("bestmove h0g2", flush=True)
    elif word == ["stop"]:
        time.sleep(0.2)  # a starved engine: the idle answer comes late
        print("nobestmove", flush=True)
    elif word == ["quit"]:
        break
"""
"""A scripted UCCI engine for the self-test: it moves at once, ponders
until `stop`, and answers a `stop` that finds it idle with `nobestmove`
only after 200 ms."""


def late_stray_is_settled() -> bool:
    """A `stop` that crossed the final line gets its `nobestmove` late; the
    next search (here a ponder search) must not take it for its own."""
    spec = EngineSpec("slow-stop", [sys.executable, "-c", SLOW_STOP_ENGINE], "ucci", {})
    eng = Engine(spec)
    try:
        eng.start(10.0)
        eng.go("position startpos", "go time 1000", 1.0, 1.0)
        eng.send("stop")  # crosses the move, as a stress `stop` can
        eng.stray_allowed = 1
        eng.begin_search("position startpos moves h0g2", "go ponder time 1000")
        try:
            _, line = eng.next_line(0.4)
        except queue.Empty:
            line = None
        return line is None and not eng.faults
    except (EngineDied, TimeoutError):
        return False
    finally:
        eng.quit()


def time_odds_reach_the_go_lines() -> bool:
    """An engine's own `tc=` (time odds) reaches both dialects' `go` lines:
    its clock and increment as its own, the other side's as the opponent's."""
    fast = Engine(EngineSpec.parse(["name=a", "cmd=true", "proto=ucci", "tc=5+0.05"]))
    slow = Engine(EngineSpec.parse(["name=b", "cmd=true", "proto=uci", "tc=40+0.4"]))
    fast.millis = True
    clocks = Clocks({"w": 5.0, "b": 40.0}, {"w": 0.05, "b": 0.4})
    ucci = go_line(fast, clocks, "w", 0.0)
    uci = go_line(slow, clocks, "b", 0.0)
    even = go_line(fast, {"w": 5.0, "b": 5.0}, "w", 0.05)
    try:
        EngineSpec.parse(["cmd=true", "tc=fast"])
        bad_refused = False
    except ValueError:
        bad_refused = True
    return (
        ucci == "go time 5000 increment 50 opptime 40000 oppincrement 400"
        and uci == "go wtime 5000 btime 40000 winc 50 binc 400"
        and even == "go time 5000 increment 50 opptime 5000 oppincrement 50"
        and bad_refused
    )


def resumed_schedule_keeps_the_files_openings() -> bool:
    """A match resumed with `--skip-openings` plays the openings the stopped
    one had not reached, each twice with colours swapped, under the file's
    own opening numbers; a skip that leaves no opening is refused."""
    openings = ["p0", "p1", "p2", "p3"]
    whole = schedule(openings, ["a", "b"], 8)
    resumed = schedule(openings, ["a", "b"], 4, skip=2)
    try:
        schedule(openings, ["a", "b"], 2, skip=4)
        empty_refused = False
    except ValueError:
        empty_refused = True
    return (
        [(o, r, b) for _, o, r, b in resumed] == [(o, r, b) for _, o, r, b in whole[4:]]
        and [i for i, _, _, _ in resumed] == [0, 1, 2, 3]
        and [o for _, o, _, _ in schedule(openings, ["a", "b"], 6, skip=3)] == [3, 3, 3, 3, 3, 3]
        and empty_refused
    )


def self_test() -> int:
    """Check the referee and the notation on known positions; 0 if all pass.

    Each case plays moves on a FEN and compares the verdict, so a pyffish
    release that judges differently is noticed before a match relies on it.
    """
    cases = [
        # (name, fen, moves, expected result, expected reason or None)
        (
            "perpetual check loses",
            "4k4/9/8r/9/9/R8/9/9/9/3K5 w - - 0 1",
            ["a5e5", "e10f10", "e5f5", "f10e10", "f5e5", "e10f10", "e5f5", "f10e10", "f5e5"],
            "0-1",
            "perpetual check",
        ),
        (
            "perpetual chase loses",
            "4k4/9/c8/9/9/1R7/9/9/9/3K5 w - - 0 1",
            ["b5b8", "a8a7", "b8b7", "a7a8", "b7b8", "a8a7", "b8b7", "a7a8", "b7b8"],
            "0-1",
            "perpetual chase",
        ),
        (
            "idle repetition draws",
            "4k4/9/c8/9/9/9/9/9/8R/3K5 w - - 0 1",
            ["i2h2", "a8a7", "h2i2", "a7a8"] * 2,
            "1/2-1/2",
            "repetition draw",
        ),
        ("checkmate", "4k4/R8/9/9/9/9/9/9/8R/3K5 w - - 0 1", ["i2i10"], "1-0", "checkmate"),
        ("stalemate loses", "3k5/9/9/9/9/9/9/9/3r1r3/4K4 w - - 0 1", [], "0-1", "stalemate"),
        (
            "insufficient material",
            "3ak4/9/4b4/9/9/9/9/9/9/3AK4 w - - 0 1",
            ["d1e2"],
            "1/2-1/2",
            "insufficient material",
        ),
    ]
    failures = 0
    for name, fen, moves, want_result, want_reason in cases:
        ref = Referee(fen, 0)
        verdict = ref.judge()
        for move in moves:
            if verdict is not None or move not in ref.legal():
                break
            ref.play(move)
            verdict = ref.judge()
        got = (verdict.result, verdict.reason) if verdict else None
        want = (want_result, want_reason) if want_result else None
        ok = got == want
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {got}")
        failures += not ok
    notation = to_engine("h3e3", "ucci") == "h2e2" and from_engine("h2e2", "ucci") == "h3e3"
    notation &= from_engine("b3b10", "uci-fairy") == "b3b10" and to_engine("b3b10", "uci") == "b2b9"
    print(f"{'ok  ' if notation else 'FAIL'} notation h3e3 <-> h2e2, b3b10 <-> b2b9")
    failures += not notation
    late = late_stray_is_settled()
    print(f"{'ok  ' if late else 'FAIL'} a crossed stop answered late is not read as the next search's line")
    failures += not late
    odds = time_odds_reach_the_go_lines()
    print(f"{'ok  ' if odds else 'FAIL'} time odds: each side's own clock and increment in the go lines")
    failures += not odds
    resumed = resumed_schedule_keeps_the_files_openings()
    print(f"{'ok  ' if resumed else 'FAIL'} --skip-openings resumes at the file's next opening")
    failures += not resumed
    print(f"{len(cases) + 4 - failures} passed, {failures} failed")
    return 1 if failures else 0


def parse_args(argv: list) -> argparse.Namespace:
    """Command-line options."""
    ap = argparse.ArgumentParser(
        description="Xiangqi match runner refereed by pyffish (Fairy-Stockfish rules).",
        epilog="Engine tokens: name=NAME cmd='PATH ARGS' proto=ucci|uci|uci-fairy [dir=CWD] "
        "[tc=BASE+INC (this engine's own clock: time odds)] [opt.KEY=VALUE ...]",
    )
    ap.add_argument("--self-test", action="store_true", help="check the referee on known positions and exit")
    ap.add_argument(
        "--engine",
        nargs="+",
        action="append",
        metavar="KEY=VALUE",
        help="an engine: two or more play a round robin, one plays itself",
    )
    ap.add_argument("--tc", default="5+0.05", help="base seconds + increment seconds per move (default 5+0.05)")
    ap.add_argument("--margin", type=float, default=100, help="ms an engine may overstep its clock (default 100)")
    ap.add_argument("--grace", type=float, default=2.0, help="s to wait after `stop` before calling an engine hung")
    ap.add_argument("--openings", help="FEN/EPD file, one position a line, # comments")
    ap.add_argument("--games", type=int, default=2, help="number of games (each opening twice, colours swapped)")
    ap.add_argument(
        "--skip-openings",
        type=int,
        default=0,
        metavar="N",
        help="start at the file's opening N+1: resumes a match stopped after N openings (default 0)",
    )
    ap.add_argument("--concurrency", type=int, default=1, help="games at once")
    ap.add_argument("--max-plies", type=int, default=1000, help="draw after this many plies (0 = no cap)")
    ap.add_argument("--pgn", default="refmatch.pgn", help="PGN output file")
    ap.add_argument("--event", default="refmatch", help="PGN Event tag")
    ap.add_argument("--log", help="write every protocol line to this file")
    ap.add_argument("--quiet", action="store_true", help="no line per finished game")
    return ap.parse_args(argv)


def load_openings(path: str) -> list:
    """Validated six-field FENs from an EPD/FEN file."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            fen = normalize_fen(line)
            if fen is None:
                continue
            if sf.validate_fen(fen, VARIANT) != sf.FEN_OK:
                raise ValueError(f"{path}:{number}: referee rejects FEN {fen!r}")
            out.append(fen)
    if not out:
        raise ValueError(f"{path}: no positions")
    return out


def main(argv: list | None = None) -> int:
    """Run a match; returns the exit code."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    stop_on_signals()
    if sf is None:
        print("refmatch: pyffish is not installed (pip install pyffish)", file=sys.stderr)
        return 2
    sf.load_variant_config(VARIANT_CONFIG)
    if args.self_test:
        return self_test()
    if not args.engine or not args.openings:
        raise SystemExit("refmatch: give --engine (once or more) and --openings")
    specs = {}
    names = []
    for tokens in args.engine:
        try:
            spec = EngineSpec.parse(tokens)
        except ValueError as e:
            raise SystemExit(f"refmatch: {e}") from None
        if spec.name in specs:
            raise SystemExit(f"refmatch: two engines named {spec.name!r}")
        specs[spec.name] = spec
        names.append(spec.name)
    try:
        base, inc = parse_tc(args.tc)
    except ValueError as e:
        raise SystemExit(f"refmatch: --tc: {e}") from None
    openings = load_openings(args.openings)
    try:
        plan = schedule(openings, names, args.games, args.skip_openings)
    except ValueError as e:
        raise SystemExit(f"refmatch: {args.openings}: {e}") from None
    with open(args.log, "w", encoding="utf-8") if args.log else contextlib.nullcontext() as log_fh:
        return run_match(args, specs, names, base, inc, openings, plan, log_fh)


def run_match(args, specs: dict, names: list, base: float, inc: float, openings: list, plan: list, log_fh) -> int:
    """Play the scheduled games, write the PGN, print the summary."""
    log_lock = threading.Lock()
    t0 = time.monotonic()

    def log(text: str) -> None:
        with log_lock:
            log_fh.write(f"{time.monotonic() - t0:10.3f} {text}\n")

    settings = Settings(base, inc, args.margin / 1000.0, args.grace, args.max_plies, log if log_fh else None)
    tally = Tally(names)
    jobs: queue.Queue = queue.Queue()
    for job in plan:
        jobs.put(job)
    abort = threading.Event()
    all_engines: list = []
    event_lock = threading.Lock()
    done = [0]

    def report(item) -> None:
        with event_lock:
            if isinstance(item, str):
                print(f"refmatch: {item}", file=sys.stderr, flush=True)
                return
            done[0] += 1
            if not args.quiet:
                pair = tally.pair_line(names[0], names[1] if len(names) > 1 else names[0])
                print(
                    f"[{done[0]}/{len(plan)}] game {item.index + 1} {item.red} - {item.black} {item.result} "
                    f"({item.reason}, {item.plies} plies, {item.seconds:.0f} s) | {pair}",
                    flush=True,
                )

    threads = [
        threading.Thread(
            target=worker,
            args=(jobs, specs, openings, settings, tally, abort, all_engines, report, event_lock),
            daemon=True,
        )
        for _ in range(max(1, args.concurrency))
    ]
    interrupted = False
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=0.2)
    except KeyboardInterrupt:
        interrupted = True
        abort.set()
        print("\nrefmatch: interrupted; stopping engines", file=sys.stderr, flush=True)
        with event_lock:
            for eng in all_engines:
                eng.kill()
        for t in threads:
            t.join(timeout=3)
    with open(args.pgn, "w", encoding="utf-8") as fh:
        with tally.lock:
            records = [tally.games[k] for k in sorted(tally.games)]
        fh.writelines(pgn_text(rec, args.event, args.tc) for rec in records)
    with event_lock:
        for eng in all_engines:
            eng.kill()
    print(tally.summary(all_engines), flush=True)
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
