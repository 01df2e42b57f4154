//! Verification: run a recognizer over every legal position of a material
//! and compare each answer with a tablebase, as the iCE engine's author
//! did for his recognizers (incorrect, spotted and missed counts).
//!
//! The enumeration places the units square by square (kings anywhere,
//! pawns on ranks 2-7, identical units in increasing square order so each
//! position appears once), with either side to move. It keeps positions
//! shakmaty accepts as legal apart from checks no last move could have
//! given (tables hold those too); it skips positions where the side not to
//! move is in check. No castling, no en passant.

use rayon::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::{
    Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Role, Setup, Square,
};

use super::Recognizer;
use crate::tablebase::{Material, ProbeError, Wdl, WdlOracle};

/// How a recognizer fared against a tablebase on one material.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Positions enumerated (both sides to move).
    pub positions: u64,
    /// Positions the recognizer answered.
    pub recognized: u64,
    /// Answers that disagree with the table.
    pub incorrect: u64,
    /// Correct draw answers.
    pub spotted_draws: u64,
    /// Table draws the recognizer did not answer.
    pub missed_draws: u64,
    /// Correct win or loss answers.
    pub spotted_wins: u64,
    /// Table wins or losses the recognizer did not answer.
    pub missed_wins: u64,
    /// The first few incorrect positions, as FEN with the table's value and
    /// the recognizer's.
    pub examples: Vec<String>,
}

const EXAMPLES: usize = 5;

impl Stats {
    fn merge(mut self, other: Stats) -> Stats {
        self.positions += other.positions;
        self.recognized += other.recognized;
        self.incorrect += other.incorrect;
        self.spotted_draws += other.spotted_draws;
        self.missed_draws += other.missed_draws;
        self.spotted_wins += other.spotted_wins;
        self.missed_wins += other.missed_wins;
        self.examples.extend(other.examples);
        self.examples.sort();
        self.examples.truncate(EXAMPLES);
        self
    }

    fn record(&mut self, pos: &Chess, truth: Wdl, answer: Option<Wdl>) {
        self.positions += 1;
        match answer {
            None if truth == Wdl::Draw => self.missed_draws += 1,
            None => self.missed_wins += 1,
            Some(answer) => {
                self.recognized += 1;
                if answer != truth {
                    self.incorrect += 1;
                    if self.examples.len() < EXAMPLES {
                        let fen = Fen::from_position(pos, EnPassantMode::Legal);
                        self.examples
                            .push(format!("{fen}: table {truth}, recognizer {answer}"));
                    }
                } else if truth == Wdl::Draw {
                    self.spotted_draws += 1;
                } else {
                    self.spotted_wins += 1;
                }
            }
        }
    }
}

/// A probe that failed during verification.
#[derive(Debug, thiserror::Error)]
#[error("verifying {recognizer} on {fen}: {source}")]
pub struct VerifyError {
    pub recognizer: String,
    pub fen: String,
    #[source]
    pub source: ProbeError,
}

/// Which part of the enumeration to run: all of it, or a deterministic
/// sample (every `n`th placement of the first two units) for quick checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    All,
    EveryNth(usize),
}

/// Compares `recognizer` with `oracle` on every position of `material`
/// (one orientation; call again with `material.flipped()` for the other).
pub fn verify(
    recognizer: &Recognizer,
    material: &Material,
    oracle: &(dyn WdlOracle + Sync),
    sample: Sample,
) -> Result<Stats, VerifyError> {
    let step = match sample {
        Sample::All => 1,
        Sample::EveryNth(n) => n.max(1),
    };
    (0..CHUNKS)
        .into_par_iter()
        .filter(|chunk| *chunk as usize % step == 0)
        .map(|chunk| {
            let mut stats = Stats::default();
            let mut failure = None;
            enumerate_chunk(material, chunk, &mut |pos| {
                if failure.is_some() {
                    return;
                }
                match oracle.wdl(pos) {
                    Ok(truth) => stats.record(pos, truth, recognizer.recognize(pos)),
                    Err(source) => {
                        failure = Some(VerifyError {
                            recognizer: recognizer.name().to_owned(),
                            fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(),
                            source,
                        })
                    }
                }
            });
            failure.map_or(Ok(stats), Err)
        })
        .try_reduce(Stats::default, |a, b| Ok(a.merge(b)))
}

