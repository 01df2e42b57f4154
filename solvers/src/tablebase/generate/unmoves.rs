//! Un-moves (the predecessors of a placement) and the symmetries that can
//! give one position two slots or two moves one child.

use shakmaty::{attacks, Bitboard, Color, Piece, Role, Square};

use crate::tablebase::index::{Layout, Placement};

/// Calls `found` with every un-move of `p`: a move that captures nothing
/// and promotes nothing leads to `p` from `p` with the unit in the slot
/// back on the square (see [`unmoved`]), and for a pawn's double step the
/// square it skipped. Those placements are not yet brought into the
/// stored part of the board. Kings never stand side by side in them, but
/// the side that moves next in `p` may stand in check: the generator knows
/// those slots as illegal already, which is cheaper than an attack test
/// here. No placement is built here: the generator's fast path needs only
/// the slot and the square (and writing a byte into a placement copied
/// whole right after stalls the store buffer).
pub fn unmoves(layout: &Layout, p: &Placement, mut found: impl FnMut(usize, u8, Option<u8>)) {
    let mover = if p.white_to_move {
        Color::Black
    } else {
        Color::White
    };
    let occupied = layout.occupied(p);
    for slot in 0..layout.units() {
        let piece = layout.piece(slot);
        if piece.color != mover {
            continue;
        }
        let from = p.squares[slot];
        if piece.role == Role::Pawn {
            let back: i16 = if mover == Color::White { -8 } else { 8 };
            let one = (i16::from(from) + back) as u8;
            let home_rank = if mover == Color::White { 1 } else { 6 };
            let double_rank = if mover == Color::White { 3 } else { 4 };
            if (8..56).contains(&one) && !occupied.contains(Square::new(u32::from(one))) {
                found(slot, one, None);
                let two = (i16::from(one) + back) as u8;
                if from >> 3 == double_rank
                    && two >> 3 == home_rank
                    && !occupied.contains(Square::new(u32::from(two)))
                {
                    found(slot, two, Some(one));
                }
            }
        } else {
            for to in piece_unmoves(p, slot, piece, occupied) {
                found(slot, u8::from(to), None);
            }
        }
    }
}

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
