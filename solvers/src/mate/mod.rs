//! Mate solving: directmates (`#n`), selfmates (`s#n`) and helpmates (`h#n`),
//! and the same plays with the stalemate goal (`=n`, `s=n`, `h=n`).
//!
//! A complete test: every White first move that forces the goal within the
//! stipulated length is found (a shorter one is a short solution), and every
//! helpmate solution is listed. Proven results are kept in a transposition
//! table keyed by Zobrist hash, so transpositions are solved once.
//!
//! ## The search
//!
//! A full-width proof search with iterative deepening over the length, a
//! lock-free transposition table of proven bounds
//! ([`crate::transposition`]; kept from one problem to the next, its keys
//! salted per problem), killer moves, checks and captures first among the
//! defences, only checking moves at the last move ([`crate::checking`]),
//! and a recogniser for material that cannot mate. Threads share a problem
//! in one of two ways ([`Parallelism`]): `Split` shares out White's first
//! moves, and near the root Black's replies once the first reply is
//! searched (young brothers wait); `Lazy` (Lazy SMP) lets every thread
//! solve the whole problem in its own order around the shared table. A
//! deadline bounds the time; when it passes the result says how many first
//! moves were examined ([`Unfinished`]).
//!
//! The shortcuts that only hold for mate (checking moves alone at the
//! last move, the recogniser, mate pictures, the move-count test) are off
//! for the stalemate goal, whose search is otherwise the same. It has its
//! own: the stalemate tests of the last moves ([`crate::stalemating`]),
//! and in helpstalemates the move-count test without its check and a test
//! that every Black unit but the king can still end captured or without a
//! move (`immobile`), which also tells White when its move must capture.
//!
//! Helpmates are pruned by mate pictures (the final positions that can
//! still be reached in the moves left, after Popeye's intelligent mode) and
//! an admissible move-count test; neither ever loses a solution. Each move
//! is tested against the pictures before it is played, and passes on only
//! the pictures it may keep. Where a picture holds every White unit but the
//! king and only one unit checks, its blocks are priced in roles that
//! cannot parry that check, at every node of the search. A king or rook
//! that may castle is priced from its square after castling too (the king
//! one move dearer, the rook free), and White's last move is one that
//! puts a picture's last unit in place or uncovers its checker. Black's
//! last move goes only where an alive picture still needs a unit (its
//! king's square, or its one open block), only those moves are generated
//! ([`crate::checking::moves_onto`]), and it keeps only the pictures
//! White's one move can then finish: the checker's line to the king empty
//! but for the unit that moves, and a moving line piece's way clear. A few
//! plies up, a picture's blocks are given to distinct Black units (the
//! least such assignment, `picture::distinct`), and Black's moves are put
//! to that test before they are played; its verdicts are remembered per
//! Black side, which most White moves leave as it was. Where White has
//! only its king and one pawn and a Black pawn blocks that pawn's file,
//! a picture with the pawn up the file is also charged the king's detour
//! to take the Black pawn or the pawn's way round by captures
//! (`picture::blocked`). Pictures are used from h#2 on: below it the
//! search costs no more than they do.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use shakmaty::san::SanPlus;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, MoveList, Position};

use crate::checking::{checking_moves, gives_check, moves_onto, CheckInfo};
use crate::recognizer::Registry;
use crate::stalemating::{ReplyTest, StalemateTest};
use crate::stipulation::{Goal, Stipulation};
use crate::tablebase::Wdl;
use crate::transposition::{payload, Table};
use picture::{
    BlockedPawn, Costs, DistinctMemo, DistinctTest, KindCosts, Pictures, Scratch, Units,
};

mod distances;
mod found;
mod help;
mod help_bound;
mod immobile;
mod parallel;
mod picture;
pub mod quality;
mod replay;
// The build script runs the generator; the library reads the tables'
// layout from it, and its tests check the built tables against a run.
mod lines;
pub mod repair;
#[cfg_attr(not(test), allow(dead_code))]
mod tablegen;
pub mod tree;
pub use found::{Found, Key, Line, SolveError, Stats, Unfinished};
use help::*;
pub(crate) use lines::render_line;
use lines::render_lines;

