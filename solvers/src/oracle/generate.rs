//! Test problems for the oracle, biased toward what random play rarely does
//! and problems often do: castling (and then a capture on the rook's new
//! square), en passant, promotions to every piece (two in one line), kings
//! beside pawns in a corner, pawns on the seventh rank, sparse material.
//!
//! Two sources, both yielding positions that arose in a real game or that
//! shakmaty accepts as a setup: random games from the initial array (some
//! long and capture-heavy, down to a few units), and random sparse
//! placements, some given one prelude move (a double step, so that en
//! passant is on; a castling; a promotion) before the problem starts.

use shakmaty::{
    attacks, Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Piece,
    Position, Role, Setup, Square,
};

use super::Rng;
use crate::{Goal, Stipulation};

/// One move of a random game, weighted toward the special rules:
/// castling, en passant and promotions far above other moves, captures
/// above quiet moves when `captures` (to thin the board out), and a
/// capture on the square a rook has just castled to above everything.
pub fn biased_move(
    rng: &mut Rng,
    pos: &Chess,
    captures: bool,
    castled_rook: Option<Square>,
) -> Option<Move> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let weights: Vec<u32> = moves
        .iter()
        .map(|m| match m {
            _ if castled_rook.is_some_and(|sq| m.to() == sq && m.is_capture()) => 400,
            Move::Castle { .. } => 60,
            Move::EnPassant { .. } => 60,
            Move::Normal {
                promotion: Some(_), ..
            } => 40,
            _ if m.is_capture() && captures => 12,
            Move::Normal {
                role: Role::Pawn,
                from,
                to,
                ..
            } if from.distance(*to) == 2 => 4,
            _ => 2,
        })
        .collect();
    Some(moves[rng.weighted(&weights)])
}

/// The square a castling move puts its rook on.
fn castled_rook(pos: &Chess, m: &Move) -> Option<Square> {
    m.castling_side().map(|side| side.rook_to(pos.turn()))
}

/// A game of up to `plies` half-moves from the initial array, played by
/// [`biased_move`] (capture-heavy when `captures`); it stops early when
/// the side to move has no move. Returns the moves and every position
/// along the way, the initial one first.
pub fn random_game(rng: &mut Rng, plies: usize, captures: bool) -> (Vec<Move>, Vec<Chess>) {
    let mut positions = vec![Chess::default()];
    let mut moves = Vec::new();
    let mut rook = None;
    while moves.len() < plies {
        let pos = positions.last().expect("never empty");
        let Some(m) = biased_move(rng, pos, captures, rook) else {
            break;
        };
        rook = castled_rook(pos, &m).or(rook.filter(|_| rng.chance(80)));
        let mut next = pos.clone();
        next.play_unchecked(m);
        moves.push(m);
        positions.push(next);
    }
    (moves, positions)
}

/// A position from a random game that has at most `max_units` units and
/// `turn` to move, or `None` when the game never thinned out that far.
fn thinned_game(rng: &mut Rng, max_units: usize, turn: Color) -> Option<Chess> {
    let plies = 20 + rng.below(300);
    let (_, positions) = random_game(rng, plies, true);
    positions.into_iter().find(|p| {
        p.board().occupied().count() <= max_units && p.turn() == turn && !p.legal_moves().is_empty()
    })
}

/// A random placement of up to `max_units` units (kings included) with
/// `turn` to move that shakmaty accepts, possibly with castling rights
/// and a prelude move (see the module doc).
pub fn sparse_position(rng: &mut Rng, max_units: usize, turn: Color) -> Chess {
    loop {
        let prelude = rng.chance(30);
        let setup_turn = if prelude { !turn } else { turn };
        let attack = rng.chance(75);
        let Some(pos) = placement(rng, max_units.max(2), setup_turn, attack) else {
            continue;
        };
        if !prelude {
            return pos;
        }
        let Some(m) = biased_move(rng, &pos, true, None) else {
            continue;
        };
        let mut next = pos;
        next.play_unchecked(m);
        if !next.legal_moves().is_empty() {
            return next;
        }
    }
}

