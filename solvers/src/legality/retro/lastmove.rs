//! The last move: some move of the side that just moved must lead to the
//! diagram from a position that is itself possible.
//!
//! Every retraction (un-move) of that side is generated: plain moves, moves
//! that captured (any enemy unit type put back), promotions, en passant and
//! castling. The position before is then judged by the cheap layer and the
//! static retro analyses; among them "the side not to move is not in check",
//! which is what rules out retractions that do not explain a current check.

use shakmaty::{attacks, Bitboard, Board, Color, File, Piece, Role, Setup, Square};

use super::pawns::relative_rank;
use crate::legality::{cheap, Flaw, Reason};

/// One way the last move could be taken back, and the position before it.
#[derive(Debug, Clone)]
pub struct Retraction {
    pub undo: Undo,
    pub before: Setup,
}

/// The move a retraction takes back. Searches judge thousands of
/// retractions and name none, so the name is written only when asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undo {
    Move {
        from: Square,
        to: Square,
        capture: bool,
        promoted: Option<Role>,
        /// The enemy unit put back on `to`.
        uncaptured: Option<Role>,
    },
    EnPassant {
        from: Square,
        to: Square,
    },
    Castling {
        long: bool,
    },
}

impl Retraction {
    /// The move taken back, as a judge reads it.
    pub fn text(&self) -> String {
        match self.undo {
            Undo::Move {
                from,
                to,
                capture,
                promoted,
                uncaptured,
            } => {
                let sep = if capture { 'x' } else { '-' };
                let promoted = promoted.map(|r| format!("={r:?}")).unwrap_or_default();
                let text = format!("{from}{sep}{to}{promoted}");
                match uncaptured {
                    None => text,
                    Some(role) => format!("{text} (capturing a {role:?} there)").to_lowercase(),
                }
            }
            Undo::EnPassant { from, to } => format!("{from}x{to} e.p."),
            Undo::Castling { long } => format!("castling {}", if long { "O-O-O" } else { "O-O" }),
        }
    }
}

/// A plain move (or promotion) taken back, nothing put back yet.
fn plain(from: Square, to: Square, capture: bool, promoted: Option<Role>) -> Undo {
    Undo::Move {
        from,
        to,
        capture,
        promoted,
        uncaptured: None,
    }
}

const UNCAPTURES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

fn forward(color: Color) -> i32 {
    if color.is_white() {
        8
    } else {
        -8
    }
}

fn prior(setup: &Setup, board: Board) -> Setup {
    let mut before = setup.clone();
    before.board = board;
    before.turn = !setup.turn;
    before.ep_square = None;
    before
}

/// The position before, with an optional unit of the side to move put
/// back on `to` (the captured one).
fn with_uncaptures(
    setup: &Setup,
    board: &Board,
    to: Square,
    undo: Undo,
    out: &mut Vec<Retraction>,
) {
    out.push(Retraction {
        undo,
        before: prior(setup, board.clone()),
    });
    for role in UNCAPTURES {
        if role == Role::Pawn && Bitboard::BACKRANKS.contains(to) {
            continue;
        }
        let mut b = board.clone();
        b.set_piece_at(to, role.of(setup.turn));
        let mut undo = undo;
        if let Undo::Move { uncaptured, .. } = &mut undo {
            *uncaptured = Some(role);
        }
        out.push(Retraction {
            undo,
            before: prior(setup, b),
        });
    }
}

fn moved(board: &Board, from: Square, to: Square, piece: Piece) -> Board {
    let mut b = board.clone();
    b.discard_piece_at(to);
    b.set_piece_at(from, piece);
    b
}

fn piece_retractions(setup: &Setup, to: Square, piece: Piece, out: &mut Vec<Retraction>) {
    let board = &setup.board;
    let occ = board.occupied();
    let froms = attacks::attacks(to, piece, occ) & !occ;
    for from in froms {
        let undo = plain(from, to, false, None);
        with_uncaptures(setup, &moved(board, from, to, piece), to, undo, out);
    }
    let last = relative_rank(piece.color, to) == 7;
    if last && piece.role != Role::King {
        unpromotions(setup, to, piece, out);
    }
}

