//! KRPKR: Philidor's draw (awaiting verification against 5-unit tables).

use shakmaty::Chess;

use crate::tablebase::Wdl;

pub(super) fn recognize(_pos: &Chess) -> Option<Wdl> {
    None
}
