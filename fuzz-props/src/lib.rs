//! The properties the fuzz targets check, written once: `fuzz/` (cargo-fuzz,
//! nightly) calls them on generated inputs, and `tests/fuzz_corpus.rs`
//! (stable) replays the seed corpus and every past finding through them.
//! [`lines`] is the grammar of random protocol lines that the seeded test
//! of the binary (`cli/tests/fuzz.rs`) and `examples/storm.rs` send.
//!
//! Each function takes raw bytes, never fails on bad input, and panics only
//! when a property is broken; the panic message says which.
//!
//! A crate of its own (`publish = false`) so that the fuzz crate and the
//! tests reach the properties without their being part of the `protocol`
//! library that the binary and the C library link.

use board::{Move, Position};

use protocol::command::Command;
use protocol::notation::Notation;
use protocol::output::{Captured, Output};
use protocol::session::{Input, Session};

pub mod lines;

/// Positions the move-text and book targets try their input against: the
/// start, a middle game, an endgame with Black to move, and a check.
pub const POSITIONS: &[&str] = &[
    board::START_FEN,
    "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/2P6/P3P1P1P/1C2C1N2/9/RNBAKAB1R b - - 0 1",
    "3ak4/4a4/4b4/9/9/9/9/4B4/4A4/3AK4 b - - 0 1",
    "4k4/4R4/9/9/9/9/9/9/9/4K4 b - - 0 1",
];

fn positions() -> impl Iterator<Item = Position> {
    POSITIONS
        .iter()
        .map(|f| Position::from_fen(f).expect("a fuzzing position"))
}

/// Checks that make then unmake of every legal move restores the position,
/// its FEN and its key, and that the incremental key after the move equals
/// a key computed from scratch.
fn check_make_unmake(pos: &mut Position) {
    let fen = pos.fen();
    let key = pos.key();
    for m in pos.legal_moves() {
        assert!(pos.is_legal(m), "generated {m} is not legal in {fen}");
        pos.make_move(m);
        assert_eq!(pos.key(), pos.compute_key(), "key after {m} from {fen}");
        pos.unmake_move();
        assert_eq!(pos.key(), key, "key not restored after {m} in {fen}");
        assert_eq!(pos.fen(), fen, "position not restored after {m}");
    }
}

/// `fen`: arbitrary text as a FEN. An accepted FEN round-trips
/// (FEN → position → FEN → position gives the same key and FEN), and make
/// and unmake of every legal move restore the position and its key.
pub fn fen(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut pos) = Position::from_fen(text) else {
        return;
    };
    let fen = pos.fen();
    let again = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen:?} re-read: {e}"));
    assert_eq!(again.fen(), fen, "FEN round trip of {text:?}");
    assert_eq!(again.key(), pos.key(), "key round trip of {text:?}");
    assert_eq!(pos.key(), pos.compute_key(), "key of {text:?}");
    check_make_unmake(&mut pos);
}

/// `moves`: arbitrary text as a move, in every reader (board ICCS, the
/// session's ICCS and ranks 1–10, the book's ICCS, Chinese and WXF) and in
/// each of [`POSITIONS`]. No reader panics; a move any reader accepts is
/// legal there.
pub fn moves(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for pos in positions() {
        let mut accepted: Vec<Move> = Vec::new();
        accepted.extend(pos.parse_move(text).ok());
        accepted.extend(Notation::Iccs.read(&pos, text).ok());
        accepted.extend(Notation::Ranks1To10.read(&pos, text).ok());
        accepted.extend(book::notation::parse_iccs(&pos, text).ok());
        accepted.extend(book::notation::parse_any(&pos, text).ok());
        accepted.extend(book::notation::parse_notation(&pos, text).ok());
        for m in accepted {
            assert!(
                pos.is_legal(m),
                "{text:?} read as illegal {m} in {}",
                pos.fen()
            );
            let shown = Notation::Ranks1To10.show(m).to_string();
            assert_eq!(Notation::Ranks1To10.read(&pos, &shown).ok(), Some(m));
        }
    }
}

/// `book`: arbitrary bytes as a book file (Chariot's format or
/// `BOOK.DAT`, told apart as the engine does). An accepted book returns
/// only legal moves in each of [`POSITIONS`], its mirrors and the
/// positions one move later.
pub fn book(data: &[u8]) {
    let Ok(any) = book::AnyBook::from_bytes(data) else {
        return;
    };
    let set = book::BookSet::from_books(vec![any]);
    for start in positions() {
        let mut probes = vec![start.mirror()];
        let mut pos = start.clone();
        for m in start.legal_moves() {
            pos.make_move(m);
            probes.push(pos.clone());
            pos.unmake_move();
        }
        probes.push(start);
        for p in &probes {
            for (m, _) in set.candidates(p) {
                assert!(p.is_legal(m), "book move {m} is illegal in {}", p.fen());
            }
            if let Some(choice) = set.choose(p, 50, 1) {
                assert!(p.is_legal(choice.mv), "book chose illegal {}", choice.mv);
            }
        }
    }
}

