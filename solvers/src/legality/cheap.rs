//! The cheap layer: rules any position from a game obeys, whatever its history.

use shakmaty::{attacks, Bitboard, Board, Color, File, Rank, Role, Setup, Square};

use super::{Flaw, Reason};

/// Every cheap flaw of the diagram, in a fixed order.
pub fn check(setup: &Setup) -> Vec<Reason> {
    let board = &setup.board;
    let mut reasons = Vec::new();
    reasons.extend(kings(board));
    reasons.extend(back_rank_pawns(board));
    for color in Color::ALL {
        reasons.extend(material(board, color));
    }
    let single_kings = Color::ALL.iter().all(|&c| kings_of(board, c).count() == 1);
    if single_kings {
        reasons.extend(opposite_check(board, setup.turn));
        reasons.extend(checks_on_mover(setup));
    }
    reasons.extend(castling_rights(setup));
    reasons
}

fn name(color: Color) -> &'static str {
    if color.is_white() {
        "White"
    } else {
        "Black"
    }
}

fn squares_text(bb: Bitboard) -> String {
    bb.into_iter()
        .map(|sq| sq.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn kings_of(board: &Board, color: Color) -> Bitboard {
    board.kings() & board.by_color(color)
}

fn kings(board: &Board) -> Vec<Reason> {
    let mut out = Vec::new();
    for color in Color::ALL {
        let kings = kings_of(board, color);
        if kings.is_empty() {
            out.push(Reason::new(
                Flaw::MissingKing,
                Some(color),
                format!("{} has no king", name(color)),
            ));
        } else if kings.more_than_one() {
            out.push(
                Reason::new(
                    Flaw::TooManyKings,
                    Some(color),
                    format!(
                        "{} has {} kings ({})",
                        name(color),
                        kings.count(),
                        squares_text(kings)
                    ),
                )
                .at(kings),
            );
        }
    }
    out
}

fn back_rank_pawns(board: &Board) -> Option<Reason> {
    let pawns = board.pawns() & Bitboard::BACKRANKS;
    pawns.any().then(|| {
        Reason::new(
            Flaw::PawnOnBackRank,
            None,
            format!(
                "pawn(s) on the first or eighth rank: {}",
                squares_text(pawns)
            ),
        )
        .at(pawns)
    })
}

/// How many promoted pieces `color` must have at least: every piece beyond
/// the original set, bishops counted per square colour.
pub fn min_promoted(board: &Board, color: Color) -> u32 {
    let ours = board.by_color(color);
    let count = |bb: Bitboard| (bb & ours).count() as u32;
    let excess = |n: u32, original: u32| n.saturating_sub(original);
    let bishops = board.bishops() & ours;
    excess(count(board.queens()), 1)
        + excess(count(board.rooks()), 2)
        + excess(count(board.knights()), 2)
        + excess((bishops & Bitboard::LIGHT_SQUARES).count() as u32, 1)
        + excess((bishops & Bitboard::DARK_SQUARES).count() as u32, 1)
}

fn material(board: &Board, color: Color) -> Vec<Reason> {
    let mut out = Vec::new();
    let ours = board.by_color(color);
    let units = ours.count();
    let pawns = (board.pawns() & ours).count() as u32;
    if units > 16 {
        out.push(Reason::new(
            Flaw::TooManyUnits,
            Some(color),
            format!("{} has {units} units; a side starts with 16", name(color)),
        ));
    }
    if pawns > 8 {
        out.push(Reason::new(
            Flaw::TooManyPawns,
            Some(color),
            format!("{} has {pawns} pawns; a side starts with 8", name(color)),
        ));
    }
    let promoted = min_promoted(board, color);
    if promoted + pawns > 8 {
        out.push(Reason::new(
            Flaw::TooManyPromotions,
            Some(color),
            format!(
                "{} needs at least {promoted} promoted piece(s) but only {} pawn(s) are missing",
                name(color),
                8u32.saturating_sub(pawns)
            ),
        ));
    }
    out
}

fn king_square(board: &Board, color: Color) -> Square {
    kings_of(board, color)
        .first()
        .expect("callers check there is one king per side")
}

fn attackers(board: &Board, target: Square, by: Color, occupied: Bitboard) -> Bitboard {
    board.attacks_to(target, by, occupied) & board.by_color(by)
}

fn opposite_check(board: &Board, turn: Color) -> Option<Reason> {
    let their_king = king_square(board, !turn);
    let by = attackers(board, their_king, turn, board.occupied());
    by.any().then(|| {
        Reason::new(
            Flaw::OppositeCheck,
            Some(!turn),
            format!(
                "{} is to move but the {} king on {their_king} is attacked (from {}): the king could be captured",
                name(turn),
                name(!turn).to_lowercase(),
                squares_text(by)
            ),
        )
        .at(by.with(their_king))
    })
}

/// The en-passant claim, if any: (square passed over, square the pawn stands on, square it came from).
fn ep_squares(setup: &Setup) -> Option<(Square, Square, Square)> {
    let ep = setup.ep_square?;
    let (ep_rank, to_rank, from_rank) = match setup.turn {
        Color::White => (Rank::Sixth, Rank::Fifth, Rank::Seventh),
        Color::Black => (Rank::Third, Rank::Fourth, Rank::Second),
    };
    if ep.rank() != ep_rank {
        return None;
    }
    let to = Square::from_coords(ep.file(), to_rank);
    let from = Square::from_coords(ep.file(), from_rank);
    Some((ep, to, from))
}

fn en_passant(setup: &Setup) -> Option<Reason> {
    let ep = setup.ep_square?;
    let board = &setup.board;
    let mover = !setup.turn;
    let fits = ep_squares(setup).is_some_and(|(ep, to, from)| {
        board.piece_at(to) == Some(mover.pawn())
            && board.piece_at(ep).is_none()
            && board.piece_at(from).is_none()
    });
    (!fits).then(|| {
        Reason::new(
            Flaw::InvalidEnPassant,
            Some(mover),
            format!(
                "en-passant square {ep} does not fit a double step just played by {}",
                name(mover)
            ),
        )
        .at([ep])
    })
}

fn checks_on_mover(setup: &Setup) -> Vec<Reason> {
    let board = &setup.board;
    let turn = setup.turn;
    let king = king_square(board, turn);
    let checkers = attackers(board, king, !turn, board.occupied());
    let mut out = Vec::new();
    let ep_reason = en_passant(setup);
    let valid_ep = setup.ep_square.is_some() && ep_reason.is_none();
    out.extend(ep_reason);
    if checkers.count() > 2 {
        out.push(
            Reason::new(
                Flaw::TooManyCheckers,
                Some(turn),
                format!(
                    "the {} king on {king} is attacked by {} units ({}); one move gives at most a double check",
                    name(turn).to_lowercase(),
                    checkers.count(),
                    squares_text(checkers)
                ),
            )
            .at(checkers.with(king)),
        );
        return out;
    }
    let impossible = |detail: String| {
        Reason::new(Flaw::ImpossibleCheck, Some(turn), detail).at(checkers.with(king))
    };
    // A pawn's check is never uncovered: the checking pawn made the last
    // move. A pawn on its own second rank never moved, so it cannot give
    // check, however the king got there (it could not have stepped in).
    let home = (!turn).relative_rank(Rank::Second);
    for checker in checkers & board.pawns() & Bitboard::from_rank(home) {
        out.push(impossible(format!(
            "check from the pawn on {checker}, which stands on its starting square: it never moved, so it cannot have given the check, and the king could not have stepped into it"
        )));
    }
    if checkers.count() == 2 {
        let (a, b) = (checkers.first().unwrap(), checkers.last().unwrap());
        if (checkers & board.steppers()).count() == 2 {
            out.push(impossible(format!(
                "double check by two pawns/knights ({a}, {b}): a move can give check with at most one stepper"
            )));
        } else if attacks::aligned(a, king, b) {
            out.push(impossible(format!(
                "double check by {a} and {b} on one line: neither can have uncovered the other's check"
            )));
        } else if valid_ep {
            out.push(impossible(format!(
                "double check ({a}, {b}) cannot follow the double step claimed by en-passant square {}",
                setup.ep_square.unwrap()
            )));
        }
    } else if let (Some(checker), true, Some((ep, to, from))) =
        (checkers.first(), valid_ep, ep_squares(setup))
    {
        let before = board.occupied().without(to).with(from);
        if checker != to && attackers(board, king, !turn, before).any() {
            out.push(impossible(format!(
                "the check from {checker} was already there before the double step {from}-{to} claimed by en-passant square {ep}"
            )));
        }
    }
    out
}

fn castling_rights(setup: &Setup) -> Option<Reason> {
    let board = &setup.board;
    let mut bad = Bitboard::EMPTY;
    for sq in setup.castling_rights {
        let color = if sq.rank() == Rank::First {
            Color::White
        } else {
            Color::Black
        };
        let home_rank = matches!(sq.rank(), Rank::First | Rank::Eighth);
        let corner = matches!(sq.file(), File::A | File::H);
        let king_home = Square::from_coords(File::E, color.backrank());
        let ok = home_rank
            && corner
            && board.piece_at(sq) == Some(Role::Rook.of(color))
            && board.piece_at(king_home) == Some(color.king());
        if !ok {
            bad.add(sq);
        }
    }
    bad.any().then(|| {
        Reason::new(
            Flaw::InvalidCastlingRights,
            None,
            format!(
                "castling right(s) for the rook on {} claimed but king or rook is not on its home square",
                squares_text(bad)
            ),
        )
        .at(bad)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn flaws(fen: &str) -> Vec<Flaw> {
        let setup = fen.parse::<Fen>().unwrap().into_setup();
        check(&setup).into_iter().map(|r| r.flaw).collect()
    }

    #[test]
    fn start_position_has_no_cheap_flaw() {
        assert!(flaws("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").is_empty());
    }

    #[test]
    fn reports_every_flaw_at_once() {
        // Two white kings, a pawn on the eighth rank, nine black pawns.
        let found = flaws("P3k3/pppppppp/p7/8/8/8/8/K3K3 w - - 0 1");
        assert!(found.contains(&Flaw::TooManyKings));
        assert!(found.contains(&Flaw::PawnOnBackRank));
        assert!(found.contains(&Flaw::TooManyPawns));
    }

    #[test]
    fn promotions_are_counted_per_bishop_colour() {
        // c1 and g1 are both dark: one promotion, but no pawn is missing.
        assert!(
            flaws("4k3/8/8/8/8/8/PPPPPPPP/2B1K1B1 w - - 0 1").contains(&Flaw::TooManyPromotions)
        );
        assert!(
            !flaws("4k3/8/8/8/8/8/PPPPPPPP/2B1KB2 w - - 0 1").contains(&Flaw::TooManyPromotions)
        );
    }

    #[test]
    fn aligned_double_check_is_impossible() {
        assert!(flaws("4R3/8/8/4k3/8/8/8/4RK2 b - - 0 1").contains(&Flaw::ImpossibleCheck));
        // Rook and knight: a knight move uncovered the rook.
        assert!(!flaws("4k3/8/3N4/8/8/8/8/4RK2 b - - 0 1").contains(&Flaw::ImpossibleCheck));
    }

    /// Issue 22's third diagram: the White king on b6 stands in check from
    /// the Black pawn c7, which never moved.
    #[test]
    fn check_from_an_unmoved_pawn_is_impossible() {
        assert!(flaws("k7/P1p5/1K6/8/N7/8/8/8 w - - 0 1").contains(&Flaw::ImpossibleCheck));
        // The same check from a pawn that has moved is fine.
        assert!(!flaws("k7/P7/1K6/2p5/N7/8/8/8 w - - 0 1").contains(&Flaw::ImpossibleCheck));
        assert!(!flaws("k7/P7/1Kp5/8/N7/8/8/8 w - - 0 1").contains(&Flaw::ImpossibleCheck));
    }

    #[test]
    fn castling_rights_need_king_and_rook_home() {
        assert!(flaws("4k3/8/8/8/8/8/8/R4K2 w Q - 0 1").contains(&Flaw::InvalidCastlingRights));
        assert!(flaws("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").is_empty());
    }

    #[test]
    fn en_passant_square_must_fit() {
        assert!(flaws("4k3/8/8/8/8/8/8/4K3 b - e3 0 1").contains(&Flaw::InvalidEnPassant));
        assert!(flaws("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1").is_empty());
    }
}
