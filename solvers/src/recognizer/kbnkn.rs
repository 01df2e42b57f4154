//! KBNKN draws, checked against cookd's KBNvKN table on every position in
//! both colour orientations (`cookd tb verify kbnkn`: 0 incorrect).
//!
//! The position's bucket is one the table has no win in
//! ([`super::kbnkn_buckets`]: a rule mined from the table, 40 % of its
//! draws). Then two hand rules (20.0 % of the draws on their own; the
//! three together are in the README). First, the side with the lone
//! knight, to move, can take the bishop or the knight into a minor-piece
//! ending that the (verified) minor-piece rules call a draw. Second, the
//! knight side is [`safe`]: not in check; its knight unattacked, with
//! three squares to go to that no strong unit attacks (two will do with
//! its king at most two steps off), and near its king (at most three
//! steps, or nearer than the strong king); its king off the edge, or on it
//! with the strong king five steps away or more, but not next to the edge
//! in opposition with its knight three steps off (the table's longest
//! losses); and the strong king not boxed on the edge by its own minor
//! piece (where a lone knight mates).
//! Those conditions came from the table (a histogram of these features
//! over every position, with each feature's draws and losses): knights
//! far from their king get trapped over many moves, kings on the edge get
//! mated when the strong king is near, and looser bounds had losses (two
//! free knight squares anywhere; an edge king with the strong king four
//! steps off; see the tests). A look-ahead extends the second
//! rule: the knight side, to move, has a move after which every strong
//! reply leaves it safe; the strong side, to move, has only moves that
//! leave the knight side safe (a capture never does).

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks};
use shakmaty::{Bitboard, Chess, Color, Position, Role};

use super::{edge_distance, minors, single};
use crate::tablebase::Wdl;

/// Plies of look-ahead past the static rule (see the module docs).
const LOOK_AHEAD: u32 = 2;

pub(super) fn recognize(pos: &Chess, strong: Color) -> Option<Wdl> {
    let draw = if super::kbnkn_buckets::drawn(pos, strong) {
        true
    } else if pos.turn() == strong {
        every_move_holds(pos, strong, LOOK_AHEAD)
    } else {
        takes_into_minors(pos) || holds_within(pos, strong, LOOK_AHEAD)
    };
    draw.then_some(Wdl::Draw)
}

