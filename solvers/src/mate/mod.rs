//! Mate solving: directmates (`#n`), selfmates (`s#n`) and helpmates (`h#n`).
//!
//! A complete test: every White first move that forces the goal within the
//! stipulated length is found (a shorter one is a short solution), and every
//! helpmate solution is listed. Proven results are kept in a transposition
//! table keyed by Zobrist hash, so transpositions are solved once.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use crate::check::{gives_check, CheckInfo};
use crate::stipulation::Stipulation;

/// A first move that forces the goal, and in how many moves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Key {
    pub san: String,
    pub uci: String,
    /// Moves to the goal with best defence (shorter than stipulated = short solution).
    pub length: u32,
}

/// One helpmate solution: the whole line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    /// Numbered SAN, e.g. `1.Kb8 O-O 2.g2 Rf8#`.
    pub san: String,
    pub uci: Vec<String>,
}

/// What the solver found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Direct and self mates: every key.
    Keys(Vec<Key>),
    /// Helpmates: every solution.
    Lines(Vec<Line>),
}

/// The budget ran out; what was proven so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    pub found: Found,
    /// First moves fully examined, out of all.
    pub examined: usize,
    pub total: usize,
}

/// Why a problem cannot be solved at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("{0} is not a mate stipulation")]
    NotMate(Stipulation),
    #[error("{stipulation} needs {needed} to move in the diagram")]
    WrongSide {
        stipulation: Stipulation,
        needed: &'static str,
    },
}

/// Search statistics, for benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub nodes: u64,
    pub tt_hits: u64,
}

/// What the transposition table knows about a position with White to move
/// (direct/self) or any side to move (help, with the plies left in the key).
#[derive(Debug, Clone, Copy, Default)]
struct Bounds {
    /// The goal is forced within this many moves (0 = unknown).
    win_within: u8,
    /// The goal is not forced within this many moves.
    no_win_within: u8,
}

/// Zobrist keys are already uniformly distributed: hashing them again
/// (SipHash) would only cost time.
#[derive(Debug, Default, Clone, Copy)]
struct ZobristHasher(u64);

impl std::hash::Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }

    fn write_u8(&mut self, n: u8) {
        self.0 = self.0.rotate_left(8) ^ u64::from(n);
    }
}

type ZobristMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<ZobristHasher>>;

/// A solver for one problem: its table, node count and deadline.
#[derive(Debug)]
pub struct Solver {
    table: ZobristMap<u64, Bounds>,
    /// Helpmates: (hash, plies left) known to have no solution.
    no_help: ZobristMap<(u64, u8), ()>,
    stats: Stats,
    deadline: Option<Instant>,
    out_of_time: bool,
    /// Per remaining length: the last White move that forced the goal and
    /// the last Black move that refuted, tried first next time (killers).
    killer_attack: Vec<Option<Move>>,
    killer_defence: Vec<Option<Move>>,
}

/// The budget check happens every this many nodes: often enough to stop
/// within milliseconds, rarely enough to cost nothing.
const CLOCK_INTERVAL: u64 = 4096;

impl Solver {
    pub fn new(deadline: Option<Instant>) -> Solver {
        Solver {
            table: ZobristMap::default(),
            no_help: ZobristMap::default(),
            stats: Stats::default(),
            deadline,
            out_of_time: false,
            killer_attack: vec![None; 256],
            killer_defence: vec![None; 256],
        }
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Solves a mate problem from its position. `Err(Unfinished)` when the
    /// deadline passed first.
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
        match stipulation {
            Stipulation::Direct { moves } => {
                need(shakmaty::Color::White)?;
                Ok(self.keys(pos, moves, Genre::Direct))
            }
            Stipulation::SelfMate { moves } => {
                need(shakmaty::Color::White)?;
                Ok(self.keys(pos, moves, Genre::Self_))
            }
            Stipulation::Help { plies } => {
                need(stipulation.side_to_move())?;
                Ok(self.help(pos, plies))
            }
            other => Err(SolveError::NotMate(other)),
        }
    }

