//! KPKP: what one look ahead into the KPK bitbase proves. A side that can
//! take the other pawn and reach a KPK win has a win.

use shakmaty::{Chess, Position};

use super::kpk::Kpk;
use crate::tablebase::Wdl;

pub(super) fn recognize(pos: &Chess, kpk: &Kpk) -> Option<Wdl> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return Some(if pos.is_check() { Wdl::Loss } else { Wdl::Draw });
    }
    let wins = moves.iter().filter(|m| m.is_capture()).any(|m| {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        kpk.recognize(&after) == Some(Wdl::Loss)
    });
    wins.then_some(Wdl::Win)
}
