//! What the engine plays for one move. A front end turns a `go` into a
//! [`MoveRequest`] (the position, the limits, the moves the GUI allows and
//! the game bans, the book's proposal) and the [`Answer`] into lines; the
//! decisions between the two live here, once:
//!
//! - which root moves may be played ([`allowed_moves`]);
//! - the answer without a search: no legal move, no allowed move, or
//!   depth 0, scored by the evaluation that plays ([`Engine::prepare`]);
//! - the book check and its searches ([`book_check`], driven by [`Go`]);
//! - the move played and its ponder move, and whether a draw offer is
//!   accepted ([`Answer`]).
//!
//! A request is answered in two steps so that a front end can say what
//! was decided before any search prints: [`Engine::prepare`] decides
//! everything that needs no search ([`Prepared`]), [`Ready::start`]
//! starts the searches. While they run the front end waits on
//! [`Engine::finished`], steers with [`crate::SearchHandle`] and, each time
//! a search ends, calls [`Go::advance`], which starts the book check's next
//! search or gives the answer; [`Go::stop`] ends it early with the move
//! the searches support so far.

pub mod book_check;

use std::sync::Arc;
use std::time::Instant;

use board::{Move, Position};

use crate::{Engine, Event, Limits, SearchResult};
use book_check::{BookCheck, Step, Verdict};

/// What a front end asks for one move.
#[derive(Clone, Debug)]
pub struct MoveRequest {
    /// The position, with the game's history for the rules.
    pub pos: Position,
    /// The search's limits, the strength level's included. Their
    /// `root_moves` are set by the engine from the two lists below.
    pub limits: Limits,
    /// The moves the GUI limits the search to (`searchmoves`); empty, or
    /// none of them legal: every legal move.
    pub search_moves: Vec<Move>,
    /// Moves the game forbids here (UCCI `banmoves`).
    pub banned: Vec<Move>,
    /// The book's move, to be checked by search before it is played;
    /// ignored when it is not an allowed move.
    pub book_move: Option<Move>,
}

impl MoveRequest {
    /// A request to search `pos` with `limits`, every legal move allowed,
    /// no book.
    pub fn new(pos: Position, limits: Limits) -> MoveRequest {
        MoveRequest {
            pos,
            limits,
            search_moves: Vec::new(),
            banned: Vec::new(),
            book_move: None,
        }
    }
}

/// The moves a request may play: legal, not banned, and among
/// `search_moves` when those name any legal move.
pub fn allowed_moves(pos: &Position, search_moves: &[Move], banned: &[Move]) -> Vec<Move> {
    let legal = pos.legal_moves();
    let mut allowed: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| !banned.contains(m))
        .collect();
    if search_moves.iter().any(|m| legal.contains(m)) {
        allowed.retain(|m| search_moves.contains(m));
    }
    allowed
}

/// How an [`Answer`] came about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerKind {
    /// By search (or the book check's searches).
    Searched,
    /// The side to move has no legal move: it has lost (mate or
    /// stalemate). No move; the score is `Mate(0)`.
    NoLegalMove,
    /// Every legal move is banned or outside `searchmoves`. No move.
    NoAllowedMove,
    /// A depth-0 request: the static evaluation that plays, no move.
    DepthZero,
}

/// The engine's answer to a [`MoveRequest`].
#[derive(Clone, Debug)]
pub struct Answer {
    /// How it came about.
    pub kind: AnswerKind,
    /// The move to play (`best`: an allowed move, or `None` without one;
    /// `ponder`: legal after it), with the score, depth, nodes and time of
    /// the search that chose it.
    pub result: SearchResult,
}

impl Answer {
    /// Whether a draw offered by the opponent is accepted: when the move
    /// played scores no better than even.
    pub fn accepts_draw(&self) -> bool {
        self.result.score.value() <= 0
    }
}

/// A request decided as far as it can be without a search
/// ([`Engine::prepare`]).
#[derive(Debug)]
pub enum Prepared {
    /// Answered without a search.
    Answered(Answer),
    /// Searches are needed: [`Ready::start`] them.
    Ready(Box<Ready>),
}

/// A request that needs searches, with everything decided before them.
#[derive(Debug)]
pub struct Ready {
    pos: Position,
    allowed: Vec<Move>,
    /// The first search's limits (the book check's, when it checks).
    limits: Limits,
    check: Option<BookCheck>,
    started: Instant,
}

/// Where a search's events go: the main search thread calls it; every
/// search of one request shares it.
pub type EventSink = Arc<dyn Fn(Event) + Send + Sync>;

