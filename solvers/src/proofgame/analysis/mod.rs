//! Static analysis of a proof-game diagram: which squares hold units that
//! never moved, how many moves each unit on the board needs at least to
//! become one of the diagram's units, and from that an admissible bound on
//! the moves and captures each side still has to make.
//!
//! The bound is a minimum-cost matching of the units on the board to the
//! units of the diagram (surplus units are matched to "captured", free),
//! once for moves and once for pawn captures. Both minima are lower bounds
//! of what any real continuation needs, which is all the search relies on.

use shakmaty::{
    attacks, Bitboard, Board, Castles, CastlingMode, CastlingSide, Color, File, Rank, Role, Square,
};

use std::sync::OnceLock;

use super::assign::{min_cost, min_cost_with_duals, Duals, INF, MAX_N};

mod bound;
mod captures;
mod pawns;
mod reach;
pub use bound::MoveBound;
pub use captures::Victims;
use pawns::*;
use reach::*;

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
    /// The files' stretches ([`pawn_stretches`]) that a diagram pawn walked
    /// straight up from its initial square: it stood on one of their
    /// squares all game, so no unit ever slid along its file across all of
    /// one.
    stretches: Vec<Bitboard>,
    /// `dist[role][from]`: where a knight, bishop, rook, queen or king gets
    /// from `from` around the fixed squares, and in how many moves. Filled
    /// in when first asked for, as are the rows below: an analysis around
    /// frozen units uses few of them.
    /// Boxed, so that an analysis made for a few lookups is cheap to set
    /// up and to drop.
    dist: Vec<OnceLock<Box<Reach>>>,
    /// The diagram's units of each side less the fixed ones: the only
    /// targets still to match.
    free_targets: [Vec<(Role, Square)>; 2],
    /// `rows[color][role][from]`: [`Analysis::cost`] from `from` to each
    /// free target, without castling rights (tabled: the matching runs at
    /// nearly every node of the search), as three rows: moves, captures,
    /// straight steps.
    rows: Vec<OnceLock<Box<[[i32; MAX_N]; 3]>>>,
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

impl Analysis {
    /// Digests the diagram `target`.
    pub fn new(target: &Board) -> Analysis {
        Analysis::around(target, fixed_units(target))
    }

    /// The analysis of the same diagram when, besides its own fixed units,
    /// the units on `frozen` (each on its diagram square) stay where they
    /// are for the rest of the game: no other unit enters or crosses those
    /// squares.
    pub fn with_frozen(&self, frozen: Bitboard) -> Analysis {
        Analysis::around(&self.target, self.fixed | frozen)
    }

    fn around(target: &Board, fixed: Bitboard) -> Analysis {
        let targets = [Color::White, Color::Black].map(|color| {
            target
                .iter()
                .filter(|(_, piece)| piece.color == color)
                .map(|(sq, piece)| (piece.role, sq))
                .collect::<Vec<_>>()
        });
        let free_targets = targets.map(|t| {
            t.into_iter()
                .filter(|(_, sq)| !fixed.contains(*sq))
                .collect()
        });
        Analysis {
            target: target.clone(),
            fixed,
            stretches: pawn_stretches(target),
            dist: (0..5 * 64).map(|_| OnceLock::new()).collect(),
            free_targets,
            rows: (0..2 * 6 * 64).map(|_| OnceLock::new()).collect(),
        }
    }

    fn row(&self, color: Color, role: Role, from: Square) -> &[[i32; MAX_N]; 3] {
        let i = (color_index(color) * 6 + (role as usize - 1)) * 64 + from.to_usize();
        self.rows[i].get_or_init(|| {
            let none = Castles::empty(CastlingMode::Standard);
            let mut row = [[INF; MAX_N]; 3];
            for (j, &t) in self.free_targets[color_index(color)].iter().enumerate() {
                let (m, c, s) = self.cost(color, &none, (role, from), t);
                [row[0][j], row[1][j], row[2][j]] = [m, c, s];
            }
            Box::new(row)
        })
    }

