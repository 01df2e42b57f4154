//! KBNKN draws, awaiting verification against 5-unit tables (registered
//! with `verified: false`, not consulted until then).
//!
//! The rule: the side with the lone knight, to move, can take the bishop or
//! the knight for nothing (the unit is not defended). What is left, a minor
//! piece each, is a draw apart from a few corner mates, and neither side
//! is mated on the spot: both kings off the edge afterwards.

use shakmaty::{Chess, File, Position, Rank, Role, Square};

use super::strong_color;
use crate::tablebase::Wdl;

pub(super) fn recognize(pos: &Chess) -> Option<Wdl> {
    let strong = strong_color(pos, "KBNvKN")?;
    if pos.turn() == strong {
        return None;
    }
    let safe_capture = pos.legal_moves().iter().any(|m| {
        let takes_minor = matches!(m.capture(), Some(Role::Bishop | Role::Knight));
        if !takes_minor {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(*m);
        let kings_inside = [strong, !strong]
            .iter()
            .all(|&c| after.board().king_of(c).is_some_and(|sq| !on_edge(sq)));
        let recapture = after.legal_moves().iter().any(|r| r.to() == m.to());
        kings_inside && !recapture
    });
    safe_capture.then_some(Wdl::Draw)
}

fn on_edge(sq: Square) -> bool {
    matches!(sq.file(), File::A | File::H) || matches!(sq.rank(), Rank::First | Rank::Eighth)
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    use super::*;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn a_minor_won_for_nothing_is_a_draw() {
        // Black's king takes the undefended bishop on d5.
        let fen = "8/8/8/2kB4/8/4K3/8/N5n1 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), Some(Wdl::Draw));
        // The same with White to move: no claim.
        let fen = "8/8/8/2kB4/8/4K3/8/N5n1 w - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // The bishop is defended by the knight: no claim.
        let fen = "8/8/8/2kB4/5N2/4K3/8/6n1 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
    }
}