/// A placement (see [`sparse_position`]); with `attack`, the Black king
/// goes to the edge and White's units near it, where mates are.
fn placement(rng: &mut Rng, max_units: usize, turn: Color, attack: bool) -> Option<Chess> {
    let mut board = Board::empty();
    let mut free = Bitboard::FULL;
    let put = |board: &mut Board, free: &mut Bitboard, sq: Square, piece: Piece| {
        if free.contains(sq) {
            board.set_piece_at(sq, piece);
            free.discard(sq);
            true
        } else {
            false
        }
    };
    let random_square = |rng: &mut Rng| Square::new(rng.below(64) as u32);
    let mut castling = Bitboard::EMPTY;
    let mut units = 2;
    for color in Color::ALL {
        // Kings at home with their rooks (castling rights), in a corner
        // beside pawns, or anywhere.
        let back = color.backrank();
        match rng.below(4) {
            0 if units + 2 <= max_units => {
                put(
                    &mut board,
                    &mut free,
                    Square::from_coords(shakmaty::File::E, back),
                    color.king(),
                );
                for file in [shakmaty::File::A, shakmaty::File::H] {
                    if units < max_units && rng.chance(70) {
                        let sq = Square::from_coords(file, back);
                        put(&mut board, &mut free, sq, color.rook());
                        units += 1;
                        if rng.chance(85) {
                            castling.add(sq);
                        }
                    }
                }
            }
            _ if attack && color.is_black() && rng.chance(70) => {
                let edge: Vec<Square> = Square::ALL
                    .into_iter()
                    .filter(|sq| {
                        sq.distance(Square::from_coords(
                            shakmaty::File::D,
                            shakmaty::Rank::Fourth,
                        )) == 4
                            || sq.distance(Square::from_coords(
                                shakmaty::File::E,
                                shakmaty::Rank::Fifth,
                            )) == 4
                    })
                    .collect();
                let sq = edge[rng.below(edge.len())];
                put(&mut board, &mut free, sq, color.king());
            }
            1 => {
                let corner = [Square::A1, Square::H1, Square::A8, Square::H8][rng.below(4)];
                if !put(&mut board, &mut free, corner, color.king()) {
                    let sq = random_square(rng);
                    put(&mut board, &mut free, sq, color.king());
                }
            }
            _ => {
                let sq = random_square(rng);
                put(&mut board, &mut free, sq, color.king());
            }
        }
    }
    if board.kings().count() != 2 {
        return None;
    }
    // Pawns beside a king in a corner, pawns about to promote, pieces.
    while units < max_units && rng.chance(85) {
        let color = if rng.chance(if attack { 65 } else { 50 }) {
            Color::White
        } else {
            Color::Black
        };
        let role = [
            Role::Pawn,
            Role::Pawn,
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ][rng.below(7)];
        let black_king = board.king_of(Color::Black)?;
        let sq = match role {
            _ if attack && color.is_white() && rng.chance(60) => {
                // Within three squares of the Black king.
                let near: Vec<Square> = Square::ALL
                    .into_iter()
                    .filter(|sq| sq.distance(black_king) <= 3)
                    .collect();
                near[rng.below(near.len())]
            }
            Role::Pawn if rng.chance(40) => {
                // On the seventh rank, about to promote.
                Square::from_coords(
                    shakmaty::File::new(rng.below(8) as u32),
                    color.relative_rank(shakmaty::Rank::Seventh),
                )
            }
            Role::Pawn if rng.chance(40) => {
                // Beside a king.
                let king = board.king_of(if rng.chance(50) { color } else { !color })?;
                let near: Vec<Square> = shakmaty::attacks::king_attacks(king).into_iter().collect();
                near[rng.below(near.len())]
            }
            _ => random_square(rng),
        };
        if role == Role::Pawn && matches!(sq.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth)
        {
            continue;
        }
        if put(&mut board, &mut free, sq, Piece { color, role }) {
            units += 1;
        }
    }
    playable(board, turn, castling)
}

/// Of the mate cases, the percentage whose goal is stalemate instead.
const STALEMATE_PERCENT: u64 = 25;

