//! Cook repair for direct mates: the lightest changes of the diagram that
//! make a cooked or unsolvable `#n` sound and legal, keeping the intended
//! key. The search is the *Chess Composer*'s (seed 003, §3.1, Figure 2)
//! put to a judge's use: changes of one unit first, then pairs, each
//! candidate checked for a sound problem.
//!
//! A change ([`Change`]) adds a unit, removes one (kings stay), moves one
//! to an empty square, or changes its kind. Candidates are checked
//! cheapest test first, so that most are thrown out for the price of one
//! key's search:
//!
//! 1. the position is playable (White to move, Black not in check; castling
//!    rights and an en-passant square the change invalidates are dropped);
//! 2. the intended key is legal and mates in exactly `n` (not sooner: a
//!    short mate cooks the problem); where the diagram can play it, it
//!    must still capture, or still not capture, as it does there;
//! 3. no other first move mates within `n` (first the moves that cooked
//!    earlier candidates: a cook tends to survive small changes);
//! 4. the diagram passes the legality check ([`crate::legality::check`]
//!    finds no flaw).
//!
//! Without an intended key, step 2 is a search for the one key. The sound
//! candidates are scored ([`super::quality`]) and ranked by fewest
//! changes, then score. Single changes are tried nearest the key's, the
//! cooks' and the Black king's squares first; pairs are only searched when
//! single changes give fewer repairs than asked for, their first change
//! taken from the single changes that keep the key working (so only the
//! cooks remain to be stopped), nearest first, until the deadline.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Piece, Position,
    Rank, Role, Setup, Square,
};

use super::quality;
use super::tree::{self, Limits};
use super::Solver;
use crate::legality;
use crate::stipulation::Stipulation;
use crate::transposition::Table;

/// One change of the diagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Change {
    Add(Piece, Square),
    Remove(Piece, Square),
    Move(Piece, Square, Square),
    /// The unit on the square becomes the role (same colour).
    Kind(Piece, Square, Role),
}

impl Change {
    /// The squares the change touches.
    fn squares(self) -> (Square, Option<Square>) {
        match self {
            Change::Add(_, s) | Change::Remove(_, s) | Change::Kind(_, s, _) => (s, None),
            Change::Move(_, from, to) => (from, Some(to)),
        }
    }

    fn apply(self, board: &mut Board) {
        match self {
            Change::Add(p, s) => board.set_piece_at(s, p),
            Change::Remove(_, s) => board.discard_piece_at(s),
            Change::Move(p, from, to) => {
                board.discard_piece_at(from);
                board.set_piece_at(to, p);
            }
            Change::Kind(p, s, role) => board.set_piece_at(s, role.of(p.color)),
        }
    }
}

/// Popeye's twinning notation: `+wQa7`, `-bPe6`, `wRh1-->h2`, `wQa7=wR`.
impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = |p: Piece, s: Square| {
            let colour = if p.color.is_white() { 'w' } else { 'b' };
            format!("{colour}{}{s}", p.role.upper_char())
        };
        match *self {
            Change::Add(p, s) => write!(f, "+{}", unit(p, s)),
            Change::Remove(p, s) => write!(f, "-{}", unit(p, s)),
            Change::Move(p, from, to) => write!(f, "{}-->{to}", unit(p, from)),
            Change::Kind(p, s, role) => {
                let colour = if p.color.is_white() { 'w' } else { 'b' };
                write!(f, "{}={colour}{}", unit(p, s), role.upper_char())
            }
        }
    }
}

/// One repair: the changes, the repaired diagram, its key and quality.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repair {
    pub changes: Vec<String>,
    pub fen: String,
    /// The key in SAN.
    pub key: String,
    pub score: f64,
}

/// What to repair and how hard to try.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub setup: &'a Setup,
    /// The `n` of `#n`.
    pub moves: u32,
    /// The key to keep, in UCI; `None`: any one key will do.
    pub key: Option<&'a str>,
    pub deadline: Instant,
    /// 1: single changes only; 2: pairs too.
    pub max_changes: u32,
    /// How many repairs to return.
    pub limit: usize,
    pub aim: Aim,
}

/// What the changes are for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Aim {
    /// Make an unsound problem sound: fewest changes first, then score;
    /// pairs only when single changes give fewer than `limit` repairs.
    Repair,
    /// Raise a sound problem's score above `score` (the *Chess
    /// Composer*'s own use): best score first, pairs searched until the
    /// deadline.
    Improve { score: f64 },
}

