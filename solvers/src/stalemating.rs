//! Stalemate, decided without shakmaty's full move lists: whether the side
//! to move is stalemated, and which moves may stalemate the other side.
//!
//! The stalemate searches (`=n`, `h=n`, `s=n`) spend most of their time at
//! the last move, where each move used to be played and the other side's
//! every legal move listed. Here the test stops at the first unit that can
//! move, and a move that leaves some unit of the other side a move it has
//! now is not played at all.

use shakmaty::{
    attacks, Bitboard, Chess, Color, EnPassantMode, Move, Piece, Position, Rank, Role, Square,
};

use crate::checking::{lone_blockers, pawn_steps};

/// Is the side to move in `pos` stalemated? En passant and castling rights
/// go to shakmaty (an en passant capture can be illegal in ways a pin test
/// misses; castling rights are rare at leaves).
pub fn is_stalemate(pos: &Chess) -> bool {
    if pos.is_check() {
        return false;
    }
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn) else {
        return pos.legal_moves().is_empty();
    };
    if pos.ep_square(EnPassantMode::Legal).is_some() || pos.castles().has_color(turn) {
        return pos.legal_moves().is_empty();
    }
    let ours = board.by_color(turn);
    let without_king = board.occupied().without(king);
    let flight = attacks::king_attacks(king) & !ours;
    if flight
        .into_iter()
        .any(|to| board.attacks_to(to, !turn, without_king).is_empty())
    {
        return false;
    }
    // Not in check, so a unit that is not pinned may make any of its
    // pseudo-legal moves, and a pinned one those along its pin line.
    mobile(pos, turn).next().is_none()
}

/// The units of `side` but the king that have a move in `pos`, with their
/// targets, when `side`'s king is not in check (whoever is to move).
fn mobile(pos: &Chess, side: Color) -> impl Iterator<Item = (Square, Role, Bitboard)> + '_ {
    let board = pos.board();
    let occupied = board.occupied();
    let ours = board.by_color(side);
    let theirs = board.by_color(!side);
    let king = board.king_of(side);
    let pinned = king.map_or(Bitboard::EMPTY, |k| lone_blockers(pos, !side, k) & ours);
    (ours & !board.kings()).into_iter().filter_map(move |from| {
        let piece = board.piece_at(from)?;
        let mut targets = match piece.role {
            Role::Pawn => pawn_steps(side, from, occupied, theirs),
            _ => attacks::attacks(from, piece, occupied) & !ours,
        };
        if let (true, Some(king)) = (pinned.contains(from), king) {
            targets &= attacks::ray(king, from);
        }
        targets.any().then_some((from, piece.role, targets))
    })
}

/// A pawn's push square (the nearer of its pushes: filling it stops both)
/// and its captures, among its `targets`.
fn pawn_moves(side: Color, sq: Square, targets: Bitboard) -> (Option<Square>, Bitboard) {
    let captures = targets & attacks::pawn_attacks(side, sq);
    let push = (targets & !captures)
        .into_iter()
        .min_by_key(|&x| sq.distance(x));
    (push, captures)
}

/// The line through `king` and `sq`, from `sq` outwards: a slider of the
/// other side there may pin a unit on `sq`. Empty when no pin is possible.
/// (The unit's lines on a board holding only the king stop at the king, so
/// they leave out the line's far side of the king.)
fn beyond(king: Square, sq: Square) -> Bitboard {
    attacks::ray(king, sq)
        & attacks::queen_attacks(sq, Bitboard::from(king))
        & !attacks::between(king, sq)
        & !Bitboard::from(king)
}

/// Where the other side's single move must land to take every move from a
/// mobile unit on `sq` that no slider can pin (`pawn`: its push square and
/// captures, for a pawn). A piece keeps a move unless it is captured: a
/// unit landing in its way is a capture, one leaving opens squares. A pawn
/// also stops when its push square is filled and its captures are gone,
/// and one move takes at most one capture away (by moving the captured
/// unit, `from` in [`Mobile::may_lose_its_moves`]).
fn off_line_need(sq: Square, pawn: Option<(Option<Square>, Bitboard)>) -> Bitboard {
    match pawn {
        Some((_, captures)) if captures.count() >= 2 => Bitboard::from(sq),
        Some((Some(push), _)) => Bitboard::from(sq).with(push),
        Some((None, _)) => Bitboard::FULL,
        None => Bitboard::from(sq),
    }
}

