//! KRPKR: Philidor's draw and Lucena's win, as patterns, checked against
//! cookd's KRPvKR table on every position (`cookd tb verify krpkr`).
//!
//! Philidor (a draw): the defending king on the promotion square or next
//! to it, a pawn of the c- to f-files on its fifth rank, the attacking king
//! not past its fifth rank, the defending rook on the sixth rank (the
//! defender's third) holding it off; nothing hangs, nobody is in check and
//! the side to move has neither a check nor a capture. The tables refuted
//! looser versions: checks from behind skewer either rook, and with the
//! pawn further back or on a knight's file the attacker has wins.
//!
//! The pawn taken (a draw): the side without the pawn, to move, takes it
//! into a rook ending where neither side has a tactic (a rook to win, a
//! mate, a check that skewers or drives the king off its rook), both kings
//! off the edge and four steps apart or more. The tables refuted looser
//! versions: with a king on the edge, two checks skewer (the first drives
//! the king off its rank); with the kings close, the king and rook win a
//! rook the other king guards once. `cookd tb verify krpkr` over every
//! position, both orientations: 0 incorrect, 5,660,872 of 423,911,044
//! draws (1.3 %) each.
//!
//! The pawn taken, read from the KRvKR table where one is at hand (a
//! draw): the side without the pawn, to move, takes it into a rook ending
//! the table calls a draw, has no tactic, and the kings stand three steps
//! apart or more with the pawn's king off the edge. A census of the
//! KRPvKR table over every 197th placement found the few wins of the side
//! without the pawn (a check driving the king, then the rook won) only
//! with that king on the edge or the kings two steps apart. `cookd tb
//! verify krpkr` over every position, both orientations, with the KRvKR
//! table: 0 incorrect, 25,346,464 of 423,911,044 draws (6.0 %) each.
//!
//! Lucena (a win for the side with the pawn, to move): its king on the
//! promotion square, the pawn (not a rook pawn) right below it on the
//! seventh rank, the defending king cut off by at least two files by the
//! attacking rook standing between it and the pawn; nobody in check.

use shakmaty::attacks::{king_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Color, File, Position, Rank, Role, Square};

use super::View;
use crate::checking::{gives_check, CheckInfo};
use crate::tablebase::tables::LoadedTable;
use crate::tablebase::Wdl;

/// The units of a KRPKR position as the side with the pawn sees it.
struct Units {
    strong_king: Square,
    strong_rook: Square,
    pawn: Square,
    weak_king: Square,
    weak_rook: Square,
    occupied: Bitboard,
}

pub(super) fn recognize(
    pos: &Chess,
    strong: Color,
    rook_ending: Option<&LoadedTable>,
) -> Option<Wdl> {
    let view = View::new(pos, strong);
    if !view.strong_to_move
        && (takes_the_pawn(pos) || rook_ending.is_some_and(|t| takes_the_pawn_into_a_draw(pos, t)))
    {
        return Some(Wdl::Draw);
    }
    if pos.is_check() {
        return None;
    }
    let units = Units {
        strong_king: view.single(pos, true, Role::King)?,
        strong_rook: view.single(pos, true, Role::Rook)?,
        pawn: view.single(pos, true, Role::Pawn)?,
        weak_king: view.single(pos, false, Role::King)?,
        weak_rook: view.single(pos, false, Role::Rook)?,
        occupied: relative(pos.board().occupied(), strong),
    };
    if philidor(&units) && quiet_only(pos) {
        return Some(Wdl::Draw);
    }
    if view.strong_to_move && lucena(&units) {
        return Some(Wdl::Win);
    }
    None
}

/// The side without the pawn, to move, takes it into a rook ending where
/// neither side has a tactic ([`no_tactic`]): with a rook each and no
/// tactic at hand nobody can force a win (the tables confirmed it).
fn takes_the_pawn(pos: &Chess) -> bool {
    // Taking the pawn must be its best: no tactic wins instead.
    no_tactic(pos)
        && pos.legal_moves().iter().any(|m| {
            if m.capture() != Some(Role::Pawn) {
                return false;
            }
            let mut after = pos.clone();
            after.play_unchecked(*m);
            // Neither side has a tactic, the taker (were it to move)
            // included, and both kings are off the edge, where deeper
            // mates and skewers start (the tables found them).
            kings_inside(&after)
                && no_tactic(&after)
                && after.clone().swap_turn().is_ok_and(|p| no_tactic(&p))
        })
}

