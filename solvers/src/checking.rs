//! Which moves give check, decided without playing them.
//!
//! The mate searches spend most of their time at the last move, where only
//! checking moves can mate (or, in a selfmate, where every Black move must
//! give check). Playing each move just to ask `is_check` costs a position
//! copy and an attack scan; this test costs one attack lookup per move.

use shakmaty::{
    attacks, Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, MoveList, Position, Role,
    Square,
};

/// What the side to move needs to know once per position to test its moves.
#[derive(Debug, Clone, Copy)]
pub struct CheckInfo {
    /// The enemy king's square.
    king: Square,
    /// Our units standing alone between one of our sliders and the enemy
    /// king: moving one off that line gives a discovered check.
    blockers: Bitboard,
    occupied: Bitboard,
    turn: Color,
    /// Per role (indexed `role - 1`): the squares from which one of our
    /// units of that role attacks the enemy king now. A unit moving there
    /// gives check: the square it leaves cannot open the line, or the
    /// unit would already be giving check (Stockfish's check squares).
    check_squares: [Bitboard; 6],
}

impl CheckInfo {
    /// `None` when the side not to move has no king (never in a legal position).
    pub fn new(pos: &Chess) -> Option<CheckInfo> {
        let board = pos.board();
        let turn = pos.turn();
        let king = board.king_of(!turn)?;
        let occupied = board.occupied();
        let blockers = lone_blockers(pos, turn, king) & board.by_color(turn);
        let bishop = attacks::bishop_attacks(king, occupied);
        let rook = attacks::rook_attacks(king, occupied);
        let check_squares = [
            attacks::pawn_attacks(!turn, king),
            attacks::knight_attacks(king),
            bishop,
            rook,
            bishop | rook,
            Bitboard::EMPTY,
        ];
        Some(CheckInfo {
            king,
            blockers,
            occupied,
            turn,
            check_squares,
        })
    }

    /// Does the legal move `m` give check? `None` for en passant, whose
    /// double discovery is rare enough to settle by playing the move.
    pub fn gives_check(&self, m: &Move) -> Option<bool> {
        match *m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                let discovered =
                    self.blockers.contains(from) && !attacks::aligned(from, to, self.king);
                if discovered {
                    return Some(true);
                }
                Some(match promotion {
                    // The square the pawn leaves may open the new piece's line.
                    Some(promoted) => {
                        let occupied = self.occupied.without(from).with(to);
                        attacks::attacks(to, promoted.of(self.turn), occupied).contains(self.king)
                    }
                    None => self.check_squares[role as usize - 1].contains(to),
                })
            }
            Move::Castle { king, rook } => {
                let side = m.castling_side()?;
                let rook_to = side.rook_to(self.turn);
                let occupied = self
                    .occupied
                    .without(king)
                    .without(rook)
                    .with(side.king_to(self.turn))
                    .with(rook_to);
                let piece = Role::Rook.of(self.turn);
                Some(attacks::attacks(rook_to, piece, occupied).contains(self.king))
            }
            Move::EnPassant { .. } | Move::Put { .. } => None,
        }
    }
}

/// Does `m` give check in `pos`? Exact for every legal move.
pub fn gives_check(pos: &Chess, info: &CheckInfo, m: &Move) -> bool {
    info.gives_check(m).unwrap_or_else(|| {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        after.is_check()
    })
}