    pub fn target(&self) -> &Board {
        &self.target
    }

    /// Squares whose diagram unit never moved.
    pub fn fixed(&self) -> Bitboard {
        self.fixed
    }

    /// Where `role` gets from `from`, and in how many moves.
    fn reach(&self, role: Role, from: Square) -> &Reach {
        let i = role_index(role) * 64 + from.to_usize();
        self.dist[i].get_or_init(|| Box::new(Reach::new(role, from, self.fixed, &self.stretches)))
    }

    fn dist(&self, role: Role, from: Square, to: Square) -> i32 {
        let d = self.reach(role, from).dist[to.to_usize()];
        if d == UNREACHABLE {
            INF
        } else {
            i32::from(d)
        }
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
            (Role::King, Role::King) | (Role::Rook, Role::Rook) => {
                (self.castling_cost(color, castles, (role, from), to), 0, 0)
            }
            (a, b) if a == b => (self.dist(a, from, to), 0, 0),
            _ => none,
        }
    }

    /// Fewest moves for `color`'s king or rook on `from` to get to `to`,
    /// castling included where `castles` allow.
    fn castling_cost(
        &self,
        color: Color,
        castles: &Castles,
        (role, from): (Role, Square),
        to: Square,
    ) -> i32 {
        self.starts(color, castles, (role, from))
            .into_iter()
            .flatten()
            .map(|(start, spent)| spent + self.dist(role, start, to))
            .min()
            .unwrap_or(INF)
    }

    /// Where `color`'s unit `role` on `from` may set out from, with the
    /// moves of its own that takes: its square, and for a king or rook
    /// with a castling right where castling puts it (for the rook, castling
    /// is the king's move).
    fn starts(
        &self,
        color: Color,
        castles: &Castles,
        (role, from): (Role, Square),
    ) -> [Option<(Square, i32)>; 3] {
        let mut starts = [Some((from, 0)), None, None];
        let back = Rank::new(if color == Color::White { 0 } else { 7 });
        if !matches!(role, Role::King | Role::Rook)
            || from.rank() != back
            || (castles.castling_rights() & Bitboard::from_rank(back)).is_empty()
        {
            return starts;
        }
        let sides = [
            (
                CastlingSide::KingSide,
                File::H,
                &[File::F, File::G][..],
                File::G,
                File::F,
            ),
            (
                CastlingSide::QueenSide,
                File::A,
                &[File::B, File::C, File::D][..],
                File::C,
                File::D,
            ),
        ];
        for (k, (side, corner, through, king_lands, rook_lands)) in sides.into_iter().enumerate() {
            if !castles.has(color, side) {
                continue;
            }
            let open = through
                .iter()
                .all(|f| !self.fixed.contains(Square::from_coords(*f, back)));
            starts[k + 1] = match role {
                Role::King if open && from == Square::from_coords(File::E, back) => {
                    Some((Square::from_coords(king_lands, back), 1))
                }
                Role::Rook if from == Square::from_coords(corner, back) => {
                    Some((Square::from_coords(rook_lands, back), 0))
                }
                _ => None,
            };
        }
        starts
    }

    /// What `color` still needs at least to turn its units on `board` into
    /// the diagram's; `None` when no continuation at all can do it.
    pub fn need(&self, board: &Board, castles: &Castles, color: Color) -> Option<Need> {
        self.need_with(board, castles, color, None)
    }

    /// [`Analysis::need`] when, besides, the opponent's pawns must capture
    /// `victims.count` of `color`'s units on `victims.squares`: those units
    /// must first get there.
    pub fn need_with(
        &self,
        board: &Board,
        castles: &Castles,
        color: Color,
        victims: Option<Victims>,
    ) -> Option<Need> {
        let m = self.matrices(board, castles, color, victims, true)?;
        Some(Need {
            moves: min_cost(&m.moves, m.n)?,
            captures: min_cost(&m.caps, m.n)?,
            straight: min_cost(&m.straight, m.n)?,
        })
    }

    /// `color`'s matching of its units to the diagram's (moves only):
    /// what [`Analysis::move_bound`], [`Analysis::frozen`] and the capture
    /// tests read. `None` when no continuation can reach the diagram.
    pub fn matching(&self, board: &Board, castles: &Castles, color: Color) -> Option<Matching> {
        self.matching_with(board, castles, color, None)
    }

    /// [`Analysis::matching`] with `victims` as in [`Analysis::need_with`].
    pub fn matching_with(
        &self,
        board: &Board,
        castles: &Castles,
        color: Color,
        victims: Option<Victims>,
    ) -> Option<Matching> {
        let m = self.matrices(board, castles, color, victims, false)?;
        let (best, duals) = min_cost_with_duals(&m.moves, m.n)?;
        Some(Matching {
            color,
            castles: castles.clone(),
            castling: (castles.castling_rights() & board.by_color(color)).any(),
            n: m.n,
            moves: m.moves,
            units: m.units,
            best,
            duals,
        })
    }

    /// The cost matrices of the matching of `color`'s units on `board` to
    /// its diagram units (the capture and straight-step ones only with
    /// `pawn_costs`, zero otherwise); `None` when a fixed square lost its
    /// unit or the units are too few.
    ///
    /// A fixed square holds its diagram unit all game, so it must hold it
    /// now, and that unit is matched to itself: only the other units and
    /// targets enter the matching.
    fn matrices(
        &self,
        board: &Board,
        castles: &Castles,
        color: Color,
        victims: Option<Victims>,
        pawn_costs: bool,
    ) -> Option<Matrices> {
        let fixed = self.fixed & self.target.by_color(color);
        for role in Role::ALL {
            let piece = shakmaty::Piece { color, role };
            let want = fixed & self.target.by_piece(piece);
            if !(want & !board.by_piece(piece)).is_empty() {
                return None;
            }
        }
        let targets = &self.free_targets[color_index(color)];
        let ours = board.by_color(color) & !fixed;
        let n = ours.count();
        let victims = victims.unwrap_or(Victims {
            squares: Bitboard::EMPTY,
            count: 0,
        });
        let victims_count = victims.count.max(0) as usize;
        if targets.len() + victims_count > n || n > MAX_N {
            return None;
        }
        let ep = en_passant_victims(color, victims.squares);
        let back = Rank::new(if color == Color::White { 0 } else { 7 });
        let rights = castles.castling_rights() & Bitboard::from_rank(back);
        let mut m = Matrices {
            n,
            moves: [0; MAX_N * MAX_N],
            caps: [0; MAX_N * MAX_N],
            straight: [0; MAX_N * MAX_N],
            units: [(Role::Pawn, Square::A1); MAX_N],
        };
        for (i, from) in ours.into_iter().enumerate() {
            let role = board.role_at(from).expect("occupied");
            m.units[i] = (role, from);
            // Castling rights open routes only for the king and rooks on
            // their home squares; everything else is tabled.
            let castling = rights.any()
                && ((role == Role::King && from == Square::from_coords(File::E, back))
                    || (role == Role::Rook && rights.contains(from)));
            let row = self.row(color, role, from);
            let victim = if victims_count > 0 && castling && role == Role::Rook {
                self.castling_rook_victim_cost(color, castles, from, victims.squares)
            } else if victims_count > 0 {
                self.victim_cost(color, (role, from), victims.squares, ep)
            } else {
                0
            };
            let [moves, caps, straight] = row;
            let tabled = moves.iter().zip(caps).zip(straight);
            for (j, ((&tm, &tc), &ts)) in tabled.enumerate().take(n) {
                let (mv, c, s) = match targets.get(j) {
                    Some(&target) if castling => self.cost(color, castles, (role, from), target),
                    Some(_) if pawn_costs => (tm, tc, ts),
                    Some(_) => (tm, 0, 0),
                    // A unit left over is captured somewhere: free for its
                    // own side, but a king is never captured...
                    None if role == Role::King => (INF, INF, INF),
                    // ...unless an enemy pawn must take it on given squares.
                    None if j < targets.len() + victims_count => (victim, 0, 0),
                    None => (0, 0, 0),
                };
                m.moves[i * n + j] = mv;
                m.caps[i * n + j] = c;
                m.straight[i * n + j] = s;
            }
        }
        Some(m)
    }
}