fn unpromotions(setup: &Setup, to: Square, piece: Piece, out: &mut Vec<Retraction>) {
    let board = &setup.board;
    let pawn = piece.color.pawn();
    let Some(below) = to.offset(-forward(piece.color)) else {
        return;
    };
    if board.piece_at(below).is_none() {
        out.push(Retraction {
            undo: plain(below, to, false, Some(piece.role)),
            before: prior(setup, moved(board, below, to, pawn)),
        });
    }
    for from in diagonal_neighbours(below) {
        if board.piece_at(from).is_none() {
            let undo = plain(from, to, true, Some(piece.role));
            with_uncaptures_no_plain(setup, &moved(board, from, to, pawn), to, undo, out);
        }
    }
}

/// Like [`with_uncaptures`], for moves that must have been captures.
fn with_uncaptures_no_plain(
    setup: &Setup,
    board: &Board,
    to: Square,
    undo: Undo,
    out: &mut Vec<Retraction>,
) {
    let mut all = Vec::new();
    with_uncaptures(setup, board, to, undo, &mut all);
    out.extend(all.into_iter().skip(1));
}

/// The squares beside `sq` on its rank.
fn diagonal_neighbours(sq: Square) -> impl Iterator<Item = Square> {
    [-1i32, 1].into_iter().filter_map(move |df| {
        let file = sq.file().to_u32() as i32 + df;
        (0..8)
            .contains(&file)
            .then(|| Square::from_coords(File::new(file as u32), sq.rank()))
    })
}

fn pawn_retractions(setup: &Setup, to: Square, out: &mut Vec<Retraction>) {
    let board = &setup.board;
    let color = !setup.turn;
    let pawn = color.pawn();
    let rel = relative_rank(color, to);
    if rel < 2 {
        return;
    }
    let fwd = forward(color);
    let empty = |sq: Option<Square>| sq.is_some_and(|s| board.piece_at(s).is_none());
    let below = to.offset(-fwd);
    if let Some(b) = below.filter(|&b| board.piece_at(b).is_none()) {
        out.push(Retraction {
            undo: plain(b, to, false, None),
            before: prior(setup, moved(board, b, to, pawn)),
        });
        let two = b.offset(-fwd);
        if rel == 3 && empty(two) {
            let from = two.expect("checked");
            out.push(Retraction {
                undo: plain(from, to, false, None),
                before: prior(setup, moved(board, from, to, pawn)),
            });
        }
    }
    let Some(below) = below else { return };
    for from in diagonal_neighbours(below).filter(|&f| board.piece_at(f).is_none()) {
        let undo = plain(from, to, true, None);
        with_uncaptures_no_plain(setup, &moved(board, from, to, pawn), to, undo, out);
        if rel == 5 {
            en_passant(setup, from, to, out);
        }
    }
}

fn en_passant(setup: &Setup, from: Square, to: Square, out: &mut Vec<Retraction>) {
    let board = &setup.board;
    let fwd = forward(!setup.turn);
    let (Some(victim), Some(origin)) = (to.offset(-fwd), to.offset(fwd)) else {
        return;
    };
    if board.piece_at(victim).is_some() || board.piece_at(origin).is_some() {
        return;
    }
    let mut b = moved(board, from, to, (!setup.turn).pawn());
    b.set_piece_at(victim, setup.turn.pawn());
    let mut before = prior(setup, b);
    before.ep_square = Some(to);
    out.push(Retraction {
        undo: Undo::EnPassant { from, to },
        before,
    });
}