    fn tick(&mut self) -> bool {
        self.stats.nodes += 1;
        if self.stats.nodes % CLOCK_INTERVAL == 0 {
            if let Some(deadline) = self.deadline {
                self.out_of_time |= Instant::now() >= deadline;
            }
        }
        self.out_of_time
    }

    /// Every first move forcing the goal within `n` moves, each with its
    /// shortest length.
    fn keys(&mut self, pos: &Chess, n: u32, genre: Genre) -> Result<Found, Unfinished> {
        let n = n.min(u32::from(u8::MAX)) as u8;
        let moves = pos.legal_moves();
        let mut keys = Vec::new();
        for (i, m) in moves.iter().enumerate() {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            // Iterative deepening: the shortest length is found first.
            let mut length = None;
            for k in 1..=n {
                if self.defence_fails(&after, k, genre) {
                    length = Some(k);
                    break;
                }
                if self.out_of_time {
                    break;
                }
            }
            if self.out_of_time {
                return Err(Unfinished {
                    found: Found::Keys(keys),
                    examined: i,
                    total: moves.len(),
                });
            }
            if let Some(length) = length {
                keys.push(Key {
                    san: SanPlus::from_move(pos.clone(), *m).to_string(),
                    uci: m.to_uci(CastlingMode::Standard).to_string(),
                    length: u32::from(length),
                });
            }
        }
        Ok(Found::Keys(keys))
    }

    /// Black to move after a White move: does every Black move lose, i.e.
    /// reach the goal within `k` White moves counting the one just played?
    pub(crate) fn defence_fails(&mut self, pos: &Chess, k: u8, genre: Genre) -> bool {
        if self.tick() {
            return false;
        }
        let mut replies = pos.legal_moves();
        if replies.is_empty() {
            // Black mated is the direct goal; stalemate or mate of Black
            // fails a selfmate.
            return genre == Genre::Direct && pos.is_check();
        }
        if genre == Genre::Direct && k <= 1 {
            return false;
        }
        let info = CheckInfo::new(pos);
        if genre == Genre::Self_ && k <= 1 {
            // Black must mate at once with every move: one quiet move refutes.
            let all_check =
                info.is_some_and(|info| replies.iter().all(|b| gives_check(pos, &info, b)));
            return all_check
                && replies.iter().all(|b| {
                    let mut next = pos.clone();
                    next.play_unchecked(*b);
                    next.is_checkmate()
                });
        }
        // Checks and captures first: they leave White the fewest answers,
        // so they are the cheapest refutations to prove.
        if let Some(info) = info {
            replies.sort_by_key(|b| {
                let check = gives_check(pos, &info, b);
                (!check, !b.is_capture())
            });
        }
        for b in &replies {
            let mut next = pos.clone();
            next.play_unchecked(*b);
            let lost = match genre {
                Genre::Direct => self.attack_wins(&next, k - 1, genre),
                Genre::Self_ => {
                    let check = info.is_none_or(|info| gives_check(pos, &info, b));
                    (check && next.is_checkmate()) || self.attack_wins(&next, k - 1, genre)
                }
            };
            if !lost {
                self.killer_defence[usize::from(k)] = Some(*b);
                return false;
            }
        }
        true
    }

    /// White to move: can White force the goal within `k` moves?
    pub(crate) fn attack_wins(&mut self, pos: &Chess, k: u8, genre: Genre) -> bool {
        // Mate-in-one nodes are the most numerous and, with only checking
        // moves to try, cheaper to redo than to hash and look up.
        if k == 1 && genre == Genre::Direct {
            return self.attack_moves_win(pos, k, genre);
        }
        let hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        if let Some(b) = self.table.get(&hash) {
            if b.win_within != 0 && b.win_within <= k {
                self.stats.tt_hits += 1;
                return true;
            }
            if b.no_win_within >= k {
                self.stats.tt_hits += 1;
                return false;
            }
        }
        let won = self.attack_moves_win(pos, k, genre);
        let entry = self.table.entry(hash).or_default();
        if won {
            if entry.win_within == 0 || entry.win_within > k {
                entry.win_within = k;
            }
        } else if !self.out_of_time {
            entry.no_win_within = entry.no_win_within.max(k);
        }
        won
    }