/// A mate (or stalemate) problem for the oracle: a stipulation drawn with
/// short lengths most often (the reference's tree grows with the length),
/// and a position with few enough units for the reference to walk that
/// tree, from a random game or a sparse placement.
pub fn mate_case(rng: &mut Rng) -> (Chess, Stipulation) {
    const fn direct(moves: u32) -> Stipulation {
        Stipulation::Direct {
            moves,
            goal: Goal::Mate,
        }
    }
    const fn help(plies: u32) -> Stipulation {
        Stipulation::Help {
            plies,
            goal: Goal::Mate,
        }
    }
    const fn self_(moves: u32) -> Stipulation {
        Stipulation::SelfMate {
            moves,
            goal: Goal::Mate,
        }
    }
    // (stipulation, most units, weight)
    const KINDS: [(Stipulation, usize, u32); 11] = [
        (direct(1), 24, 20),
        (direct(2), 7, 22),
        (direct(3), 5, 4),
        (self_(1), 10, 10),
        (self_(2), 6, 8),
        (help(2), 12, 10),
        (help(3), 8, 8),
        (help(4), 7, 8),
        (help(5), 5, 4),
        (help(6), 5, 3),
        (help(7), 4, 1),
    ];
    let weights: Vec<u32> = KINDS.iter().map(|k| k.2).collect();
    let (stipulation, max_units, _) = KINDS[rng.weighted(&weights)];
    let goal = random_goal(rng);
    let stipulation = stipulation.with_goal(goal);
    let turn = stipulation.side_to_move();
    loop {
        let units = 3 + rng.below(max_units - 2);
        let pos = match (stipulation, rng.below(4)) {
            (Stipulation::Help { plies, .. }, 0) if plies >= 3 => {
                planted_line(rng, plies, goal, max_units + 1, turn).map(|(pos, _)| pos)
            }
            (Stipulation::Help { plies, .. }, 1) if plies >= 3 => {
                promotion_help(rng, max_units + 1, turn)
            }
            (Stipulation::Help { plies, .. }, 3) if plies >= 4 => blocked_pawn_help(rng, turn),
            (_, 2) => thinned_game(rng, max_units, turn),
            (
                Stipulation::SelfMate {
                    goal: Goal::Stalemate,
                    ..
                },
                3,
            ) => boxed_kings(rng),
            _ => Some(sparse_position(rng, units, turn)),
        };
        if let Some(pos) = pos {
            return (pos, stipulation);
        }
    }
}

/// A self-stalemate position, White to move: random placements almost
/// never give one with a key (none in 9,000), so both kings are boxed in
/// as such problems box them. White's king in the corner h1, h2 blocked
/// by h3 and g1/g2 on a Black rook's g-file; Black's king on a8 behind
/// a7, blocked by a White pawn on a6; White's free units (a rook or
/// queen, perhaps a minor piece) anywhere. Half the time the board is
/// mirrored left to right.
fn boxed_kings(rng: &mut Rng) -> Option<Chess> {
    let mut board = Board::empty();
    for (sq, piece) in [
        (Square::H1, Color::White.king()),
        (Square::H2, Color::White.pawn()),
        (Square::H3, Color::Black.pawn()),
        (Square::A8, Color::Black.king()),
        (Square::A7, Color::Black.pawn()),
        (Square::A6, Color::White.pawn()),
    ] {
        board.set_piece_at(sq, piece);
    }
    let rook_rank = 2 + rng.below(6) as u32;
    board.set_piece_at(
        Square::from_coords(shakmaty::File::G, shakmaty::Rank::new(rook_rank)),
        Color::Black.rook(),
    );
    let free = [Role::Rook, Role::Queen][rng.below(2)];
    let extra = [None, Some(Role::Knight), Some(Role::Bishop)][rng.below(3)];
    for role in std::iter::once(free).chain(extra) {
        let sq = Square::new(rng.below(64) as u32);
        if board.piece_at(sq).is_some() {
            return None;
        }
        board.set_piece_at(
            sq,
            Piece {
                color: Color::White,
                role,
            },
        );
    }
    if rng.chance(50) {
        board.flip_horizontal();
    }
    playable(board, Color::White, Bitboard::EMPTY)
}

/// Mate mostly, stalemate in a quarter of the draws.
pub fn random_goal(rng: &mut Rng) -> Goal {
    if rng.chance(STALEMATE_PERCENT) {
        Goal::Stalemate
    } else {
        Goal::Mate
    }
}

/// A helpmate position where Black promotes: the Black king on the edge,
/// Black pawns on their seventh rank (the second), White's units, some
/// of them capturable on the promotion rank, near both.
fn promotion_help(rng: &mut Rng, units: usize, turn: Color) -> Option<Chess> {
    let mut board = Board::empty();
    let edge: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|sq| {
            matches!(sq.file(), shakmaty::File::A | shakmaty::File::H)
                || matches!(sq.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth)
        })
        .collect();
    board.set_piece_at(edge[rng.below(edge.len())], Color::Black.king());
    let white_king = Square::new(rng.below(64) as u32);
    if board.piece_at(white_king).is_some() {
        return None;
    }
    board.set_piece_at(white_king, Color::White.king());
    let mut placed = 2;
    while placed < units {
        let (sq, piece) = match rng.below(4) {
            0 | 1 => (
                Square::from_coords(
                    shakmaty::File::new(rng.below(8) as u32),
                    shakmaty::Rank::Second,
                ),
                Color::Black.pawn(),
            ),
            2 => (
                Square::from_coords(
                    shakmaty::File::new(rng.below(8) as u32),
                    shakmaty::Rank::First,
                ),
                Piece {
                    color: Color::White,
                    role: [Role::Knight, Role::Bishop, Role::Rook][rng.below(3)],
                },
            ),
            _ => (
                Square::new(8 + rng.below(48) as u32),
                Piece {
                    color: Color::White,
                    role: [Role::Pawn, Role::Knight, Role::Bishop][rng.below(3)],
                },
            ),
        };
        if board.piece_at(sq).is_none() {
            board.set_piece_at(sq, piece);
            placed += 1;
        }
    }
    playable(board, turn, Bitboard::EMPTY)
}

