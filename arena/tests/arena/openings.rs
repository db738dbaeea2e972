//! Opening suites: the shipped suites are valid, and `arena openings` reads
//! `.xz` game lists.

use super::*;

#[test]
fn opening_suites_are_valid() {
    check_suite("data/openings.epd", 6..=10, 240);
    check_suite("data/openings-wide.epd", 8..=12, 760);
    check_suite("data/openings-deep.epd", 13..=16, 1000);
    check_suite("data/openings-deeper.epd", 17..=20, 1000);
}

/// Every line of a shipped suite: a valid position, reached by its `c0`
/// line of `plies` legal plies from the start; no position twice (nor its
/// mirror); `count` lines and the licence.
fn check_suite(file: &str, plies: std::ops::RangeInclusive<usize>, count_wanted: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let mut keys = std::collections::HashSet::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (fen, ops) = line.split_once(" c0 \"").unwrap();
        let pos = Position::from_fen(&format!("{fen} 0 1")).unwrap();
        let moves: Vec<&str> = ops.split('"').next().unwrap().split_whitespace().collect();
        assert!(plies.contains(&moves.len()), "{line}");
        let mut replay = Position::startpos();
        for m in &moves {
            let mv = replay.parse_move(m).unwrap();
            replay.play(mv).unwrap();
        }
        assert_eq!(replay.key(), pos.key(), "{line}");
        assert!(pos.has_legal_move() && !pos.in_check(), "{line}");
        let canonical = pos.key().min(pos.mirrored_key());
        assert!(keys.insert(canonical), "duplicate or mirror: {line}");
        count += 1;
    }
    assert_eq!(count, count_wanted);
    assert!(text.contains("CC BY 4.0"));
}

/// `arena openings` reads `.xz` game lists in-process: the same suite comes
/// out of a compressed list as out of the plain one, with no `xz` program
/// involved (`make-openings.sh` relies on it).
#[test]
fn openings_read_xz_game_lists_in_process() {
    use std::io::Write;
    let dir = scratch("openings-xz");
    let tsv = "game\tresult\tplies\tmoves\n\
        1\t1-0\t4\th2e2 h9g7 h0g2 i9h9\n\
        2\t0-1\t5\th2e2 h9g7 h0g2 i9h9 i0h0\n\
        3\t1/2-1/2\t4\th2e2 h9g7 h0g2 i9h9\n\
        4\t1-0\t4\tc3c4 g6g5 b0c2 b9c7\n";
    let plain = dir.join("games.iccs.tsv");
    std::fs::write(&plain, tsv).unwrap();
    let packed = dir.join("games.iccs.tsv.xz");
    let mut encoder = liblzma::write::XzEncoder::new(Vec::new(), 6);
    encoder.write_all(tsv.as_bytes()).unwrap();
    std::fs::write(&packed, encoder.finish().unwrap()).unwrap();

    let build = |input: &Path, out: &Path| {
        let status = Command::new(ARENA)
            .args(["openings", "--input"])
            .arg(input)
            .arg("--out")
            .arg(out)
            .args(["--count", "1", "--min-plies", "2", "--max-plies", "4"])
            .args(["--min-games", "2", "--max-imbalance", "0.1"])
            .env("PATH", "") // no external decompressor to fall back on
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        std::fs::read_to_string(out).unwrap()
    };
    let from_plain = build(&plain, &dir.join("plain.epd"));
    let from_packed = build(&packed, &dir.join("packed.epd"));
    assert!(from_plain.contains("h2e2 h9g7 h0g2 i9h9"), "{from_plain}");
    assert_eq!(from_plain, from_packed);

    // A damaged .xz file is refused with a message naming it.
    std::fs::write(&packed, b"not xz at all").unwrap();
    let out = Command::new(ARENA)
        .args(["openings", "--input"])
        .arg(&packed)
        .arg("--out")
        .arg(dir.join("bad.epd"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("games.iccs.tsv.xz"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
