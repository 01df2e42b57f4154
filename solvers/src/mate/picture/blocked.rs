//! A White pawn whose file a Black pawn blocks, where White has nothing
//! else Black's pawn could take: the pictures' distances are those of an
//! empty board, and here the board is not empty in a way that costs.
//!
//! White has its king and one pawn `W` (on `s`); a Black pawn `B` stands
//! ahead of it on its file (on `b0`, the nearest). `B` can never leave
//! that file: a pawn leaves it by taking, and there is no White unit it
//! could take but `W` itself on a neighbouring file (the king cannot be
//! taken). It cannot pass `W` either, so it stays on a square of
//! `(s, b0]`. A picture with `W` on a square `t` of its file at or past
//! `b0` therefore needs `B` gone, and costs more than its distances say:
//!
//! - either `W` leaves its file by taking and comes back by taking (its
//!   captures each advance one rank, as its steps do): this costs one move
//!   more where its double step counted in its distance and the way round
//!   cannot use it (`W` on its second rank, `B` on the third or fourth),
//!   and cannot be done at all where `t` is the square ahead of `s`;
//! - or the king takes `B` on some square `b` of `(s, b0]`: its moves
//!   are at least its distance to `b` and from there to its own square
//!   in the picture (to `b` alone where the picture does not name it), and
//!   `B` takes `b0 - b` moves to step down there, moves of Black's that
//!   no block counts unless a block of the picture stands on the file
//!   where `B` could fill it.
//!
//! A picture is kept when one of these fits both sides' moves left: the
//! test only ever drops pictures no mate in the moves left can contain.

use super::*;

/// What a position tells of its blocked pawn (see the module).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockedPawn {
    /// The White pawn's unit and square.
    pawn: u8,
    from: Square,
    /// The White king's unit and square.
    king: u8,
    king_sq: Square,
    /// The nearest Black pawn ahead of `from` on its file.
    black: Square,
    /// The squares of `(from, black]`: where that pawn may be taken.
    between: Bitboard,
    /// Whether the Black pawn stands on the square ahead of `from`.
    right_ahead: bool,
}

impl BlockedPawn {
    /// The blocked pawn of `pos`, if the position has one.
    pub(crate) fn of(pictures: &Pictures, pos: &Chess, units: &Units) -> Option<BlockedPawn> {
        let board = pos.board();
        let white = board.white();
        // Most searches have other White units: told at once.
        if !pictures.one_white_pawn || white.count() != 2 {
            return None;
        }
        let king_sq = board.king_of(Color::White)?;
        let from = white.without(king_sq).single_square()?;
        if board.role_at(from) != Some(Role::Pawn) {
            return None;
        }
        let ahead = Bitboard::from_file(from.file()) & above(from);
        let black = (ahead & board.pawns() & board.black()).first()?;
        let between = ahead & !above(black);
        Some(BlockedPawn {
            pawn: units.by_square[from.to_usize()],
            from,
            king: units.by_square[king_sq.to_usize()],
            king_sq,
            black,
            between,
            right_ahead: between.count() == 1,
        })
    }

    /// Whether picture `c` (whose White cost `c.white` is within
    /// `white_moves`) may still be reached with `white_moves` and
    /// `black_moves` left.
    pub(crate) fn keeps(
        &self,
        pictures: &Pictures,
        c: &Costs,
        white_moves: u32,
        black_moves: u32,
    ) -> bool {
        let spare_white = white_moves.saturating_sub(u32::from(c.white));
        // The way round costs one move at most, unless the Black pawn
        // stands right ahead (see below).
        if c.named_ids & 1 << self.pawn == 0 || (spare_white >= 1 && !self.right_ahead) {
            return true;
        }
        // The pawn's state, read from the picture unless it gives the check.
        let pawn = match c.checker {
            n if n.id == self.pawn => n,
            _ => {
                let p = &pictures.all[c.index as usize];
                let named = &p.named[..usize::from(p.n_named)];
                match named.iter().find(|n| n.id == self.pawn) {
                    Some(n) => *n,
                    None => return true,
                }
            }
        };
        let to = pawn.sq;
        if pawn.role != Role::Pawn || to.file() != self.from.file() || to.rank() < self.black.rank()
        {
            return true;
        }
        // The way round: one move more where the double step is lost.
        let round = if to.rank() as u32 == self.from.rank() as u32 + 1 {
            u32::from(FAR)
        } else if self.from.rank() == shakmaty::Rank::Second
            && self.black.rank() as u32 <= self.from.rank() as u32 + 2
        {
            1
        } else {
            0
        };
        if round <= spare_white {
            return true;
        }
        // From here the Black pawn stands on the fourth rank at most, or
        // right ahead: it has no double step, each step down is a move.
        let spare_black = black_moves.saturating_sub(u32::from(c.blocks) + u32::from(c.king));
        // A block on the pawn's squares may be the pawn's own: its steps
        // down are then counted there.
        let mut block_squares = Bitboard(c.kinds as u64);
        for k in kinds_of(c.kinds & !Kinds::from(u64::MAX)) {
            block_squares.add(pictures.kind_square(k));
        }
        let steps_counted = (block_squares & self.between).any();
        let p = &pictures.all[c.index as usize];
        let king_to = p.named[..usize::from(p.n_named)]
            .iter()
            .find(|n| n.id == self.king && n.role == Role::King)
            .map(|n| n.sq);
        self.between.into_iter().any(|b| {
            let detour = match king_to {
                Some(to) => {
                    king_distance(self.king_sq, b) + king_distance(b, to)
                        - king_distance(self.king_sq, to)
                }
                None => king_distance(self.king_sq, b),
            };
            let steps = if steps_counted {
                0
            } else {
                self.black.rank() as u32 - b.rank() as u32
            };
            detour <= spare_white && steps <= spare_black
        })
    }

    /// [`BlockedPawn::keeps`] at a node with `left` plies to go.
    pub(crate) fn keeper<'a>(
        &'a self,
        pictures: &'a Pictures,
        left: u8,
    ) -> impl Fn(&Costs) -> bool + 'a {
        let (white_moves, black_moves) = (u32::from(left.div_ceil(2)), u32::from(left / 2));
        move |c| self.keeps(pictures, c, white_moves, black_moves)
    }
}

/// The squares on ranks above `sq`'s.
fn above(sq: Square) -> Bitboard {
    Bitboard(
        u64::MAX
            .checked_shl(8 * (sq.rank() as u32 + 1))
            .unwrap_or(0),
    )
}