/// A unit of the side to be stalemated that can move now, and what one
/// move of the other side must do to take all its moves away.
#[derive(Debug, Clone, Copy)]
struct Mobile {
    sq: Square,
    /// The squares beyond the unit on its line from its king: a unit of
    /// the mover arriving there may pin it.
    beyond: Bitboard,
    /// Those and the squares between the unit and its king: a unit of the
    /// mover leaving one of them may uncover a slider that pins it.
    line: Bitboard,
    /// For a pawn: the square its push goes through (occupying it stops
    /// both pushes), and its captures (a captured unit that moves away
    /// takes one).
    pawn: Option<(Option<Square>, Bitboard)>,
}

impl Mobile {
    /// May the move from `from` to `to` take every move of this unit away?
    /// A unit keeps each move it has unless it is captured, pinned, its
    /// push square is filled, or the unit it captures leaves: any other
    /// change only adds moves, or gives check (which is no stalemate).
    fn may_lose_its_moves(&self, from: Square, to: Square) -> bool {
        self.sq == to
            || self.beyond.contains(to)
            || self.line.contains(from)
            || self.pawn.is_some_and(|(push, captures)| {
                push.is_none_or(|push| push == to) && captures.without(from).is_empty()
            })
    }
}

/// Which moves of the side to move may stalemate the other side (see
/// [`StalemateTest::new`]).
#[derive(Debug, Clone)]
pub struct StalemateTest {
    /// In a fixed array: the test is made at every last-move node, where
    /// a heap allocation would cost as much as the test.
    units: [Option<Mobile>; 15],
    /// The squares a stalemating move may go to: every unit off its king's
    /// lines can only lose its moves by being captured (a pawn also by
    /// having its push filled).
    to: Bitboard,
}

impl StalemateTest {
    /// The test for the side to move's moves in `pos`; `None` where it
    /// cannot tell (the other side has no king, castling rights, or more
    /// than sixteen units).
    pub fn new(pos: &Chess) -> Option<StalemateTest> {
        let side = !pos.turn();
        let king = pos.board().king_of(side)?;
        // Fifteen units besides the king at most, as in any legal position
        // (the array below holds no more).
        if pos.castles().has_color(side) || pos.board().by_color(side).count() > 16 {
            return None;
        }
        let mut test = StalemateTest {
            units: [None; 15],
            to: Bitboard::FULL,
        };
        for ((sq, role, targets), unit) in mobile(pos, side).zip(&mut test.units) {
            let beyond = beyond(king, sq);
            let pawn = (role == Role::Pawn).then(|| pawn_moves(side, sq, targets));
            if beyond.is_empty() {
                test.to &= off_line_need(sq, pawn);
                if test.to.is_empty() {
                    // Hopeless: the other units no longer matter.
                    return Some(test);
                }
            }
            let line = beyond | attacks::between(king, sq);
            *unit = Some(Mobile {
                sq,
                beyond,
                line,
                pawn,
            });
        }
        Some(test)
    }

    /// No move can stalemate: the units off their king's lines ask for
    /// different squares.
    pub fn hopeless(&self) -> bool {
        self.to.is_empty()
    }

    /// May the legal move `m` stalemate the other side? False only when
    /// it surely does not. Castling and en passant are let through.
    pub fn may_stalemate(&self, m: &Move) -> bool {
        let Move::Normal { from, to, .. } = *m else {
            return true;
        };
        self.to.contains(to)
            && self
                .units
                .iter()
                .flatten()
                .all(|u| u.may_lose_its_moves(from, to))
    }
}

/// A mobile unit of the side to move that no slider can pin, for
/// [`ReplyTest`].
#[derive(Debug, Clone, Copy)]
struct Unpinnable {
    sq: Square,
    /// Its moves now: a move of its own side landing on one of them may
    /// take one away.
    targets: Bitboard,
    /// Where the other side's last move must land if the unit keeps every
    /// move it has (see [`off_line_need`]).
    need: Bitboard,
}