/// Calls `visit` on every position of `material` (see the module docs), or
/// on the same deterministic sample [`verify`] takes: rules mined from a
/// table start on a sample.
pub fn enumerate(material: &Material, sample: Sample, visit: &mut dyn FnMut(&Chess)) {
    let step = match sample {
        Sample::All => 1,
        Sample::EveryNth(n) => n.max(1),
    };
    for chunk in (0..CHUNKS).filter(|chunk| *chunk as usize % step == 0) {
        enumerate_chunk(material, chunk, visit);
    }
}

/// Parts [`enumerate_chunk`] splits a material's positions into.
pub const CHUNKS: u32 = 64 * 64;

/// Calls `visit` on the positions of `material` whose first two units
/// stand on the squares `chunk` (below [`CHUNKS`]) names: part of
/// [`enumerate`], for running its parts in parallel.
pub fn enumerate_chunk(material: &Material, chunk: u32, visit: &mut dyn FnMut(&Chess)) {
    let prefix = [Square::new(chunk / 64), Square::new(chunk % 64)];
    enumerate_from(&units(material), &prefix, visit);
}

/// The units of a material, White's then Black's, kings first, identical
/// units next to each other.
fn units(material: &Material) -> Vec<Piece> {
    const ROLES: [Role; 6] = [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ];
    let mut units = Vec::new();
    for (color, side) in [
        (Color::White, &material.white),
        (Color::Black, &material.black),
    ] {
        for role in ROLES {
            for _ in 0..*side.get(role) {
                units.push(role.of(color));
            }
        }
    }
    units
}

/// Every position whose first units stand on `prefix` (as far as there
/// are units): the parallel split of the enumeration.
fn enumerate_from(units: &[Piece], prefix: &[Square], visit: &mut dyn FnMut(&Chess)) {
    let mut board = Board::empty();
    place(units, 0, prefix, &mut board, visit);
}

fn allowed(unit: Piece, sq: Square) -> bool {
    unit.role != Role::Pawn || (8..56).contains(&sq.to_u32())
}

fn place(
    units: &[Piece],
    i: usize,
    prefix: &[Square],
    board: &mut Board,
    visit: &mut dyn FnMut(&Chess),
) {
    let Some(&unit) = units.get(i) else {
        for turn in [Color::White, Color::Black] {
            let setup = Setup {
                board: board.clone(),
                turn,
                ..Setup::empty()
            };
            if let Some(pos) = legal(setup) {
                visit(&pos);
            }
        }
        return;
    };
    // Identical units go in increasing square order: one position, once.
    let after = match i.checked_sub(1).map(|j| units[j]) {
        Some(previous) if previous == unit => board
            .by_piece(unit)
            .into_iter()
            .last()
            .map_or(0, |sq| sq.to_u32() + 1),
        _ => 0,
    };
    let squares: Vec<Square> = match prefix.get(i) {
        Some(&sq) => vec![sq],
        None => (after..64).map(Square::new).collect(),
    };
    for sq in squares {
        if sq.to_u32() < after || !allowed(unit, sq) || board.piece_at(sq).is_some() {
            continue;
        }
        board.set_piece_at(sq, unit);
        place(units, i + 1, prefix, board, visit);
        board.discard_piece_at(sq);
    }
}

/// The position of `setup` when shakmaty accepts it, checks no last move
/// could have given included.
fn legal(setup: Setup) -> Option<Chess> {
    match Chess::from_setup(setup, CastlingMode::Standard) {
        Ok(pos) => Some(pos),
        Err(error) => error.ignore_impossible_check().ok(),
    }
}
