//! KNNK: two knights cannot force mate against a defending king; a mate
//! needs the lone king on the edge, and even there only rare positions are
//! lost. The rules answer where that is certain.

use shakmaty::{Chess, Position, Role};

use super::{strong_color, View};
use crate::tablebase::Wdl;

pub(super) fn recognize(pos: &Chess) -> Option<Wdl> {
    let strong = strong_color(pos, "KNNvK")?;
    let view = View::new(pos, strong);
    let weak_king = view.single(pos, false, Role::King)?;
    if !on_edge(weak_king) {
        return Some(Wdl::Draw);
    }
    None
}

fn on_edge(sq: shakmaty::Square) -> bool {
    use shakmaty::{File, Rank};
    matches!(sq.file(), File::A | File::H) || matches!(sq.rank(), Rank::First | Rank::Eighth)
}

#[allow(dead_code)]
fn terminal(pos: &Chess) -> Option<Wdl> {
    if pos.is_checkmate() {
        Some(Wdl::Loss)
    } else if pos.is_stalemate() {
        Some(Wdl::Draw)
    } else {
        None
    }
}