/// At the last move of the side to be stalemated (its move, then one of
/// the other side's, then stalemate): which of its moves may still end in
/// stalemate. [`StalemateTest`] one ply earlier, without playing the move.
///
/// A unit off its king's lines cannot be pinned, so after the other
/// side's move it must have no pseudo-legal move at all. Its own side's
/// move leaves it every move it has now unless it lands on one of its
/// targets (leaving a square only opens lines; the king's lines do not
/// change when the king stays), so each such unit asks the reply to land
/// on its square or push square; the moved unit asks the same from where
/// it arrives. A king move asks it of the units off the lines of the
/// king's new square. The king's flights that nothing attacks ask the
/// reply to land where it attacks them (`flight_need`). When those asks
/// leave no square, or no unit of the other side can move to one, the
/// move is not worth playing.
#[derive(Debug, Clone)]
pub struct ReplyTest {
    units: [Option<Unpinnable>; 15],
    /// [`flight_need`] with the king and every unit where they stand: a
    /// move that neither leaves nor lands on `near_flights` keeps it.
    flights: Bitboard,
    /// The squares from which a unit may block, open or make a line or
    /// step to a flight of the king, or fill one.
    near_flights: Bitboard,
    /// The other side may castle: its king and rook land together, which
    /// the reach test below does not model.
    castles: bool,
}

impl ReplyTest {
    /// The test for the side to move's moves in `pos`; `None` where it
    /// cannot tell (no king, or more than sixteen units).
    pub fn new(pos: &Chess) -> Option<ReplyTest> {
        let side = pos.turn();
        let king = pos.board().king_of(side)?;
        if pos.board().by_color(side).count() > 16 {
            return None;
        }
        let board = pos.board();
        let near_flights = (attacks::king_attacks(king) & !board.by_color(side))
            .into_iter()
            .fold(attacks::king_attacks(king), |near, flight| {
                near | attacks::queen_attacks(flight, Bitboard::EMPTY)
                    | attacks::knight_attacks(flight)
            });
        let mut test = ReplyTest {
            units: [None; 15],
            flights: flight_need(
                board,
                side,
                king,
                board.by_color(side),
                board.by_color(!side),
            ),
            near_flights,
            castles: pos.castles().has_color(!side),
        };
        let unpinnable = mobile(pos, side).filter(|&(sq, _, _)| beyond(king, sq).is_empty());
        for ((sq, role, targets), unit) in unpinnable.zip(&mut test.units) {
            let pawn = (role == Role::Pawn).then(|| pawn_moves(side, sq, targets));
            *unit = Some(Unpinnable {
                sq,
                targets,
                need: off_line_need(sq, pawn),
            });
        }
        Some(test)
    }

    /// May the legal move `m` of the side to move in `pos` (the position
    /// the test was made for) be followed by a stalemating reply? False
    /// only when it surely cannot. Castling, en passant and double steps
    /// (which allow en passant) are let through.
    pub fn may_stalemate(&self, pos: &Chess, m: &Move) -> bool {
        let Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } = *m
        else {
            return true;
        };
        if role == Role::Pawn && from.distance(to) == 2 {
            return true;
        }
        let board = pos.board();
        let side = pos.turn();
        let king = match role {
            Role::King => to,
            _ => board
                .king_of(side)
                .expect("a test is made only with a king"),
        };
        let mut need = Bitboard::FULL;
        for u in self.units.iter().flatten() {
            // A king move brings new lines: a unit on one may be pinned.
            if u.sq != from && !u.targets.contains(to) && beyond(king, u.sq).is_empty() {
                need &= u.need;
            }
        }
        if need.is_empty() {
            return false;
        }
        let occupied = board.occupied().without(from).with(to);
        let ours = board.by_color(side).without(from).with(to);
        let theirs = board.by_color(!side).without(to);
        if role != Role::King && beyond(king, to).is_empty() {
            let role = promotion.unwrap_or(role);
            need &= moved_unit_need(side, role, to, occupied, ours, theirs);
            if need.is_empty() {
                return false;
            }
        }
        need &= if role == Role::King
            || self.near_flights.contains(from)
            || self.near_flights.contains(to)
        {
            flight_need(board, side, king, ours, theirs)
        } else {
            self.flights
        };
        if need.is_empty() {
            return false;
        }
        // Asks that leave the reply free are not worth checking square by
        // square.
        self.castles
            || need == Bitboard::FULL
            || (need & !theirs)
                .into_iter()
                .any(|d| reaches(board, !side, d, occupied, theirs))
    }
}

