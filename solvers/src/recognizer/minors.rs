//! A minor piece each (KBKB, KBKN, KNKN): drawn apart from a few positions
//! where a king in the corner is smothered by its own piece. Dead positions
//! (same-coloured bishops) are draws; otherwise the rule answers "draw"
//! while both kings are off the edge, where no such mate is near.
//! Exactness rests on the full verification against tables.

use shakmaty::{Bitboard, Chess, Color, File, Position, Rank};

use crate::tablebase::Wdl;

pub(super) fn recognize(pos: &Chess) -> Option<Wdl> {
    if pos.is_insufficient_material() {
        return Some(Wdl::Draw);
    }
    let board = pos.board();
    let edge = Bitboard::from_file(File::A)
        | Bitboard::from_file(File::H)
        | Bitboard::from_rank(Rank::First)
        | Bitboard::from_rank(Rank::Eighth);
    let inside = [Color::White, Color::Black]
        .iter()
        .all(|&c| board.king_of(c).is_some_and(|sq| !edge.contains(sq)));
    inside.then_some(Wdl::Draw)
}
