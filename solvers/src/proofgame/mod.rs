//! Shortest proof games: every game from the initial array that reaches the
//! diagram in exactly the stipulated number of half-moves.
//!
//! Two layers, as in the strong solvers:
//! - [`analysis`]: static deductions from the diagram alone (units that
//!   never moved, distances around them, a matching of the board's units to
//!   the diagram's) giving each side's least number of moves and captures
//!   still needed. When even the initial array cannot meet the diagram the
//!   verdict is `illegal`; when the stipulated length is too short it is
//!   `no_solution`, without any search.
//! - the search: depth-first over the exact length, pruned by that bound at
//!   every node, with a table of (position, plies left) → number of games,
//!   so all solutions are counted exactly; the games themselves are listed
//!   up to a cap.
//!
//! Verdicts follow Stelvio: only games of the stipulated parity count; a
//! shorter one of the same parity also cooks the problem and is reported as
//! a short solution.
//!
//! ## The bound
//!
//! The matching is computed for moves, pawn captures and forced straight
//! pawn steps; the units the opponent's pawns must capture first walk to
//! the squares those pawns can capture on within their side's budget; a
//! side that must still capture with pieces alone sends one to where the
//! opponent can lose a unit and back. Distances account for the diagram
//! pawns that walked straight up their files (their side captured at most
//! once, their neighbours never moved): a rook or queen never slides along
//! such a file across the pawn's whole stretch.
//!
//! Each move is bounded before it is played: the mover's matching and its
//! dual potentials (LP duality) give a lower bound of its need after the
//! move from the moved unit's new costs alone, so most moves the bound
//! would reject are never made. A side with at most two moves to spare
//! must also find one order of its own moves, alone on the board but for
//! the opponent's units that never move, that reaches its diagram units:
//! units that bar each other's ways in every order are caught there (a
//! bounded search per side, cached by its units, in `solo`; past its bound
//! it prunes nothing).
//!
//! ## The count
//!
//! `n_solutions` is exact and the first [`DEFAULT_SOLUTION_CAP`] games are
//! listed. The games found still decide a cook when the budget runs out
//! (two of the stipulated length, or one shorter): the judgement is then
//! `Cooked` and the count a lower bound (so it is, too, past 2^56 games);
//! with fewer, `Unsolved`. Stated final rights (see [`Rights`]) apply to
//! shorter games as well. A diagram king in check has its last move
//! retracted and each position before it searched on its own (those that
//! fail the cheap or static retro legality tests, above all those in which
//! the check was already given, are impossible and left out).
//!
//! The table ([`Options::table`]) may be kept from one problem to the next,
//! since its entries stay true for any problem: a fresh one would map its
//! memory in again page by page, which costs more than the search on most
//! problems and makes threads wait on each other (see
//! [`crate::stage::Resources`]). Threads share the search the Stelvio way:
//! all walk the top [`Options::sync_depth`] plies in the same order and
//! claim each node there with one atomic maximum.

pub mod analysis;
mod assign;
mod hash;
mod items;
mod memo;
mod prove;
mod rights;
mod search;
mod solo;
pub use items::{ItemKey, ItemResult, Ledger, Sample};
use prove::*;
pub use prove::{first_rejected_prefix, may_reach, prove};
use rights::*;
pub use rights::{Rights, RightsGroup};

use std::time::{Duration, Instant};

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position, Setup,
    Square,
};

use crate::mate::{render_line, Line};
use crate::transposition::Table;
use analysis::Analysis;
use items::Work;
use search::{add_games, Goal, Shared, Worker, MAX_GAMES};

/// Where a long search stands, for the progress callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The length (half-moves) being counted.
    pub plies: u32,
    pub nodes: u64,
    /// Diagram positions reached so far (a lower bound on the games).
    pub solutions: u64,
    pub elapsed: Duration,
}