/// Where the other side's last move must land for every flight of
/// `side`'s king on `king` to be attacked after it (`ours` and `theirs`:
/// the units after `side`'s move). A flight no unit attacks now must be
/// attacked from where the move lands: landing on it does not do (the
/// king could take), and a capture leaves the capturer on the line it
/// opens. Only a unit leaving a line could uncover an attack, so a flight
/// some slider sees through units of its own side asks nothing.
fn flight_need(
    board: &shakmaty::Board,
    side: Color,
    king: Square,
    ours: Bitboard,
    theirs: Bitboard,
) -> Bitboard {
    let them = !side;
    // Through the king: a flight along a checking line is no flight.
    let see_through = (ours | theirs).without(king);
    let black_lines = ours.without(king);
    let sliders = theirs & (board.bishops() | board.rooks() | board.queens());
    let mut need = Bitboard::FULL;
    for flight in attacks::king_attacks(king) & !ours {
        if (board.attacks_to(flight, them, see_through) & theirs).any()
            || (board.attacks_to(flight, them, black_lines) & sliders).any()
        {
            continue;
        }
        need &= attackers_from(board, them, flight, black_lines, theirs);
        if need.is_empty() {
            break;
        }
    }
    need
}

/// The squares from which some unit of `them` (`theirs`, or a piece one
/// of their pawns may promote to) would attack `target`, the lines
/// blocked by `blockers` only: a superset of where a single move of
/// theirs may land to attack it.
fn attackers_from(
    board: &shakmaty::Board,
    them: Color,
    target: Square,
    blockers: Bitboard,
    theirs: Bitboard,
) -> Bitboard {
    let has = |pieces: Bitboard| (pieces & theirs).any();
    let promotes = has(board.pawns() & Bitboard::from_rank(them.relative_rank(Rank::Seventh)));
    let mut from = Bitboard::EMPTY;
    if has(board.pawns()) {
        from |= attacks::pawn_attacks(!them, target);
    }
    if promotes || has(board.knights()) {
        from |= attacks::knight_attacks(target);
    }
    if has(board.kings()) {
        from |= attacks::king_attacks(target);
    }
    if promotes || has(board.bishops() | board.queens()) {
        from |= attacks::bishop_attacks(target, blockers);
    }
    if promotes || has(board.rooks() | board.queens()) {
        from |= attacks::rook_attacks(target, blockers);
    }
    from
}

/// Where the other side's last move must land to take every move from
/// the unit that has just arrived on `sq` as `role` (no slider can pin it
/// there): everywhere when it has no move.
fn moved_unit_need(
    side: Color,
    role: Role,
    sq: Square,
    occupied: Bitboard,
    ours: Bitboard,
    theirs: Bitboard,
) -> Bitboard {
    let targets = match role {
        Role::Pawn => pawn_steps(side, sq, occupied, theirs),
        _ => attacks::attacks(sq, Piece { color: side, role }, occupied) & !ours,
    };
    if targets.is_empty() {
        return Bitboard::FULL;
    }
    off_line_need(
        sq,
        (role == Role::Pawn).then(|| pawn_moves(side, sq, targets)),
    )
}