fn uncastlings(setup: &Setup, king: Square, out: &mut Vec<Retraction>) {
    let color = !setup.turn;
    let board = &setup.board;
    let rank = color.backrank();
    let at = |f: File| Square::from_coords(f, rank);
    if king.rank() != rank {
        return;
    }
    // (king now, rook now, rook home, squares that must be empty, squares
    // the king crossed, which must not have been attacked)
    let sides = [
        (
            File::G,
            File::F,
            File::H,
            vec![File::E, File::H],
            [File::E, File::F],
        ),
        (
            File::C,
            File::D,
            File::A,
            vec![File::E, File::A, File::B],
            [File::E, File::D],
        ),
    ];
    for (k, r, home, empty, crossed) in sides {
        let fits = king == at(k)
            && board.piece_at(at(r)) == Some(color.rook())
            && empty.iter().all(|&f| board.piece_at(at(f)).is_none());
        if !fits {
            continue;
        }
        let mut b = board.clone();
        b.discard_piece_at(at(k));
        b.discard_piece_at(at(r));
        b.set_piece_at(at(File::E), color.king());
        b.set_piece_at(at(home), color.rook());
        let safe = crossed
            .iter()
            .all(|&f| (b.attacks_to(at(f), !color, b.occupied()) & b.by_color(!color)).is_empty());
        if safe {
            let mut before = prior(setup, b);
            before.castling_rights.add(at(home));
            out.push(Retraction {
                undo: Undo::Castling {
                    long: home == File::A,
                },
                before,
            });
        }
    }
}

/// Every retraction of the side that just moved.
pub fn retractions(setup: &Setup) -> Vec<Retraction> {
    let mover = !setup.turn;
    let mut out = Vec::new();
    for sq in setup.board.by_color(mover) {
        let Some(piece) = setup.board.piece_at(sq) else {
            continue;
        };
        match piece.role {
            Role::Pawn => pawn_retractions(setup, sq, &mut out),
            Role::King => {
                piece_retractions(setup, sq, piece, &mut out);
                uncastlings(setup, sq, &mut out);
            }
            _ => piece_retractions(setup, sq, piece, &mut out),
        }
    }
    out
}

pub(super) fn is_initial(setup: &Setup) -> bool {
    setup.turn == Color::White && setup.board == Board::new()
}

/// Whether the position before a retraction passes every static test.
pub(super) fn possible(before: &Setup) -> bool {
    cheap::check(before).is_empty() && !super::has_static_flaw(before)
}

/// Positions judged in the search two moves deep; beyond it, say nothing.
const MAX_SECOND: usize = 2500;

/// Whether no move of the side that moved before `before` can lead to it
/// from a possible position. `None` when unsure (the work limit ran out,
/// or `before` needs no move before it).
fn dead(before: &Setup, work: &mut usize) -> Option<bool> {
    if before.ep_square.is_some() || is_initial(before) {
        return Some(false);
    }
    for r in retractions(before) {
        *work = work.checked_sub(1)?;
        if possible(&r.before) {
            return Some(false);
        }
    }
    Some(true)
}

