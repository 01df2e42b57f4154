//! Facts every game reaching the diagram shares: units that never moved
//! (their squares were occupied all game), and pawns that made exactly one
//! move (their start square was occupied until that move, their square since).
//!
//! The order in which the one-move pawns moved is unknown, so reasoning about
//! where other units could go runs over "phases": a phase is the set of
//! one-move pawns that have moved so far (a bit mask over [`Facts::phased`]).

use shakmaty::{attacks, Bitboard, Board, Color, File, Piece, Rank, Role, Setup, Square};

use super::pawns::{relative_rank, start_square, unmoved_pawns, PawnInfo};

/// At most this many one-move pawns are tracked by phase (2^n phases); the
/// others are ignored, which only makes the reasoning more permissive.
pub const MAX_PHASED: usize = 6;

/// A pawn standing one step from its start rank: it made exactly one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OneMove {
    pub color: Color,
    pub dest: Square,
    /// The squares it may have started from (never empty).
    pub origins: Bitboard,
}

impl OneMove {
    /// Squares it surely occupied before it moved.
    pub fn before(&self) -> Bitboard {
        if self.origins.more_than_one() {
            Bitboard::EMPTY
        } else {
            self.origins
        }
    }

    /// Squares it surely attacked before it moved (whatever its origin).
    pub fn attacks_before(&self) -> Bitboard {
        self.origins.into_iter().fold(Bitboard::FULL, |acc, o| {
            acc & attacks::pawn_attacks(self.color, o)
        })
    }
}

/// The home squares of `color`'s pieces, in a fixed order.
pub fn homes(color: Color) -> [(Role, Square); 8] {
    let sq = |f: File| Square::from_coords(f, color.backrank());
    [
        (Role::King, sq(File::E)),
        (Role::Queen, sq(File::D)),
        (Role::Rook, sq(File::A)),
        (Role::Rook, sq(File::H)),
        (Role::Bishop, sq(File::C)),
        (Role::Bishop, sq(File::F)),
        (Role::Knight, sq(File::B)),
        (Role::Knight, sq(File::G)),
    ]
}

/// The squares a piece of `role` on `sq` can step to first.
pub fn first_steps(role: Role, color: Color, sq: Square) -> Bitboard {
    match role {
        Role::Pawn => sq
            .offset(if color.is_white() { 8 } else { -8 })
            .map_or(Bitboard::EMPTY, Bitboard::from_square),
        role => attacks::attacks(sq, Piece { color, role }, Bitboard::FULL),
    }
}

#[derive(Debug, Clone)]
pub struct Facts {
    pub board: Board,
    /// Squares whose unit never moved (so they were occupied all game).
    pub fixed: Bitboard,
    /// The one-move pawns tracked by phase.
    pub phased: Vec<OneMove>,
}

impl Facts {
    pub fn new(setup: &Setup, pawns: &[Option<PawnInfo>; 2]) -> Facts {
        let board = setup.board.clone();
        let fixed = fixed_units(setup);
        let mut phased = Vec::new();
        for info in pawns.iter().flatten() {
            for one in one_move_pawns(&board, info) {
                if phased.len() < MAX_PHASED {
                    phased.push(one);
                }
            }
        }
        Facts {
            board,
            fixed,
            phased,
        }
    }

    pub fn phases(&self) -> usize {
        1 << self.phased.len()
    }

    /// The phase in which every tracked pawn has moved (the diagram).
    pub fn last_phase(&self) -> usize {
        self.phases() - 1
    }

    /// Squares surely occupied during `phase`.
    pub fn occupied(&self, phase: usize) -> Bitboard {
        let mut occ = self.fixed;
        for (i, p) in self.phased.iter().enumerate() {
            occ |= if phase & (1 << i) != 0 {
                Bitboard::from_square(p.dest)
            } else {
                p.before()
            };
        }
        occ
    }

    /// Squares a `color` pawn never moves on from: there it checks an enemy
    /// king that never moved. A pawn's check cannot be blocked and the king
    /// cannot step away, so the check was answered by taking the pawn (or
    /// the game ended there). Such a pawn never promotes.
    pub fn pawn_dead_ends(&self, color: Color) -> Bitboard {
        (self.board.kings() & self.board.by_color(!color) & self.fixed)
            .into_iter()
            .fold(Bitboard::EMPTY, |acc, king| {
                acc | attacks::pawn_attacks(!color, king)
            })
    }

