//! Static analysis of a proof-game diagram: which squares hold units that
//! never moved, how many moves each unit on the board needs at least to
//! become one of the diagram's units, and from that an admissible bound on
//! the moves and captures each side still has to make.
//!
//! The bound is a minimum-cost matching of the units on the board to the
//! units of the diagram (surplus units are matched to "captured", free),
//! once for moves and once for pawn captures. Both minima are lower bounds
//! of what any real continuation needs, which is all the search relies on.

use shakmaty::{attacks, Bitboard, Board, Castles, CastlingSide, Color, File, Rank, Role, Square};

use super::assign::{min_cost, INF, MAX_N};

/// What one side still has to spend, at least.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Need {
    /// Moves of this side's units.
    pub moves: i32,
    /// Captures this side's pawns must make (their file changes).
    pub captures: i32,
    /// Pawn moves that cannot be captures: a pawn that ends on a file an odd
    /// number of steps from where it goes straight must make one straight
    /// step at least. Every other move may capture, so the moves still to
    /// make are at least the captures still to make plus these.
    pub straight: i32,
}

/// The diagram, digested once per problem.
#[derive(Debug, Clone)]
pub struct Analysis {
    target: Board,
    /// Squares whose diagram unit provably never moved: it stood there all
    /// game, so no other unit ever entered or crossed the square.
    fixed: Bitboard,
    /// `dist[role][from][to]`: fewest moves for a knight, bishop, rook,
    /// queen or king from `from` to `to` around the fixed squares.
    dist: Vec<u8>,
    targets: [Vec<(Role, Square)>; 2],
    keys: Vec<u64>,
}

const UNREACHABLE: u8 = u8::MAX;

fn role_index(role: Role) -> usize {
    match role {
        Role::Knight => 0,
        Role::Bishop => 1,
        Role::Rook => 2,
        Role::Queen => 3,
        Role::King => 4,
        Role::Pawn => unreachable!("pawn distances are computed, not tabled"),
    }
}

fn color_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Rank counted from `color`'s own side (0 = its first rank).
fn rel_rank(color: Color, sq: Square) -> i32 {
    let r = sq.rank().to_u32() as i32;
    match color {
        Color::White => r,
        Color::Black => 7 - r,
    }
}

/// The units the initial array has on `sq`, if any.
fn initial_unit(sq: Square) -> Option<(Color, Role)> {
    Board::default()
        .piece_at(sq)
        .map(|piece| (piece.color, piece.role))
}

/// Fewest moves and captures for a pawn of `color` from `from` to `to`
/// (`to` may be on the last rank: the promotion move), ignoring obstacles.
fn pawn_path(color: Color, from: Square, to: Square) -> Option<(i32, i32)> {
    let dr = rel_rank(color, to) - rel_rank(color, from);
    let df = from.file().distance(to.file()) as i32;
    if dr < 0 || df > dr {
        return None;
    }
    let double = rel_rank(color, from) == 1 && dr >= 2 && df <= dr - 2;
    Some((dr - i32::from(double), df))
}

/// Straight (non-capturing) moves a pawn of `color` must make at least from
/// `from` to `to`: captures change the file by one each, so when the ranks
/// left over after the file change are odd, one step is straight.
fn straight_steps(color: Color, from: Square, to: Square) -> i32 {
    let dr = rel_rank(color, to) - rel_rank(color, from);
    let df = from.file().distance(to.file()) as i32;
    (dr - df).rem_euclid(2)
}

impl Analysis {
    /// Digests the diagram `target`.
    pub fn new(target: &Board) -> Analysis {
        let targets = [Color::White, Color::Black].map(|color| {
            target
                .iter()
                .filter(|(_, piece)| piece.color == color)
                .map(|(sq, piece)| (piece.role, sq))
                .collect::<Vec<_>>()
        });
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let keys = (0..12 * 64 + 4)
            .map(|_| {
                // splitmix64: fixed keys, so runs are reproducible.
                seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = seed;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            })
            .collect();
        let mut analysis = Analysis {
            target: target.clone(),
            fixed: Bitboard::EMPTY,
            dist: Vec::new(),
            targets,
            keys,
        };
        analysis.fixed = fixed_units(target);
        analysis.dist = distances(analysis.fixed);
        analysis
    }

    pub fn target(&self) -> &Board {
        &self.target
    }

    /// Squares whose diagram unit never moved.
    pub fn fixed(&self) -> Bitboard {
        self.fixed
    }

