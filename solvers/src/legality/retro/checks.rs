//! Double checks the last move cannot have given.
//!
//! One move gives at most one direct check; a second check must have been
//! uncovered: a slider whose line to the king passed through the square the
//! moving unit left (or, for en passant, the captured pawn's square). The
//! cheap layer rejects two steppers and two aligned checkers; this also
//! rejects a stepper or a contact checker paired with a checker that cannot
//! have been uncovered by it (e.g. a rook next to the king and a knight).

use shakmaty::{attacks, Bitboard, Color, File, Role, Setup, Square};

use super::pawns::relative_rank;
use crate::legality::{Flaw, Reason};

/// Squares the unit on `sq` may have left with its last move (a superset).
fn vacated(setup: &Setup, sq: Square) -> Bitboard {
    let board = &setup.board;
    let Some(piece) = board.piece_at(sq) else {
        return Bitboard::EMPTY;
    };
    let color = piece.color;
    let fwd = if color.is_white() { -8 } else { 8 };
    // Pawn-like origins (also for promoted pieces and the e.p. victim).
    let behind = sq.offset(fwd).map_or(Bitboard::EMPTY, |b| {
        Bitboard::from_square(b) | (attacks::king_attacks(b) & Bitboard::from_rank(b.rank()))
    });
    let double = sq
        .offset(2 * fwd)
        .map_or(Bitboard::EMPTY, Bitboard::from_square);
    let mut out = match piece.role {
        Role::Pawn => behind | double,
        Role::Knight => attacks::knight_attacks(sq),
        _ => attacks::attacks(sq, piece, board.occupied()),
    };
    if piece.role != Role::Pawn && relative_rank(color, sq) == 7 {
        out |= behind;
    }
    // Castling: the rook's and the king's home squares were vacated.
    if piece.role == Role::Rook && sq.rank() == color.backrank() {
        let rank = color.backrank();
        out |= [File::A, File::E, File::H]
            .into_iter()
            .map(|f| Square::from_coords(f, rank))
            .collect::<Bitboard>();
    }
    out
}

fn uncovered_by(setup: &Setup, discovered: Square, mover: Square, king: Square) -> bool {
    let slider = setup
        .board
        .role_at(discovered)
        .is_some_and(|r| matches!(r, Role::Bishop | Role::Rook | Role::Queen));
    slider && attacks::between(discovered, king).intersects(vacated(setup, mover))
}

/// Whether an en-passant capture by the side that moved last can have
/// uncovered both checks: the capturing pawn left one square and took the
/// pawn beside it off another, so two lines may open at once while neither
/// checker moved (Wilts and Geissler's proof game, spg121: ...h4xg3 e.p.
/// opens the h-file for the h8 rook and the c8-h3 diagonal at g4).
fn en_passant_uncovers_both(setup: &Setup, a: Square, b: Square, king: Square) -> bool {
    let board = &setup.board;
    let mover = !setup.turn;
    let sliders = [a, b].into_iter().all(|c| {
        board
            .role_at(c)
            .is_some_and(|r| matches!(r, Role::Bishop | Role::Rook | Role::Queen))
    });
    if !sliders {
        return false;
    }
    // The capturing pawn now stands on its sixth rank; the victim stood
    // beside the square it came from, behind where it stands now.
    let back = if mover.is_white() { -8 } else { 8 };
    (board.pawns() & board.by_color(mover))
        .into_iter()
        .filter(|&p| relative_rank(mover, p) == 5)
        .any(|p| {
            let Some(victim) = p.offset(back) else {
                return false;
            };
            let origins = attacks::king_attacks(victim) & Bitboard::from_rank(victim.rank());
            origins.into_iter().any(|origin| {
                let vacated = Bitboard::from_square(origin).with(victim);
                !board.occupied().intersects(vacated)
                    && [a, b]
                        .into_iter()
                        .all(|c| attacks::between(c, king).intersects(vacated))
            })
        })
}

/// `ImpossibleCheck` when the side to move is in a double check that no
/// single move can have given.
pub fn check(setup: &Setup) -> Option<Reason> {
    let board = &setup.board;
    let turn: Color = setup.turn;
    let king = (board.kings() & board.by_color(turn)).single_square()?;
    let checkers = board.attacks_to(king, !turn, board.occupied()) & board.by_color(!turn);
    if checkers.count() != 2 {
        return None;
    }
    let (a, b) = (checkers.first()?, checkers.last()?);
    if uncovered_by(setup, a, b, king)
        || uncovered_by(setup, b, a, king)
        || en_passant_uncovers_both(setup, a, b, king)
    {
        return None;
    }
    Some(
        Reason::new(
            Flaw::ImpossibleCheck,
            Some(turn),
            format!(
                "double check from {a} and {b}: neither can have been uncovered by the other's \
                 move (no line through a square the other could have left)"
            ),
        )
        .at(checkers.with(king)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn flags(fen: &str) -> bool {
        check(&fen.parse::<Fen>().unwrap().into_setup()).is_some()
    }

    #[test]
    fn contact_rook_and_knight() {
        assert!(flags("8/8/8/8/5N2/2Rk4/8/1K6 b - - 0 1"));
    }

    #[test]
    fn knight_uncovering_a_rook() {
        assert!(!flags("8/8/8/8/3N4/8/3k4/1K1R4 b - - 0 1"));
    }

    /// spg121's diagram: ...h4xg3 e.p. uncovered the rook and the bishop.
    #[test]
    fn en_passant_uncovers_two_sliders() {
        assert!(!flags(
            "rnb1kbnr/ppp2pp1/8/3pp3/4PP2/6pK/PPPP1q1P/RNBQ1BNR w - - 0 1"
        ));
        // Without the pawn that took en passant, nothing opened both lines.
        assert!(flags(
            "rnb1kbnr/ppp2pp1/8/3pp3/4PP2/7K/PPPP1q1P/RNBQ1BNR w - - 0 1"
        ));
    }

    #[test]
    fn contact_queen_and_rook_on_the_rank() {
        // Nothing can have left f8 or g8 to uncover the rook.
        assert!(flags("3Qk2R/8/8/8/8/8/8/4K3 b - - 0 1"));
        // A knight leaving the e-file uncovers the e1 rook.
        assert!(!flags("4k3/8/3N4/8/8/8/8/4RK2 b - - 0 1"));
    }
}
