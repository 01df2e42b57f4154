//! Dead positions: no sequence of legal moves mates either king (bare
//! kings, a lone minor piece, bishops all on one colour). Their value is a
//! draw whatever the placement and whoever is to move.

use shakmaty::{Chess, Position};

use crate::tablebase::Wdl;

pub(super) fn recognize(pos: &Chess) -> Option<Wdl> {
    pos.is_insufficient_material().then_some(Wdl::Draw)
}