/// May a unit of `mover`'s (its units `units`, placed as on `board`) move
/// to `d` when the board's occupancy is `occupied`? Pseudo-legally, en
/// passant and castling aside: a piece that attacks `d`, a pawn that
/// captures there or pushes there.
fn reaches(
    board: &shakmaty::Board,
    mover: Color,
    d: Square,
    occupied: Bitboard,
    units: Bitboard,
) -> bool {
    let attackers = board.attacks_to(d, mover, occupied) & units;
    let pawns = board.pawns() & units;
    if occupied.contains(d) {
        // Ours (theirs were left out): a capture.
        return attackers.any();
    }
    if (attackers & !pawns).any() {
        return true;
    }
    let back = |sq: Square| sq.offset(if mover.is_white() { -8 } else { 8 });
    let Some(one) = back(d) else {
        return false;
    };
    if pawns.contains(one) {
        return true;
    }
    let fourth = if mover.is_white() { 3 } else { 4 };
    d.rank() as u32 == fourth
        && !occupied.contains(one)
        && back(one).is_some_and(|two| pawns.contains(two))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, FromSetup, Setup};

    use crate::testing::{any_move, position, random_games_from, Lcg};

    /// `is_stalemate` agrees with shakmaty at every node of random games
    /// from positions full of pins, promotions, castling rights and en
    /// passant, and on stalemates built by hand.
    #[test]
    fn stalemate_test_agrees_with_shakmaty() {
        let stalemates = [
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "k7/P7/1K6/8/8/8/8/8 b - - 0 1",
            // The Black pawn, pinned on the diagonal, may not push.
            "8/1B6/8/8/8/7K/4N1p1/7k b - - 0 1",
        ];
        for fen in stalemates {
            let pos = position(fen);
            assert!(pos.is_stalemate(), "{fen}");
            assert!(is_stalemate(&pos), "{fen}");
        }
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
            "7k/5Q2/6p1/6P1/8/1p6/1P6/K7 w - - 0 1",
            "4k3/4p3/4P3/8/1b6/8/3P4/4K3 w - - 0 1",
            "8/1p6/1P6/8/5b2/4p3/4P1B1/k3K3 b - - 0 1",
        ];
        let mut stalemated = 0;
        for fen in fens {
            for game in random_games_from(&position(fen), 11, 200, 80, any_move) {
                for pos in game {
                    let fast = is_stalemate(&pos);
                    assert_eq!(
                        fast,
                        pos.is_stalemate(),
                        "{}",
                        Fen::from_position(&pos, EnPassantMode::Legal)
                    );
                    stalemated += usize::from(fast);
                }
            }
        }
        assert!(stalemated > 0, "no stalemate met");
    }

    /// A legal position of few units, most of them pawns, with White to
    /// move: where stalemates are common.
    fn sparse(rng: &mut Lcg) -> Option<Chess> {
        let mut setup = Setup::empty();
        let mut place = |piece: Piece, rng: &mut Lcg| {
            let sq = Square::new(rng.next(64) as u32);
            let back_rank = matches!(sq.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth);
            if setup.board.piece_at(sq).is_none() && !(piece.role == Role::Pawn && back_rank) {
                setup.board.set_piece_at(sq, piece);
            }
        };
        place(Color::White.king(), rng);
        place(Color::Black.king(), rng);
        let roles = [
            Role::Pawn,
            Role::Pawn,
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ];
        for color in [Color::White, Color::Black] {
            for _ in 0..1 + rng.next(4) {
                place(
                    Piece {
                        color,
                        role: roles[rng.next(roles.len())],
                    },
                    rng,
                );
            }
        }
        Chess::from_setup(setup, CastlingMode::Standard).ok()
    }

    /// A move the test turns away never stalemates, on sparse random
    /// positions and along random games from rich ones; and it turns
    /// away most moves, or it would save nothing.
    #[test]
    fn moves_turned_away_never_stalemate() {
        let mut rng = Lcg(7);
        let (mut stalemates, mut moves, mut turned_away) = (0, 0, 0);
        let mut check = |pos: &Chess| {
            let Some(test) = StalemateTest::new(pos) else {
                return;
            };
            for m in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(m);
                let stalemate = after.is_stalemate();
                moves += 1;
                if stalemate {
                    stalemates += 1;
                    assert!(
                        !test.hopeless() && test.may_stalemate(&m),
                        "{} {m}",
                        Fen::from_position(pos, EnPassantMode::Legal)
                    );
                }
                turned_away += usize::from(test.hopeless() || !test.may_stalemate(&m));
            }
        };
        for _ in 0..150_000 {
            if let Some(pos) = sparse(&mut rng) {
                check(&pos);
            }
        }
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "5k2/3r3p/6b1/1p6/3RQ3/3KB1r1/B7/8 b - - 0 1",
            "8/8/8/2k5/2p2p2/2P2P2/8/4K3 w - - 0 1",
            // Stalemated by uncovering a pin (Nf6 away), and by taking away
            // the only capture of a blocked pawn (Bf2-e3).
            "5K1k/6n1/5NP1/4B3/8/8/8/8 w - - 0 1",
            "8/8/8/8/8/6pK/5BP1/7k w - - 0 1",
            // Stalemated by a unit leaving the line between a king and its
            // own unit (Kc1-c2, Bh7-b1): found by the oracle.
            "8/8/8/8/8/8/1R4p1/k1K2bR1 w - - 0 1",
            "7k/7B/4K3/8/8/8/7p/6RR w - - 0 1",
        ];
        for fen in fens {
            for game in random_games_from(&position(fen), 13, 100, 60, any_move) {
                game.iter().for_each(&mut check);
            }
        }
        println!("{stalemates} stalemates, {turned_away} of {moves} moves turned away");
        assert!(stalemates > 500, "{stalemates} stalemates");
        assert!(
            turned_away * 2 > moves,
            "{turned_away} of {moves} turned away"
        );
    }

    /// Whether some reply of the other side to `m` stalemates the side to
    /// move in `pos`.
    fn some_reply_stalemates(pos: &Chess, m: Move) -> bool {
        let mut after = pos.clone();
        after.play_unchecked(m);
        after.legal_moves().into_iter().any(|r| {
            let mut last = after.clone();
            last.play_unchecked(r);
            last.is_stalemate()
        })
    }

    /// A move the reply test turns away is never followed by a stalemating
    /// reply, on sparse random positions (either side to be stalemated)
    /// and along random games from rich ones; and it turns away many
    /// moves, or it would save nothing.
    #[test]
    fn replies_turned_away_never_stalemate() {
        let mut rng = Lcg(11);
        let (mut stalemating, mut moves, mut turned_away) = (0, 0, 0);
        let mut check = |pos: &Chess| {
            let Some(test) = ReplyTest::new(pos) else {
                return;
            };
            for m in pos.legal_moves() {
                let kept = test.may_stalemate(pos, &m);
                moves += 1;
                turned_away += usize::from(!kept);
                if some_reply_stalemates(pos, m) {
                    stalemating += 1;
                    assert!(
                        kept,
                        "{} {m}",
                        Fen::from_position(pos, EnPassantMode::Legal)
                    );
                }
            }
        };
        for _ in 0..40_000 {
            if let Some(pos) = sparse(&mut rng) {
                check(&pos);
                if let Ok(black) = pos.swap_turn() {
                    check(&black);
                }
            }
        }
        let fens = [
            "8/8/8/2k5/2p2p2/2P2P2/8/4K3 b - - 0 1",
            "8/8/8/8/8/6pK/5BP1/7k b - - 0 1",
            "8/8/8/8/8/8/1R4p1/k1K2bR1 b - - 0 1",
            "7k/7B/4K3/8/8/8/7p/6RR b - - 0 1",
            // h3-h2 takes the rook's last move, then Kf4-f3 stalemates:
            // a test that still asked the rook to be captured would lose
            // it.
            "8/8/8/8/5K2/3B3p/8/6kr b - - 0 1",
            // Problems of the hpint corpus, where this test pays.
            "8/8/6KP/8/8/8/1pp1Rppp/k7 b - - 0 1",
            "1k6/8/8/2p5/2K3p1/6p1/2p1p1P1/8 b - - 0 1",
            "7K/6p1/1p6/8/8/p7/P1p3p1/7k b - - 0 1",
        ];
        for fen in fens {
            for game in random_games_from(&position(fen), 17, 60, 40, any_move) {
                game.iter().for_each(&mut check);
            }
        }
        println!(
            "{stalemating} moves with a stalemating reply, {turned_away} of {moves} turned away"
        );
        assert!(stalemating > 300, "{stalemating} stalemating moves");
        // 94 % since the king's flights are asked too (55 % before).
        assert!(
            turned_away * 10 > moves * 8,
            "{turned_away} of {moves} turned away"
        );
    }
}
