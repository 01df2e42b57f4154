//! KNNK: two knights cannot force mate against a defending king. A mate
//! needs the lone king on the edge, and even there only a few positions are
//! lost, so the rules answer "draw" where the king is clear of the edge or
//! can step off it (or take a knight) at once, or has room to do so next
//! move. Exactness rests on the full verification against tables.

use shakmaty::attacks::{king_attacks, knight_attacks};
use shakmaty::{Bitboard, Chess, Color, File, Position, Rank, Role, Square};

use super::View;
use crate::tablebase::Wdl;

/// Flight squares off the edge that the strong side to move cannot all
/// take away with one move.
const ROOM: u32 = 2;

pub(super) fn recognize(pos: &Chess, strong: Color) -> Option<Wdl> {
    let view = View::new(pos, strong);
    let weak_king = view.single(pos, false, Role::King)?;
    if !on_edge(weak_king) {
        return Some(Wdl::Draw);
    }
    if view.strong_to_move {
        let board = pos.board();
        let strong_king = board.king_of(strong)?;
        let mut guarded = king_attacks(strong_king);
        for knight in board.knights() {
            guarded |= knight_attacks(knight);
        }
        let real_king = board.king_of(!strong)?;
        let room = (king_attacks(real_king) & !guarded & !board.occupied() & !edge()).count();
        return (room as u32 >= ROOM).then_some(Wdl::Draw);
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return Some(if pos.is_check() { Wdl::Loss } else { Wdl::Draw });
    }
    let escapes = moves
        .iter()
        .any(|m| m.is_capture() || !edge().contains(m.to()));
    escapes.then_some(Wdl::Draw)
}

fn edge() -> Bitboard {
    Bitboard::from_file(File::A)
        | Bitboard::from_file(File::H)
        | Bitboard::from_rank(Rank::First)
        | Bitboard::from_rank(Rank::Eighth)
}

fn on_edge(sq: Square) -> bool {
    edge().contains(sq)
}
