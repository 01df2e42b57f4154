//! Endgame tablebases: the value of positions with few units, from cookd's
//! own distance-to-mate tables or from Syzygy tables a judge already has.
//!
//! Every source answers through [`WdlOracle`], so the tablebase stage and the
//! recognizer verification do not care where a value comes from.

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::{Board, ByRole, Chess, Color, Role};

pub mod dtm;
pub mod file;
pub mod generate;
pub mod index;
pub mod judge;
pub mod moves;
pub mod study;
pub mod syzygy;
pub mod tables;

pub use dtm::Dtm;
pub use tables::DtmTables;

/// Win, draw or loss for the side to move, with perfect play and no
/// 50-move rule (problem chess knows none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wdl {
    Loss,
    Draw,
    Win,
}

impl Wdl {
    /// The same value seen from the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a probe gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The source has no table for this material.
    #[error("no {source_name} table for {material}")]
    MissingTable {
        source_name: &'static str,
        material: Material,
    },
    /// Tables cannot hold this position (castling rights, too many units).
    #[error("{material}: {why}")]
    Unsupported { material: Material, why: String },
    /// A table exists but could not be read.
    #[error("probing {material} ({source_name}) failed: {error}")]
    Failed {
        source_name: &'static str,
        material: Material,
        error: String,
    },
}

/// Anything that knows the game-theoretic value of endgame positions.
pub trait WdlOracle {
    /// The value for the side to move in `pos`.
    fn wdl(&self, pos: &Chess) -> Result<Wdl, ProbeError>;
}

/// What is on the board, by colour and role: the key tables and recognizers
/// are registered by. Written `KRPvKR`, White's units first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Material {
    pub white: ByRole<u8>,
    pub black: ByRole<u8>,
}

/// Units in the order they are written in a material key.
const KEY_ORDER: [(Role, char); 6] = [
    (Role::King, 'K'),
    (Role::Queen, 'Q'),
    (Role::Rook, 'R'),
    (Role::Bishop, 'B'),
    (Role::Knight, 'N'),
    (Role::Pawn, 'P'),
];

impl Material {
    pub fn of(board: &Board) -> Material {
        Material {
            white: board.material_side(Color::White),
            black: board.material_side(Color::Black),
        }
    }

    pub fn count(&self) -> u32 {
        KEY_ORDER
            .iter()
            .map(|&(role, _)| u32::from(*self.white.get(role)) + u32::from(*self.black.get(role)))
            .sum()
    }

    pub fn has_pawns(&self) -> bool {
        self.white.pawn > 0 || self.black.pawn > 0
    }

    /// The colours swapped: `KRvKP` for `KPvKR`.
    pub fn flipped(&self) -> Material {
        Material {
            white: self.black,
            black: self.white,
        }
    }

    /// The stronger side first, as Syzygy names its files (KQvKR, never
    /// KRvKQ); `true` in the second place when that swapped the colours.
    pub fn normalized(&self) -> (Material, bool) {
        if side_strength(&self.black) > side_strength(&self.white) {
            (self.flipped(), true)
        } else {
            (*self, false)
        }
    }
}

/// An order on sides that puts more and bigger units first (then compares
/// unit by unit), so that exactly one of `X v Y` and `Y v X` is normalized.
fn side_strength(side: &ByRole<u8>) -> (u32, [u8; 6]) {
    const VALUE: [(Role, u32); 5] = [
        (Role::Queen, 9),
        (Role::Rook, 5),
        (Role::Bishop, 3),
        (Role::Knight, 3),
        (Role::Pawn, 1),
    ];
    let value = VALUE
        .iter()
        .map(|&(role, v)| v * u32::from(*side.get(role)))
        .sum();
    (value, KEY_ORDER.map(|(role, _)| *side.get(role)))
}

fn write_side(f: &mut fmt::Formatter<'_>, side: &ByRole<u8>) -> fmt::Result {
    for (role, letter) in KEY_ORDER {
        for _ in 0..*side.get(role) {
            write!(f, "{letter}")?;
        }
    }
    Ok(())
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_side(f, &self.white)?;
        f.write_str("v")?;
        write_side(f, &self.black)
    }
}

/// A material key that does not read as `KxxvKyy`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid material key {0:?}: expected e.g. KQvK or KRPvKR (one king each side, letters KQRBNP)"
)]
pub struct ParseMaterialError(pub String);

impl std::str::FromStr for Material {
    type Err = ParseMaterialError;

    fn from_str(s: &str) -> Result<Material, ParseMaterialError> {
        let bad = || ParseMaterialError(s.to_owned());
        let (white, black) = s.split_once(['v', 'V']).ok_or_else(bad)?;
        let side = |text: &str| -> Result<ByRole<u8>, ParseMaterialError> {
            let mut counts = ByRole::<u8>::default();
            for c in text.chars() {
                let role = Role::from_char(c.to_ascii_lowercase()).ok_or_else(bad)?;
                *counts.get_mut(role) += 1;
            }
            if counts.king != 1 {
                return Err(bad());
            }
            Ok(counts)
        };
        Ok(Material {
            white: side(white)?,
            black: side(black)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_keys_round_trip_and_normalize() {
        for key in ["KvK", "KQvK", "KRPvKR", "KBNvKN", "KQQvKRB", "KPvKP"] {
            let material: Material = key.parse().unwrap();
            assert_eq!(material.to_string(), key);
        }
        let m: Material = "KRvKQ".parse().unwrap();
        assert_eq!(m.count(), 4);
        assert_eq!(m.normalized(), ("KQvKR".parse().unwrap(), true));
        let m: Material = "KPvKP".parse().unwrap();
        assert_eq!(m.normalized(), (m, false));
        let m: Material = "KNvKB".parse().unwrap();
        assert_eq!(m.normalized().0.to_string(), "KBvKN");
        for bad in ["KQK", "QvK", "KKvK", "KXvK", ""] {
            assert!(bad.parse::<Material>().is_err(), "{bad}");
        }
    }

    #[test]
    fn material_of_a_board() {
        let board: Board = "8/8/8/8/8/2k5/1r6/K1R4P".parse().unwrap();
        assert_eq!(Material::of(&board).to_string(), "KRPvKR");
        assert!(Material::of(&board).has_pawns());
    }
}
