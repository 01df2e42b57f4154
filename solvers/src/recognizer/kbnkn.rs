//! KBNKN draws, checked against cookd's KBNvKN table on every position in
//! both colour orientations (`cookd tb verify kbnkn`: 0 incorrect).
//!
//! The rule: the side with the lone knight, to move, can take the bishop or
//! the knight into a minor-piece ending that the (verified) minor-piece
//! rules call a draw. That proves it does not lose; that it cannot win
//! either (mates by a lone knight need the other king smothered by its own
//! units in a corner) is what the table confirmed.

use shakmaty::{Chess, Color, Position, Role};

use super::minors;
use crate::tablebase::Wdl;

pub(super) fn recognize(pos: &Chess, strong: Color) -> Option<Wdl> {
    if pos.turn() == strong {
        return None;
    }
    let holds = pos.legal_moves().iter().any(|m| {
        if !matches!(m.capture(), Some(Role::Bishop | Role::Knight)) {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(*m);
        minors::recognize(&after) == Some(Wdl::Draw)
    });
    holds.then_some(Wdl::Draw)
}

#[cfg(test)]
mod tests {

    use super::*;

    use crate::testing::position as pos;

    /// Through the registry, which finds the colour holding the key's
    /// first side (the tests have it on either side).
    fn recognize(pos: &Chess) -> Option<Wdl> {
        crate::recognizer::Registry::new()
            .by_name("kbnkn")
            .and_then(|r| r.recognize(pos))
    }

    #[test]
    fn a_minor_taken_into_a_drawn_ending_is_a_draw() {
        // Black's king takes the bishop on d5; both kings stay off the edge.
        let fen = "8/8/8/2kB4/8/4K3/8/N5n1 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), Some(Wdl::Draw));
        // The same with White to move: no claim.
        let fen = "8/8/8/2kB4/8/4K3/8/N5n1 w - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // Nothing to take: no claim.
        let fen = "8/8/8/2k5/8/4K3/3B4/N5n1 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // The only capture leaves White's king on the edge: no claim.
        let fen = "8/8/8/8/8/2k5/2B5/K5nN b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
    }
}
