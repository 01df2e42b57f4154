//! KBPK draws. The wrong bishop: a rook pawn whose promotion square the
//! bishop does not control cannot be queened against a king that holds the
//! corner, and a king and bishop alone cannot mate it there. And the lone
//! king, which can never win, draws when it is to move and can take a unit
//! into a drawn KPK or a dead KBK, or is stalemated.

use shakmaty::{Chess, Color, File, Position, Role, Square};

use super::kpk::Kpk;
use super::View;
use crate::tablebase::Wdl;

pub(super) fn recognize(pos: &Chess, strong: Color, kpk: &Kpk) -> Option<Wdl> {
    let view = View::new(pos, strong);
    if wrong_bishop(pos, view) {
        return Some(Wdl::Draw);
    }
    if !view.strong_to_move && lone_king_holds(pos, kpk) {
        return Some(Wdl::Draw);
    }
    None
}

/// The lone king to move is stalemated or takes into a drawn ending.
fn lone_king_holds(pos: &Chess, kpk: &Kpk) -> bool {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return !pos.is_check();
    }
    moves.iter().filter(|m| m.is_capture()).any(|m| {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        after.is_insufficient_material() || kpk.recognize(&after) == Some(Wdl::Draw)
    })
}

fn wrong_bishop(pos: &Chess, view: View) -> bool {
    let (Some(pawn), Some(bishop), Some(weak_king)) = (
        view.single(pos, true, Role::Pawn),
        view.single(pos, true, Role::Bishop),
        view.single(pos, false, Role::King),
    ) else {
        return false;
    };
    // Mirror an h-pawn onto the a-file; square colours mirror with it, so
    // "same colour as the promotion square" is unchanged.
    let mirror = |sq: Square| {
        if pawn.file() == File::H {
            sq.flip_horizontal()
        } else {
            sq
        }
    };
    if mirror(pawn).file() != File::A {
        return false;
    }
    let wrong_bishop = mirror(bishop).is_light() != Square::A8.is_light();
    let in_corner = [Square::A8, Square::B8, Square::A7, Square::B7].contains(&mirror(weak_king));
    wrong_bishop && in_corner
}
