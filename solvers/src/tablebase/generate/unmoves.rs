//! Un-moves (the predecessors of a placement) and the symmetries that can
//! give one position two slots or two moves one child.

use shakmaty::{attacks, Color, Role, Square};

use crate::tablebase::index::{kings_apart, Layout, Placement};

/// Calls `found` with every placement from which a move that captures
/// nothing and promotes nothing leads to `p`, the slot of the unit that
/// moved, and for a pawn's double step the square it skipped. Placements are not yet brought into the stored
/// part of the board. Kings never stand side by side in them, but the side
/// that moves next in `p` may stand in check: the generator knows those
/// slots as illegal already, which is cheaper than an attack test here.
pub fn unmoves(
    layout: &Layout,
    p: &Placement,
    mut found: impl FnMut(Placement, usize, Option<u8>),
) {
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
        let mut push = |to: u8, double: bool| {
            let mut q = *p;
            q.squares[slot] = to;
            q.white_to_move = !p.white_to_move;
            if slot > 1 || kings_apart(q.squares[0], q.squares[1]) {
                found(q, slot, double.then_some((from + to) / 2));
            }
        };
        if piece.role == Role::Pawn {
            let back: i16 = if mover == Color::White { -8 } else { 8 };
            let one = (i16::from(from) + back) as u8;
            let home_rank = if mover == Color::White { 1 } else { 6 };
            let double_rank = if mover == Color::White { 3 } else { 4 };
            if (8..56).contains(&one) && !occupied.contains(Square::new(u32::from(one))) {
                push(one, false);
                let two = (i16::from(one) + back) as u8;
                if from >> 3 == double_rank
                    && two >> 3 == home_rank
                    && !occupied.contains(Square::new(u32::from(two)))
                {
                    push(two, true);
                }
            }
        } else {
            let sq = Square::new(u32::from(from));
            for to in attacks::attacks(sq, piece, occupied) & !occupied {
                push(u8::from(to), false);
            }
        }
    }
}

fn on_a1h8(sq: u8) -> bool {
    sq >> 3 == sq & 7
}

fn on_a8h1(sq: u8) -> bool {
    (sq >> 3) + (sq & 7) == 7
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
