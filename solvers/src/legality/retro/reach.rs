//! Where a unit can have been, phase by phase.
//!
//! Only units that never move ([`Facts::fixed`]) and one-move pawns block;
//! everything else is assumed out of the way, so the squares found are a
//! superset of the truth: a square outside them is surely never visited.

use shakmaty::{Bitboard, Color};

use super::facts::Facts;

/// How a unit steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mover {
    King(Color),
    Queen,
    Rook,
    Bishop,
    Knight,
    /// A pawn that makes no capture: straight forward only.
    Pawn(Color),
}

/// Every square one step of `mover` from some square of `from`, all
/// squares at once (shifts of the whole board, masked at the edges).
fn steps(mover: Mover, from: Bitboard) -> Bitboard {
    const NOT_A: u64 = !0x0101_0101_0101_0101;
    const NOT_H: u64 = !0x8080_8080_8080_8080;
    const NOT_AB: u64 = !0x0303_0303_0303_0303;
    const NOT_GH: u64 = !0xc0c0_c0c0_c0c0_c0c0;
    let b = u64::from(from);
    let orthogonal = || b << 8 | b >> 8 | (b & NOT_H) << 1 | (b & NOT_A) >> 1;
    let diagonal = || (b & NOT_H) << 9 | (b & NOT_H) >> 7 | (b & NOT_A) << 7 | (b & NOT_A) >> 9;
    Bitboard(match mover {
        Mover::King(_) | Mover::Queen => orthogonal() | diagonal(),
        Mover::Rook => orthogonal(),
        Mover::Bishop => diagonal(),
        Mover::Knight => {
            (b & NOT_H) << 17
                | (b & NOT_A) << 15
                | (b & NOT_GH) << 10
                | (b & NOT_AB) << 6
                | (b & NOT_A) >> 17
                | (b & NOT_H) >> 15
                | (b & NOT_AB) >> 10
                | (b & NOT_GH) >> 6
        }
        Mover::Pawn(Color::White) => b << 8,
        Mover::Pawn(Color::Black) => b >> 8,
    })
}

/// Every square reachable from `start` without stepping onto `blocked`.
/// Sliders step one square at a time through empty squares, which reaches
/// exactly what sliding does.
pub fn closure(mover: Mover, start: Bitboard, blocked: Bitboard) -> Bitboard {
    let mut seen = start;
    let mut frontier = start;
    while frontier.any() {
        frontier = steps(mover, frontier) & !blocked & !seen;
        seen |= frontier;
    }
    seen
}

fn blocked(facts: &Facts, mover: Mover, phase: usize) -> Bitboard {
    match mover {
        Mover::King(color) => facts.king_forbidden(color, phase),
        _ => facts.occupied(phase),
    }
}

/// Per phase, the squares a unit can have stood on: it starts on `home` at
/// the beginning of the game, or appears on `extra(phase)` (a promotion).
pub fn by_phase(
    facts: &Facts,
    mover: Mover,
    home: Bitboard,
    extra: &dyn Fn(usize) -> Bitboard,
) -> Vec<Bitboard> {
    let mut out = vec![Bitboard::EMPTY; facts.phases()];
    for phase in 0..facts.phases() {
        let mut start = if phase == 0 { home } else { Bitboard::EMPTY };
        for i in 0..facts.phased.len() {
            if phase & (1 << i) != 0 {
                start |= out[phase & !(1 << i)];
            }
        }
        // A pawn's move puts it on a square nobody else can then be on; a
        // king may stay where the move gives it check, so no other filter.
        start = (start | extra(phase)) & !facts.occupied(phase);
        out[phase] = closure(mover, start, blocked(facts, mover, phase));
    }
    out
}

/// Union of the phases in which tracked pawn `pawn` had not moved yet
/// (`None`: every phase).
pub fn before(by_phase: &[Bitboard], pawn: Option<usize>) -> Bitboard {
    by_phase
        .iter()
        .enumerate()
        .filter(|(phase, _)| pawn.is_none_or(|i| phase & (1 << i) == 0))
        .fold(Bitboard::EMPTY, |acc, (_, &bb)| acc | bb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{attacks, Square};

    /// The shifted steps are the attack tables' single steps, square by
    /// square, for every mover and square.
    #[test]
    fn steps_are_single_steps_of_the_attack_tables() {
        let one = |mover: Mover, sq: Square| match mover {
            Mover::King(_) => attacks::king_attacks(sq),
            Mover::Queen => attacks::queen_attacks(sq, Bitboard::FULL),
            Mover::Rook => attacks::rook_attacks(sq, Bitboard::FULL),
            Mover::Bishop => attacks::bishop_attacks(sq, Bitboard::FULL),
            Mover::Knight => attacks::knight_attacks(sq),
            Mover::Pawn(color) => sq
                .offset(if color.is_white() { 8 } else { -8 })
                .map_or(Bitboard::EMPTY, Bitboard::from_square),
        };
        let movers = [
            Mover::King(Color::White),
            Mover::Queen,
            Mover::Rook,
            Mover::Bishop,
            Mover::Knight,
            Mover::Pawn(Color::White),
            Mover::Pawn(Color::Black),
        ];
        for mover in movers {
            for sq in Square::ALL {
                assert_eq!(
                    steps(mover, Bitboard::from_square(sq)),
                    one(mover, sq),
                    "{mover:?} {sq}"
                );
            }
            // And of a whole set at once: the union of its squares' steps.
            let set = Bitboard(0x8100_0024_1800_0081);
            let union = set
                .into_iter()
                .fold(Bitboard::EMPTY, |acc, sq| acc | one(mover, sq));
            assert_eq!(steps(mover, set), union, "{mover:?}");
        }
    }

    #[test]
    fn bishop_behind_pawns_stays_home() {
        let blocked = Bitboard::from_square(Square::B2) | Bitboard::from_square(Square::D2);
        let r = closure(Mover::Bishop, Bitboard::from_square(Square::C1), blocked);
        assert_eq!(r, Bitboard::from_square(Square::C1));
    }

    #[test]
    fn bishop_keeps_its_colour() {
        let r = closure(
            Mover::Bishop,
            Bitboard::from_square(Square::C1),
            Bitboard::EMPTY,
        );
        assert_eq!(r, Bitboard::DARK_SQUARES);
    }

    #[test]
    fn pawn_walks_up_to_blocker() {
        let blocked = Bitboard::from_square(Square::H7);
        let r = closure(
            Mover::Pawn(Color::White),
            Bitboard::from_square(Square::H2),
            blocked,
        );
        assert_eq!(r.count(), 5);
        assert!(!r.contains(Square::H8));
    }
}
