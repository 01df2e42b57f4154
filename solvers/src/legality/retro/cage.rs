//! Contact cages: a piece next to the enemy king that can only have come
//! in by giving check from where it stood.
//!
//! A piece off the back ranks reached its square by an ordinary move (no
//! home square, promotion or castling lands there). After its last arrival
//! it stayed, so its contact attacks (the squares next to it along its
//! lines, its knight squares) were closed to the enemy king from then on.
//! When every square next to the enemy king is closed that way, or holds a
//! unit that never moved, the king stood on its square (or, checked by the
//! arrival, on a square next to it) when the piece arrived. If the piece
//! gives contact check to that square from every square it can have come
//! from, the side that moved it left the enemy king in check before the
//! move: no game reaches the diagram.

use shakmaty::{attacks, Bitboard, Color, Piece, Role, Setup, Square};

use super::facts::Facts;
use crate::legality::{Flaw, Reason};

/// The squares `piece` on `sq` attacks whatever stands around it.
fn contact(piece: Piece, sq: Square) -> Bitboard {
    attacks::attacks(sq, piece, Bitboard::FULL)
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::King => "king",
        Role::Pawn => "pawn",
    }
}

/// King squares of the castled positions (a king may jump there).
fn castled(color: Color) -> Bitboard {
    let rank = Bitboard::from_rank(color.backrank());
    rank & (Bitboard::from_file(shakmaty::File::C) | Bitboard::from_file(shakmaty::File::G))
}

fn caged_arrival(facts: &Facts, piece: Piece, q: Square) -> Option<Reason> {
    let board = &facts.board;
    let enemy = !piece.color;
    let k = board.king_of(enemy)?;
    if castled(enemy).contains(k) {
        return None;
    }
    // Units surely standing there when the piece arrived: units that never
    // moved, and one-move pawns that can only have come from the piece's
    // square (they left it before the piece came).
    let mut blockers = facts.fixed;
    for p in &facts.phased {
        if p.origins == Bitboard::from_square(q) {
            blockers.add(p.dest);
        }
    }
    let closed = contact(piece, q);
    // The king cannot have walked to k after the arrival.
    let around = attacks::king_attacks(k);
    let open = around & !blockers & !closed & !Bitboard::from_square(q);
    if open.any() || blockers.contains(k) {
        return None;
    }
    // Where the king can have stood at the arrival: on k, or next to it in
    // the check the arrival gave.
    let stood =
        Bitboard::from_square(k) | (around & closed & !blockers & !Bitboard::from_square(q));
    let entries = attacks::attacks(q, piece, blockers) & !blockers;
    let all_check = stood.into_iter().all(|s| {
        (entries & !Bitboard::from_square(s))
            .into_iter()
            .all(|p| contact(piece, p).contains(s))
    });
    all_check.then(|| {
        let who = if piece.color.is_white() {
            "White"
        } else {
            "Black"
        };
        Reason::new(
            Flaw::UnreachableSquare,
            Some(piece.color),
            format!(
                "{who}'s {} on {q} can only have arrived from {}, giving a contact check to \
                 the enemy king, which could not have come to {k} after it arrived",
                role_name(piece.role),
                entries
                    .into_iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .at([q, k])
    })
}

/// `UnreachableSquare` for a piece whose arrival next to the enemy king
/// must have left that king in check.
pub fn check(setup: &Setup, facts: &Facts) -> Option<Reason> {
    let board = &setup.board;
    let inner = !Bitboard::BACKRANKS;
    for q in board.occupied() & inner & !board.pawns() & !board.kings() {
        let piece = board.piece_at(q)?;
        if let Some(r) = caged_arrival(facts, piece, q) {
            return Some(r);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legality::retro::pawns;
    use shakmaty::fen::Fen;

    fn cage(fen: &str) -> Option<Reason> {
        let setup = fen.parse::<Fen>().unwrap().into_setup();
        let infos = [
            pawns::analyse(&setup.board, Color::White),
            pawns::analyse(&setup.board, Color::Black),
        ];
        check(&setup, &Facts::new(&setup, &infos))
    }

    #[test]
    fn rook_next_to_the_king_came_in_with_check() {
        // Rg2 came from g1 (next to h1, check); the king cannot have come to
        // h1 since.
        let r = cage("4k3/8/8/8/8/6P1/4PPrP/7K w - - 0 1");
        assert_eq!(r.map(|r| r.flaw), Some(Flaw::UnreachableSquare));
        // Rf2 came from f1 with a unit on g1 in between; the king walked
        // g1-h1 afterwards or stood there: fine.
        assert!(cage("4k3/8/8/8/8/5P2/4PrPP/7K w - - 0 1").is_none());
        // Without the g3 pawn the rook may have come down the g-file.
        assert!(cage("4k3/8/8/8/8/8/4PPrP/7K w - - 0 1").is_none());
    }

    /// Soundness: positions from random games never show such a cage.
    #[test]
    fn random_games_have_no_contact_cage() {
        use crate::testing::{random_games, Lcg};
        use shakmaty::{Chess, EnPassantMode, MoveList, Position};
        // Prefer king moves and checks, to get pieces next to kings.
        let near_kings = |pos: &Chess, moves: &MoveList, rng: &mut Lcg| {
            let near: Vec<_> = moves
                .iter()
                .filter(|m| {
                    let mut p = pos.clone();
                    p.play_unchecked(**m);
                    p.is_check() || m.role() == Role::King
                })
                .collect();
            Some(if !near.is_empty() && rng.next(2) == 0 {
                *near[rng.next(near.len())]
            } else {
                moves[rng.next(moves.len())]
            })
        };
        for (game, positions) in random_games(3, 200, 150, near_kings).iter().enumerate() {
            for (ply, pos) in positions.iter().enumerate() {
                let setup = pos.to_setup(EnPassantMode::Legal);
                let infos = [
                    pawns::analyse(&setup.board, Color::White),
                    pawns::analyse(&setup.board, Color::Black),
                ];
                let r = check(&setup, &Facts::new(&setup, &infos));
                let fen = Fen::from_position(pos, EnPassantMode::Legal);
                assert!(r.is_none(), "game {game} ply {ply}: {fen}: {r:?}");
            }
        }
    }
}
