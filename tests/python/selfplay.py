"""Drive the chariot binary with the independent `cchess` client (PyPI).

Part 1 plays a whole game of chariot against itself through
`cchess.engine.UcciEngine`, which sends CRLF line ends, the UCI-shaped
`setoption name ... value ...` after `ucci`, two-field FENs without
`moves`, and (here) a `stop` after every `bestmove`. Every move is checked
legal with cchess's own board, independently of chariot's move generator.

Part 2 talks to the binary over a raw pipe for the same GUI habits, checking
the exact replies.

Prints `N passed, M failed` and exits non-zero on any failure.
"""

import subprocess
import sys
import time

from cchess.board import ChessBoard
from cchess.common import FULL_INIT_FEN
from cchess.engine import UcciEngine

PASSED = 0
FAILED = 0
MAX_PLIES = 300


def check(ok, what):
    global PASSED, FAILED
    if ok:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL: {what}", flush=True)


def legal(board, iccs):
    """Whether cchess considers `iccs` legal: a valid piece move that does
    not leave the mover's own general in check."""
    try:
        if not board.is_valid_iccs_move(iccs):
            return False
        from cchess.common import iccs2pos

        src, dst = iccs2pos(iccs)
        return not board.is_checked_move(src, dst)
    except Exception as e:  # malformed text
        print(f"cannot judge {iccs!r}: {e}")
        return False


def drain(engine, seconds=0.3):
    """Consume whatever the engine still says (the idle `stop` answer)."""
    end = time.time() + seconds
    actions = []
    while time.time() < end:
        a = engine.get_action()
        if a is None:
            time.sleep(0.02)
        else:
            actions.append(a)
    return actions


def wait_move(engine, timeout=60.0):
    """The next final action, and any `game over` diagnostic seen before it."""
    end = time.time() + timeout
    game_over = None
    while time.time() < end:
        a = engine.get_action()
        if a is None:
            time.sleep(0.01)
            continue
        raw = a.get("raw_msg", "")
        if raw.startswith("info string game over"):
            game_over = raw
        if a["action"] in ("bestmove", "dead", "draw"):
            return a, game_over
    return None, game_over


def selfplay(path):
    engine = UcciEngine()
    check(engine.load(path), "engine loads")
    check(engine.wait_for_ready(timeout=20), "ucciok received")
    check(any(o.startswith("option hashsize") for o in engine.options), "hashsize advertised")
    # UCI-shaped setoption after ucci, as cchess always sends it.
    engine.set_option("hashsize", 16)
    engine.set_option("usebook", "false")
    engine.set_option("newgame", "")
    board = ChessBoard(FULL_INIT_FEN)
    plies = 0
    result = "ply cap"
    seen = {}
    quiet = 0  # plies without a capture
    while plies < MAX_PLIES:
        fen = board.to_fen()  # two fields: board and side
        check(len(fen.split()) == 2, "cchess sends a two-field FEN")
        engine.go_from(fen, {"depth": 3})
        action, game_over = wait_move(engine)
        if action is None:
            check(False, f"no reply at ply {plies} for {fen}")
            result = "timeout"
            break
        if action["action"] != "bestmove":
            # No move: only right when cchess agrees the side cannot move.
            check(board.no_moves(), f"engine gave up at ply {plies} in {fen}: {action.get('raw_msg')}")
            result = "no legal move"
            break
        move = action["move"]
        ok = legal(board, move)
        check(ok, f"ply {plies}: {move} legal in {fen}")
        if not ok:
            result = "illegal move"
            break
        # cchess's stop after every bestmove: idle stop must not produce a
        # stale bestmove.
        engine.stop_thinking()
        for a in drain(engine, 0.1):
            check(a["action"] != "bestmove", f"stale bestmove after stop: {a.get('raw_msg')}")
        pieces = sum(c.isalpha() for c in fen.split()[0])
        board.move_iccs(move)
        board.next_turn()
        plies += 1
        after = board.to_fen()
        quiet = 0 if sum(c.isalpha() for c in after.split()[0]) < pieces else quiet + 1
        seen[after] = seen.get(after, 0) + 1
        if board.no_moves():
            result = "mate"
            break
        if game_over:
            result = game_over
            break
        if seen[after] >= 3:
            result = "threefold repetition (judged by this script)"
            break
        if quiet >= 120:
            result = "60 moves without capture (judged by this script)"
            break
    print(f"self-play: {plies} plies, ended by {result}", flush=True)
    check(plies >= 10 and result not in ("illegal move", "timeout"), "a whole game was played")
    engine.quit()


class Pipe:
    """A raw pipe to the engine that sends bytes exactly as given."""

    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(self, raw):
        self.p.stdin.write(raw)
        self.p.stdin.flush()

    def until(self, pred, timeout=30.0):
        end = time.time() + timeout
        lines = []
        while time.time() < end:
            line = self.p.stdout.readline()
            if not line:
                break
            text = line.decode("ascii").rstrip("\n")
            lines.append(text)
            if pred(text):
                return lines
        raise AssertionError(f"timed out; got {lines}")


def raw_pipe(path):
    s0 = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"
    e = Pipe(path)
    e.send(b"ucci\r\n")
    lines = e.until(lambda l: l == "ucciok")
    check(lines[0].startswith("id name Chariot"), "raw: id name first")
    e.send(b"setoption name hashsize value 32\r\nsetoption name Clear Hash\r\nisready\r\n")
    lines = e.until(lambda l: l == "readyok")
    check(lines == ["readyok"], f"raw: UCI-shape setoption after ucci is silent: {lines}")
    board = ChessBoard(f"{s0} w")
    for n in range(3):
        fen = board.to_fen()
        e.send(f"position fen {fen}\r\ngo depth 2\r\n".encode())
        lines = e.until(lambda l: l.startswith("bestmove") or l == "nobestmove")
        move = lines[-1].split()[1] if lines[-1].startswith("bestmove") else None
        check(move is not None and legal(board, move), f"raw: legal move {lines[-1]} for {fen}")
        e.send(b"stop\r\n")
        lines = e.until(lambda l: l.startswith("bestmove") or l == "nobestmove")
        check(lines[-1] == "nobestmove", f"raw: stop after bestmove answers nobestmove, got {lines}")
        if move is None:
            break
        board.move_iccs(move)
        board.next_turn()
    e.send(b"quit\r\n")
    lines = e.until(lambda l: l == "bye", timeout=5)
    check(e.p.wait(timeout=5) == 0, "raw: exit status 0 after bye")


def main():
    path = sys.argv[1]
    try:
        selfplay(path)
    except Exception as e:
        check(False, f"self-play raised {e!r}")
    try:
        raw_pipe(path)
    except Exception as e:
        check(False, f"raw pipe raised {e!r}")
    print(f"{PASSED} passed, {FAILED} failed", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