/// A defence node before its replies are searched: `Break` with the answer
/// when it is immediate, else `Continue` with the replies to search.
type Defence = ControlFlow<bool, (shakmaty::MoveList, Option<CheckInfo>)>;

/// Below this many moves, a defence node's replies are searched on one
/// thread: the work is too small to pay for sharing it out.
const SPLIT_MIN_LENGTH: u8 = 3;

/// What the transposition table knows about a position with White to move,
/// packed into one table word: bits 0–7 the length within which the goal
/// is forced (0 = unknown), bits 8–15 the length within which it is not.
/// Helpmate entries (keyed with the plies left) just hold 1: no solution.
#[derive(Debug, Clone, Copy, Default)]
struct Bounds {
    win_within: u8,
    no_win_within: u8,
}

impl Bounds {
    fn unpack(data: u64) -> Bounds {
        Bounds {
            win_within: data as u8,
            no_win_within: (data >> 8) as u8,
        }
    }

    fn pack(self) -> u64 {
        u64::from(self.win_within) | u64::from(self.no_win_within) << 8 | 1 << 16
    }
}

/// Default transposition table budget when none is configured.
pub const DEFAULT_HASH_MB: u64 = 256;

/// What the threads solving one problem share: the table and the clock.
#[derive(Debug)]
struct Shared {
    table: Arc<Table>,
    /// Mixed into every key: the problem's, so that a table kept from
    /// earlier problems never answers for another one.
    salt: u64,
    deadline: Option<Instant>,
    /// Set once the deadline has passed, so every thread stops.
    stop: AtomicBool,
    /// Pictures the distinct-blocker test looked at for Black's moves
    /// before they were played, and the moves it dropped, over all
    /// threads: where it drops few it is not worth its cost.
    distinct_tested: AtomicU64,
    distinct_dropped: AtomicU64,
    /// The distinct-blocker test's memos, handed from helper to helper
    /// (see [`Solver::helper`]): one thread's first moves share one.
    memos: Mutex<Vec<(DistinctMemo, replay::Replays)>>,
}

/// A solver for one problem. Threads solving the same problem each hold a
/// `Solver` of their own (killers, statistics) around one shared table.
#[derive(Debug)]
pub struct Solver {
    shared: Arc<Shared>,
    hash_mb: u64,
    /// A table to search with instead of fresh ones (see
    /// [`Solver::with_table`]).
    kept: Option<Arc<Table>>,
    /// Endgame recognizers consulted in directmates (see
    /// [`Solver::with_recognizers`]).
    recognizers: Option<Arc<Registry>>,
    stats: Stats,
    pub(crate) out_of_time: bool,
    /// Set when the split this solver helps with is decided without it
    /// (a sibling refuted): the rest of its search is wasted, so it stops
    /// as if out of time. One flag per enclosing split.
    cancels: Vec<Arc<AtomicBool>>,
    /// Per remaining length: the last White move that forced the goal,
    /// tried first next time (killer heuristic).
    killer_attack: Vec<Option<Move>>,
    /// The last Black reply that refuted a directmate's White move with
    /// two moves to go, tried first and before generating the other
    /// replies (most refutations refute the neighbouring White moves too).
    killer_defence: Option<Move>,
    parallelism: Parallelism,
    /// The problem's goal (mate or stalemate), set by [`Solver::solve`].
    goal: Goal,
    /// The helpmate's mate pictures, when there are few enough to filter.
    pictures: Option<Arc<Pictures>>,
    /// Per plies left: the pictures still reachable at the node being
    /// searched at that depth (reused buffers).
    buffers: Vec<Buffers>,
    /// The distinct-blocker test's verdicts by Black side, for the
    /// problem the shared table is for.
    distinct_memo: DistinctMemo,
    /// Black's move verdicts by Black node (see [`replay`]).
    replays: replay::Replays,
    /// Per plies left: the verdicts of the Black node being searched at
    /// that depth (reused buffers).
    verdicts: Vec<Vec<replay::Verdict>>,
    /// Where the helpmate search's tests pay.
    worth: help::Worth,
}

