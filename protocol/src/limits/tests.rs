use super::*;
use crate::command::Command;

fn go_of(line: &str) -> GoCommand {
    let Ok(Command::Go(go)) = line.parse::<Command>() else {
        panic!("{line:?} is not a go line");
    };
    *go
}

fn clock_of(line: &str, side: Color) -> Option<Clock> {
    clock(&go_of(line), side, &Options::default()).map(|(c, _)| c)
}

fn limits_of(line: &str, options: &Options) -> Limits {
    let pos = Position::startpos();
    let go = go_of(line);
    let clock = clock(&go, pos.side_to_move(), options).map(|(c, _)| c);
    limits(&go, clock, options)
}

#[test]
fn later_clock_token_of_the_same_meaning_wins() {
    let ms = Duration::from_millis;
    let time = |line: &str, side| clock_of(line, side).map(|c| (c.time, c.increment));
    // `time` and Red's `wtime` mean the same when Red is to move.
    assert_eq!(
        time("go time 60000 wtime 100", Color::Red),
        Some((ms(100), ms(0)))
    );
    assert_eq!(
        time("go wtime 100 time 60000", Color::Red),
        Some((ms(60000), ms(0)))
    );
    // `btime` is Black's: it does not override `time` for Red.
    assert_eq!(
        time("go time 60000 btime 100", Color::Red),
        Some((ms(60000), ms(0)))
    );
    assert_eq!(
        time("go btime 100 time 60000 increment 5 binc 7", Color::Black),
        Some((ms(60000), ms(7)))
    );
    assert_eq!(
        time("go wtime 100 winc 3 btime 900", Color::Red),
        Some((ms(100), ms(3)))
    );
    // Only the other side's clock: used, with a diagnostic.
    assert_eq!(
        time("go btime 900 binc 9", Color::Red),
        Some((ms(900), ms(9)))
    );
    assert_eq!(time("go depth 3", Color::Red), None);
}

#[test]
fn the_clock_says_whose_it_is() {
    let owner = |line: &str| clock(&go_of(line), Color::Red, &Options::default()).map(|(_, o)| o);
    assert_eq!(owner("go wtime 100"), Some(ClockOwner::Own));
    assert_eq!(owner("go time 100"), Some(ClockOwner::Own));
    assert_eq!(owner("go btime 100"), Some(ClockOwner::Other));
    assert_eq!(owner("go movetime 100"), None);
}

#[test]
fn ucci_clock_units_follow_usemillisec_and_are_clamped() {
    let ms = Duration::from_millis;
    let seconds = Options {
        usemillisec: false,
        ..Options::default()
    };
    let with = |line: &str, options: &Options| {
        clock(&go_of(line), Color::Red, options).map(|(c, _)| (c.time, c.increment, c.overhead))
    };
    assert_eq!(
        with("go time 60 increment 2", &seconds),
        Some((ms(60_000), ms(2_000), ms(10)))
    );
    assert_eq!(
        with("go time 60 increment 2", &Options::default()),
        Some((ms(60), ms(2), ms(10)))
    );
    // UCI clocks are always milliseconds.
    assert_eq!(
        with("go wtime 60 winc 2", &seconds),
        Some((ms(60), ms(2), ms(10)))
    );
    // Seconds that overflow the longest time are clamped to it.
    assert_eq!(
        with("go time 2147483647", &seconds).map(|c| c.0),
        Some(ms(MAX_TIME_MS))
    );
    let overhead = Options {
        move_overhead_ms: 250,
        ..Options::default()
    };
    assert_eq!(with("go wtime 60", &overhead).map(|c| c.2), Some(ms(250)));
}

#[test]
fn limits_clamp_depth_and_default_to_infinite() {
    let options = Options::default();
    let deep = limits_of("go depth 100000", &options);
    assert_eq!(
        deep.depth,
        Some(u32::try_from(engine::MAX_PLY - 1).unwrap())
    );
    assert!(!deep.infinite);
    assert_eq!(limits_of("go depth 7", &options).depth, Some(7));
    assert!(limits_of("go", &options).infinite);
    assert!(limits_of("go infinite", &options).infinite);
    assert!(!limits_of("go movetime 100", &options).infinite);
    assert!(limits_of("go ponder wtime 1000", &options).ponder);
    // The root moves are the engine's to decide.
    assert!(limits_of("go depth 1", &options).root_moves.is_empty());
    let multipv = Options {
        multipv: 0,
        ..Options::default()
    };
    assert_eq!(limits_of("go depth 1", &multipv).multipv, 1);
}

#[test]
fn only_a_pure_clock_search_consults_the_book() {
    let options = Options::default();
    let start = Position::startpos();
    let asks =
        |line: &str, options: &Options| consults_book(&limits_of(line, options), &start, options);
    assert!(asks("go wtime 60000", &options));
    assert!(asks("go movetime 1000", &options));
    for line in [
        "go depth 5",
        "go wtime 60000 nodes 1000",
        "go wtime 60000 mate 3",
        "go ponder wtime 60000",
        "go infinite",
        "go",
    ] {
        assert!(!asks(line, &options), "{line}");
    }
    let off = Options {
        usebook: false,
        ..Options::default()
    };
    assert!(!asks("go wtime 60000", &off));
    let lines = Options {
        multipv: 2,
        ..Options::default()
    };
    assert!(!asks("go wtime 60000", &lines));
    // `bookdepth` counts plies from the game's start: Black's first move
    // is ply 1.
    let mut after = start.clone();
    after.make_move(after.legal_moves()[0]);
    let shallow = Options {
        bookdepth: 1,
        ..Options::default()
    };
    let limits = limits_of("go wtime 60000", &shallow);
    assert!(consults_book(&limits, &start, &shallow));
    assert!(!consults_book(&limits, &after, &shallow));
}
