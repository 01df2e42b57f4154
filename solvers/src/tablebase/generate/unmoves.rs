//! Un-moves (the predecessors of a placement) and the symmetries that can
//! give one position two slots or two moves one child.

use shakmaty::{attacks, Bitboard, Piece, Square};

use crate::tablebase::index::{Layout, Placement};

/// The squares the piece (not a pawn) in `slot` of `p` may have come
/// from by a move that took nothing: the empty squares it reaches, kings
/// never next to each other.
pub(super) fn piece_unmoves(
    p: &Placement,
    slot: usize,
    piece: Piece,
    occupied: Bitboard,
) -> Bitboard {
    let from = Square::new(u32::from(p.squares[slot]));
    let reach = attacks::attacks(from, piece, occupied) & !occupied;
    match slot {
        0 | 1 => reach & !attacks::king_attacks(Square::new(u32::from(p.squares[1 - slot]))),
        _ => reach,
    }
}

fn on_a1h8(sq: u8) -> bool {
    sq >> 3 == sq & 7
}

fn on_a8h1(sq: u8) -> bool {
    (sq >> 3) + (sq & 7) == 7
}

/// `p` with the unit in `slot` on `to` and the other side to move: the
/// placement an un-move of `p` leads to.
pub fn unmoved(p: &Placement, slot: usize, to: u8) -> Placement {
    let mut q = *p;
    q.squares[slot] = to;
    q.white_to_move = !p.white_to_move;
    q
}

/// Only a placement with both kings on the a1–h8 diagonal has a mirror
/// image with another slot (see `index`); others need no check.
pub(super) fn may_have_two_names(layout: &Layout, p: &Placement) -> bool {
    !layout.material().has_pawns() && on_a1h8(p.squares[0]) && on_a1h8(p.squares[1])
}

/// Whether two moves of this placement can lead to one slot: then their
/// children are mirror images in a diagonal (the only symmetry that fixes
/// squares), which fixes both kings after the move, so at most one king
/// stands off that diagonal now. Without pawns only; pawns rule out the
/// diagonal mirrors.
pub(super) fn may_meet_symmetry(layout: &Layout, p: &Placement) -> bool {
    if layout.material().has_pawns() {
        return false;
    }
    let kings = &p.squares[..2];
    [on_a1h8 as fn(u8) -> bool, on_a8h1]
        .iter()
        .any(|on| kings.iter().any(|&s| on(s)))
}