/// How to search.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// Stop (verdict `unsolved`) after this instant.
    pub deadline: Option<Instant>,
    /// Transposition table budget.
    pub hash_mb: u64,
    /// A table to search with instead of a fresh one of `hash_mb` (it may
    /// hold earlier searches' entries, which stay valid): one that served
    /// before has its memory mapped already, which a fresh one pays for
    /// page by page.
    pub table: Option<&'a Table>,
    /// Plies from the root at which parallel workers claim subtrees.
    pub sync_depth: u32,
    /// Games listed per length (the count is exact regardless).
    pub solution_cap: usize,
    /// Called now and then (about once a second) during long searches.
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// Retract the last move when the diagram king is in check.
    pub retraction: bool,
    /// Also count shorter games of the same parity, which cook the problem
    /// (Stelvio's rule, the default). Off: only the stipulated length counts
    /// (Popeye's `exact` option, the convention of the corpus verdicts).
    pub shorter: bool,
    /// The final rights the problem states (none by default).
    pub rights: Rights,
    /// Where finished work items are kept: given one, the search counts
    /// item by item, takes those it already holds and records each one it
    /// finishes (see [`Ledger`]), so that a search cut short goes on where
    /// it stopped.
    pub ledger: Option<&'a dyn Ledger>,
}

impl std::fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("deadline", &self.deadline)
            .field("hash_mb", &self.hash_mb)
            .field("table", &self.table.map(Table::bytes))
            .field("sync_depth", &self.sync_depth)
            .field("solution_cap", &self.solution_cap)
            .field("progress", &self.progress.is_some())
            .field("retraction", &self.retraction)
            .field("shorter", &self.shorter)
            .field("rights", &self.rights)
            .field("ledger", &self.ledger.is_some())
            .finish()
    }
}

/// Default synchronisation depth for parallel search (plies from the root).
/// Above it the workers search without the table (so all see the same
/// tree), which costs transpositions there: on the corpus, depth 5 cost up
/// to 27 % more nodes on two threads, depths 2 and 3 at most 3.5 %.
pub const DEFAULT_SYNC_DEPTH: u32 = 3;
/// Default number of games listed per length.
pub const DEFAULT_SOLUTION_CAP: usize = 1000;

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            deadline: None,
            hash_mb: 256,
            table: None,
            sync_depth: DEFAULT_SYNC_DEPTH,
            solution_cap: DEFAULT_SOLUTION_CAP,
            progress: None,
            retraction: true,
            shorter: true,
            rights: Rights::default(),
            ledger: None,
        }
    }
}

/// The games of one length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Games {
    pub plies: u32,
    /// Number of games: exact when `complete`, else a lower bound (those
    /// found before the budget ran out, or 2^56 - 2 when there are at
    /// least that many).
    pub count: u64,
    /// Whether the count is exact.
    pub complete: bool,
    /// The first games found, at most the cap.
    pub lines: Vec<Line>,
}

impl Games {
    /// `3 game(s) of 20 plies`, with "at least" when the count was cut
    /// short.
    pub fn describe(&self) -> String {
        format!(
            "{}{} game(s) of {} plies",
            if self.complete { "" } else { "at least " },
            self.count,
            self.plies
        )
    }
}

/// What the proof-game stage concludes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// Exactly one game, of the stipulated length, none shorter.
    Sound,
    /// More than one game, or a shorter one of the same parity (found
    /// before the budget ran out, when it did).
    Cooked,
    NoSolution,
    /// No game of any length reaches the diagram.
    Illegal,
    /// The budget ran out before the games found decided; they are kept.
    Unsolved,
}