    fn dist(&self, role: Role, from: Square, to: Square) -> i32 {
        let d = self.dist[(role_index(role) * 64 + from.to_usize()) * 64 + to.to_usize()];
        if d == UNREACHABLE {
            INF
        } else {
            i32::from(d)
        }
    }

    /// A key for `color`'s units and castling rights on `board` (for caching
    /// [`Analysis::need`]).
    pub fn side_key(&self, board: &Board, castles: &Castles, color: Color) -> u64 {
        let mut key = 0;
        for sq in board.by_color(color) {
            let role = board.role_at(sq).expect("occupied");
            key ^= self.keys[(role as usize - 1) * 64 + sq.to_usize()];
        }
        for (i, side) in [CastlingSide::KingSide, CastlingSide::QueenSide]
            .into_iter()
            .enumerate()
        {
            if castles.has(color, side) {
                key ^= self.keys[12 * 64 + i];
            }
        }
        key ^ self.keys[12 * 64 + 2 + color_index(color)]
    }

    /// Fewest (moves, pawn captures, straight pawn moves) for `color`'s unit
    /// `role` on `from` to become the diagram unit `target` on `to`; each
    /// minimised on its own.
    fn cost(
        &self,
        color: Color,
        castles: &Castles,
        (role, from): (Role, Square),
        (target, to): (Role, Square),
    ) -> (i32, i32, i32) {
        let none = (INF, INF, INF);
        match (role, target) {
            (Role::Pawn, Role::Pawn) => match pawn_path(color, from, to) {
                Some((moves, caps)) => (moves, caps, straight_steps(color, from, to)),
                None => none,
            },
            (Role::Pawn, Role::King) => none,
            (Role::Pawn, promoted) => {
                let last = Rank::new(if color == Color::White { 7 } else { 0 });
                let mut best = none;
                for file in File::ALL {
                    let promo = Square::from_coords(file, last);
                    if self.fixed.contains(promo) {
                        continue;
                    }
                    let Some((moves, caps)) = pawn_path(color, from, promo) else {
                        continue;
                    };
                    let d = self.dist(promoted, promo, to);
                    if d < INF {
                        best = (
                            best.0.min(moves + d),
                            best.1.min(caps),
                            best.2.min(straight_steps(color, from, promo)),
                        );
                    }
                }
                best
            }
            (Role::King, Role::King) => (self.king_cost(color, castles, from, to), 0, 0),
            (Role::Rook, Role::Rook) => (self.rook_cost(color, castles, from, to), 0, 0),
            (a, b) if a == b => (self.dist(a, from, to), 0, 0),
            _ => none,
        }
    }

    fn king_cost(&self, color: Color, castles: &Castles, from: Square, to: Square) -> i32 {
        let mut best = self.dist(Role::King, from, to);
        let back = Rank::new(if color == Color::White { 0 } else { 7 });
        if from == Square::from_coords(File::E, back) {
            for (side, through, land) in [
                (CastlingSide::KingSide, &[File::F, File::G][..], File::G),
                (
                    CastlingSide::QueenSide,
                    &[File::B, File::C, File::D][..],
                    File::C,
                ),
            ] {
                let open = through
                    .iter()
                    .all(|f| !self.fixed.contains(Square::from_coords(*f, back)));
                if castles.has(color, side) && open {
                    let land = Square::from_coords(land, back);
                    best = best.min(1 + self.dist(Role::King, land, to));
                }
            }
        }
        best
    }

    fn rook_cost(&self, color: Color, castles: &Castles, from: Square, to: Square) -> i32 {
        let mut best = self.dist(Role::Rook, from, to);
        let back = Rank::new(if color == Color::White { 0 } else { 7 });
        for (side, corner, land) in [
            (CastlingSide::KingSide, File::H, File::F),
            (CastlingSide::QueenSide, File::A, File::D),
        ] {
            if castles.has(color, side) && from == Square::from_coords(corner, back) {
                // Castling moves the rook as part of a king move.
                best = best.min(self.dist(Role::Rook, Square::from_coords(land, back), to));
            }
        }
        best
    }

