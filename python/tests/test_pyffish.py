"""Legal moves and rule verdicts cross-checked against pyffish
(Fairy-Stockfish's xiangqi, with the 60-move limit Chariot uses) on a few
hundred seeded random games, some of them biased toward moving back and
forth so that repetitions occur.

What must agree exactly: the legal moves (at every third ply); games ending with
no legal move (mate or stalemate, same loser); and a repetition verdict
of Chariot's being a repetition game end for pyffish at the same ply. The
rules differ by design elsewhere (docs/rules.md §4): Chariot's 60-move
counter skips checks past the tenth (so pyffish may end first), its
insufficient-material table draws more positions than pyffish's, and the
two chase definitions differ in details, so perpetual-chase and
repetition-draw winners must agree in at least 90 % of the cycles.
"""

import random

import pytest

import chariot

sf = pytest.importorskip("pyffish")
VARIANT = "xiangqi60"
sf.load_variant_config("[xiangqi60:xiangqi]\nnMoveRule = 60\n")

GAMES = 200
MAX_PLIES = 160
# pyffish takes milliseconds a call here, so the legal moves are compared
# at every third ply (and wherever a game ends) to keep the test near a
# minute.
LEGAL_EVERY = 3


def to_sf(move):
    """ICCS (ranks 0-9) to Fairy-Stockfish's ranks 1-10."""
    s = str(move)
    return f"{s[0]}{int(s[1]) + 1}{s[2]}{int(s[3]) + 1}"


def sf_verdict(fen, moves):
    if not sf.legal_moves(VARIANT, fen, moves):
        return "nomove", sf.game_result(VARIANT, fen, moves)
    ended, value = sf.is_optional_game_end(VARIANT, fen, moves)
    if ended:
        return "optional", value
    red_short, black_short = sf.has_insufficient_material(VARIANT, fen, moves)
    if red_short and black_short:
        return "material", 0
    return None


def test_random_games_against_pyffish():
    rng = random.Random(55)
    ends = {}
    rule_cycles = agreed = 0
    for game in range(GAMES):
        bias = (0.0, 0.3, 0.6)[game % 3]
        b = chariot.Board()
        # pyffish is given the position after the last capture and the
        # moves since: all a repetition can look at, and far faster than
        # replaying the whole game at every ply.
        base, since, keys = b.fen(), [], [b.zobrist_key]
        for ply in range(MAX_PLIES):
            ours = sorted(to_sf(m) for m in b.legal_moves())
            o = b.outcome()
            if ply % LEGAL_EVERY == 0 or o is not None or not ours:
                assert ours == sorted(sf.legal_moves(VARIANT, b.fen(), [])), b.fen()
            # pyffish's judgement of the history is slow, so it is asked
            # only where some rule can end the game: Chariot says so, the
            # position repeats, the move limit nears, or the attackers are
            # nearly gone.
            may_end = (
                o is not None
                or not ours
                or keys.count(b.zobrist_key) > 1
                or len(since) >= 118
                or sum(p in "RNCPrncp" for _, p in b) <= 2
            )
            v = sf_verdict(base, since) if may_end else None
            if o is None and v is None:
                moves = b.legal_moves()
                m = rng.choice(moves)
                if len(b.move_stack) >= 2 and rng.random() < bias:
                    prev = str(b.move_stack[-2])
                    back = chariot.Move(prev[2:] + prev[:2])
                    if back in moves:
                        m = back
                capture = b.is_capture(m)
                b.push(m)
                if capture:
                    base, since, keys = b.fen(), [], [b.zobrist_key]
                else:
                    since.append(to_sf(m))
                    keys.append(b.zobrist_key)
                continue
            reason = o.reason if o else None
            ends[reason] = ends.get(reason, 0) + 1
            if reason in ("checkmate", "stalemate") or (v and v[0] == "nomove"):
                assert v[0] == "nomove" and reason in ("checkmate", "stalemate"), b.fen()
                # pyffish scores from the side to move, who has lost.
                assert v[1] < 0 and o.loser == b.turn
            elif reason in ("perpetual check", "perpetual chase", "mutual perpetual", "repetition draw"):
                assert v is not None and v[0] == "optional", (b.fen(), reason)
                rule_cycles += 1
                ours_value = 0 if o.winner is None else (1 if o.winner == b.turn else -1)
                sign = (v[1] > 0) - (v[1] < 0)
                agreed += ours_value == sign
                if reason == "perpetual check":
                    assert ours_value == sign, b.fen()
            elif v is not None and v[0] == "material":
                # pyffish's short material is short for Chariot too.
                assert reason == "insufficient material", (b.fen(), reason)
            elif reason == "60-move limit":
                assert v is not None and v[0] == "optional", b.fen()
            break
    assert ends.get("checkmate", 0) > 5, ends
    assert rule_cycles > 30, ends
    assert agreed >= 0.9 * rule_cycles, (agreed, rule_cycles)