/// The repairs found, best first, and how far the search got.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub repairs: Vec<Repair>,
    /// Candidate diagrams checked.
    pub examined: usize,
    /// Every candidate up to `max_changes` was checked (else the deadline
    /// or the pair bound stopped the search).
    pub complete: bool,
}

/// A sound candidate before ranking.
#[derive(Debug, Clone)]
struct Found {
    changes: Vec<Change>,
    setup: Setup,
    key: Move,
}

/// Per-thread search state: a solver on a small table of its own, and the
/// moves that cooked recent candidates.
struct Worker {
    solver: Solver,
    cooks: Vec<UciMove>,
}

impl Worker {
    fn new(deadline: Instant) -> Worker {
        Worker {
            solver: Solver::new(Some(deadline))
                .with_table(Arc::new(Table::with_log2_slots(16)))
                .with_parallelism(super::Parallelism::Sequential),
            cooks: Vec::new(),
        }
    }
}

/// What one candidate diagram turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Checked {
    /// Not playable, or the key is not legal, or does not mate in exactly
    /// `n` (or, without an intended key, not exactly one key mates).
    NoKey,
    /// The key mates in `n`, but so does another first move.
    Cooked,
    /// Sound, but the legality check finds a flaw.
    Illegal,
    Sound(Move),
    /// The deadline stopped the check.
    Stopped,
}

impl Checked {
    /// The key still works: only cooks (or legality) stand in the way.
    fn key_works(self) -> bool {
        matches!(self, Checked::Cooked | Checked::Illegal | Checked::Sound(_))
    }
}

/// The key to keep: its squares (and promotion), and whether it captures
/// when the diagram says (a key that newly captures, or no longer does, is
/// another key: `Nxd6` is not `Nd6`).
#[derive(Debug, Clone)]
struct Intended {
    uci: UciMove,
    captures: Option<bool>,
}

/// Is the problem `setup` (`#n`) sound with `key` (or with one key of its
/// own when `None`), and legal?
fn check(worker: &mut Worker, setup: &Setup, n: u32, key: Option<&Intended>) -> Checked {
    let Some(pos) = playable(setup) else {
        return Checked::NoKey;
    };
    let solver = &mut worker.solver;
    solver.start_direct(&pos, n);
    let moves = pos.legal_moves();
    let stopped = |solver: &Solver| solver.out_of_time();
    let key = match key {
        Some(intended) => {
            let Ok(m) = intended.uci.to_move(&pos) else {
                return Checked::NoKey;
            };
            if intended.captures.is_some_and(|c| c != m.is_capture()) {
                return Checked::NoKey;
            }
            match solver.forces_in(&pos, m, n) {
                Some(k) if k == n => m,
                _ if stopped(solver) => return Checked::Stopped,
                _ => return Checked::NoKey,
            }
        }
        None => {
            let mut keys = Vec::new();
            for m in &moves {
                if let Some(k) = solver.forces_in(&pos, *m, n) {
                    keys.push((*m, k));
                } else if stopped(solver) {
                    return Checked::Stopped;
                }
            }
            match keys.as_slice() {
                [(m, k)] if *k == n => *m,
                [] | [_] => return Checked::NoKey,
                _ => return Checked::Cooked,
            }
        }
    };
    // Known cooks first.
    let known: Vec<Move> = worker
        .cooks
        .iter()
        .filter_map(|u| u.to_move(&pos).ok())
        .filter(|m| *m != key)
        .collect();
    let rest = moves.iter().filter(|m| **m != key && !known.contains(m));
    for m in known.iter().chain(rest) {
        if solver.forces_in(&pos, *m, n).is_some() {
            let uci = m.to_uci(CastlingMode::Standard);
            worker.cooks.retain(|c| *c != uci);
            worker.cooks.insert(0, uci);
            worker.cooks.truncate(8);
            return Checked::Cooked;
        }
        if stopped(solver) {
            return Checked::Stopped;
        }
    }
    if legality::check(setup).status == legality::Status::Illegal {
        return Checked::Illegal;
    }
    Checked::Sound(key)
}

/// The position of a changed diagram, with the castling rights and
/// en-passant square the change left without a meaning dropped; `None`
/// when it cannot be played (e.g. Black in check, a king missing).
fn playable(setup: &Setup) -> Option<Chess> {
    let pos = match Chess::from_setup(setup.clone(), CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(e) => match e.ignore_invalid_castling_rights() {
            Ok(pos) => pos,
            Err(e) => e.ignore_invalid_ep_square().ok()?,
        },
    };
    pos.turn().is_white().then_some(pos)
}