    /// The search part of [`Solver::attack_wins`], without the table.
    fn attack_moves_win(&mut self, pos: &Chess, k: u8, genre: Genre) -> bool {
        let mut moves = pos.legal_moves();
        let info = CheckInfo::new(pos);
        if genre == Genre::Direct && k == 1 {
            // Only a checking move can mate.
            if let Some(info) = info {
                moves.retain(|m| gives_check(pos, &info, m));
            }
        }
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

    /// Every helpmate solution of `plies` half-moves, and every shorter one
    /// with the same side starting (a short solution is a flaw too).
    fn help(&mut self, pos: &Chess, plies: u32) -> Result<Found, Unfinished> {
        let plies = plies.min(u32::from(u8::MAX)) as u8;
        let first = pos.legal_moves();
        let mut lines = Vec::new();
        let mut path = Vec::new();
        for (i, m) in first.iter().enumerate() {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            path.push(*m);
            for length in (1..=plies).rev().step_by(2) {
                self.help_lines(&next, length - 1, &mut path, &mut lines);
            }
            path.pop();
            if self.out_of_time {
                return Err(Unfinished {
                    found: Found::Lines(render_lines(pos, &lines)),
                    examined: i,
                    total: first.len(),
                });
            }
        }
        Ok(Found::Lines(render_lines(pos, &lines)))
    }

    /// Appends every continuation of `path` that mates Black after exactly
    /// `left` more plies; returns whether there was one.
    fn help_lines(
        &mut self,
        pos: &Chess,
        left: u8,
        path: &mut Vec<Move>,
        lines: &mut Vec<Vec<Move>>,
    ) -> bool {
        if left == 0 {
            let mated = pos.turn().is_black() && pos.is_checkmate();
            if mated {
                lines.push(path.clone());
            }
            return mated;
        }
        if self.tick() {
            return false;
        }
        let hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        if self.no_help.contains_key(&(hash, left)) {
            self.stats.tt_hits += 1;
            return false;
        }
        let mut moves = pos.legal_moves();
        if left == 1 {
            // White's mating move must give check.
            if let Some(info) = CheckInfo::new(pos) {
                moves.retain(|m| gives_check(pos, &info, m));
            }
        }
        let mut any = false;
        for m in &moves {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            path.push(*m);
            any |= self.help_lines(&next, left - 1, path, lines);
            path.pop();
            if self.out_of_time {
                return any;
            }
        }
        if !any {
            self.no_help.insert((hash, left), ());
        }
        any
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

fn render_lines(start: &Chess, lines: &[Vec<Move>]) -> Vec<Line> {
    lines.iter().map(|line| render_line(start, line)).collect()
}

/// `1.Kb8 O-O 2.g2 Rf8#` (or `1...Kb8` when Black starts).
fn render_line(start: &Chess, line: &[Move]) -> Line {
    let mut pos = start.clone();
    let mut san = String::new();
    let mut number = 1;
    for (i, m) in line.iter().enumerate() {
        if !san.is_empty() {
            san.push(' ');
        }
        if pos.turn().is_white() {
            san.push_str(&format!("{number}."));
        } else if i == 0 {
            san.push_str(&format!("{number}..."));
        }
        if pos.turn().is_black() {
            number += 1;
        }
        san.push_str(&SanPlus::from_move_and_play_unchecked(&mut pos, *m).to_string());
    }
    Line {
        san,
        uci: line
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect(),
    }
}
