//! Distances of pieces on a board with fixed units: the moves a piece
//! needs from one square to another ([`Reach`]).

use super::*;

/// Moves beyond which [`Reach::within`] keeps no separate set.
pub(super) const REACH_STEPS: usize = 16;

/// Breadth-first distances for one role from one square around the fixed
/// squares.
#[derive(Debug, Clone)]
pub(super) struct Reach {
    /// By square: the fewest moves, or [`UNREACHABLE`].
    pub(super) dist: [u8; 64],
    /// By number of moves (the last: any number): the squares reached.
    pub(super) within: [Bitboard; REACH_STEPS],
}

impl Reach {
    pub(super) fn new(role: Role, from: Square, fixed: Bitboard, stretches: &[Bitboard]) -> Reach {
        let mut dist = [UNREACHABLE; 64];
        dist[from.to_usize()] = 0;
        let piece = shakmaty::Piece {
            color: Color::White,
            role,
        };
        let mut frontier = Bitboard::from_square(from);
        let mut seen = frontier;
        let mut within = [frontier; REACH_STEPS];
        let mut d = 0u8;
        while frontier.any() {
            d += 1;
            let mut next = Bitboard::EMPTY;
            for sq in frontier {
                let mut to = attacks::attacks(sq, piece, fixed);
                if matches!(role, Role::Rook | Role::Queen) {
                    for t in to & sq.file() {
                        if crosses_a_pawn(sq, t, stretches) {
                            to.discard(t);
                        }
                    }
                }
                next |= to;
            }
            next &= !fixed & !seen;
            for sq in next {
                dist[sq.to_usize()] = d;
            }
            seen |= next;
            for w in &mut within[usize::from(d).min(REACH_STEPS - 1)..] {
                *w = seen;
            }
            frontier = next;
        }
        Reach { dist, within }
    }

    /// The fewest moves to one of `squares` (`INF` for none).
    pub(super) fn nearest(&self, squares: Bitboard) -> i32 {
        match (0..REACH_STEPS - 1).find(|&k| (self.within[k] & squares).any()) {
            Some(k) => k as i32,
            None => squares
                .into_iter()
                .map(|sq| self.dist[sq.to_usize()])
                .filter(|&d| d != UNREACHABLE)
                .map(i32::from)
                .fold(INF, i32::min),
        }
    }

    /// The squares at most `moves` moves away.
    pub(super) fn within(&self, moves: i32) -> Bitboard {
        self.within[moves.clamp(0, REACH_STEPS as i32 - 1) as usize]
    }
}