/// The diagram after `changes`, its castling rights and en-passant square
/// cleaned up as [`playable`] does; `None` when it cannot be played.
fn changed(base: &Setup, changes: &[Change]) -> Option<Setup> {
    let mut setup = base.clone();
    for c in changes {
        c.apply(&mut setup.board);
    }
    let pos = playable(&setup)?;
    Some(pos.to_setup(EnPassantMode::Legal))
}

const ROLES: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// Pawns never stand on the first or last rank.
fn fits(role: Role, square: Square) -> bool {
    role != Role::Pawn || !matches!(square.rank(), Rank::First | Rank::Eighth)
}

/// Every single change of `board`, nearest `focus` first (by the
/// Chebyshev distance of the nearest square the change touches).
fn single_changes(board: &Board, focus: Bitboard) -> Vec<Change> {
    let empty = !board.occupied();
    let mut changes = Vec::new();
    for (s, p) in board.iter() {
        if p.role != Role::King {
            changes.push(Change::Remove(p, s));
            for role in ROLES {
                if role != p.role && fits(role, s) {
                    changes.push(Change::Kind(p, s, role));
                }
            }
        }
        for to in empty {
            if fits(p.role, to) {
                changes.push(Change::Move(p, s, to));
            }
        }
    }
    for s in empty {
        for color in [Color::White, Color::Black] {
            for role in ROLES {
                if fits(role, s) {
                    changes.push(Change::Add(role.of(color), s));
                }
            }
        }
    }
    let distance = |s: Square| focus.into_iter().map(|f| s.distance(f)).min().unwrap_or(0);
    changes.sort_by_key(|c| match c.squares() {
        (a, None) => distance(a),
        (a, Some(b)) => distance(a).min(distance(b)),
    });
    changes
}

/// Repairs (or improves, as `request.aim` says) `request.setup`, best
/// first.
pub fn repair(request: &Request<'_>) -> Outcome {
    let n = request.moves.max(1);
    let key = request
        .key
        .and_then(|k| k.parse::<UciMove>().ok())
        .map(|uci| {
            let captures = playable(request.setup)
                .and_then(|pos| uci.to_move(&pos).ok())
                .map(|m| m.is_capture());
            Intended { uci, captures }
        });
    let base = request.setup;
    let focus = focus(base, n, key.as_ref().map(|k| &k.uci), request.deadline);
    let singles = single_changes(&base.board, focus);
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(board_hash(&base.board));

    // A tenth of the budget is kept for scoring the repairs found.
    let now = Instant::now();
    let deadline = now + request.deadline.saturating_duration_since(now).mul_f64(0.9);
    // Checks candidates on the pool: the sound ones, every candidate
    // checked with whether its key still works, and whether the deadline
    // cut the batch short.
    let evaluate = |candidates: Vec<Vec<Change>>| {
        let results: Vec<(Vec<Change>, Option<Setup>, Checked)> = candidates
            .into_par_iter()
            .map_init(
                || Worker::new(deadline),
                |worker, changes| {
                    if Instant::now() >= deadline {
                        return (changes, None, Checked::Stopped);
                    }
                    match changed(base, &changes) {
                        None => (changes, None, Checked::NoKey),
                        Some(setup) => {
                            let checked = check(worker, &setup, n, key.as_ref());
                            (changes, Some(setup), checked)
                        }
                    }
                },
            )
            .collect();
        let mut found = Vec::new();
        let mut tried = Vec::new();
        let mut stopped = false;
        for (changes, setup, checked) in results {
            match (checked, setup) {
                (Checked::Stopped, _) => stopped = true,
                (Checked::Sound(key), Some(setup)) => {
                    tried.push((changes.clone(), true));
                    found.push(Found {
                        changes,
                        setup,
                        key,
                    });
                }
                (checked, _) => tried.push((changes, checked.key_works())),
            }
        }
        (found, tried, stopped)
    };

    let mut candidates = Vec::new();
    for c in &singles {
        if let Some(setup) = changed(base, &[*c]) {
            if seen.insert(board_hash(&setup.board)) {
                candidates.push(vec![*c]);
            }
        }
    }
    let mut examined = candidates.len();
    let (mut found, tried, mut stopped) = evaluate(candidates);

    let want_pairs = match request.aim {
        Aim::Repair => found.len() < request.limit,
        Aim::Improve { .. } => true,
    };
    if want_pairs && request.max_changes >= 2 && !stopped {
        // First changes of pairs: those keeping the key (nearest first, as
        // `singles` is ordered), then the rest; searched in rounds of a few
        // first changes each, so that the deadline cuts a round short.
        let (keeping, other): (Vec<_>, Vec<_>) = tried.into_iter().partition(|(_, works)| *works);
        let firsts: Vec<Change> = keeping
            .into_iter()
            .chain(other)
            .map(|(changes, _)| changes[0])
            .collect();
        'rounds: for round in firsts.chunks(4) {
            let mut candidates = Vec::new();
            for first in round {
                let Some(after_first) = changed(base, &[*first]) else {
                    continue;
                };
                for second in single_changes(&after_first.board, focus) {
                    if let Some(setup) = changed(base, &[*first, second]) {
                        if seen.insert(board_hash(&setup.board)) {
                            candidates.push(vec![*first, second]);
                        }
                    }
                }
            }
            examined += candidates.len();
            let (more, _, cut) = evaluate(candidates);
            found.extend(more);
            if cut {
                stopped = true;
                break 'rounds;
            }
        }
    }
    // Improving scores every sound candidate, which may be many: only
    // those scored by the deadline count.
    let cutoff = matches!(request.aim, Aim::Improve { .. }).then_some(request.deadline);
    let repairs = rank(base, found, n, (request.limit, cutoff), request.aim);
    Outcome {
        repairs,
        examined,
        complete: !stopped,
    }
}