/// The result of [`solve`].
#[derive(Debug, Clone)]
pub struct Outcome {
    pub judgement: Judgement,
    /// Games of the stipulated length.
    pub exact: Games,
    /// Shorter games of the same parity (lengths with at least one game).
    pub short: Vec<Games>,
    /// Why, when the judgement needs explaining.
    pub notes: Vec<String>,
    /// With rights left unstated and more than one game (or a shorter
    /// one), the games listed grouped by the rights they end with.
    pub by_rights: Vec<RightsGroup>,
    /// Whether `by_rights` covers every game counted (else only those
    /// listed).
    pub by_rights_complete: bool,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Why a proof game could not be searched at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProofGameError {
    #[error("the diagram has no king for {0}")]
    NoKing(Color),
}

/// Half-moves from which on lengths are searched from the initial array in
/// several threads; shorter ones are not worth the start-up.
const PARALLEL_MIN_PLIES: u32 = 8;

/// One search target with its analysis: the diagram itself, or a position
/// one ply before it (last-move retraction).
struct Target {
    analysis: Analysis,
    /// Plies between this target and the diagram (0 or 1).
    offset: u32,
}

/// Counts (and lists up to the cap) the games of exactly `plies` half-moves
/// from the initial array to `diagram`, and those of shorter lengths of the
/// same parity. `plies == 0` asks only whether any length could work.
pub fn solve(diagram: &Board, plies: u32, options: &Options) -> Result<Outcome, ProofGameError> {
    let start = Chess::default();
    walk(diagram, plies, options, &mut |shared, work| {
        let (count, complete, lines) = match options.ledger {
            Some(ledger) => items::count_items(shared, work, &start, ledger),
            None => count_and_list(shared, work.goal, &start, work.left, work.cap),
        };
        Games {
            plies: work.plies,
            count,
            complete,
            lines: lines.iter().map(|l| render_line(&start, l)).collect(),
        }
    })
}

/// What [`estimate`] finds.
#[derive(Debug, Clone)]
pub struct Estimate {
    /// The judgement when it needs no search (`Illegal`, `NoSolution`).
    pub decided: Option<Judgement>,
    pub notes: Vec<String>,
    pub sample: Sample,
}

/// Sizes the search [`solve`] would make, without making it all: the work
/// items of every goal and length it would count, by free moves, and the
/// search's nodes.
///
/// A large search is sized by how it grows with the moves each side has
/// to spare, which make a proof-game tree large by orders of magnitude
/// (Stelvio's free moves). `N(w, b)` being the nodes of the same search
/// with `w` moves fewer for White and `b` for Black, the estimate counts
/// `N(1,1)`, `N(0,1)` and `N(1,0)`, each to the end with the table, so
/// that the transpositions between items count as the search counts them,
/// which no sample of items does. A free
/// move of White multiplies the tree by about `N(0,1) / N(1,1)` and one of
/// Black by `N(1,0) / N(1,1)`, so the search is about
/// `N(0,1) * N(1,0) / N(1,1)` nodes. A side with no move to spare gives a
/// factor of one, and a search with none on either side (spg225 of the
/// corpus: every move a capture it needs) is not sized at all this way; so
/// a search extrapolated under `count_nodes` nodes is counted as it would
/// be run, until `count_nodes`: its own size, or at least that many (the
/// estimate is then that limit, with the range's high end three times it,
/// which nothing bounds). Small searches have few moves to spare, and the
/// product is low on them: forced to extrapolate, 14 of the corpus's 27
/// rows of 0.03 to 1 s came within 3x of their search, the rest under it.
/// Each count starts from a small window of the table, as the search does
/// (see `Table::new_search`): the misses while it grows are part of the
/// search's nodes.
pub fn estimate(
    diagram: &Board,
    plies: u32,
    options: &Options,
    count_nodes: u64,
) -> Result<Estimate, ProofGameError> {
    let start = Chess::default();
    let mut sample = Sample::default();
    let mut searched = false;
    let outcome = walk(diagram, plies, options, &mut |shared, work| {
        searched = true;
        items::estimate_items(shared, work, &start, count_nodes, &mut sample);
        Games {
            plies: work.plies,
            count: 0,
            complete: true,
            lines: Vec::new(),
        }
    })?;
    Ok(Estimate {
        decided: (!searched).then_some(outcome.judgement),
        notes: if searched { Vec::new() } else { outcome.notes },
        sample,
    })
}

/// The frame of [`solve`]: the static tests, the goals, the lengths from
/// the shortest feasible one; `count` counts one length of one goal.
fn walk(
    diagram: &Board,
    plies: u32,
    options: &Options,
    count: &mut dyn FnMut(&Shared, &Work) -> Games,
) -> Result<Outcome, ProofGameError> {
    let started = Instant::now();
    for color in Color::ALL {
        if diagram.king_of(color).is_none() {
            return Err(ProofGameError::NoKing(color));
        }
    }
    let analysis = Analysis::new(diagram);
    let mut outcome = Outcome {
        judgement: Judgement::Unsolved,
        exact: Games {
            plies,
            count: 0,
            complete: false,
            lines: Vec::new(),
        },
        short: Vec::new(),
        notes: Vec::new(),
        by_rights: Vec::new(),
        by_rights_complete: false,
        nodes: 0,
        elapsed: Duration::ZERO,
    };
    let start = Chess::default();
    let finish = |mut outcome: Outcome, judgement, note: Option<String>| {
        // Without a search, these two prove that there is no game.
        if matches!(judgement, Judgement::Illegal | Judgement::NoSolution) {
            outcome.exact.complete = true;
        }
        outcome.judgement = judgement;
        outcome.notes.extend(note);
        outcome.elapsed = started.elapsed();
        Ok(outcome)
    };
    if let Some(why) = static_impossibility(&analysis) {
        return finish(outcome, Judgement::Illegal, Some(why));
    }
    if plies == 0 {
        return finish(
            outcome,
            Judgement::Unsolved,
            Some(
                "no length given: the static analysis finds no flaw, and no length was searched"
                    .into(),
            ),
        );
    }
    let turn = if plies % 2 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let position = match diagram_position(diagram, turn) {
        Ok(position) => position,
        Err(e) => {
            return finish(
                outcome,
                Judgement::Illegal,
                Some(format!(
                    "the diagram with {turn} to move is not a legal position: {e}"
                )),
            );
        }
    };
    // A king in check fixes much about the last move: search towards each
    // position before it instead, a ply shorter and with a sharper bound.
    let targets: Vec<Target> = if options.retraction && position.is_check() {
        let setup = position.to_setup(shakmaty::EnPassantMode::Legal);
        let mut boards: Vec<Setup> = Vec::new();
        for r in crate::legality::retro::lastmove::retractions(&setup) {
            if !boards.iter().any(|b| b.board == r.before.board) {
                boards.push(r.before);
            }
        }
        let (befores, impossible): (Vec<Setup>, Vec<Setup>) =
            boards.into_iter().partition(reachable_board);
        outcome.notes.push(format!(
            "king in check: {} possible last move(s) retracted, each searched on its own ({} more left out: the position before them is impossible)",
            befores.len(),
            impossible.len()
        ));
        befores
            .iter()
            .map(|b| Target {
                analysis: Analysis::new(&b.board),
                offset: 1,
            })
            .collect()
    } else {
        vec![Target {
            analysis,
            offset: 0,
        }]
    };
    let goals: Vec<Goal> = targets
        .iter()
        .map(|t| {
            Goal::new(
                &t.analysis,
                (t.offset == 1).then_some(diagram),
                options.rights,
            )
        })
        .collect();
    let fresh;
    let table = match options.table {
        Some(table) => table,
        None => {
            fresh = Table::sized(options.hash_mb, (12 + plies).min(27));
            &fresh
        }
    };
    table.new_search();
    let shared = Shared::new(
        table,
        options.deadline,
        options.progress,
        options.sync_depth,
    );
    // One small worker per goal for the static tests, kept for every
    // length: a diagram in check may have over a hundred goals.
    let mut probes: Vec<Worker> = goals.iter().map(|g| Worker::probe(&shared, *g)).collect();
    let mut feasible_at = |i: usize, l: u32| {
        let offset = targets[i].offset;
        l >= offset && probes[i].feasible(&start, l - offset)
    };
    let least = (0..=plies)
        .filter(|l| l % 2 == plies % 2)
        .find(|&l| (0..goals.len()).any(|i| feasible_at(i, l)));
    let Some(least) = least else {
        return finish(
            outcome,
            Judgement::NoSolution,
            Some(format!(
                "static analysis: the diagram needs more than {plies} half-moves"
            )),
        );
    };
    // Shortest lengths first: they are cheap, and a shorter game already
    // decides that the problem is cooked.
    let first = if options.shorter { least } else { plies };
    let mut ran_out = None;
    let mut partial = false;
    for length in (first..=plies).step_by(2) {
        let mut games = Games {
            plies: length,
            count: 0,
            complete: true,
            lines: Vec::new(),
        };
        for (i, (goal, target)) in goals.iter().zip(&targets).enumerate() {
            if !feasible_at(i, length) {
                continue;
            }
            let work = Work {
                goal: *goal,
                goal_index: i,
                plies: length,
                left: length - target.offset,
                cap: options.solution_cap.saturating_sub(games.lines.len()),
            };
            let found = count(&shared, &work);
            games.count = add_games(games.count, found.count);
            games.complete &= found.complete;
            games.lines.extend(found.lines);
            if shared.aborted() {
                break;
            }
        }
        games.complete &= !shared.aborted() && games.count < MAX_GAMES;
        partial |= !games.complete;
        if length == plies {
            outcome.exact = games;
        } else if games.count > 0 {
            outcome.short.push(games);
        }
        if shared.aborted() {
            ran_out = Some(length);
            break;
        }
    }
    outcome.nodes = shared.nodes.load(std::sync::atomic::Ordering::Relaxed);
    // A count left partial (the budget ran out, or a ledger's share of the
    // items: see [`Ledger::mine`]) decides only a cook.
    let judgement = judge(&outcome.exact, &outcome.short, partial);
    if let Some(length) = ran_out {
        outcome.notes.push(format!(
            "budget ran out while counting games of {length} half-moves{}",
            if length < plies {
                format!("; those of {plies} were not counted")
            } else {
                String::new()
            }
        ));
    }
    if judgement == Judgement::Cooked && !options.rights.all_stated() {
        group_by_rights(&mut outcome, &options.rights);
    }
    let note = (!outcome.short.is_empty()).then(|| {
        let lengths: Vec<String> = outcome.short.iter().map(Games::describe).collect();
        format!(
            "shorter proof games of the same parity: {}",
            lengths.join(", ")
        )
    });
    finish(outcome, judgement, note)
}

/// The verdict on the games found of the stipulated length (`exact`) and
/// shorter ones of the same parity, some count being `partial` or not.
/// Counts cut short are lower bounds: enough games cook the problem
/// however many more there are, but too few decide nothing.
fn judge(exact: &Games, short: &[Games], partial: bool) -> Judgement {
    match (exact.count, short.iter().any(|g| g.count > 0), partial) {
        (_, true, _) | (2.., _, _) => Judgement::Cooked,
        (_, _, true) => Judgement::Unsolved,
        (0, false, false) => Judgement::NoSolution,
        (1, false, false) => Judgement::Sound,
    }
}

/// Counts the games of exactly `length` plies to `goal` (in parallel on the
/// current rayon pool for longer ones) and lists up to `cap` of them. When
/// the budget runs out the count is of the games met so far, and those
/// listed are the first of them.
fn count_and_list(
    shared: &Shared,
    goal: Goal,
    start: &Chess,
    length: u32,
    cap: usize,
) -> (u64, bool, Vec<Vec<Move>>) {
    shared.begin(length);
    let search = |parallel: bool| {
        let mut worker = Worker::new(shared, goal, parallel, length, cap);
        let n = worker.count(start, length, 0);
        worker.finish();
        (n, worker.games)
    };
    let threads = rayon::current_num_threads();
    let (count, met) = if threads > 1 && length >= PARALLEL_MIN_PLIES && shared.sync_depth < length
    {
        rayon::broadcast(|_| search(true)).into_iter().fold(
            (0, Vec::new()),
            |(count, mut met), (n, games)| {
                met.extend(games);
                (add_games(count, n), met)
            },
        )
    } else {
        search(false)
    };
    let complete = !shared.aborted() && count < MAX_GAMES;
    let lines = if !shared.aborted() {
        let mut lines = Vec::new();
        if count > 0 {
            // A game whose subtree's number came from the table was not
            // met, so the full list walks the counted tree again.
            let mut worker = Worker::new(shared, goal, false, length, 0);
            worker.lines(start, length, &mut Vec::new(), &mut lines, cap);
            worker.finish();
        }
        lines
    } else {
        met.into_iter().take(cap).collect()
    };
    (count, complete, lines)
}

/// The diagram as a position with `turn` to move (no castling rights, no
/// en-passant square: those follow from the game, not the diagram).
fn diagram_position(diagram: &Board, turn: Color) -> Result<Chess, String> {
    let mut setup = Setup::empty();
    setup.board = diagram.clone();
    setup.turn = turn;
    Chess::from_setup(setup, CastlingMode::Standard).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn setup(fen: &str) -> Setup {
        fen.parse::<Fen>().unwrap().into_setup()
    }

    /// spg186 ends 11.cxb6+ e.p., the bishop on d3 giving check. Of the
    /// moves that could have brought the bishop to d3, Bf1-d3 and Bc4-d3
    /// start where it already gave check; the en-passant capture does not.
    #[test]
    fn positions_before_a_check_that_was_already_there_are_left_out() {
        let diagram = setup("rn1q1bnr/4pppp/kPPp4/8/8/3BBP2/PP1N1PPP/R2QK1NR b - - 0 11");
        let kept = |before: &str| {
            crate::legality::retro::lastmove::retractions(&diagram)
                .into_iter()
                .find(|r| r.before.board.to_string() == before)
                .map(|r| reachable_board(&r.before))
        };
        assert_eq!(
            kept("rn1q1bnr/4pppp/k1Pp4/1pP5/8/3BBP2/PP1N1PPP/R2QK1NR"),
            Some(true)
        );
        assert_eq!(
            kept("rn1q1bnr/4pppp/kPPp4/8/8/4BP2/PP1N1PPP/R2QKBNR"),
            Some(false)
        );
        assert_eq!(
            kept("rn1q1bnr/4pppp/kPPp4/8/2B5/4BP2/PP1N1PPP/R2QK1NR"),
            Some(false)
        );
    }

    #[test]
    fn games_found_before_the_budget_ran_out_decide_only_a_cook() {
        let games = |plies, count, complete| Games {
            plies,
            count,
            complete,
            lines: Vec::new(),
        };
        let cut = |count| games(20, count, false);
        assert_eq!(judge(&cut(2), &[], true), Judgement::Cooked);
        assert_eq!(judge(&cut(1), &[], true), Judgement::Unsolved);
        assert_eq!(judge(&cut(0), &[], true), Judgement::Unsolved);
        // A shorter game cooks, found in full or not.
        assert_eq!(
            judge(&games(20, 1, true), &[games(18, 1, false)], true),
            Judgement::Cooked
        );
        let done = |count| games(20, count, true);
        assert_eq!(judge(&done(0), &[], false), Judgement::NoSolution);
        assert_eq!(judge(&done(1), &[], false), Judgement::Sound);
        assert_eq!(judge(&done(3), &[], false), Judgement::Cooked);
        assert_eq!(
            judge(&done(1), &[games(18, 1, true)], false),
            Judgement::Cooked
        );
    }

    #[test]
    fn proves_a_reachable_position_with_its_rights() {
        let start = setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let game = prove(&start, 6, Instant::now() + Duration::from_secs(10)).unwrap();
        assert!(game.uci.is_empty());
        let after = setup("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
        let game = prove(&after, 6, Instant::now() + Duration::from_secs(10)).unwrap();
        assert_eq!(game.san, "1.e4 e5 2.Nf3");
        // White to move instead: the same board needs an even length.
        let mut white = after.clone();
        white.turn = Color::White;
        let game = prove(&white, 4, Instant::now() + Duration::from_secs(10)).unwrap();
        assert_eq!(game.uci.len(), 4, "{game:?}");
        assert_eq!(
            prove(&white, 2, Instant::now() + Duration::from_secs(10)),
            None
        );
    }

    #[test]
    fn castling_rights_must_survive() {
        // White without castling rights after 1.e4 e5: the king (or both
        // rooks) must have moved, which takes two more moves of White's.
        let board = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR";
        let without = setup(&format!("{board} w kq - 2 3"));
        let game = prove(&without, 6, Instant::now() + Duration::from_secs(10)).unwrap();
        assert_eq!(game.uci.len(), 6);
        let with = setup(&format!("{board} w KQkq - 0 3"));
        let game = prove(&with, 6, Instant::now() + Duration::from_secs(10)).unwrap();
        assert_eq!(game.san, "1.e4 e5");
    }
}
