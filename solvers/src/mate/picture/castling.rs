//! Castling in the pictures' distances. A king or rook that may still
//! castle has a second way to start: from its square after castling, the
//! king one move dearer (castling is its move), the rook for nothing (the
//! king's move carries it). Each distance is the least over a unit's ways,
//! so it stays a lower bound on the moves the unit makes, and a sum over
//! named units stays one on the side's moves: the one castling move is
//! counted at most once, with the king.
//!
//! This replaces a flat bonus of two moves for a side with a right, which
//! let every picture of such a side cost two moves more: a castling White
//! side in an h#3 had 63,627 pictures instead of 2,586, over the limit.

use shakmaty::{CastlingSide, Chess, Color, Position, Role, Square};

use super::super::distances::{Tables, FAR};

/// Per side and castling side, the king's way and the rook's.
const MAX_WAYS: usize = 8;

/// A state row's length (see [`Tables::state_row`]).
const ROW: usize = 6 * 64;

/// One castling way: the unit (colour, role, square) and where it stands
/// after castling, with the moves that costs it.
#[derive(Debug, Clone, Copy)]
struct Way {
    color: Color,
    role: Role,
    from: Square,
    to: Square,
    extra: u8,
}

/// The castling ways of one position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Castling {
    ways: [Way; MAX_WAYS],
    n: usize,
}

impl Castling {
    pub(crate) fn of(pos: &Chess) -> Castling {
        let mut c = Castling {
            ways: [Way {
                color: Color::White,
                role: Role::King,
                from: Square::A1,
                to: Square::A1,
                extra: 0,
            }; MAX_WAYS],
            n: 0,
        };
        let castles = pos.castles();
        // Most positions a search meets have none.
        if castles.castling_rights().is_empty() {
            return c;
        }
        for color in Color::ALL {
            let Some(king) = pos.board().king_of(color) else {
                continue;
            };
            for side in CastlingSide::ALL {
                if let Some(rook) = castles.rook(color, side) {
                    c.push(color, Role::King, king, side.king_to(color), 1);
                    c.push(color, Role::Rook, rook, side.rook_to(color), 0);
                }
            }
        }
        c
    }

    fn push(&mut self, color: Color, role: Role, from: Square, to: Square, extra: u8) {
        self.ways[self.n] = Way {
            color,
            role,
            from,
            to,
            extra,
        };
        self.n += 1;
    }

    /// `dist` from a unit's square, least over its ways.
    #[inline]
    pub(crate) fn least(
        &self,
        color: Color,
        role: Role,
        sq: Square,
        dist: impl Fn(Square) -> u8,
    ) -> u8 {
        let plain = dist(sq);
        if self.n == 0 {
            return plain;
        }
        self.ways[..self.n]
            .iter()
            .filter(|w| w.color == color && w.role == role && w.from == sq)
            .fold(plain, |best, w| {
                best.min(dist(w.to).saturating_add(w.extra))
            })
    }
}

/// White's state rows ([`Tables::state_row`]) at one node for the units
/// that may castle, least over their ways; other units read the tables.
#[derive(Debug, Clone)]
pub(crate) struct Rows {
    castling: Castling,
    /// By castling unit: its role, square and row.
    rows: Vec<(Role, Square, [u8; ROW])>,
}

impl Rows {
    pub(crate) fn new(t: &Tables, castling: Castling) -> Rows {
        let mut rows = Vec::new();
        for w in &castling.ways[..castling.n] {
            if w.color != Color::White || rows.iter().any(|r: &(Role, Square, _)| r.1 == w.from) {
                continue;
            }
            let mut row = [FAR; ROW];
            row.copy_from_slice(t.state_row(Color::White, w.role, w.from));
            for other in castling.ways[..castling.n]
                .iter()
                .filter(|o| o.color == Color::White && o.role == w.role && o.from == w.from)
            {
                let via = t.state_row(Color::White, w.role, other.to);
                for (d, &v) in row.iter_mut().zip(via) {
                    *d = (*d).min(v.saturating_add(other.extra));
                }
            }
            rows.push((w.role, w.from, row));
        }
        Rows { castling, rows }
    }

    pub(crate) fn castling(&self) -> &Castling {
        &self.castling
    }

