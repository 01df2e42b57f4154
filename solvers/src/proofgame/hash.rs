//! Keys for the search's table and caches. Table keys are kept up to date
//! move by move: hashing the whole board at every node costs more than the
//! rest of a node that the table answers. They are shakmaty's Zobrist
//! hashes (legal en passant squares only), so they agree with
//! `Position::zobrist_hash`.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, Board, Castles, CastlingSide, Chess, Color, EnPassantMode, Move, Piece, Position,
    Role, Square,
};

pub(super) use crate::transposition::mix;

pub fn piece_key(sq: Square, piece: Piece) -> u64 {
    Zobrist64::zobrist_for_piece(sq, piece).0
}

/// The units' part of the key of a board, kept per side (by `Color as
/// usize`): a side's part also keys what the static tests work out for
/// that side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardHash([u64; 2]);

impl BoardHash {
    /// The key of `board`, hashed afresh.
    pub fn new(board: &Board) -> BoardHash {
        let mut sides = [0; 2];
        for (sq, piece) in board {
            sides[piece.color as usize] ^= piece_key(sq, piece);
        }
        BoardHash(sides)
    }

    /// The key after `turn` plays `m`.
    pub fn after(self, turn: Color, m: &Move) -> BoardHash {
        let ours = |role: Role| role.of(turn);
        let (moved, taken) = match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => (
                piece_key(from, ours(role)) ^ piece_key(to, ours(promotion.unwrap_or(role))),
                capture.map_or(0, |role| piece_key(to, role.of(!turn))),
            ),
            Move::EnPassant { from, to } => {
                let pawn = ours(Role::Pawn);
                let taken = Square::from_coords(to.file(), from.rank());
                (
                    piece_key(from, pawn) ^ piece_key(to, pawn),
                    piece_key(taken, Role::Pawn.of(!turn)),
                )
            }
            Move::Castle { king, rook } => {
                let side = m.castling_side().expect("a castling move");
                let (k, r) = (ours(Role::King), ours(Role::Rook));
                (
                    piece_key(king, k)
                        ^ piece_key(side.king_to(turn), k)
                        ^ piece_key(rook, r)
                        ^ piece_key(side.rook_to(turn), r),
                    0,
                )
            }
            Move::Put { .. } => unreachable!("no drops in chess"),
        };
        let mut sides = self.0;
        sides[turn as usize] ^= moved;
        sides[!turn as usize] ^= taken;
        BoardHash(sides)
    }

    /// The whole board's part (shakmaty's Zobrist key of its units).
    pub fn board(self) -> u64 {
        self.0[0] ^ self.0[1]
    }

    /// `color`'s units' part.
    pub fn side(self, color: Color) -> u64 {
        self.0[color as usize]
    }
}

/// A key for `color`'s units and castling rights (for caching what the
/// static tests work out for the side); `hash` is `board`'s.
pub fn side_key(hash: BoardHash, board: &Board, castles: &Castles, color: Color) -> u64 {
    units_key(
        hash.side(color),
        castles.castling_rights() & board.by_color(color),
    )
}

/// [`side_key`] from the side's part of the board's key and its castling
/// rights (rook squares).
pub fn units_key(side: u64, rights: Bitboard) -> u64 {
    mix(side ^ rights.0)
}

/// The key of `pos`, whose board's key is `board_hash`.
pub fn position_hash(pos: &Chess, board_hash: u64) -> u64 {
    let mut hash = board_hash;
    if pos.turn() == Color::White {
        hash ^= Zobrist64::zobrist_for_white_turn().0;
    }
    let castles = pos.castles();
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if castles.has(color, side) {
                hash ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    if let Some(sq) = pos.ep_square(EnPassantMode::Legal) {
        hash ^= Zobrist64::zobrist_for_en_passant_file(sq.file()).0;
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random games (castling, en passant and promotions come up
    /// in them): the key kept move by move equals the one hashed afresh.
    #[test]
    fn keys_follow_the_moves() {
        let mut rng = crate::testing::Lcg(0x9E37_79B9_7F4A_7C15);
        let mut kinds = [0usize; 3];
        for _ in 0..300 {
            let mut pos = Chess::default();
            let mut hash = BoardHash::new(pos.board());
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.next(moves.len())];
                kinds[0] += usize::from(m.is_castle());
                kinds[1] += usize::from(m.is_en_passant());
                kinds[2] += usize::from(m.is_promotion());
                hash = hash.after(pos.turn(), &m);
                pos.play_unchecked(m);
                assert_eq!(hash, BoardHash::new(pos.board()), "{m}");
                let fresh = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
                assert_eq!(position_hash(&pos, hash.board()), fresh);
            }
        }
        assert!(
            kinds.iter().all(|&k| k > 0),
            "castling, e.p., promotion: {kinds:?}"
        );
    }
}