impl Engine {
    /// The static evaluation of `pos` that plays: the network's, when one
    /// evaluates ([`Engine::network`]), else the hand-written one; the
    /// score a search at depth 0 gives.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        match self.network() {
            Some(net) => crate::search::clamp_network_score(net.evaluate(pos)),
            None => crate::eval::evaluate(pos),
        }
    }

    /// Decides what `request` needs: an answer without a search (no legal
    /// or allowed move, depth 0), or the searches ([`Ready`]), with the
    /// book move kept for its check only when it is allowed.
    pub fn prepare(&self, request: MoveRequest) -> Prepared {
        let started = Instant::now();
        let MoveRequest {
            pos,
            mut limits,
            search_moves,
            banned,
            book_move,
        } = request;
        let without_search = |kind, score| {
            Prepared::Answered(Answer {
                kind,
                result: SearchResult {
                    score,
                    ..SearchResult::empty()
                },
            })
        };
        if !pos.has_legal_move() {
            return without_search(AnswerKind::NoLegalMove, crate::Score::Mate(0));
        }
        let allowed = allowed_moves(&pos, &search_moves, &banned);
        if allowed.is_empty() {
            return without_search(AnswerKind::NoAllowedMove, crate::Score::Cp(0));
        }
        if limits.depth == Some(0) {
            let eval = self.evaluate(&pos);
            return without_search(AnswerKind::DepthZero, crate::Score::Cp(eval));
        }
        limits.root_moves = if allowed.len() == pos.legal_moves().len() {
            Vec::new()
        } else {
            allowed.clone()
        };
        let check = book_move.filter(|m| allowed.contains(m)).map(|mv| {
            let (check, first) = BookCheck::new(mv, limits.clone());
            limits = first;
            check
        });
        Prepared::Ready(Box::new(Ready {
            pos,
            allowed,
            limits,
            check,
            started,
        }))
    }
}

impl Ready {
    /// The book move the searches check, if any.
    pub fn book_move(&self) -> Option<Move> {
        self.check.as_ref().map(BookCheck::book_move)
    }

    /// The limits of the first search.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Starts the first search on `engine`'s threads; its events (and
    /// those of the check's later searches) go to `on_event`.
    pub fn start(self: Box<Self>, engine: &mut Engine, on_event: EventSink) -> Go {
        let sink = Arc::clone(&on_event);
        engine.start(self.pos.clone(), self.limits, Box::new(move |e| sink(e)));
        Go {
            pos: self.pos,
            allowed: self.allowed,
            check: self.check,
            started: self.started,
            on_event,
        }
    }
}

/// A request being searched (see the module docs).
pub struct Go {
    pos: Position,
    allowed: Vec<Move>,
    /// The book move under check while the searches are the check's; the
    /// move played unless the check refuses it.
    check: Option<BookCheck>,
    /// When the request came: the check's searches charge the clock from
    /// here.
    started: Instant,
    on_event: EventSink,
}

impl std::fmt::Debug for Go {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Go")
            .field("pos", &self.pos.fen())
            .field("check", &self.check)
            .finish_non_exhaustive()
    }
}

/// What [`Go::advance`] did.
#[derive(Debug)]
pub enum Progress {
    /// The book check started its next search; `Some` (the book move and
    /// the verdict) when this step refused the book move and the search
    /// for another move started.
    Searching(Option<(Move, Verdict)>),
    /// The move is chosen; `Some` (the book move and the verdict) when the
    /// book check's verdict chose it.
    Done(Answer, Option<(Move, Verdict)>),
}

impl Go {
    /// The book move under check, if any.
    pub fn book_move(&self) -> Option<Move> {
        self.check.as_ref().map(BookCheck::book_move)
    }

    /// Collects the search that has ended (call it when
    /// [`Engine::finished`] says so) and starts the book check's next
    /// search, or gives the answer.
    pub fn advance(&mut self, engine: &mut Engine) -> Progress {
        let result = engine.wait();
        let Some(check) = self.check.as_mut() else {
            return Progress::Done(self.answer(&result), None);
        };
        let book_move = check.book_move();
        let (next, verdict) = match check.next(&result, self.started.elapsed()) {
            Step::Search(limits) => (limits, None),
            Step::Play(verdict) => {
                return Progress::Done(self.answer(&result), Some((book_move, verdict)));
            }
            Step::Refuse(verdict, limits) => {
                self.check = None;
                (limits, Some((book_move, verdict)))
            }
        };
        let sink = Arc::clone(&self.on_event);
        engine.start(self.pos.clone(), next, Box::new(move |e| sink(e)));
        Progress::Searching(verdict)
    }