/// The side without the pawn, to move, takes it into a rook ending the
/// KRvKR table calls a draw, has no tactic at hand ([`no_tactic`]), and
/// the kings stand three steps apart or more with the pawn's king off the
/// edge. Taking the pawn secures the draw; the guards keep out the rare
/// deeper wins of the side without the pawn, which the tables found only
/// against a king on the edge or close to the other king (a check drives
/// it, a second one wins the rook).
fn takes_the_pawn_into_a_draw(pos: &Chess, rook_ending: &LoadedTable) -> bool {
    let board = pos.board();
    let (Some(ours), Some(theirs)) = (board.king_of(pos.turn()), board.king_of(!pos.turn())) else {
        return false;
    };
    ours.distance(theirs) >= 3
        && !on_edge(theirs)
        && no_tactic(pos)
        && pos.legal_moves().iter().any(|m| {
            if m.capture() != Some(Role::Pawn) {
                return false;
            }
            let mut after = pos.clone();
            after.play_unchecked(*m);
            rook_ending
                .try_probe(&after)
                .is_ok_and(|dtm| dtm.wdl() == Wdl::Draw)
        })
}

fn on_edge(sq: Square) -> bool {
    matches!(sq.file(), File::A | File::H) || matches!(sq.rank(), Rank::First | Rank::Eighth)
}

/// Both kings stand off the edge of the board and four steps apart or
/// more: with a king on the edge, or the kings close,
/// the tables hold deeper mates and two-step skewers (a check drives the
/// king off its rank, the next check skewers it against its rook).
fn kings_inside(pos: &Chess) -> bool {
    let board = pos.board();
    match (board.king_of(Color::White), board.king_of(Color::Black)) {
        (Some(white), Some(black)) => {
            white.distance(black) >= 4 && !on_edge(white) && !on_edge(black)
        }
        _ => false,
    }
}

/// With a rook each (and maybe the other side's pawn, whose capture is
/// judged apart), the side to move has nothing that wins at once: no rook
/// to take for nothing, no mate, and no check that skewers or forks the
/// other rook while it stands unguarded.
fn no_tactic(pos: &Chess) -> bool {
    let them = !pos.turn();
    let board = pos.board();
    let (Some(their_king), Some(their_rook)) = (
        board.king_of(them),
        board.by_piece(Role::Rook.of(them)).first(),
    ) else {
        return false;
    };
    let guarded = king_attacks(their_king).contains(their_rook);
    let Some(our_king) = board.king_of(!them) else {
        return false;
    };
    let info = CheckInfo::new(pos);
    pos.legal_moves().iter().all(|m| {
        // Taking their rook wins unless they retake and ours is not
        // guarded in turn by our king.
        let trade = guarded && !king_attacks(our_king).contains(m.to());
        if m.capture() == Some(Role::Rook) && !trade {
            return false;
        }
        if !info.is_some_and(|info| gives_check(pos, &info, m)) {
            // Taking the pawn quietly is judged by the caller.
            return true;
        }
        let mut after = pos.clone();
        after.play_unchecked(*m);
        let board = after.board();
        let (Some(our_rook), Some(our_king)) = (
            board.by_piece(Role::Rook.of(!them)).first(),
            board.king_of(!them),
        ) else {
            return false;
        };
        // Their rook attacked once their king steps aside (a skewer, or
        // a check driving the king off its guard), or a king with no step
        // to take (mates in one or two): the check may win.
        let seen = rook_attacks(our_rook, board.occupied() & !Bitboard::from(their_king))
            | king_attacks(our_king);
        let replies = after.legal_moves();
        replies.iter().any(|r| r.role() == Role::King) && !seen.contains(their_rook)
    })
}

/// The side to move has neither a check nor a capture: no tactic can
/// break the pattern at once (checks from behind skewer the defending
/// rook on its rank or file, as the tables showed).
fn quiet_only(pos: &Chess) -> bool {
    let info = CheckInfo::new(pos);
    pos.legal_moves()
        .iter()
        .all(|m| !m.is_capture() && !info.is_some_and(|info| gives_check(pos, &info, m)))
}

fn relative(bb: Bitboard, strong: Color) -> Bitboard {
    match strong {
        Color::White => bb,
        Color::Black => bb.flip_vertical(),
    }
}

fn philidor(u: &Units) -> bool {
    let queening = Square::from_coords(u.pawn.file(), Rank::Eighth);
    let weak_rook_attacked = king_attacks(u.strong_king).contains(u.weak_rook)
        || rook_attacks(u.strong_rook, u.occupied).contains(u.weak_rook);
    let weak_rook_defended = king_attacks(u.weak_king).contains(u.weak_rook);
    let strong_rook_hangs = (king_attacks(u.weak_king) | rook_attacks(u.weak_rook, u.occupied))
        .contains(u.strong_rook)
        && !king_attacks(u.strong_king).contains(u.strong_rook);
    matches!(u.pawn.file(), File::C | File::D | File::E | File::F)
        && u.weak_king.distance(queening) <= 1
        && u.weak_king.rank() >= Rank::Seventh
        && u.pawn.rank() == Rank::Fifth
        && u.strong_king.rank() <= Rank::Fifth
        && u.weak_rook.rank() == Rank::Sixth
        && (!weak_rook_attacked || weak_rook_defended)
        && !strong_rook_hangs
}

