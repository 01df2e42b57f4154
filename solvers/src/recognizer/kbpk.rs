//! KBPK with the wrong bishop: a rook pawn whose promotion square the bishop
//! does not control cannot be queened against a king that holds the corner,
//! and a king and bishop alone cannot mate it there, so it is a draw.

use shakmaty::{Chess, File, Role, Square};

use super::{strong_color, View};
use crate::tablebase::Wdl;

pub(super) fn recognize(pos: &Chess) -> Option<Wdl> {
    let strong = strong_color(pos, "KBPvK")?;
    let view = View::new(pos, strong);
    let pawn = view.single(pos, true, Role::Pawn)?;
    let bishop = view.single(pos, true, Role::Bishop)?;
    let weak_king = view.single(pos, false, Role::King)?;
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
        return None;
    }
    let wrong_bishop = mirror(bishop).is_light() != Square::A8.is_light();
    let in_corner = [Square::A8, Square::B8].contains(&mirror(weak_king));
    (wrong_bishop && in_corner).then_some(Wdl::Draw)
}