    /// Stops the running search and answers with what the searches found:
    /// the search's move, or the book move while the check holds it (kept,
    /// or stopped before a verdict).
    pub fn stop(self, engine: &mut Engine) -> Answer {
        engine.handle().stop();
        let result = engine.wait();
        self.answer(&result)
    }

    /// The answer from the last search's `result`: the book move while
    /// the check holds it, else the search's move; the ponder move only
    /// when it answers the move played.
    fn answer(&self, result: &SearchResult) -> Answer {
        let chosen = self
            .check
            .as_ref()
            .map_or(result.best, |c| Some(c.book_move()));
        // The search only plays allowed moves (they are its root moves);
        // the first allowed move stands in should it have none.
        let best = chosen
            .filter(|m| self.allowed.contains(m))
            .or_else(|| self.allowed.first().copied());
        let ponder = best.and_then(|best| {
            let mut after = self.pos.clone();
            after.make_move(best);
            result
                .ponder
                .filter(|&p| result.best == Some(best) && after.is_legal(p))
        });
        Answer {
            kind: AnswerKind::Searched,
            result: SearchResult {
                best,
                ponder,
                ..*result
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Score;

    fn mv(pos: &Position, text: &str) -> Move {
        pos.parse_move(text).expect("a legal move")
    }

    #[test]
    fn allowed_moves_are_legal_unbanned_and_within_searchmoves() {
        let pos = Position::startpos();
        let legal = pos.legal_moves().len();
        assert_eq!(allowed_moves(&pos, &[], &[]).len(), legal);
        let h2e2 = mv(&pos, "h2e2");
        let b2e2 = mv(&pos, "b2e2");
        assert_eq!(allowed_moves(&pos, &[], &[h2e2]).len(), legal - 1);
        assert_eq!(allowed_moves(&pos, &[h2e2, b2e2], &[h2e2]), vec![b2e2]);
        // Searchmoves that name no legal move restrict nothing.
        let illegal: Move = "a0a9".parse().expect("a move");
        assert_eq!(allowed_moves(&pos, &[illegal], &[]).len(), legal);
    }

    fn answered(engine: &Engine, request: MoveRequest) -> Answer {
        match engine.prepare(request) {
            Prepared::Answered(a) => a,
            Prepared::Ready(_) => panic!("a search was needed"),
        }
    }

    #[test]
    fn requests_without_a_search_are_answered_at_once() {
        let engine = Engine::new();
        let mated =
            Position::from_fen("3k5/4R4/4R4/9/9/9/9/9/9/4K4 b - - 0 1").expect("a position");
        let a = answered(&engine, MoveRequest::new(mated, Limits::default()));
        assert_eq!(a.kind, AnswerKind::NoLegalMove);
        assert_eq!((a.result.best, a.result.score), (None, Score::Mate(0)));

        let pos = Position::startpos();
        let every: Vec<Move> = pos.legal_moves().into_iter().collect();
        let request = MoveRequest {
            banned: every,
            ..MoveRequest::new(pos.clone(), Limits::default())
        };
        assert_eq!(answered(&engine, request).kind, AnswerKind::NoAllowedMove);

        // Depth 0 is scored by the evaluation that plays.
        let depth0 = Limits {
            depth: Some(0),
            ..Limits::default()
        };
        let a = answered(&engine, MoveRequest::new(pos.clone(), depth0));
        assert_eq!(a.kind, AnswerKind::DepthZero);
        assert_eq!(a.result.score, Score::Cp(engine.evaluate(&pos)));
    }

    #[test]
    fn the_searches_play_only_allowed_moves_and_a_book_move_only_if_allowed() {
        let mut engine = Engine::new();
        let pos = Position::startpos();
        let only = mv(&pos, "a3a4");
        let request = MoveRequest {
            search_moves: vec![only],
            book_move: Some(mv(&pos, "h2e2")),
            ..MoveRequest::new(
                pos,
                Limits {
                    depth: Some(3),
                    ..Limits::default()
                },
            )
        };
        let Prepared::Ready(ready) = engine.prepare(request) else {
            panic!("a search is needed");
        };
        assert_eq!(ready.book_move(), None, "h2e2 is not allowed");
        assert_eq!(ready.limits().root_moves, vec![only]);
        let mut go = ready.start(&mut engine, Arc::new(|_| {}));
        let Progress::Done(answer, None) = go.advance(&mut engine) else {
            panic!("one search answers");
        };
        assert_eq!(answer.result.best, Some(only));
        assert_eq!(answer.kind, AnswerKind::Searched);
    }
}