/// Every legal move of the side to move that gives check: the moves of
/// `legal_moves()` that [`gives_check`] accepts, generated from the check
/// squares and the discovering units instead of from every move (the last
/// move of a mate search is where most of its nodes are). Into `moves`,
/// which it clears: a list returned by value would be copied whole.
pub fn checking_moves(pos: &Chess, info: &CheckInfo, moves: &mut MoveList) {
    moves.clear();
    let board = pos.board();
    let turn = pos.turn();
    let Some(our_king) = board.king_of(turn).filter(|_| !pos.is_check()) else {
        // Evasions are few and rare at the last move: filter them.
        moves.extend(pos.legal_moves());
        moves.retain(|m| gives_check(pos, info, m));
        return;
    };
    let ours = board.by_color(turn);
    let theirs = board.by_color(!turn);
    let occupied = board.occupied();
    let pinned = lone_blockers(pos, !turn, our_king) & ours;
    for from in ours & !board.kings() {
        let Some(role) = board.role_at(from) else {
            continue;
        };
        let mut reach = unit_reach(turn, role, from, occupied, theirs) & !ours;
        if pinned.contains(from) {
            reach &= attacks::ray(our_king, from);
        }
        if !info.blockers.contains(from) {
            // Promotions are judged one by one below.
            reach &= info.check_squares[role as usize - 1] | Bitboard::BACKRANKS;
        }
        for to in reach {
            let capture = board.role_at(to);
            let promotions = promotions(role == Role::Pawn && Bitboard::BACKRANKS.contains(to));
            for &promotion in promotions {
                let m = Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion,
                };
                if info.gives_check(&m) == Some(true) {
                    moves.push(m);
                }
            }
        }
    }
    // The king checks only by discovery, leaving the line.
    if info.blockers.contains(our_king) {
        let after = occupied.without(our_king);
        for to in attacks::king_attacks(our_king) & !ours {
            if !attacks::aligned(our_king, to, info.king)
                && board.attacks_to(to, !turn, after).is_empty()
            {
                moves.push(Move::Normal {
                    role: Role::King,
                    from: our_king,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
    }
    if pos.castles().has_color(turn) {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if !pos.castles().has(turn, side) {
                continue;
            }
            let mut castles = pos.castling_moves(side);
            castles.retain(|m| gives_check(pos, info, m));
            moves.extend(castles);
        }
    }
    if pos.ep_square(EnPassantMode::Legal).is_some() {
        let mut captures = pos.en_passant_moves();
        captures.retain(|m| gives_check(pos, info, m));
        moves.extend(captures);
    }
}

/// The legal moves of the side to move from each square `from` onto
/// `onto(from)`, and every castling and en passant move, which the caller
/// judges apart (a helpmate's moves onto the few squares its pictures ask
/// for: most of the full list would be dropped). In the order of their
/// units' squares, not `legal_moves()`'s. Into `moves`, which it clears.
pub fn moves_onto(pos: &Chess, onto: impl Fn(Square) -> Bitboard, moves: &mut MoveList) {
    moves.clear();
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn).filter(|_| !pos.is_check()) else {
        // Evasions: few, and rare where the pictures name targets.
        moves.extend(pos.legal_moves());
        moves.retain(|m| on_targets(&onto, m));
        return;
    };
    let ours = board.by_color(turn);
    let theirs = board.by_color(!turn);
    let occupied = board.occupied();
    let pinned = lone_blockers(pos, !turn, king) & ours;
    for from in ours & !board.kings() {
        let Some(role) = board.role_at(from) else {
            continue;
        };
        let open = onto(from) & !ours;
        if open.is_empty() {
            continue;
        }
        let mut reach = open & unit_reach(turn, role, from, occupied, theirs);
        if pinned.contains(from) {
            reach &= attacks::ray(king, from);
        }
        for to in reach {
            let capture = board.role_at(to);
            let promoting = role == Role::Pawn && Bitboard::BACKRANKS.contains(to);
            for &promotion in promotions(promoting) {
                moves.push(Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion,
                });
            }
        }
    }
    let without_king = occupied.without(king);
    for to in attacks::king_attacks(king) & onto(king) & !ours {
        if board.attacks_to(to, !turn, without_king).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        if pos.castles().has(turn, side) {
            moves.extend(pos.castling_moves(side));
        }
    }
    if pos.ep_square(EnPassantMode::Legal).is_some() {
        moves.extend(pos.en_passant_moves());
    }
}

/// What a move's unit may turn into: a pawn reaching the last rank
/// (`promoting`) any of the four, else nothing.
pub fn promotions(promoting: bool) -> &'static [Option<Role>] {
    if promoting {
        &[
            Some(Role::Queen),
            Some(Role::Rook),
            Some(Role::Bishop),
            Some(Role::Knight),
        ]
    } else {
        &[None]
    }
}