/// A helpmate position with a blocked White pawn, built back from a mate:
/// White has its king and one pawn (on its second rank, or third), which
/// would mate the Black king from a square `t` up its file, the White
/// king guarding `t` from beside it and the other flights filled with
/// Black units; but a Black pawn stands on the file between (at most two
/// squares ahead of the White pawn), and the White king stands a step or
/// two away from its mating square. Black has a knight to spare most of
/// the time. (The pictures charge such a pawn the king's detour to take
/// the Black pawn or its way round, see `mate::picture::blocked`.)
pub fn blocked_pawn_help(rng: &mut Rng, turn: Color) -> Option<Chess> {
    use shakmaty::{File, Rank};
    let at = |file: u32, rank: u32| Square::from_coords(File::new(file), Rank::new(rank));
    let pick = |rng: &mut Rng, squares: Bitboard| {
        let all: Vec<Square> = squares.into_iter().collect();
        (!all.is_empty()).then(|| all[rng.below(all.len())])
    };
    let mut board = Board::empty();
    let file = rng.below(8) as u32;
    let rank = if rng.chance(75) { 1 } else { 2 };
    let block = rank + 1 + rng.below(2) as u32;
    // The pawn mates from the Black pawn's square (one step up, where it
    // cannot go round) or from further up.
    let check = match block == rank + 1 && rng.chance(30) {
        true => block,
        false => block.max(rank + 2) + rng.below(2) as u32,
    };
    let king_file = match file {
        0 => 1,
        7 => 6,
        f if rng.chance(50) => f - 1,
        f => f + 1,
    };
    let (pawn, black_pawn, mate_sq) = (at(file, rank), at(file, block), at(file, check));
    let black_king = at(king_file, check + 1);
    // The White king's mating square: beside the pawn's, off its file
    // below it and not next to the Black king.
    let file_below = Bitboard::from_file(File::new(file)) & !Bitboard::from(mate_sq);
    let guard = pick(
        rng,
        attacks::king_attacks(mate_sq)
            & !attacks::king_attacks(black_king)
            & !file_below
            & !Bitboard::from(black_king),
    )?;
    // The White king a step or two away, or where its shortest way to
    // its square goes over the Black pawn's square (or the one below it,
    // where that pawn may step down).
    let over = match block == rank + 2 && rng.chance(50) {
        true => at(file, block - 1),
        false => black_pawn,
    };
    let over_pawn = Bitboard::from_iter(Square::ALL.into_iter().filter(|sq| {
        *sq != black_pawn
            && *sq != over
            && sq.distance(over) + over.distance(guard) == sq.distance(guard)
    }));
    let start = match rng.below(3) {
        0 => pick(rng, over_pawn)?,
        n => {
            let one = pick(rng, attacks::king_attacks(guard) & !file_below)?;
            match n {
                1 => one,
                _ => pick(rng, attacks::king_attacks(one))?,
            }
        }
    };
    board.set_piece_at(pawn, Color::White.pawn());
    board.set_piece_at(black_pawn, Color::Black.pawn());
    board.set_piece_at(black_king, Color::Black.king());
    if board.piece_at(start).is_some() || start.distance(black_king) < 2 {
        return None;
    }
    board.set_piece_at(start, Color::White.king());
    let open = attacks::king_attacks(black_king)
        & !attacks::king_attacks(guard)
        & !attacks::pawn_attacks(Color::White, mate_sq)
        & !Bitboard::from(mate_sq);
    for sq in open {
        if board.piece_at(sq).is_some() {
            continue;
        }
        let role = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook][rng.below(4)];
        if role == Role::Pawn && Bitboard::BACKRANKS.contains(sq) {
            continue;
        }
        board.set_piece_at(
            sq,
            Piece {
                color: Color::Black,
                role,
            },
        );
    }
    // Where the king's way goes below the Black pawn, that pawn's step
    // down is often Black's only move to spare: no knight then.
    let spare = Square::new(rng.below(64) as u32);
    let knight = over == black_pawn || rng.chance(30);
    if knight && rng.chance(75) && board.piece_at(spare).is_none() && spare.distance(black_king) > 2
    {
        board.set_piece_at(spare, Color::Black.knight());
    }
    playable(board, turn, Bitboard::EMPTY)
}