/// The squares to change near: the key's, the Black king's, and those of
/// the diagram's own keys (the cooks).
fn focus(base: &Setup, n: u32, key: Option<&UciMove>, deadline: Instant) -> Bitboard {
    let mut focus = Bitboard::EMPTY;
    if let Some(k) = base.board.king_of(Color::Black) {
        focus.add(k);
    }
    if let Some(UciMove::Normal { from, to, .. }) = key {
        focus.add(*from);
        focus.add(*to);
    }
    if let Some(pos) = playable(base) {
        let mut worker = Worker::new(deadline);
        worker.solver.start_direct(&pos, n);
        for m in pos.legal_moves() {
            if worker.solver.forces_in(&pos, m, n).is_some() {
                focus.add(m.to());
                if let Some(from) = m.from() {
                    focus.add(from);
                }
            }
        }
    }
    focus
}

fn board_hash(board: &Board) -> u64 {
    let mut h = Zobrist64::default();
    for (s, p) in board.iter() {
        h ^= Zobrist64::zobrist_for_piece(s, p);
    }
    h.0
}

/// The sound candidates scored, fewest changes then best score first; the
/// top `limit`.
fn rank(
    base: &Setup,
    found: Vec<Found>,
    n: u32,
    (limit, cutoff): (usize, Option<Instant>),
    aim: Aim,
) -> Vec<Repair> {
    let stipulation = Stipulation::Direct {
        moves: n,
        goal: crate::stipulation::Goal::Mate,
    };
    let mut scored: Vec<(usize, f64, Repair)> = found
        .into_par_iter()
        .filter_map(|f| {
            if cutoff.is_some_and(|c| Instant::now() >= c) {
                return None;
            }
            let pos = playable(&f.setup)?;
            let mut solver = Solver::new(None).with_parallelism(super::Parallelism::Sequential);
            solver.start_direct(&pos, n);
            let uci = f.key.to_uci(CastlingMode::Standard).to_string();
            let limits = Limits {
                tries: false,
                ..Limits::default()
            };
            let tree = tree::build(&mut solver, &pos, stipulation, &uci, limits).ok()?;
            let score = quality::score(&pos, &tree, Some(&base.board)).score;
            let fen = Fen::try_from_setup(f.setup.clone()).unwrap_or_else(|e| e.ignore());
            Some((
                f.changes.len(),
                score,
                Repair {
                    changes: f.changes.iter().map(|c| c.to_string()).collect(),
                    fen: fen.to_string(),
                    key: SanPlus::from_move(pos.clone(), f.key).to_string(),
                    score,
                },
            ))
        })
        .collect();
    if let Aim::Improve { score } = aim {
        scored.retain(|(_, s, _)| *s > score);
        // Best score first, then fewer changes.
        scored.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then(a.0.cmp(&b.0))
                .then(a.2.fen.cmp(&b.2.fen))
        });
    } else {
        scored.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.fen.cmp(&b.2.fen))
        });
    }
    scored.into_iter().take(limit).map(|(_, _, r)| r).collect()
}