/// Whether the side to move is checkmated, as `pos.is_checkmate()` but
/// without generating every legal move: a king step out of check, then
/// (in single check) a capture of the checker or a step between by a
/// unit that is not pinned. Positions with an en passant capture, which
/// may do either in unusual ways, are left to shakmaty.
pub fn is_checkmate(pos: &Chess) -> bool {
    let checkers = pos.checkers();
    if checkers.is_empty() {
        return false;
    }
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn) else {
        return pos.is_checkmate();
    };
    if pos.ep_square(EnPassantMode::Legal).is_some() {
        return pos.is_checkmate();
    }
    let ours = board.by_color(turn);
    let occupied = board.occupied();
    let without_king = occupied.without(king);
    let flight = attacks::king_attacks(king) & !ours;
    if flight
        .into_iter()
        .any(|to| board.attacks_to(to, !turn, without_king).is_empty())
    {
        return false;
    }
    let Some(checker) = checkers.single_square() else {
        return true;
    };
    let free = ours & !board.kings() & !(lone_blockers(pos, !turn, king) & ours);
    if (board.attacks_to(checker, turn, occupied) & free).any() {
        return false;
    }
    let pawns = free & board.pawns();
    let back = |sq: Square| sq.offset(if turn.is_white() { -8 } else { 8 });
    !attacks::between(checker, king).into_iter().any(|to| {
        let pieces = board.attacks_to(to, turn, occupied) & free & !board.pawns();
        let one = back(to);
        let pushes = one.is_some_and(|one| pawns.contains(one))
            || one
                .filter(|&one| !occupied.contains(one))
                .and_then(back)
                .is_some_and(|two| {
                    pawns.contains(two) && two.rank() == turn.relative_rank(shakmaty::Rank::Second)
                });
        pieces.any() || pushes
    })
}

/// Units standing alone between one of `snipers`' sliders and `king`
/// (of either colour): ours pinned when the snipers are theirs, ours
/// discovering check when the snipers are ours.
pub(crate) fn lone_blockers(pos: &Chess, snipers: Color, king: Square) -> Bitboard {
    let board = pos.board();
    let lines = attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens()
        | attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens();
    let mut blockers = Bitboard::EMPTY;
    for sniper in lines & board.by_color(snipers) {
        let between = attacks::between(sniper, king) & board.occupied();
        if between.count() == 1 {
            blockers |= between;
        }
    }
    blockers
}

/// Whether `m` goes from its square onto that square's `onto`; castling
/// and en passant always do (they move two units, or take off another
/// square than they land on, and their callers judge them apart).
pub(crate) fn on_targets(onto: impl Fn(Square) -> Bitboard, m: &Move) -> bool {
    match *m {
        Move::Normal { from, to, .. } => onto(from).contains(to),
        _ => true,
    }
}

/// Where a `color` unit of `role` on `from` may move (en passant and
/// castling aside; its own side's squares not taken out for pieces).
pub(crate) fn unit_reach(
    color: Color,
    role: Role,
    from: Square,
    occupied: Bitboard,
    theirs: Bitboard,
) -> Bitboard {
    match role {
        Role::Pawn => pawn_steps(color, from, occupied, theirs),
        _ => attacks::attacks(from, role.of(color), occupied),
    }
}