/// One side's matching of its units to the diagram's, with its optimum and
/// dual potentials (see [`Analysis::matching`]).
#[derive(Debug, Clone)]
pub struct Matching {
    color: Color,
    castles: Castles,
    /// Whether the side still has a castling right.
    castling: bool,
    n: usize,
    /// The costs (row-major `n × n`).
    moves: [i32; MAX_N * MAX_N],
    /// The unit of each row.
    units: [(Role, Square); MAX_N],
    best: i32,
    duals: Duals,
}

/// One side's matching problem (row-major `n × n`).
struct Matrices {
    n: usize,
    moves: [i32; MAX_N * MAX_N],
    caps: [i32; MAX_N * MAX_N],
    straight: [i32; MAX_N * MAX_N],
    /// The unit of each row.
    units: [(Role, Square); MAX_N],
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

    /// spg252: White lost one unit and Black none, so White's pawns went
    /// straight and so did Black's f-pawn, whose neighbours never moved;
    /// Black's c6 pawn came from b7 with a capture.
    #[test]
    fn pawns_that_went_straight_up_their_files() {
        let target = board("2bqkb1r/p1ppp1pp/n1pRQp2/7n/P2B2P1/N2PPK2/1PP1rP1P/2NR4");
        let span = |from: Square, to: Square| attacks::between(from, to).with(from).with(to);
        let mut got = pawn_stretches(&target);
        got.sort();
        let mut want = vec![
            span(Square::A2, Square::A4),
            span(Square::D2, Square::D3),
            span(Square::E2, Square::E3),
            span(Square::G2, Square::G4),
            span(Square::F7, Square::F6),
        ];
        want.sort();
        assert_eq!(got, want);
        // With two units lost, a pawn may have left its file and come back.
        let target = board("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/R1BQKB1R");
        assert_eq!(pawn_stretches(&target), Vec::<Bitboard>::new());
    }