/// How the threads of the current rayon pool share one problem.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Parallelism {
    /// White's first moves are shared out over the threads, and near the
    /// root Black's replies too once the first reply is searched (young
    /// brothers wait).
    #[default]
    Split,
    /// Lazy SMP: every thread solves the whole problem in its own order,
    /// all sharing the table; the first to finish wins.
    Lazy,
    /// One thread (used inside a Lazy SMP worker).
    Sequential,
}

/// The budget check happens every this many nodes: often enough to stop
/// within milliseconds, rarely enough to cost nothing.
const CLOCK_INTERVAL: u64 = 4096;

impl Solver {
    pub fn new(deadline: Option<Instant>) -> Solver {
        Solver::with_hash(deadline, DEFAULT_HASH_MB)
    }

    /// A solver whose table may use up to `hash_mb` megabytes.
    pub fn with_hash(deadline: Option<Instant>, hash_mb: u64) -> Solver {
        Solver::around(Arc::new(Shared {
            table: Arc::new(Table::with_log2_slots(10)),
            salt: 0,
            deadline,
            stop: AtomicBool::new(false),
            distinct_tested: AtomicU64::new(0),
            distinct_dropped: AtomicU64::new(0),
            memos: Mutex::new(Vec::new()),
        }))
        .hash_mb(hash_mb)
    }

    fn hash_mb(mut self, mb: u64) -> Solver {
        self.hash_mb = mb;
        self
    }

    fn around(shared: Arc<Shared>) -> Solver {
        Solver {
            shared,
            hash_mb: DEFAULT_HASH_MB,
            kept: None,
            recognizers: None,
            stats: Stats::default(),
            out_of_time: false,
            cancels: Vec::new(),
            killer_attack: vec![None; 256],
            killer_defence: None,
            parallelism: Parallelism::default(),
            goal: Goal::Mate,
            pictures: None,
            buffers: Vec::new(),
            distinct_memo: DistinctMemo::default(),
            replays: replay::Replays::default(),
            verdicts: Vec::new(),
            worth: help::Worth::default(),
        }
    }

    /// Searches with `table` (which may hold earlier problems' entries)
    /// instead of a fresh table per problem: its memory is mapped already,
    /// where a fresh table pays a page fault for each page it touches.
    pub fn with_table(mut self, table: Arc<Table>) -> Solver {
        self.kept = Some(table);
        self
    }

    /// Consults `recognizers` at White's nodes of a directmate with five
    /// units or fewer: a position they know to be a draw or a loss for
    /// White holds no forced mate at any length, so its subtree is not
    /// searched. Their answers are exact (each is verified over every
    /// position of its material against a tablebase), for positions
    /// without castling rights or en passant, as they were verified.
    pub fn with_recognizers(mut self, recognizers: Arc<Registry>) -> Solver {
        self.recognizers = Some(recognizers);
        self
    }

    /// Chooses how threads share the problem (default: [`Parallelism::Split`]).
    pub fn with_parallelism(mut self, parallelism: Parallelism) -> Solver {
        self.parallelism = parallelism;
        self
    }

    /// Another thread's solver on the same table and clock.
    /// It starts with this solver's killers: they are what made the
    /// one-thread search fast, and a helper without them would redo that
    /// learning.
    fn helper(&self) -> Solver {
        let mut helper = Solver::around(Arc::clone(&self.shared)).hash_mb(self.hash_mb);
        helper.killer_attack.clone_from(&self.killer_attack);
        helper.killer_defence = self.killer_defence;
        helper.parallelism = self.parallelism;
        helper.goal = self.goal;
        helper.cancels.clone_from(&self.cancels);
        helper.pictures.clone_from(&self.pictures);
        helper.recognizers.clone_from(&self.recognizers);
        if let Ok(mut memos) = self.shared.memos.lock() {
            (helper.distinct_memo, helper.replays) = memos.pop().unwrap_or_default();
        }
        helper
    }