/// The side with the lone knight, to move, can take the bishop or the
/// knight into a minor-piece ending that the (verified) minor-piece
/// rules call a draw.
fn takes_into_minors(pos: &Chess) -> bool {
    pos.legal_moves().iter().any(|m| {
        if !matches!(m.capture(), Some(Role::Bishop | Role::Knight)) {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(*m);
        minors::recognize(&after) == Some(Wdl::Draw)
    })
}

/// The strong side, to move, has moves, and each leads to a position
/// that holds for the knight side within `depth` more plies.
fn every_move_holds(pos: &Chess, strong: Color, depth: u32) -> bool {
    let moves = pos.legal_moves();
    !moves.is_empty()
        && moves.iter().all(|m| {
            if m.is_capture() {
                return false;
            }
            let mut after = pos.clone();
            after.play_unchecked(*m);
            holds_within(&after, strong, depth.saturating_sub(1))
        })
}

/// The knight side, to move, is safe now ([`safe`]) or, with `depth`
/// plies to spare, has a move after which every reply keeps it so.
fn holds_within(pos: &Chess, strong: Color, depth: u32) -> bool {
    if safe(pos, strong) {
        return true;
    }
    if depth < 2 {
        return false;
    }
    pos.legal_moves().iter().any(|m| {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        every_move_holds(&after, strong, depth - 1)
    })
}

/// The knight side, to move, is out of danger (the bounds are in the
/// module docs; each has a test whose mutant fails).
fn safe(pos: &Chess, strong: Color) -> bool {
    if pos.is_check() {
        return false;
    }
    let board = pos.board();
    let (Some(strong_king), Some(weak_king), Some(bishop), Some(knight), Some(weak_knight)) = (
        board.king_of(strong),
        board.king_of(!strong),
        single(board.by_piece(Role::Bishop.of(strong))),
        single(board.by_piece(Role::Knight.of(strong))),
        single(board.by_piece(Role::Knight.of(!strong))),
    ) else {
        return false;
    };
    let attacked = king_attacks(strong_king)
        | bishop_attacks(bishop, board.occupied())
        | knight_attacks(knight);
    let flights = knight_attacks(weak_knight) & !attacked & !Bitboard::from(weak_king);
    let minors = Bitboard::from(bishop) | Bitboard::from(knight);
    !attacked.contains(weak_knight)
        && (flights.count() >= 3 || (flights.count() == 2 && weak_king.distance(weak_knight) <= 2))
        && (weak_king.distance(weak_knight) <= 3
            || weak_king.distance(weak_knight) < strong_king.distance(weak_knight))
        && (edge_distance(weak_king) >= 1 || strong_king.distance(weak_king) >= 5)
        // The table's longest losses (164 and 174 plies): the king next
        // to the edge in opposition, its knight three steps off.
        && !(edge_distance(weak_king) == 1
            && strong_king.distance(weak_king) == 2
            && weak_king.distance(weak_knight) == 3)
        && !(edge_distance(strong_king) == 0 && king_attacks(strong_king).intersects(minors))
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
        // The same with White to move: a win in 69 plies, no claim.
        let fen = "8/8/8/2kB4/8/4K3/8/N5n1 w - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // Nothing to take and the knight on g1 nearly trapped (a loss in
        // 72 plies): no claim.
        let fen = "8/8/8/2k5/8/4K3/3B4/N5n1 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
    }

    #[test]
    fn a_safe_knight_near_its_king_is_a_draw() {
        // Black's knight on d5 next to its king on d6, three free squares
        // and more, king off the edge: a draw (the table agrees).
        let fen = "8/8/3k4/3n4/8/8/2B5/K1N5 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), Some(Wdl::Draw));
        // The look-ahead: Black's knight on g1 is not safe yet, but Black
        // has a move after which every White reply leaves it safe (the
        // table calls it a draw).
        let fen = "8/8/8/8/8/2k5/2B5/K5nN b - - 0 1";
        assert_eq!(recognize(&pos(fen)), Some(Wdl::Draw));
    }

    #[test]
    fn knights_far_from_their_king_are_not_claimed() {
        // Black's knight far from its king, next to the edge, dominated
        // by White's pieces: the table has White winning.
        let fen = "8/1k3N1B/8/8/8/3K1n2/8/8 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // The strong king in the corner boxed by its own knight: Black's
        // knight mates (Nc2#), no draw.
        let fen = "8/8/8/8/7B/1k2n3/8/KN6 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // Two free squares for a knight five steps from its king: a loss
        // in 76 plies (a rule taking two squares wherever the king is had
        // this wrong).
        let fen = "2n1B1N1/8/8/4K3/8/4k3/8/8 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // Knight three steps off, king on b7 in opposition: one of the
        // table's longest losses (164 plies), which the rule first had
        // wrong (the full verification found it and 15 like it).
        let fen = "8/1k3N2/8/BK6/4n3/8/8/8 b - - 0 1";
        assert!(!safe(&pos(fen), Color::White));
        assert_eq!(recognize(&pos(fen)), None);
    }

    #[test]
    fn a_king_on_the_edge_is_safe_only_far_from_the_strong_king() {
        // Black's king on a4, White's seven steps away: safe as it
        // stands, without the look-ahead (a draw).
        let fen = "7K/8/8/2n5/k7/8/7N/7B b - - 0 1";
        assert!(safe(&pos(fen), Color::White));
        assert_eq!(recognize(&pos(fen)), Some(Wdl::Draw));
        // Black's king in the corner, White's four steps away: a loss in
        // 186 plies (a rule taking four steps had this wrong).
        let fen = "8/7B/8/1K6/8/1n1N4/8/k7 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
    }
}