    /// A rook that left a1 up the a-file after a2-a4 cannot slide on past
    /// the pawn: a1-a6 in one move is out, a1-a3-a6 is the least left (the
    /// bound does not see that a3-a6 crosses the pawn as well).
    #[test]
    fn a_rook_does_not_slide_across_a_pawn_on_its_file() {
        let a = Analysis::new(&board("rnbqkbnr/pppppppp/R7/8/P7/8/1PPPPPPP/1NBQKBNR"));
        assert_eq!(
            a.need(&Board::default(), &Castles::default(), Color::White)
                .map(|n| n.moves),
            Some(3)
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

    #[test]
    fn victims_of_pawn_captures_must_reach_the_capture_squares() {
        // spg130: White's d-pawn ends on c4, so it takes a black unit on c3,
        // d3 or c4; Black's nearest candidates (queen via a5, c-pawn via c5)
        // need two moves on top of b6, Ba6, e5 and O-O-O.
        let a = Analysis::new(&board("1Bkr1bnr/p2p1ppp/bp6/4p3/2P5/8/PPP1PPPP/RN2KBNR"));
        let (start, castles) = (Board::default(), Castles::default());
        let white = a.need(&start, &castles, Color::White).unwrap();
        assert_eq!((white.moves, white.captures), (4, 1));
        let matching = a.matching(&start, &castles, Color::White);
        let squares = a.capture_squares(matching.as_ref(), 8);
        assert_eq!(
            squares,
            Bitboard::from_square(Square::C3) | Square::D3 | Square::C4
        );
        assert_eq!(a.need(&start, &castles, Color::Black).unwrap().moves, 4);
        let victims = Victims {
            squares,
            count: white.captures,
        };
        let black = a.need_with(&start, &castles, Color::Black, Some(victims));
        assert_eq!(black.unwrap().moves, 6);
    }

    #[test]
    fn a_capture_by_a_piece_costs_its_round_trip() {
        // spg200: Black's pawns never move, so the White unit Black must
        // take falls to a knight, which must go there and come back. With
        // no move to spare, White can only lose a unit where it stands (the
        // d-pawn on d2 among them): g8-f6-e4xd2 and back is 6 moves.
        let a = Analysis::new(&board(
            "rnbqkbnr/pppppppp/2Q2R1B/8/2P1PP2/5N2/PP1N2PP/4KB1R",
        ));
        let (start, castles) = (Board::default(), Castles::default());
        let white = a.need(&start, &castles, Color::White).unwrap().moves;
        assert_eq!(a.need(&start, &castles, Color::Black).unwrap().moves, 0);
        let victims = a.matching(&start, &castles, Color::White);
        let squares = a.victim_squares(victims.as_ref(), white);
        assert!(squares.contains(Square::D2));
        assert!((squares & Bitboard::from_rank(Rank::Third)).is_empty());
        let capturer = a.matching(&start, &castles, Color::Black);
        let fits = |squares, budget| a.capture_fits(capturer.as_ref(), squares, budget);
        assert!(fits(squares, 6) && !fits(squares, 5));
        // Moves to spare let White's units walk towards Black's knights.
        let wider = a.victim_squares(victims.as_ref(), white + 2);
        assert!(wider.contains(Square::F6) && (wider & squares) == squares);
        assert!(fits(wider, 2) && !fits(wider, 1));
        // Nowhere to capture: no continuation.
        assert!(!fits(Bitboard::EMPTY, 100));
    }

    fn position(fen: &str) -> (Board, Castles) {
        let setup = fen.parse::<shakmaty::fen::Fen>().unwrap().into_setup();
        let pos: shakmaty::Chess = setup.position(CastlingMode::Standard).unwrap();
        use shakmaty::Position;
        (pos.board().clone(), pos.castles().clone())
    }

    #[test]
    fn a_pawn_already_on_its_square_captures_nothing_on_its_way() {
        // spg171, eight plies before the end: Black has no move to spare,
        // so White must take the knight on g8 (or, by the duals' slack, the
        // queen on d8). The d-pawn on d4 has both squares ahead of it but
        // stands on its diagram square already: no free capture. The
        // bishop's Bg5xd8-f6 is one move more than White's four.
        let a = Analysis::new(&board(
            "r1bnk2r/pppp1ppp/5B2/4p1b1/3P1Q2/2K5/PPPqPPPP/RN3BNR",
        ));
        let (now, castles) =
            position("r1bqk1nr/ppppbppp/2n5/4p1B1/3P4/8/PPPQPPPP/RN2KBNR b KQkq - 5 5");
        let black = a.matching(&now, &castles, Color::Black);
        let squares = a.victim_squares(black.as_ref(), 4);
        assert_eq!(squares, Bitboard::from_square(Square::G8) | Square::D8);
        let white = a.matching(&now, &castles, Color::White);
        assert_eq!(a.need(&now, &castles, Color::White).unwrap().moves, 4);
        assert!(!a.capture_fits(white.as_ref(), squares, 4));
        assert!(a.capture_fits(white.as_ref(), squares, 5));
    }

    #[test]
    fn frozen_units_block_the_ways_through_their_squares() {
        // spg200, eight plies before the end: White's c4, e4 and f4 pawns
        // stand on their diagram squares for good, and with no move to
        // spare so do the knights on d2 and f3 and the bishop on f1. The
        // bishop on c1, which must get to h6, is then shut in by the b2
        // pawn and the d2 knight. (White needs five moves: the queen
        // cannot slide up the c-file past the c4 pawn.)
        let a = Analysis::new(&board(
            "rnbqkbnr/pppppppp/2Q2R1B/8/2P1PP2/5N2/PP1N2PP/4KB1R",
        ));
        let (now, castles) =
            position("r1bqkbnr/pppppppp/8/4n3/2P1PP2/3P1N2/PPQN2PP/R1B1KB1R w KQkq - 7 9");
        assert_eq!(a.need(&now, &castles, Color::White).unwrap().moves, 5);
        let white = a.matching(&now, &castles, Color::White).unwrap();
        let frozen = a.frozen(&white, 5);
        let squares = [
            Square::C4,
            Square::E4,
            Square::F4,
            Square::D2,
            Square::F3,
            Square::F1,
        ];
        assert_eq!(frozen, squares.into_iter().collect::<Bitboard>());
        assert_eq!(
            a.with_frozen(frozen).need(&now, &castles, Color::White),
            None
        );
        // With a move to spare, the knight may step aside and come back.
        let frozen = a.frozen(&white, 6);
        assert!(!frozen.contains(Square::D2));
        assert!(a
            .with_frozen(frozen)
            .need(&now, &castles, Color::White)
            .is_some());
    }

    #[test]
    fn pawn_shapes_match_their_definitions() {
        for color in Color::ALL {
            for from in Square::ALL {
                let r0 = rel_rank(color, from);
                let ahead = |sq: Square| {
                    let r = rel_rank(color, sq);
                    r > r0 && from.file().distance(sq.file()) as i32 <= r - r0
                };
                let cone: Bitboard = Square::ALL.into_iter().filter(|&sq| ahead(sq)).collect();
                assert_eq!(pawn_cone(color, from), cone, "{color} {from}");
                for to in Square::ALL {
                    let r1 = rel_rank(color, to);
                    let diamond: Bitboard = Square::ALL
                        .into_iter()
                        .filter(|&sq| {
                            let r = rel_rank(color, sq);
                            ahead(sq) && r <= r1 && sq.file().distance(to.file()) as i32 <= r1 - r
                        })
                        .collect();
                    assert_eq!(
                        pawn_diamond(color, from, to),
                        diamond,
                        "{color} {from} {to}"
                    );
                }
            }
        }
    }

    /// Sets of squares to test the shortcuts on: every single square, and
    /// pseudo-random sparse and dense sets.
    fn square_sets() -> Vec<Bitboard> {
        let mut rng = crate::oracle::Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut next = move || rng.next_u64();
        let mut sets: Vec<Bitboard> = Square::ALL.into_iter().map(Bitboard::from).collect();
        for _ in 0..200 {
            sets.push(Bitboard(next() & next() & next()));
            sets.push(Bitboard(next()));
        }
        sets.push(Bitboard::EMPTY);
        sets
    }

    #[test]
    fn fewest_pawn_moves_is_the_least_pawn_path() {
        for squares in square_sets() {
            for color in Color::ALL {
                for from in Square::ALL {
                    let least = squares
                        .into_iter()
                        .filter_map(|sq| pawn_path(color, from, sq))
                        .map(|(m, _)| m)
                        .min()
                        .unwrap_or(INF);
                    assert_eq!(
                        fewest_pawn_moves(color, from, squares),
                        least,
                        "{color} {from} {squares:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn nearest_is_the_least_distance() {
        // Fixed units make walls and far corners (spg200's diagram).
        let a = Analysis::new(&board(
            "rnbqkbnr/pppppppp/2Q2R1B/8/2P1PP2/5N2/PP1N2PP/4KB1R",
        ));
        for squares in square_sets() {
            for role in [
                Role::Knight,
                Role::Bishop,
                Role::Rook,
                Role::Queen,
                Role::King,
            ] {
                for from in Square::ALL {
                    let least = squares
                        .into_iter()
                        .map(|sq| a.dist(role, from, sq))
                        .fold(INF, i32::min);
                    assert_eq!(
                        a.reach(role, from).nearest(squares),
                        least,
                        "{role:?} {from} {squares:?}"
                    );
                }
            }
        }
    }
}