    /// The way of the White unit `role` on `sq`: its state row, least
    /// over its castling ways, its role, and whether it may castle.
    pub(crate) fn way<'a>(&'a self, t: &'a Tables, role: Role, sq: Square) -> super::Way<'a> {
        match self.rows.iter().find(|r| r.0 == role && r.1 == sq) {
            Some(r) => (&r.2, role, true),
            None => (t.state_row(Color::White, role, sq), role, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::distances::tables;
    use super::*;
    use crate::testing::position;

    /// The ways after castling, each its side's: the king one move
    /// dearer from its square after castling, the rook free from its.
    #[test]
    fn ways_start_where_castling_puts_the_units() {
        let pos = position("r3k3/8/8/8/8/8/8/R3K2R w KQq - 0 1");
        let c = Castling::of(&pos);
        let t = tables();
        // The White king to c2: two moves plainly, one after O-O-O (c1).
        let to_c2 = |s: Square| t.state_dist(Color::White, Role::King, s, Role::King, Square::C2);
        assert_eq!(to_c2(Square::E1), 2);
        assert_eq!(c.least(Color::White, Role::King, Square::E1, to_c2), 2);
        let to_b2 = |s: Square| t.state_dist(Color::White, Role::King, s, Role::King, Square::B2);
        assert_eq!(to_b2(Square::E1), 3);
        assert_eq!(c.least(Color::White, Role::King, Square::E1, to_b2), 2);
        // The rook a1 to d5: two moves plainly, one from d1.
        let rook = |s: Square| t.state_dist(Color::White, Role::Rook, s, Role::Rook, Square::D5);
        assert_eq!(c.least(Color::White, Role::Rook, Square::A1, rook), 1);
        // h1 too (f1 to d5 is two), and Black's a8 (d8 to d5 is one);
        // Black has no king-side right, so the h8 square gets nothing.
        assert_eq!(c.least(Color::White, Role::Rook, Square::H1, rook), 2);
        let black = |s: Square| t.state_dist(Color::Black, Role::Rook, s, Role::Rook, Square::F5);
        assert_eq!(c.least(Color::Black, Role::Rook, Square::A8, black), 2);
        let d5 = |s: Square| t.state_dist(Color::Black, Role::Rook, s, Role::Rook, Square::D5);
        assert_eq!(c.least(Color::Black, Role::Rook, Square::A8, d5), 1);
        let h8 = |s: Square| t.state_dist(Color::Black, Role::Rook, s, Role::Rook, Square::E8);
        assert_eq!(c.least(Color::Black, Role::Rook, Square::H8, h8), 1);
        let h8_to_d5 =
            |s: Square| t.state_dist(Color::Black, Role::Rook, s, Role::Rook, Square::D5);
        assert_eq!(c.least(Color::Black, Role::Rook, Square::H8, h8_to_d5), 2);
        // The rows agree with `least` on every state.
        let rows = Rows::new(t, c);
        for (role, sq) in [
            (Role::King, Square::E1),
            (Role::Rook, Square::A1),
            (Role::Rook, Square::H1),
        ] {
            let row = rows.way(t, role, sq).0;
            for (state, &d) in row.iter().enumerate() {
                let (r, to) = (Role::ALL[state / 64], Square::new((state % 64) as u32));
                let least = c.least(Color::White, role, sq, |s| {
                    t.state_dist(Color::White, role, s, r, to)
                });
                assert_eq!(d, least, "{role:?} {sq} to {r:?} {to}");
            }
        }
        // A unit that cannot castle reads the tables.
        assert_eq!(
            rows.way(t, Role::Rook, Square::A2).0,
            t.state_row(Color::White, Role::Rook, Square::A2)
        );
    }

    /// With all four rights each side has four ways, the king two (found
    /// by the oracle: six slots overflowed, and a helpmate with every
    /// right ended in an internal error).
    #[test]
    fn every_right_has_its_ways() {
        let pos = position("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
        let c = Castling::of(&pos);
        assert_eq!(c.n, 8);
        let t = tables();
        // The rooks' targets: two moves plainly, one from f1 or d8.
        for (color, king, rook, target) in [
            (Color::White, Square::E1, Square::H1, Square::F4),
            (Color::Black, Square::E8, Square::A8, Square::D5),
        ] {
            let to_g = |s: Square| t.state_dist(color, Role::King, s, Role::King, Square::G1);
            let to_b = |s: Square| t.state_dist(color, Role::King, s, Role::King, Square::B1);
            let rank = |sq: Square| {
                if color.is_white() {
                    sq
                } else {
                    sq.flip_vertical()
                }
            };
            let to_g = |s: Square| to_g(rank(s));
            let to_b = |s: Square| to_b(rank(s));
            assert_eq!(c.least(color, Role::King, king, to_g), 1, "{color:?}");
            assert_eq!(c.least(color, Role::King, king, to_b), 2, "{color:?}");
            let off = |s: Square| t.state_dist(color, Role::Rook, s, Role::Rook, target);
            assert_eq!(off(rook), 2, "{color:?} {rook}");
            assert_eq!(c.least(color, Role::Rook, rook, off), 1, "{color:?} {rook}");
        }
        let mut solver = crate::mate::Solver::new(None);
        assert!(solver.solve(&pos, "h#2".parse().unwrap()).is_ok());
    }
}