fn lucena(u: &Units) -> bool {
    let pawn_file = u.pawn.file().to_u32() as i32;
    let weak_file = u.weak_king.file().to_u32() as i32;
    let rook_file = u.strong_rook.file().to_u32() as i32;
    let between = (pawn_file < rook_file && rook_file < weak_file)
        || (weak_file < rook_file && rook_file < pawn_file);
    !matches!(u.pawn.file(), File::A | File::H)
        && u.pawn.rank() == Rank::Seventh
        && u.strong_king == Square::from_coords(u.pawn.file(), Rank::Eighth)
        && (pawn_file - weak_file).abs() >= 2
        && between
}

#[cfg(test)]
mod tests {

    use super::*;

    use crate::testing::position as pos;

    /// Through the registry, which finds the colour holding the key's
    /// first side (the tests have it on either side).
    fn recognize(pos: &Chess) -> Option<Wdl> {
        crate::recognizer::Registry::new()
            .by_name("krpkr")
            .and_then(|r| r.recognize(pos))
    }

    #[test]
    fn philidor_without_tactics_is_a_draw() {
        // Philidor: Black's king on the queening square, its rook on the
        // sixth rank keeping White's king out; White's rook has no check.
        for fen in [
            "4k3/8/r7/3KP3/8/8/8/3R4 w - - 0 1",
            // Colours reversed (Black has the pawn).
            "3r4/8/8/8/3kp3/R7/8/4K3 b - - 0 1",
        ] {
            assert_eq!(recognize(&pos(fen)), Some(Wdl::Draw), "{fen}");
        }
    }

    #[test]
    fn taking_the_pawn_into_a_quiet_rook_ending_is_a_draw() {
        // Black's king takes b5; kings four steps apart, off the edge, no
        // check or capture worth anything for either side (a table draw).
        let fen = "7r/8/8/1Pk5/8/5K2/8/R7 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), Some(Wdl::Draw));
        // White to move keeps the pawn: no claim (though a draw too).
        let fen = "7r/8/8/1Pk5/8/5K2/8/R7 w - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // Kings two steps apart after the capture: no claim.
        let fen = "7r/8/8/1Pk5/8/3K4/8/R7 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
        // Taking the pawn with check skewers nothing here, but Black's
        // rook hangs to White's king and rook together: the table's win
        // for White after 1...Kxc2 2.Rxd3, no claim.
        let fen = "8/8/8/8/8/1k1rR3/2P1K3/8 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
    }

    #[test]
    fn lucena_is_a_win_for_the_side_to_move_with_the_pawn() {
        // Lucena: White Kd8, Pd7, Re1 cutting off Black's Kg7, Black's rook
        // on c2 keeping the king on the d-file.
        let fen = "3K4/3P2k1/8/8/8/8/2r5/4R3 w - - 0 1";
        assert_eq!(recognize(&pos(fen)), Some(Wdl::Win));
        // Black to move there: the pattern does not answer.
        let fen = "3K4/3P2k1/8/8/8/8/2r5/4R3 b - - 0 1";
        assert_eq!(recognize(&pos(fen)), None);
    }

    #[test]
    fn near_misses_are_not_claimed() {
        for fen in [
            // Pawn already on the sixth: Philidor's defence has changed.
            "4k3/8/r3P3/4K3/8/8/8/7R w - - 0 1",
            // Black's rook hangs to White's rook on the sixth rank.
            "4k3/8/r6R/4K3/4P3/8/8/8 w - - 0 1",
            // The Lucena setup with the rook not between king and pawn.
            "3K4/3P2k1/8/8/8/8/2r5/7R w - - 0 1",
            // White in check.
            "3K3r/3P2k1/8/8/8/8/8/4R3 w - - 0 1",
            // Philidor's shape, but a check decides, as the tables found:
            // 1.Rd8+ wins for White; 1...Rh3+ skewers and wins for Black.
            "1R6/3k4/2r5/1K6/8/2P5/8/8 w - - 0 1",
            "2k5/8/7r/2P5/8/R4K2/8/8 b - - 0 1",
            // The pawn still on its fourth rank: the tables know wins there.
            "4k3/8/r7/4K3/4P3/8/8/7R w - - 0 1",
        ] {
            assert_eq!(recognize(&pos(fen)), None, "{fen}");
        }
    }
}