/// `NoLastMove` when no retraction leads to a possible position, or when
/// every retraction that does leads to a position that no move of the
/// other side can have produced from a possible one (the search goes two
/// moves deep). A claimed en-passant square already fixes the last move
/// (the cheap layer checks it).
pub fn check(setup: &Setup) -> Option<Reason> {
    if setup.ep_square.is_some() || is_initial(setup) {
        return None;
    }
    let all = retractions(setup);
    let mover = !setup.turn;
    let name = if mover.is_white() { "White" } else { "Black" };
    let other = if mover.is_white() { "Black" } else { "White" };
    // Each retraction to a possible position must be followed by a dead
    // end one move further back; stop at the first that is not.
    let mut work = MAX_SECOND;
    let mut alive = Vec::new();
    for r in &all {
        if possible(&r.before) {
            if dead(&r.before, &mut work) != Some(true) {
                return None;
            }
            alive.push(r.text());
        }
    }
    if !alive.is_empty() {
        let detail = format!(
            "{name} moved last; only {} can have been that move, and none of {other}'s moves \
             (with every unit it could have captured) can have led to the position before it \
             from a possible position",
            alive.join(", ")
        );
        return Some(Reason::new(Flaw::NoLastMove, Some(mover), detail));
    }
    let detail = if all.is_empty() {
        format!("{name} moved last, but no {name} unit can have made a move to its square")
    } else {
        format!(
            "{name} moved last, but each of the {} possible last moves (with every unit it could \
             have captured) starts from an impossible position (e.g. {} would leave {other} in \
             check or break the material and pawn-structure counts)",
            all.len(),
            all[0].text(),
        )
    };
    Some(Reason::new(Flaw::NoLastMove, Some(mover), detail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn setup(fen: &str) -> Setup {
        fen.parse::<Fen>().unwrap().into_setup()
    }

    #[test]
    fn caged_units_have_no_last_move() {
        assert!(check(&setup("Knrk4/BpppRp2/1p2p3/8/8/8/8/8 b - - 0 1")).is_some());
    }

    #[test]
    fn ordinary_positions_have_a_last_move() {
        assert!(check(&setup(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        ))
        .is_none());
        assert!(check(&setup("4k3/8/8/8/8/8/8/4K2R b - - 0 1")).is_none());
    }

    #[test]
    fn units_with_castling_rights_cannot_have_moved_last() {
        // King and rook keep their rights: neither can have made White's last move.
        assert!(check(&setup("4k3/8/8/8/8/8/8/4K2R b K - 0 1")).is_some());
    }

    #[test]
    fn initial_array_needs_no_last_move() {
        assert!(check(&setup(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ))
        .is_none());
    }

    #[test]
    fn the_move_before_the_last_one_must_exist_too() {
        // White's last move must be a knight move to c7 (the check), and no
        // Black move can have led to any of the positions before it.
        let fen = "k1Bb1B1q/2NNp2r/1KNp1RB1/1R2qb2/BB1P3B/2N5/r2r4/RQqn4 b - - 0 1";
        let s = setup(fen);
        assert!(retractions(&s).iter().any(|r| possible(&r.before)));
        assert_eq!(check(&s).map(|r| r.flaw), Some(Flaw::NoLastMove));
        // A twin without the b5 rook: some Black move can have led to a
        // position before the knight move.
        assert!(check(&setup(
            "k1Bb1B1q/2NNp2r/1KNp1RB1/4qb2/BB1P3B/2N5/r2r4/RQqn4 b - - 0 1"
        ))
        .is_none());
    }

    /// Soundness of the two-move search: positions from random games full
    /// of checks (where the last move is often forced) always have a last
    /// move and a move before it.
    #[test]
    fn random_games_with_checks_have_two_moves_back() {
        use crate::testing::{random_games, Lcg};
        use shakmaty::{Chess, EnPassantMode, MoveList, Position};
        let checks_first = |pos: &Chess, moves: &MoveList, rng: &mut Lcg| {
            let checks: Vec<_> = moves
                .iter()
                .filter(|m| {
                    let mut p = pos.clone();
                    p.play_unchecked(**m);
                    p.is_check() || m.is_capture()
                })
                .collect();
            Some(if !checks.is_empty() && rng.next(3) > 0 {
                *checks[rng.next(checks.len())]
            } else {
                moves[rng.next(moves.len())]
            })
        };
        for (game, positions) in random_games(17, 40, 120, checks_first).iter().enumerate() {
            for (ply, pos) in positions.iter().enumerate() {
                let r = check(&pos.to_setup(EnPassantMode::Legal));
                let fen = Fen::from_position(pos, EnPassantMode::Legal);
                assert!(r.is_none(), "game {game} ply {ply}: {fen}: {r:?}");
            }
        }
    }

    #[test]
    fn uncastling_is_generated() {
        let s = setup("4k3/8/8/8/8/8/8/5RK1 b - - 0 1");
        assert!(retractions(&s).iter().any(|r| r.text() == "castling O-O"));
    }

    #[test]
    fn en_passant_uncapture_is_generated() {
        let s = setup("4k3/8/3P4/8/8/8/8/4K3 b - - 0 1");
        assert!(retractions(&s).iter().any(|r| r.text().ends_with("e.p.")));
    }
}
