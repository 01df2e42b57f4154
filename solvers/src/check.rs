//! Which moves give check, decided without playing them.
//!
//! The mate searches spend most of their time at the last move, where only
//! checking moves can mate (or, in a selfmate, where every Black move must
//! give check). Playing each move just to ask `is_check` costs a position
//! copy and an attack scan; this test costs one attack lookup per move.

use shakmaty::{attacks, Bitboard, Chess, Color, Move, Position, Role, Square};

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
        let ours = board.by_color(turn);
        let occupied = board.occupied();
        let snipers =
            (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens() & ours)
                | (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens() & ours);
        let mut blockers = Bitboard::EMPTY;
        for sniper in snipers {
            let between = attacks::between(sniper, king) & occupied;
            if between.count() == 1 && (between & ours).any() {
                blockers |= between;
            }
        }
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
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
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
            }
        }
    }
}