/// `network`: arbitrary bytes as a network file, and the same bytes as
/// patches to the shipped network's payload under a recomputed checksum
/// (random bytes never get past the checksum; the patches reach the
/// weights). Loading never panics; an accepted network evaluates
/// [`POSITIONS`] and the positions one move later, and the incremental
/// (SIMD) accumulator agrees with the scalar from-scratch evaluation.
pub fn network(data: &[u8]) {
    if let Ok(net) = engine::nnue::Network::from_bytes(data) {
        evaluate_everywhere(&net);
    }
    if let Some(patched) = patched_network(data)
        && let Ok(net) = engine::nnue::Network::from_bytes(&patched)
    {
        evaluate_everywhere(&net);
    }
}

/// The shipped network's file with `data` applied as patches of five
/// bytes each (a little-endian `u32` payload offset, taken modulo the
/// payload, and the byte to put there), its checksum recomputed. `None`
/// when the build ships no network.
fn patched_network(data: &[u8]) -> Option<Vec<u8>> {
    use engine::nnue::network::{HEADER_BYTES, fnv1a32};
    static SHIPPED: std::sync::OnceLock<Option<Vec<u8>>> = std::sync::OnceLock::new();
    let mut file = SHIPPED
        .get_or_init(|| engine::nnue::embedded().map(|n| n.to_bytes()))
        .clone()?;
    let payload = file.len() - HEADER_BYTES;
    for patch in data.chunks_exact(5) {
        let offset = u32::from_le_bytes([patch[0], patch[1], patch[2], patch[3]]) as usize;
        file[HEADER_BYTES + offset % payload] = patch[4];
    }
    let checksum = fnv1a32(&file[HEADER_BYTES..]);
    file[HEADER_BYTES - 4..HEADER_BYTES].copy_from_slice(&checksum.to_le_bytes());
    Some(file)
}

fn evaluate_everywhere(net: &engine::nnue::Network) {
    let check = |pos: &Position| {
        let scratch = net.evaluate(pos);
        let acc = engine::nnue::Accumulator::new(net, pos);
        assert_eq!(acc.evaluate(net, pos), scratch, "{}", pos.fen());
    };
    for mut pos in positions() {
        check(&pos);
        for m in pos.legal_moves() {
            pos.make_move(m);
            check(&pos);
            pos.unmake_move();
        }
    }
}

/// `records`: arbitrary bytes as a training games file
/// (`engine::nnue::games`). Reading never panics; every accepted game
/// replays (the reader checked it), passes the filters without a panic,
/// and writes back to the same bytes it was read from.
pub fn records(data: &[u8]) {
    use engine::nnue::games::{Filters, GAMES_HEADER_BYTES, GameReader, GameWriter, Selector};
    let Ok(reader) = GameReader::new(data) else {
        return;
    };
    let mut selector = Selector::new(Filters::default());
    let mut accepted = Vec::new();
    for game in reader.take(16) {
        let Ok(game) = game else { break };
        let mut plies = 0;
        game.replay(|pos, ply| {
            let _ = selector.judge(pos, ply);
            plies += 1;
        })
        .expect("an accepted game replays");
        assert_eq!(plies, game.plies.len());
        accepted.push(game);
    }
    let mut writer = GameWriter::new(Vec::new()).expect("a header to memory");
    for g in &accepted {
        writer.write(g).expect("an accepted game writes");
    }
    let bytes = writer.finish().expect("memory");
    let n = bytes.len();
    assert_eq!(
        &bytes[GAMES_HEADER_BYTES..],
        &data[GAMES_HEADER_BYTES..n],
        "round trip"
    );
}

/// `games`: arbitrary text as PGN and as a TSV game list (the book
/// builder's inputs). A game that replays yields only legal moves.
pub fn games(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let pgn = book::pgn::parse_games(text)
        .into_iter()
        .filter_map(|g| g.replay().ok());
    for (start, moves) in pgn {
        let mut pos = start;
        for m in moves {
            assert!(pos.is_legal(m), "PGN replay gave illegal {m}");
            pos.make_move(m);
        }
    }
    for game in book::pgn::parse_tsv(text).take(64).flatten() {
        let mut pos = Position::startpos();
        for text in &game.moves {
            let Ok(m) = book::notation::parse_iccs(&pos, text) else {
                break;
            };
            pos.make_move(m);
        }
    }
}

