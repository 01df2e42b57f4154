//! The legality stage: could the diagram arise in a game from the initial array?
//!
//! Two layers run in order and every flaw either finds is reported, not just
//! the first:
//! - [`cheap`]: rules a position must obey whatever the history (kings,
//!   material, pawns on back ranks, checks, castling and en-passant claims);
//! - [`retro`]: reasoning about the history: captures forced by the pawn
//!   structure, promotions, bishops that could never reach their squares,
//!   pieces that cannot have left home, and whether any last move exists.
//!
//! A position is called [`Status::Legal`] only with a proof. When no layer
//! finds a flaw but nothing proves the position either, the answer is
//! [`Status::Undecided`], with the list of what was checked.

pub mod cheap;
pub mod retro;

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::{Color, Setup, Square};

/// The answer of the legality stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Proven reachable (evidence holds the proof).
    Legal,
    /// At least one flaw was found; `reasons` lists them all.
    Illegal,
    /// No flaw found, no proof of legality either.
    Undecided,
}

/// One kind of flaw. Each kind is documented with what it means for a judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flaw {
    /// A side has no king.
    MissingKing,
    /// A side has more than one king.
    TooManyKings,
    /// A pawn stands on the first or eighth rank.
    PawnOnBackRank,
    /// A side has more than eight pawns.
    TooManyPawns,
    /// A side has more than sixteen units.
    TooManyUnits,
    /// A side has more pieces than its original ones plus promotions of its
    /// missing pawns could give (bishops counted per square colour).
    TooManyPromotions,
    /// The side that just moved is in check: the side to move could capture
    /// the king (this includes kings standing next to each other).
    OppositeCheck,
    /// The side to move is attacked by more than two units; no single move
    /// can give a triple check.
    TooManyCheckers,
    /// The check(s) on the side to move could not have been given by any
    /// single last move (two aligned sliders, two steppers, a check that the
    /// en-passant double step could not have given).
    ImpossibleCheck,
    /// A castling right is claimed but the king or rook is not at home.
    InvalidCastlingRights,
    /// The en-passant square does not fit a double step just played by the
    /// side that moved last.
    InvalidEnPassant,
    /// The pawn structure needs more captures than the opponent has lost units.
    TooManyCaptures,
    /// A unit could never have reached its square (e.g. a bishop behind
    /// unmoved pawns, a piece boxed in at home).
    UnreachableSquare,
    /// A unit had to leave a square that it cannot have left (a castling
    /// rook or king, a piece caged by unmoved pawns).
    CannotHaveMoved,
    /// No move of the side that just moved leads to the diagram.
    NoLastMove,
    /// The diagram is the initial array (or otherwise fixed) with the wrong
    /// side to move for the moves that can have been played.
    Parity,
}

impl Flaw {
    /// The stable snake_case name used in the verdict JSON.
    pub fn code(self) -> &'static str {
        match self {
            Flaw::MissingKing => "missing_king",
            Flaw::TooManyKings => "too_many_kings",
            Flaw::PawnOnBackRank => "pawn_on_back_rank",
            Flaw::TooManyPawns => "too_many_pawns",
            Flaw::TooManyUnits => "too_many_units",
            Flaw::TooManyPromotions => "too_many_promotions",
            Flaw::OppositeCheck => "opposite_check",
            Flaw::TooManyCheckers => "too_many_checkers",
            Flaw::ImpossibleCheck => "impossible_check",
            Flaw::InvalidCastlingRights => "invalid_castling_rights",
            Flaw::InvalidEnPassant => "invalid_en_passant",
            Flaw::TooManyCaptures => "too_many_captures",
            Flaw::UnreachableSquare => "unreachable_square",
            Flaw::CannotHaveMoved => "cannot_have_moved",
            Flaw::NoLastMove => "no_last_move",
            Flaw::Parity => "parity",
        }
    }
}

impl fmt::Display for Flaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One flaw found, with the judge-readable detail and the squares involved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    #[serde(rename = "code")]
    pub flaw: Flaw,
    /// Whose flaw it is, where that makes sense.
    #[serde(
        serialize_with = "serialize_color",
        deserialize_with = "deserialize_color"
    )]
    pub color: Option<Color>,
    /// What exactly is wrong, in words a judge can check on the board.
    pub detail: String,
    #[serde(
        serialize_with = "serialize_squares",
        deserialize_with = "deserialize_squares"
    )]
    pub squares: Vec<Square>,
}

impl Reason {
    pub fn new(flaw: Flaw, color: Option<Color>, detail: impl Into<String>) -> Reason {
        Reason {
            flaw,
            color,
            detail: detail.into(),
            squares: Vec::new(),
        }
    }

    pub fn at(mut self, squares: impl IntoIterator<Item = Square>) -> Reason {
        self.squares.extend(squares);
        self
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.flaw, self.detail)
    }
}

fn serialize_color<S: serde::Serializer>(c: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
    match c {
        Some(color) => s.serialize_str(if color.is_white() { "white" } else { "black" }),
        None => s.serialize_none(),
    }
}

fn serialize_squares<S: serde::Serializer>(sqs: &[Square], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(sqs.len()))?;
    for sq in sqs {
        seq.serialize_element(&sq.to_string())?;
    }
    seq.end()
}

fn deserialize_color<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None => Ok(None),
        Some("white") => Ok(Some(Color::White)),
        Some("black") => Ok(Some(Color::Black)),
        Some(other) => Err(serde::de::Error::custom(format!("not a colour: {other}"))),
    }
}

fn deserialize_squares<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Square>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|s| s.parse().map_err(serde::de::Error::custom))
        .collect()
}

/// The result of the legality stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub status: Status,
    pub reasons: Vec<Reason>,
    /// What was checked (for `undecided`), or the proof (for `legal`).
    pub evidence: Vec<String>,
}

impl Report {
    /// `Some(true)` when legal, `Some(false)` when illegal, `None` when undecided.
    pub fn legal(&self) -> Option<bool> {
        match self.status {
            Status::Legal => Some(true),
            Status::Illegal => Some(false),
            Status::Undecided => None,
        }
    }
}

/// Runs both layers on a diagram.
pub fn check(setup: &Setup) -> Report {
    let mut reasons = cheap::check(setup);
    let mut evidence = vec![String::from(
        "cheap layer: kings, material, back-rank pawns, checks, castling rights, en passant",
    )];
    // The retro layer reasons about one king per side; without that the cheap
    // layer has already said what is wrong.
    let kings_ok = !reasons
        .iter()
        .any(|r| matches!(r.flaw, Flaw::MissingKing | Flaw::TooManyKings));
    if kings_ok {
        let retro = retro::check(setup);
        for reason in retro.reasons {
            if !reasons.contains(&reason) {
                reasons.push(reason);
            }
        }
        evidence.extend(retro.checked);
        if reasons.is_empty() {
            if let Some(proof) = retro.proof {
                return Report {
                    status: Status::Legal,
                    reasons,
                    evidence: vec![proof],
                };
            }
        }
    }
    let status = if reasons.is_empty() {
        Status::Undecided
    } else {
        Status::Illegal
    };
    Report {
        status,
        reasons,
        evidence,
    }
}