    /// Hands a helper's memo back for the next helper (see
    /// [`Solver::helper`]).
    fn retire(&mut self) {
        if let Ok(mut memos) = self.shared.memos.lock() {
            let replays = std::mem::take(&mut self.replays);
            memos.push((std::mem::take(&mut self.distinct_memo), replays));
        }
    }

    /// A fresh table sized for the work ahead (within the memory budget),
    /// or the kept one, for the problem `salt` stands for.
    fn resize(&mut self, wanted_log2: u32, salt: u64) {
        let deadline = self.shared.deadline;
        let table = match &self.kept {
            Some(table) => {
                table.new_search();
                Arc::clone(table)
            }
            None => Arc::new(Table::sized(self.hash_mb, wanted_log2)),
        };
        self.shared = Arc::new(Shared {
            table,
            salt,
            deadline,
            stop: AtomicBool::new(false),
            distinct_tested: AtomicU64::new(0),
            distinct_dropped: AtomicU64::new(0),
            memos: Mutex::new(Vec::new()),
        });
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Solves a mate problem from its position. `Err(Unfinished)` when the
    /// deadline passed first. First moves are shared out over the current
    /// rayon pool.
    pub fn solve(
        &mut self,
        pos: &Chess,
        stipulation: Stipulation,
    ) -> Result<Result<Found, Unfinished>, SolveError> {
        let need = |color: shakmaty::Color| {
            if pos.turn() == color {
                Ok(())
            } else {
                Err(SolveError::WrongSide {
                    stipulation,
                    needed: if color.is_white() { "White" } else { "Black" },
                })
            }
        };
        let salt = salt(pos, stipulation);
        self.goal = stipulation.goal().unwrap_or_default();
        match stipulation {
            Stipulation::Direct { moves, .. } | Stipulation::SelfMate { moves, .. } => {
                need(shakmaty::Color::White)?;
                let genre = match stipulation {
                    Stipulation::Direct { .. } => Genre::Direct,
                    _ => Genre::Self_,
                };
                self.resize(10 + 2 * moves.min(10), salt);
                Ok(self.keys(pos, moves, genre))
            }
            Stipulation::Help { plies, .. } => {
                need(stipulation.side_to_move())?;
                Ok(self.help(pos, plies, salt))
            }
            other => Err(SolveError::NotMate(other)),
        }
    }

    /// Readies the solver for the direct mate `pos` in `moves` (its own
    /// table keys, the mate goal), for callers that then ask
    /// [`Solver::forces_in`] about single moves rather than solving it all.
    pub(crate) fn start_direct(&mut self, pos: &Chess, moves: u32) {
        let stipulation = Stipulation::Direct {
            moves,
            goal: Goal::Mate,
        };
        self.goal = Goal::Mate;
        self.out_of_time = false;
        self.resize(10 + 2 * moves.min(10), salt(pos, stipulation));
    }

    /// Direct mates, after [`Solver::start_direct`]: the fewest moves (at
    /// most `n`) in which White's move `m` in `pos` forces mate, `None`
    /// when it does not (or the clock stopped the search: see
    /// [`Solver::out_of_time`]).
    pub(crate) fn forces_in(&mut self, pos: &Chess, m: Move, n: u32) -> Option<u32> {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let n = n.min(u32::from(u8::MAX)) as u8;
        (1..=n)
            .find(|&k| self.defence_fails(&after, k, Genre::Direct) || self.out_of_time)
            .filter(|_| !self.out_of_time)
            .map(u32::from)
    }

    /// Whether the deadline stopped the last search.
    pub(crate) fn out_of_time(&self) -> bool {
        self.out_of_time
    }

    /// The checks-only shortcuts (a mating move gives check; a side
    /// without mating material never mates) hold for mate alone.
    fn mates(&self) -> bool {
        self.goal == Goal::Mate
    }

    fn tick(&mut self) -> bool {
        self.stats.nodes += 1;
        if self.stats.nodes % CLOCK_INTERVAL == 0 {
            if let Some(deadline) = self.shared.deadline {
                if Instant::now() >= deadline {
                    self.shared.stop.store(true, Ordering::Relaxed);
                }
            }
            self.out_of_time |= self.shared.stop.load(Ordering::Relaxed)
                || self.cancels.iter().any(|c| c.load(Ordering::Relaxed));
        }
        self.out_of_time
    }

    /// Every first move forcing the goal within `n` moves, each with its
    /// shortest length.
    fn keys(&mut self, pos: &Chess, n: u32, genre: Genre) -> Result<Found, Unfinished> {
        let n = n.min(u32::from(u8::MAX)) as u8;
        let moves = pos.legal_moves();
        let (lengths, stopped) = self.split(&moves, |solver, m| {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            // Iterative deepening: the shortest length is found first.
            for k in 1..=n {
                if solver.defence_fails_split(&after, k, genre) {
                    return Some(Some(k));
                }
                if solver.out_of_time {
                    return None;
                }
            }
            Some(None)
        });
        let key = |m: &Move, length: u8| Key {
            san: SanPlus::from_move(pos.clone(), *m).to_string(),
            uci: m.to_uci(CastlingMode::Standard).to_string(),
            length: u32::from(length),
        };
        let keys: Vec<Key> = moves
            .iter()
            .zip(&lengths)
            .filter_map(|(m, l)| l.flatten().map(|l| key(m, l)))
            .collect();
        if stopped {
            return Err(Unfinished {
                found: Found::Keys(keys),
                examined: lengths.iter().filter(|l| l.is_some()).count(),
                total: moves.len(),
            });
        }
        Ok(Found::Keys(keys))
    }

    /// Black to move after a White move: does every Black move lose, i.e.
    /// reach the goal within `k` White moves counting the one just played?
    pub(crate) fn defence_fails(&mut self, pos: &Chess, k: u8, genre: Genre) -> bool {
        // Directmates only, and only where refuting costs one mate-in-one
        // test: deeper, or in selfmates, a killer that fails to refute costs
        // more than the move generation it saves (measured: dm017 #7 twice
        // the nodes with killers at every length, sm003 1.7x).
        let use_killer = genre == Genre::Direct && k == 2;
        let killer = self
            .killer_defence
            .filter(|b| use_killer && pos.is_legal(*b));
        if let Some(b) = killer {
            if !self.reply_loses(pos, None, &b, k, genre) {
                return false;
            }
        }
        match self.defence(pos, k, genre) {
            ControlFlow::Break(fails) => fails,
            ControlFlow::Continue((replies, info)) => {
                let refutation = replies
                    .iter()
                    .filter(|b| Some(**b) != killer)
                    .find(|b| !self.reply_loses(pos, info.as_ref(), b, k, genre));
                if use_killer && refutation.is_some() {
                    self.killer_defence = refutation.copied();
                }
                refutation.is_none()
            }
        }
    }

    /// Everything about a defence node short of searching its replies: the
    /// answer when it is immediate, else the replies in the order to try.
    fn defence(&mut self, pos: &Chess, k: u8, genre: Genre) -> Defence {
        if self.tick() {
            return ControlFlow::Break(false);
        }
        // At White's last move only the goal counts: no need for the replies.
        if genre == Genre::Direct && k <= 1 {
            return ControlFlow::Break(self.goal.reached(pos));
        }
        let mut replies = pos.legal_moves();
        if replies.is_empty() {
            // Black mated (stalemated) is the direct goal; Black without a
            // move fails a selfmate.
            return ControlFlow::Break(
                genre == Genre::Direct && self.goal.reached_without_moves(pos),
            );
        }
        let info = CheckInfo::new(pos);
        if genre == Genre::Self_ && k <= 1 {
            // Black must reach the goal at once with every move: one move
            // that does not refutes. Only checks can mate.
            let all_check =
                info.is_some_and(|info| replies.iter().all(|b| gives_check(pos, &info, b)));
            // A reply that surely does not stalemate refutes as well.
            let stalemating = match self.goal {
                Goal::Mate => None,
                Goal::Stalemate => StalemateTest::new(pos),
            };
            return ControlFlow::Break(
                (all_check || !self.mates())
                    && stalemating.is_none_or(|test| replies.iter().all(|b| test.may_stalemate(b)))
                    && replies.iter().all(|b| {
                        let mut next = pos.clone();
                        next.play_unchecked(*b);
                        self.goal.reached(&next)
                    }),
            );
        }
        // Checks and captures first: they leave White the fewest answers,
        // so they are the cheapest refutations to prove.
        if let Some(info) = info {
            order_replies(pos, &info, &mut replies);
        }
        ControlFlow::Continue((replies, info))
    }

    /// Does Black's reply `b` still lose within `k` White moves (counting
    /// the one before it)?
    fn reply_loses(
        &mut self,
        pos: &Chess,
        info: Option<&CheckInfo>,
        b: &Move,
        k: u8,
        genre: Genre,
    ) -> bool {
        let mut next = pos.clone();
        next.play_unchecked(*b);
        match genre {
            Genre::Direct => self.attack_wins(&next, k - 1, genre),
            Genre::Self_ => {
                // Only a checking reply can mate (and any reply may stalemate).
                let check = !self.mates() || info.is_none_or(|info| gives_check(pos, info, b));
                (check && self.goal.reached(&next)) || self.attack_wins(&next, k - 1, genre)
            }
        }
    }

    /// White to move: can White force the goal within `k` moves?
    pub(crate) fn attack_wins(&mut self, pos: &Chess, k: u8, genre: Genre) -> bool {
        // Mate-in-one nodes are the most numerous and, with only checking
        // moves to try, cheaper to redo than to hash and look up.
        if k == 1 && genre == Genre::Direct {
            return self.attack_moves_win(pos, k, genre);
        }
        // Recogniser: the side that must give mate has too little material
        // to mate at all (whatever the other side does).
        let mater = match genre {
            Genre::Direct => Color::White,
            Genre::Self_ => Color::Black,
        };
        if self.mates() && pos.has_insufficient_material(mater) {
            return false;
        }
        let hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0 ^ self.shared.salt;
        let known = self
            .shared
            .table
            .get(hash)
            .map(|d| Bounds::unpack(payload(d)));
        if let Some(b) = known {
            if b.win_within != 0 && b.win_within <= k {
                self.stats.tt_hits += 1;
                return true;
            }
            if b.no_win_within >= k {
                self.stats.tt_hits += 1;
                return false;
            }
        }
        // A recognized draw or loss holds no mate at any length: asked
        // only on a table miss (the KBKP look-ahead plays moves), and kept
        // in the table for every length.
        if genre == Genre::Direct && self.mates() && self.recognized_no_win(pos) {
            self.stats.recognized += 1;
            let mut entry = known.unwrap_or_default();
            entry.no_win_within = u8::MAX;
            self.shared.table.put(hash, entry.pack(), k);
            return false;
        }
        let won = self.attack_moves_win(pos, k, genre);
        // Another thread may have stored more meanwhile; merging with what
        // was read is still only proven facts.
        let mut entry = known.unwrap_or_default();
        if won {
            if entry.win_within == 0 || entry.win_within > k {
                entry.win_within = k;
            }
        } else if !self.out_of_time {
            entry.no_win_within = entry.no_win_within.max(k);
        } else {
            return won;
        }
        self.shared.table.put(hash, entry.pack(), k);
        won
    }

    /// White, to move, cannot win `pos` at all: a recognizer knows it to
    /// be a draw or a loss. Only where the recognizers were verified: five
    /// units or fewer, no castling rights, no en passant.
    fn recognized_no_win(&self, pos: &Chess) -> bool {
        let Some(recognizers) = &self.recognizers else {
            return false;
        };
        pos.board().occupied().count() <= 5
            && pos.castles().castling_rights().is_empty()
            && pos.ep_square(EnPassantMode::Legal).is_none()
            && matches!(recognizers.recognize(pos), Some(Wdl::Draw | Wdl::Loss))
    }

    /// The search part of [`Solver::attack_wins`], without the table.
    fn attack_moves_win(&mut self, pos: &Chess, k: u8, genre: Genre) -> bool {
        // Only a checking move can mate (and few moves can stalemate).
        let last = (genre == Genre::Direct && k == 1).then_some(self.goal);
        let mut moves = candidate_moves(pos, last);
        promote(&mut moves, self.killer_attack[usize::from(k)]);
        for m in &moves {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            if self.defence_fails(&next, k, genre) {
                self.killer_attack[usize::from(k)] = Some(*m);
                return true;
            }
            if self.out_of_time {
                return false;
            }
        }
        false
    }
}

/// The problem's own table keys: the table may be kept from others.
fn salt(pos: &Chess, stipulation: Stipulation) -> u64 {
    let (kind, n) = match stipulation {
        Stipulation::Direct { moves, .. } => (1, moves),
        Stipulation::SelfMate { moves, .. } => (2, moves),
        Stipulation::Help { plies, .. } => (3, plies),
        _ => (0, 0),
    };
    let goal = stipulation.goal().unwrap_or_default();
    let zobrist = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
    crate::transposition::mix(
        zobrist
            ^ crate::transposition::mix(
                u64::from(n) << 3 | u64::from(goal == Goal::Stalemate) << 2 | kind,
            ),
    )
}

/// The moves worth trying from `pos`: when the move must reach `goal` at
/// once (`last`), only the checking ones for mate and those that may
/// stalemate for stalemate; else every legal move. Returned, not written
/// into a caller's list: a move list is kilobytes, and assigning one copies
/// it whole (3 % of a helpmate's profile), where a returned one is built in
/// place.
fn candidate_moves(pos: &Chess, last: Option<Goal>) -> MoveList {
    match last {
        Some(Goal::Mate) => match CheckInfo::new(pos) {
            Some(info) => {
                let mut moves = MoveList::new();
                checking_moves(pos, &info, &mut moves);
                moves
            }
            None => pos.legal_moves(),
        },
        Some(Goal::Stalemate) => match StalemateTest::new(pos) {
            Some(test) if test.hopeless() => MoveList::new(),
            Some(test) => {
                let mut moves = pos.legal_moves();
                moves.retain(|m| test.may_stalemate(m));
                moves
            }
            None => pos.legal_moves(),
        },
        None => pos.legal_moves(),
    }
}

/// Orders Black's replies checks first, then captures, keeping the order
/// within each group. Each move's check test runs once (a comparison sort
/// would run it at every comparison), and the list is reordered in place
/// (few replies move: checks and captures are few).
fn order_replies(pos: &Chess, info: &CheckInfo, replies: &mut shakmaty::MoveList) {
    let mut rank = [0u8; 256];
    for (r, b) in rank.iter_mut().zip(replies.iter()) {
        *r = 2 * u8::from(!gives_check(pos, info, b)) + u8::from(!b.is_capture());
    }
    let rank = &mut rank[..replies.len()];
    let mut front = 0;
    for group in 0..3 {
        let start = front;
        for i in start..replies.len() {
            if rank[i] == group {
                replies[front..=i].rotate_right(1);
                rank[front..=i].rotate_right(1);
                front += 1;
            }
        }
    }
}

/// Moves `first` to the front of `moves` when it is among them.
fn promote(moves: &mut shakmaty::MoveList, first: Option<Move>) {
    if let Some(i) = first.and_then(|f| moves.iter().position(|m| *m == f)) {
        moves[..=i].rotate_right(1);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Genre {
    Direct,
    Self_,
}

#[cfg(test)]
mod tests;