    /// Squares `color`'s king can never step onto during `phase`: occupied,
    /// or attacked by enemy units that stand still through the phase.
    pub fn king_forbidden(&self, color: Color, phase: usize) -> Bitboard {
        let mut out = self.occupied(phase);
        let enemy_fixed = self.fixed & self.board.by_color(!color);
        for sq in enemy_fixed {
            if let Some(piece) = self.board.piece_at(sq) {
                out |= fixed_attacks(piece, sq);
            }
        }
        for (i, p) in self.phased.iter().enumerate() {
            if p.color == color {
                continue;
            }
            out |= if phase & (1 << i) != 0 {
                attacks::pawn_attacks(p.color, p.dest)
            } else {
                p.attacks_before()
            };
        }
        out
    }
}

/// What a unit that never moves attacks whatever else moves: sliders only
/// the adjacent squares (nothing can come between).
fn fixed_attacks(piece: Piece, sq: Square) -> Bitboard {
    match piece.role {
        Role::Pawn => attacks::pawn_attacks(piece.color, sq),
        _ => attacks::attacks(sq, piece, Bitboard::FULL),
    }
}

/// Units that provably never moved: pawns on their start rank, king and
/// rooks with castling rights, and, repeated until nothing changes, pieces
/// on their home square whose every first step is onto such a unit (a unit
/// that never moves is never captured either, so the step is never free).
pub fn fixed_units(setup: &Setup) -> Bitboard {
    let board = &setup.board;
    let mut fixed = unmoved_pawns(board, Color::White) | unmoved_pawns(board, Color::Black);
    for rook in setup.castling_rights {
        let color = if rook.rank() == Rank::First {
            Color::White
        } else {
            Color::Black
        };
        let king = Square::from_coords(File::E, color.backrank());
        let at_home = matches!(rook.rank(), Rank::First | Rank::Eighth)
            && matches!(rook.file(), File::A | File::H)
            && board.piece_at(rook) == Some(color.rook())
            && board.piece_at(king) == Some(color.king());
        if at_home {
            fixed.add(rook);
            fixed.add(king);
        }
    }
    loop {
        let mut changed = false;
        for color in Color::ALL {
            for (role, home) in homes(color) {
                let caged = !fixed.contains(home)
                    && board.piece_at(home) == Some(Piece { color, role })
                    && first_steps(role, color, home).is_subset(fixed);
                if caged {
                    fixed.add(home);
                    changed = true;
                }
            }
        }
        if !changed {
            return fixed;
        }
    }
}

/// Pawns one step from their start rank, with the start squares that some
/// assignment of pawns to files allows.
fn one_move_pawns(board: &Board, info: &PawnInfo) -> Vec<OneMove> {
    let unmoved = unmoved_pawns(board, info.color);
    let mut out = Vec::new();
    for (i, &sq) in info.squares.iter().enumerate() {
        if relative_rank(info.color, sq) != 2 {
            continue;
        }
        let origins: Bitboard = (0..8u32)
            .filter(|g| info.feasible[i] & (1 << g) != 0)
            .map(|g| start_square(info.color, g))
            .filter(|&o| !unmoved.contains(o))
            .collect();
        if origins.any() {
            out.push(OneMove {
                color: info.color,
                dest: sq,
                origins,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legality::retro::pawns;
    use shakmaty::fen::Fen;

    fn setup(fen: &str) -> Setup {
        fen.parse::<Fen>().unwrap().into_setup()
    }

    fn facts(fen: &str) -> Facts {
        let s = setup(fen);
        let infos = [
            pawns::analyse(&s.board, Color::White),
            pawns::analyse(&s.board, Color::Black),
        ];
        Facts::new(&s, &infos)
    }

    #[test]
    fn initial_array_everything_but_knights_is_fixed() {
        let s = setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let fixed = fixed_units(&s);
        assert_eq!(fixed, s.board.occupied() & !s.board.knights());
    }

    #[test]
    fn without_castling_rights_rooks_are_free() {
        let s = setup("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
        let fixed = fixed_units(&s);
        assert!(!fixed.contains(Square::A1));
        assert!(fixed.contains(Square::C1));
    }

    #[test]
    fn one_move_pawn_phases() {
        let f = facts("4k3/8/8/8/8/P7/1P6/4K3 w - - 0 1");
        assert_eq!(f.phased.len(), 1);
        assert_eq!(f.phased[0].origins, Bitboard::from_square(Square::A2));
        assert!(f.occupied(0).contains(Square::A2));
        assert!(f.occupied(1).contains(Square::A3));
        assert!(!f.occupied(1).contains(Square::A2));
    }

    #[test]
    fn ambiguous_origin_still_attacks_destination() {
        let f = facts("4k3/8/8/8/8/6P1/6P1/R3K3 w Q - 0 1");
        assert_eq!(f.phased[0].origins.count(), 2);
        assert!(f.king_forbidden(Color::Black, 0).contains(Square::G3));
        assert!(f.king_forbidden(Color::Black, 1).contains(Square::F2));
    }
}