/// A pawn's pushes and captures from `from` (en passant aside).
pub(crate) fn pawn_steps(
    turn: Color,
    from: Square,
    occupied: Bitboard,
    theirs: Bitboard,
) -> Bitboard {
    let forward = |sq: Square| sq.offset(if turn.is_white() { 8 } else { -8 });
    let mut steps = attacks::pawn_attacks(turn, from) & theirs;
    if let Some(one) = forward(from).filter(|&sq| !occupied.contains(sq)) {
        steps.add(one);
        let home = if turn.is_white() { 1 } else { 6 };
        if from.rank() as u32 == home {
            if let Some(two) = forward(one).filter(|&sq| !occupied.contains(sq)) {
                steps.add(two);
            }
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{fen::Fen, CastlingMode};

    /// Compares the quick test with playing the move, on positions rich in
    /// discovered checks, promotions, castling and en passant.
    #[test]
    fn agrees_with_playing_every_move() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",
            "3k4/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
            "1k6/1P6/8/3B4/8/8/8/4K2R w K - 0 1",
        ];
        for fen in fens {
            let pos = position(fen);
            let mut positions = vec![pos.clone()];
            for m in pos.legal_moves() {
                let mut next = pos.clone();
                next.play_unchecked(m);
                positions.push(next);
            }
            for p in positions {
                let info = CheckInfo::new(&p).unwrap();
                for m in p.legal_moves() {
                    let mut after = p.clone();
                    after.play_unchecked(m);
                    assert_eq!(gives_check(&p, &info, &m), after.is_check(), "{fen}: {m:?}");
                }
                assert_same_checks(&p);
            }
        }
    }

    use crate::testing::position;

    /// `generate` gives exactly the legal moves that `want` accepts
    /// (`what` names them in the message).
    fn assert_generates(
        pos: &Chess,
        generate: impl Fn(&mut MoveList),
        want: impl Fn(&Move) -> bool,
        what: &str,
    ) {
        let key = |m: &Move| m.to_uci(CastlingMode::Standard).to_string();
        let mut wanted: Vec<String> = pos
            .legal_moves()
            .iter()
            .filter(|m| want(m))
            .map(key)
            .collect();
        let mut moves = MoveList::new();
        generate(&mut moves);
        let mut got: Vec<String> = moves.iter().map(key).collect();
        wanted.sort();
        got.sort();
        let fen = Fen::from_position(pos, EnPassantMode::Legal);
        assert_eq!(got, wanted, "{fen}: {what}");
    }

    /// `checking_moves` gives exactly the legal moves that check.
    fn assert_same_checks(pos: &Chess) {
        let info = CheckInfo::new(pos).unwrap();
        let checks = |m: &Move| {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            after.is_check()
        };
        assert_generates(
            pos,
            |moves| checking_moves(pos, &info, moves),
            checks,
            "checks",
        );
    }

    /// `moves_onto` gives exactly the legal moves from each square onto
    /// its `targets`, with every castling and en passant move.
    fn assert_same_moves_onto(pos: &Chess, targets: impl Fn(Square) -> Bitboard, what: &str) {
        let onto = |m: &Move| on_targets(&targets, m);
        assert_generates(pos, |moves| moves_onto(pos, &targets, moves), onto, what);
    }

    /// `is_checkmate` agrees with shakmaty after every checking move;
    /// returns how many of those mate.
    fn assert_same_mates(pos: &Chess) -> usize {
        let info = CheckInfo::new(pos).unwrap();
        let mut mates = 0;
        let mut moves = MoveList::new();
        checking_moves(pos, &info, &mut moves);
        for m in moves {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let mate = after.is_checkmate();
            assert_eq!(
                is_checkmate(&after),
                mate,
                "{}",
                Fen::from_position(&after, EnPassantMode::Legal)
            );
            mates += usize::from(mate);
        }
        mates
    }

    /// Random games from positions full of pins, discoveries, promotions,
    /// castling and en passant: the generator and the mate test agree at
    /// every node.
    #[test]
    fn checking_moves_agree_along_random_games() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n2B4/8/8/3p4/pp1Pk2b/2p2prp/6Pq/R3KnN1 b Q - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Mate problems of the corpus (hm122, hm115, dm040).
            "1r6/7B/4k3/1p2n3/3b2p1/2p5/5RpP/6Kb b - - 0 1",
            "B1k5/1bp5/8/8/3r4/8/2q2p1r/5Kn1 b - - 0 1",
            "4k3/1pp2pp1/8/b1B1pB1R/r7/pp4N1/4K3/R7 w - - 0 1",
        ];
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut mates = 0;
        for fen in fens {
            let start = position(fen);
            for _ in 0..40 {
                let mut pos = start.clone();
                for _ in 0..60 {
                    assert_same_checks(&pos);
                    mates += assert_same_mates(&pos);
                    // A few squares, as a last Black move's pictures ask.
                    let mask = seed & seed.rotate_left(17) & seed.rotate_left(31);
                    for targets in [Bitboard(mask), Bitboard(!mask), Bitboard::FULL] {
                        assert_same_moves_onto(&pos, |_| targets, &format!("onto {targets:?}"));
                    }
                    // Other squares from each unit's, as White's targets.
                    let by_from = |from: Square| Bitboard(mask.rotate_left(from as u32));
                    assert_same_moves_onto(&pos, by_from, "by from-square");
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(mates > 100, "{mates} mates");
    }
}
