//! Distance to mate: the value a DTM table stores for every position.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::Wdl;

/// The value of a position for the side to move, counted in plies (half
/// moves) to mate with best play: the winner mates as fast as it can, the
/// loser holds out as long as it can. No 50-move rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dtm {
    /// The side to move mates in this many plies (odd).
    Win(u16),
    Draw,
    /// The side to move is mated in this many plies (even; 0: mated now).
    Loss(u16),
}

/// The largest ply count one table byte holds (see [`Dtm::code`]).
pub const MAX_PLIES: u16 = 254;

impl Dtm {
    /// The one-byte form tables store: 0 for a draw (or a slot that holds
    /// no legal position), else plies + 1. Parity tells win from loss,
    /// because a win always takes an odd number of plies and a loss an even
    /// number.
    pub fn code(self) -> u8 {
        match self {
            Dtm::Draw => 0,
            Dtm::Win(n) | Dtm::Loss(n) => {
                debug_assert!(n <= MAX_PLIES);
                (n + 1) as u8
            }
        }
    }

    pub fn from_code(code: u8) -> Dtm {
        match code {
            0 => Dtm::Draw,
            c => {
                let plies = u16::from(c) - 1;
                if plies % 2 == 1 {
                    Dtm::Win(plies)
                } else {
                    Dtm::Loss(plies)
                }
            }
        }
    }

    /// The value of the position before the move that led here, for the
    /// side that made that move.
    pub fn before_move(self) -> Dtm {
        match self {
            Dtm::Win(n) => Dtm::Loss(n + 1),
            Dtm::Draw => Dtm::Draw,
            Dtm::Loss(n) => Dtm::Win(n + 1),
        }
    }

    pub fn wdl(self) -> Wdl {
        match self {
            Dtm::Win(_) => Wdl::Win,
            Dtm::Draw => Wdl::Draw,
            Dtm::Loss(_) => Wdl::Loss,
        }
    }

    /// Plies to mate, `None` for a draw.
    pub fn plies(self) -> Option<u16> {
        match self {
            Dtm::Win(n) | Dtm::Loss(n) => Some(n),
            Dtm::Draw => None,
        }
    }

    /// Signed full moves as EPD's `dm` writes them: mate in 3 is 3, mated
    /// in 3 is -3, a draw (and being mated already) 0.
    pub fn moves(self) -> i32 {
        match self {
            Dtm::Win(n) => (i32::from(n) + 1) / 2,
            Dtm::Draw => 0,
            Dtm::Loss(n) => -(i32::from(n) / 2),
        }
    }

    /// Higher is better for the side to move.
    fn rank(self) -> i32 {
        match self {
            Dtm::Win(n) => 1000 - i32::from(n),
            Dtm::Draw => 0,
            Dtm::Loss(n) => -1000 + i32::from(n),
        }
    }
}

/// Ordered by preference of the side to move: a faster win is greater, a
/// slower loss is greater than a faster one.
impl Ord for Dtm {
    fn cmp(&self, other: &Dtm) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Dtm {
    fn partial_cmp(&self, other: &Dtm) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Dtm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dtm::Win(n) => write!(f, "win in {n} plies"),
            Dtm::Draw => f.write_str("draw"),
            Dtm::Loss(n) => write!(f, "loss in {n} plies"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_order() {
        for v in [
            Dtm::Draw,
            Dtm::Loss(0),
            Dtm::Win(1),
            Dtm::Win(253),
            Dtm::Loss(254),
        ] {
            assert_eq!(Dtm::from_code(v.code()), v);
        }
        assert!(Dtm::Win(1) > Dtm::Win(3));
        assert!(Dtm::Win(99) > Dtm::Draw);
        assert!(Dtm::Draw > Dtm::Loss(40));
        assert!(Dtm::Loss(40) > Dtm::Loss(2));
        assert_eq!(Dtm::Loss(0).before_move(), Dtm::Win(1));
        assert_eq!(Dtm::Win(19).moves(), 10);
        assert_eq!(Dtm::Loss(30).moves(), -15);
    }
}