    /// What `color` still needs at least to turn its units on `board` into
    /// the diagram's; `None` when no continuation at all can do it.
    pub fn need(&self, board: &Board, castles: &Castles, color: Color) -> Option<Need> {
        let targets = &self.targets[color_index(color)];
        let n = board.by_color(color).count();
        if targets.len() > n || n > MAX_N {
            return None;
        }
        let sources = board
            .by_color(color)
            .into_iter()
            .map(|sq| (board.role_at(sq).expect("occupied"), sq));
        let mut moves = [0; MAX_N * MAX_N];
        let mut caps = [0; MAX_N * MAX_N];
        let mut straight = [0; MAX_N * MAX_N];
        for (i, source) in sources.enumerate() {
            for j in 0..n {
                let (m, c, s) = match targets.get(j) {
                    Some(&target) => self.cost(color, castles, source, target),
                    // A unit left over is captured somewhere: free for its
                    // own side, but a king is never captured.
                    None if source.0 == Role::King => (INF, INF, INF),
                    None => (0, 0, 0),
                };
                moves[i * n + j] = m;
                caps[i * n + j] = c;
                straight[i * n + j] = s;
            }
        }
        Some(Need {
            moves: min_cost(&moves, n)?,
            captures: min_cost(&caps, n)?,
            straight: min_cost(&straight, n)?,
        })
    }
}

/// Units of the diagram that provably never moved (nor were captured and
/// replaced): pawns on their initial squares, and the largest set of units
/// on their initial squares whose every neighbouring square (in their way of
/// moving) holds a unit of the set. Why the largest set is sound: take the
/// last time the occupant of one of these squares changed; the diagram unit
/// then entered it from a neighbouring square of the set, whose occupant had
/// to change later still.
fn fixed_units(target: &Board) -> Bitboard {
    let mut fixed = Bitboard::EMPTY;
    for (sq, piece) in target.iter() {
        if initial_unit(sq) == Some((piece.color, piece.role)) {
            fixed.add(sq);
        }
    }
    loop {
        let mut kept = fixed;
        for sq in fixed {
            let piece = target.piece_at(sq).expect("fixed squares are occupied");
            let exits = match piece.role {
                Role::Pawn => continue,
                Role::Knight => attacks::knight_attacks(sq),
                Role::King => attacks::king_attacks(sq),
                _ => attacks::attacks(sq, piece, Bitboard::FULL),
            };
            if !(exits & !fixed).is_empty() {
                kept.discard(sq);
            }
        }
        if kept == fixed {
            return fixed;
        }
        fixed = kept;
    }
}

/// Breadth-first distances for every non-pawn role around `fixed`.
fn distances(fixed: Bitboard) -> Vec<u8> {
    let roles = [
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    let mut dist = vec![UNREACHABLE; roles.len() * 64 * 64];
    for role in roles {
        for from in Square::ALL {
            let base = (role_index(role) * 64 + from.to_usize()) * 64;
            dist[base + from.to_usize()] = 0;
            let mut frontier = Bitboard::from_square(from);
            let mut seen = frontier;
            let mut d = 0u8;
            while frontier.any() {
                d += 1;
                let mut next = Bitboard::EMPTY;
                for sq in frontier {
                    let piece = shakmaty::Piece {
                        color: Color::White,
                        role,
                    };
                    next |= attacks::attacks(sq, piece, fixed);
                }
                next &= !fixed & !seen;
                for sq in next {
                    dist[base + sq.to_usize()] = d;
                }
                seen |= next;
                frontier = next;
            }
        }
    }
    dist
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().into_setup().board
    }

    #[test]
    fn boxed_in_bishop_never_moved() {
        let a = Analysis::new(&Board::default());
        assert!(a.fixed().contains(Square::C1));
        // King and queen hold each other in while the pawns stand.
        assert!(a.fixed().contains(Square::E1));
        assert!(a.fixed().contains(Square::D1));
        assert!(!a.fixed().contains(Square::B1));
        assert!(!a.fixed().contains(Square::A1));
    }

    #[test]
    fn initial_array_needs_nothing_more() {
        let a = Analysis::new(&board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"));
        let start = Board::default();
        let castles = Castles::default();
        assert_eq!(
            a.need(&start, &castles, Color::White),
            // e2-e4 is one move; e2xd3xe4 would be two captures and no
            // straight step, so no straight step is forced.
            Some(Need {
                moves: 1,
                captures: 0,
                straight: 0
            })
        );
        assert_eq!(
            a.need(&start, &castles, Color::Black),
            Some(Need {
                moves: 0,
                captures: 0,
                straight: 0
            })
        );
        let a = Analysis::new(&board("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR"));
        assert_eq!(
            a.need(&start, &castles, Color::White),
            Some(Need {
                moves: 1,
                captures: 0,
                straight: 1
            })
        );
    }

    #[test]
    fn bishop_behind_its_home_pawn_is_unreachable() {
        // spg002: h8 is entered only from g7, where a pawn never moved.
        let a = Analysis::new(&board("7b/6p1/3k4/8/8/2K5/8/8"));
        assert_eq!(
            a.need(&Board::default(), &Castles::default(), Color::Black),
            None
        );
    }
}