/// Playouts tried per position by [`planted_line`].
const PLAYOUTS: usize = 400;

/// A `promotion_help` position (Black pawns about to promote) and a random
/// line of `plies` from it (promotions and captures favoured, the last
/// move reaching the goal) that mates (stalemates) Black: a helpmate with
/// at least that solution, planted by chance where the special moves are.
pub fn planted_line(
    rng: &mut Rng,
    plies: u32,
    goal: Goal,
    units: usize,
    turn: Color,
) -> Option<(Chess, Vec<Move>)> {
    let start = promotion_help(rng, units, turn)?;
    for _ in 0..PLAYOUTS {
        let mut pos = start.clone();
        let mut line = Vec::new();
        for _ in 1..plies {
            let Some(m) = biased_move(rng, &pos, true, None) else {
                break;
            };
            pos.play_unchecked(m);
            line.push(m);
        }
        if line.len() + 1 != plies as usize || pos.turn().is_black() {
            continue;
        }
        let mate = pos.legal_moves().into_iter().find(|m| {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            match goal {
                Goal::Mate => after.is_checkmate(),
                Goal::Stalemate => after.is_stalemate(),
            }
        });
        if let Some(m) = mate {
            line.push(m);
            return Some((start, line));
        }
    }
    None
}

/// The position of `board` with `turn` to move and the `castling` rights,
/// when shakmaty accepts it and the side to move has a move.
fn playable(board: Board, turn: Color, castling: Bitboard) -> Option<Chess> {
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = turn;
    setup.castling_rights = castling;
    let pos = Chess::from_setup(setup, CastlingMode::Standard).ok()?;
    (!pos.legal_moves().is_empty()).then_some(pos)
}

/// The FEN of a position, for reports (en passant as FEN writes it).
pub fn fen(pos: &Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The materials the endgame recognizers answer for, in both orientations
/// (White's units first): the mate solver prunes with them, so the oracle
/// draws directmates of exactly these materials.
const RECOGNIZED: [&str; 18] = [
    "KPvK", "KvKP", "KBPvK", "KvKBP", "KNNvK", "KPvKP", "KBvKP", "KPvKB", "KBvKN", "KNvKB",
    "KBvKB", "KNvKN", "KRPvKR", "KRvKRP", "KBNvKN", "KNvKBN", "KBBvK", "KNvK",
];

/// A directmate (`#2`, or `#3` with four units or fewer) whose position has
/// one of the recognizers' materials, White to move, the Black king on the
/// edge three times in four (where mates are).
pub fn recognizer_case(rng: &mut Rng) -> (Chess, Stipulation) {
    let key = RECOGNIZED[rng.below(RECOGNIZED.len())];
    let (white, black) = key.split_once('v').expect("keys are WvB");
    let units: Vec<Piece> = white
        .chars()
        .map(|c| (Color::White, c))
        .chain(black.chars().map(|c| (Color::Black, c)))
        .map(|(color, c)| {
            let role = Role::from_char(c.to_ascii_lowercase()).expect("piece letters");
            role.of(color)
        })
        .collect();
    let moves = if units.len() <= 4 && rng.chance(50) {
        3
    } else {
        2
    };
    let stipulation = Stipulation::Direct {
        moves,
        goal: Goal::Mate,
    };
    loop {
        let edge = rng.chance(75);
        let mut board = Board::empty();
        for &unit in &units {
            let sq = loop {
                let sq = Square::new(rng.below(64) as u32);
                let on_edge =
                    matches!(sq.file().to_u32(), 0 | 7) || matches!(sq.rank().to_u32(), 0 | 7);
                let pawn_ok = unit.role != Role::Pawn || (8..56).contains(&sq.to_u32());
                let edge_ok = !(edge && unit == Role::King.of(Color::Black)) || on_edge;
                if board.piece_at(sq).is_none() && pawn_ok && edge_ok {
                    break sq;
                }
            };
            board.set_piece_at(sq, unit);
        }
        let setup = Setup {
            board,
            turn: Color::White,
            ..Setup::empty()
        };
        if let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard) {
            if !pos.legal_moves().is_empty() {
                return (pos, stipulation);
            }
        }
    }
}
