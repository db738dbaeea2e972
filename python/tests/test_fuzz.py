"""Property tests: random FENs, move texts and bytes at every entry point
raise documented exceptions (or succeed), never crash."""

import string

from hypothesis import HealthCheck, given, settings, strategies as st

import chariot

FEN_CHARS = "rnbakcpRNBAKCPEHeh0123456789/ wbr-"
documented = (ValueError, chariot.ChariotError)

fen_like = st.one_of(
    st.text(alphabet=FEN_CHARS, max_size=90),
    st.text(max_size=60),
    st.lists(st.sampled_from(["rnbakabnr", "9", "4k4", "4K4", "p1p1p1p1p", "1c5c1", "3AK4"]), min_size=8, max_size=11).map(
        lambda ranks: "/".join(ranks) + " w - - 0 1"
    ),
)
move_text = st.one_of(
    st.text(max_size=8),
    st.text(alphabet="abcdefghijABCDEFGHIJ0123456789-+.=", min_size=3, max_size=6),
    st.text(alphabet="车马炮兵卒相象仕士帅将一二三四五六七八九进退平前中后１２３４５６７８９", min_size=3, max_size=5),
)
fast = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(fen_like)
def test_any_fen(fen):
    try:
        b = chariot.Board(fen)
    except chariot.FenError as e:
        assert str(e)
        return
    # A board that was accepted works throughout.
    assert chariot.Board(b.fen()) == b
    for m in b.legal_moves()[:5]:
        b.push(m)
        b.outcome()
        b.pop()
    chariot.perft(b, 2)
    b.mirror()


@fast
@given(move_text)
def test_any_move_text(text):
    b = chariot.Board()
    for call in (b.push, b.parse_move, b.is_legal, b.wxf, b.chinese, b.gives_check, chariot.Move):
        try:
            call(text)
        except chariot.MoveError:
            pass
    try:
        chariot.adjudicate([text])
    except chariot.MoveError:
        pass
    try:
        chariot.Game(moves=[text])
    except chariot.MoveError:
        pass


@fast
@given(st.binary(max_size=200))
def test_any_book_bytes(data):
    try:
        book = chariot.Book.from_bytes(data)
    except chariot.BookError:
        return
    book.probe(chariot.Board())
    len(book)


@fast
@given(st.text(max_size=300))
def test_any_pgn_and_epd_text(text):
    for read in (chariot.read_pgn, chariot.read_epd):
        try:
            read(text)
        except documented:
            pass
        read(text, skip_errors=True)


@fast
@given(st.text(alphabet=string.printable + "炮二平五", max_size=200))
def test_pgn_shaped_text(body):
    text = '[Event "x"]\n\n1. ' + body
    try:
        chariot.read_pgn(text)
    except chariot.PgnError:
        pass


@fast
@given(st.one_of(st.integers(), st.text(max_size=5)))
def test_any_square(sq):
    try:
        chariot.Board().piece_at(sq)
    except (ValueError, OverflowError, TypeError):
        pass