/// `epd`: arbitrary bytes as an EPD suite (`chariot epd`'s input, read
/// leniently as UTF-8 as the command does). Reading never panics; the
/// entries come in line order; an accepted record's position reads back
/// from its FEN, and its `bm` and `am` moves are legal there.
pub fn epd(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut last_line = 0;
    for entry in book::epd::parse(&text) {
        let line = match &entry {
            Ok(r) => r.line,
            Err(e) => e.line,
        };
        assert!(line > last_line, "line {line} after line {last_line}");
        last_line = line;
        let Ok(record) = entry else { continue };
        let again = Position::from_fen(&record.fen)
            .unwrap_or_else(|e| panic!("an accepted FEN {:?} re-read: {e}", record.fen));
        assert_eq!(again.key(), record.position.key(), "{}", record.fen);
        for m in record.best.iter().chain(&record.avoid) {
            assert!(record.position.is_legal(*m), "{m} in {}", record.fen);
        }
    }
}

/// Rewrites one input line so that a session stays fast and local: every
/// `go` becomes `go depth 1` (preceded by `d`, so the output shows the
/// position it searches), and lines that would take long or touch the
/// file system or memory (`perft`, `bench`, hash sizes, files, threads)
/// are dropped.
fn tame(line: &str) -> Vec<String> {
    let lower = line.to_ascii_lowercase();
    if ["hash", "file", "thread", "bench", "perft"]
        .iter()
        .any(|w| lower.contains(w))
    {
        return Vec::new();
    }
    match line.parse::<Command>() {
        Ok(Command::Go(_)) => vec!["d".to_string(), "go depth 1".to_string()],
        _ => vec![line.to_string()],
    }
}

/// At most this many lines of one input reach the session: a longer input
/// adds nothing a shorter one cannot, and would only slow the fuzzer.
const MAX_PROTOCOL_LINES: usize = 64;

fn input_lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    data.split(|&b| b == b'\n').take(MAX_PROTOCOL_LINES)
}

/// How many lines of `data` [`protocol()`] feeds to the session (before
/// taming), for the fuzz target's count of lines tried.
pub fn protocol_lines(data: &[u8]) -> usize {
    input_lines(data).count()
}

/// `protocol`: arbitrary bytes split into lines and fed, tamed (see
/// `tame`), to a whole in-process session, as the reader would. The
/// session ends; no `go` gets more than one `bestmove`; every `bestmove`
/// (and its `ponder`) is legal in the position the session had, as its `d`
/// output showed just before. Returns the number of `bestmove` lines
/// checked, so that a test can tell the check ran.
pub fn protocol(data: &[u8]) -> usize {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut gos = 0usize;
    let mut variant = false;
    for raw in input_lines(data) {
        let line = String::from_utf8_lossy(raw);
        let line = line.trim_end_matches('\r');
        variant |= line.to_ascii_lowercase().contains("variant");
        for tamed in tame(line) {
            gos += usize::from(tamed == "go depth 1");
            let _ = tx.send(Input::Line(tamed.parse::<Command>()));
        }
    }
    let _ = tx.send(Input::Eof);
    drop(tx);
    let captured = Captured::default();
    Session::new(Output::new(Box::new(captured.clone()))).run(&rx);
    check_transcript(&captured.text(), gos, variant)
}

/// Checks a session's output: each `bestmove` is legal in the last `Fen:`
/// the `d` before its `go` printed (ranks 1–10 accepted too once the input
/// named `UCI_Variant`), and there are no more `bestmove` lines than `go`s
/// sent (fewer when a `quit` cut the input short). `bestmove (none)` and
/// `nobestmove` need no check.
fn check_transcript(text: &str, gos: usize, variant: bool) -> usize {
    let mut current: Option<Position> = None;
    let mut bestmoves = 0usize;
    for line in text.lines() {
        if let Some(fen) = line.strip_prefix("Fen: ") {
            current =
                Some(Position::from_fen(fen).unwrap_or_else(|e| panic!("d printed {fen}: {e}")));
            continue;
        }
        let mut words = line.split_whitespace();
        match words.next() {
            Some("bestmove") if !line.contains("(none)") => {
                bestmoves += 1;
                let pos = current
                    .take()
                    .unwrap_or_else(|| panic!("{line:?} without a position"));
                let mv = words.next().unwrap_or_default();
                let best = read_printed(&pos, mv, variant)
                    .unwrap_or_else(|| panic!("{line:?} is illegal in {}", pos.fen()));
                if let (Some("ponder"), Some(p)) = (words.next(), words.next()) {
                    let mut after = pos.clone();
                    after.make_move(best);
                    assert!(
                        read_printed(&after, p, variant).is_some(),
                        "{line:?}: illegal ponder"
                    );
                }
            }
            Some("bestmove" | "nobestmove") => current = None,
            _ => {}
        }
    }
    assert!(
        bestmoves <= gos,
        "{bestmoves} bestmove lines for {gos} go commands"
    );
    bestmoves
}

fn read_printed(pos: &Position, text: &str, variant: bool) -> Option<Move> {
    let iccs = Notation::Iccs.read(pos, text).ok();
    if variant {
        iccs.or_else(|| Notation::Ranks1To10.read(pos, text).ok())
    } else {
        iccs
    }
}
