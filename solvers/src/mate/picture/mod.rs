//! Mate pictures for helpmates, after Popeye's intelligent mode: the final
//! positions a helpmate may end in, reduced to what makes them mate, each
//! with the moves its units need to get there.
//!
//! A picture is the Black king's final square `K'`, final states (role and
//! square) of some White units that together attack `K'` and cover every
//! flight square no Black unit blocks, and the flights Black must block.
//! Every mate reachable from the diagram contains one of the pictures
//! enumerated there (its White units, taken in order, each kept when it
//! covers a square the earlier ones do not), so a position from which no
//! picture is reachable within the moves left has no solution. Distances
//! are per unit on an empty board (see [`super::distances`]), so the test
//! is admissible: it never loses a solution.
//!
//! A flight to block is a blocker *kind*: a plain square, which any Black
//! unit may fill, or, in a picture where nothing White can pin a blocker
//! (see [`Enumeration::sole_check`]), a square with the roles that may
//! stand there without parrying the mating check.

use std::collections::HashMap;

use shakmaty::{attacks, Bitboard, Chess, Color, Move, Position, Role, Square};

use super::distances::{empty_attacks, tables, Tables, FAR, NEAR};

mod castling;
mod distinct;
mod enumerate;
mod movetest;
use castling::{Castling, Rows};
use distinct::two_cheapest;
pub(crate) use distinct::{DistinctTest, KindCosts};
use enumerate::*;
pub(crate) use movetest::Costs;

/// Above this many pictures the enumeration gives up (and the search goes
/// on without them): filtering them would cost more than it saves.
const MAX_PICTURES: usize = 20_000;

/// Above this many steps the enumeration gives up too: with many White
/// units the combinations that cover nothing new still take time to try.
const MAX_STEPS: u32 = 400_000;

/// Units a side may have.
const MAX_UNITS: usize = 32;

/// White units a picture names at most; further ones only add to its
/// coverage (dropping a unit's cost keeps the test a lower bound).
const MAX_NAMED: usize = 6;

/// Blocker kinds below this are plain squares (kind `k` is square `k`).
const SQUARE_KINDS: usize = 64;

/// Blocker kinds at most: the plain squares, then harmless blocks. A
/// harmless block beyond these is treated as a plain square, which costs
/// no more (a lower bound still).
const MAX_KINDS: usize = 128;

/// A set of blocker kinds, bit `k` for kind `k`.
type Kinds = u128;

/// King moves between two squares on an empty board, tabled: the filter
/// and the move test ask for it once per picture.
fn king_distance(a: Square, b: Square) -> u32 {
    const TABLE: [[u8; 64]; 64] = {
        let mut t = [[0; 64]; 64];
        let mut a = 0usize;
        while a < 64 {
            let mut b = 0usize;
            while b < 64 {
                let files = (a % 8).abs_diff(b % 8);
                let ranks = (a / 8).abs_diff(b / 8);
                t[a][b] = if files > ranks { files } else { ranks } as u8;
                b += 1;
            }
            a += 1;
        }
        t
    };
    u32::from(TABLE[a.to_usize()][b.to_usize()])
}

/// Moves for the Black king on `from` to reach `to`, castling included.
fn black_king_distance(castling: &Castling, from: Square, to: Square) -> u8 {
    castling.least(Color::Black, Role::King, from, |s| {
        king_distance(s, to) as u8
    })
}

fn kinds_of(kinds: Kinds) -> impl Iterator<Item = usize> {
    let mut rest = kinds;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            k
        })
    })
}

/// A square to be blocked by a Black unit in one of `roles` (bit
/// `role as usize`), with each unit's cost to do so by role and square.
#[derive(Debug)]
struct HarmlessBlock {
    sq: Square,
    roles: u8,
    /// Whether Black pawns may capture on their way (see [`block_dist`]).
    pawns_capture: bool,
    /// `[role - 1][from]`.
    dist: Vec<u8>,
}

/// Every unit of the diagram, followed through the moves by identity.
#[derive(Debug, Clone)]
pub(crate) struct Units {
    /// `(role, square)`, `None` once captured.
    units: [Option<(Color, Role, Square)>; MAX_UNITS],
    by_square: [u8; 64],
}

const NO_UNIT: u8 = u8::MAX;

impl Units {
    /// `None` with more units than the table holds.
    pub(crate) fn new(pos: &Chess) -> Option<Units> {
        let board = pos.board();
        // Sixteen a side at most, as in any legal position (the Black
        // blockers are held in sixteen slots); units only ever get fewer.
        if board.occupied().count() > MAX_UNITS
            || board.white().count() > 16
            || board.black().count() > 16
        {
            return None;
        }
        let mut units = Units {
            units: [None; MAX_UNITS],
            by_square: [NO_UNIT; 64],
        };
        for (i, sq) in board.occupied().into_iter().enumerate() {
            let piece = board.piece_at(sq)?;
            units.units[i] = Some((piece.color, piece.role, sq));
            units.by_square[sq.to_usize()] = i as u8;
        }
        Some(units)
    }

    fn take(&mut self, sq: Square) -> Option<usize> {
        let id = self.by_square[sq.to_usize()];
        self.by_square[sq.to_usize()] = NO_UNIT;
        (id != NO_UNIT).then_some(usize::from(id))
    }

    fn put(&mut self, id: usize, role: Role, sq: Square) {
        if let Some((color, _, _)) = self.units[id] {
            self.units[id] = Some((color, role, sq));
            self.by_square[sq.to_usize()] = id as u8;
        }
    }

    fn capture(&mut self, sq: Square) {
        if let Some(id) = self.take(sq) {
            self.units[id] = None;
        }
    }

    /// Follows the legal move `m`, played by `turn`.
    pub(crate) fn play(&mut self, turn: Color, m: &Move) {
        match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                if capture.is_some() {
                    self.capture(to);
                }
                if let Some(id) = self.take(from) {
                    self.put(id, promotion.unwrap_or(role), to);
                }
            }
            Move::EnPassant { from, to } => {
                self.capture(Square::from_coords(to.file(), from.rank()));
                if let Some(id) = self.take(from) {
                    self.put(id, Role::Pawn, to);
                }
            }
            Move::Castle { king, rook } => {
                let Some(side) = m.castling_side() else {
                    return;
                };
                let k = self.take(king);
                let r = self.take(rook);
                if let Some(k) = k {
                    self.put(k, Role::King, side.king_to(turn));
                }
                if let Some(r) = r {
                    self.put(r, Role::Rook, side.rook_to(turn));
                }
            }
            Move::Put { .. } => {}
        }
    }
}

/// A White unit's final state in a picture.
#[derive(Debug, Clone, Copy)]
struct Placed {
    id: u8,
    role: Role,
    sq: Square,
}

/// One mate picture.
#[derive(Debug, Clone, Copy)]
struct Picture {
    king: Square,
    named: [Placed; MAX_NAMED],
    n_named: u8,
    /// Bit `id` set for each named unit.
    named_ids: u32,
    /// The blocks of the flights no named unit covers: Black units must
    /// stand there.
    kinds: Kinds,
}

/// The pictures of one problem.
#[derive(Debug)]
pub(crate) struct Pictures {
    all: Vec<Picture>,
    /// Blocker kinds from [`SQUARE_KINDS`] on.
    harmless: Vec<HarmlessBlock>,
    /// By square, the harmless blocker kinds on it.
    harmless_on: [Kinds; 64],
}

/// A final state a unit may take, with what it covers of the zone.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    role: Role,
    sq: Square,
    cost: u8,
    covers: Bitboard,
}

fn is_slider(role: Role) -> bool {
    matches!(role, Role::Bishop | Role::Rook | Role::Queen)
}

/// White's cost of a picture's named units from where they stand now, with
/// their state `rows` at the node; `FAR` when a named unit is gone. The
/// first named unit gives the mating check: it moves last, or it is a
/// slider and the check is discovered. A knight or pawn already on its
/// checking square must therefore leave and come back, which a pawn
/// cannot.
fn white_cost(t: &Tables, rows: &Rows, units: &Units, p: &Picture) -> u32 {
    let mut total = 0u32;
    for (i, n) in p.named[..usize::from(p.n_named)].iter().enumerate() {
        let Some((_, role, sq)) = units.units[usize::from(n.id)] else {
            return u32::from(FAR);
        };
        let d = named_dist_in(rows.row(t, role, sq), role, i, n);
        if d == FAR {
            return u32::from(FAR);
        }
        total += u32::from(d);
    }
    total
}

/// A unit's row of [`Tables::state_row`] (or of [`Rows::row`]), and its
/// role.
type Way<'t> = (&'t [u8], Role);

/// Moves for a unit now `role`, with its `row` of state distances, to
/// take its state `n`, named `i`th in its picture (the first gives the
/// mating check, see [`white_cost`]).
fn named_dist_in(row: &[u8], role: Role, i: usize, n: &Placed) -> u8 {
    let d = row[(n.role as usize - 1) * 64 + n.sq.to_usize()];
    if i == 0 && d == 0 && !is_slider(n.role) {
        if role == Role::Pawn {
            FAR
        } else {
            2
        }
    } else {
        d
    }
}

impl Pictures {
    /// Every picture reachable from `pos` within `plies` (the last White's),
    /// or `None` when there are too many (or too many units).
    pub(crate) fn enumerate(pos: &Chess, plies: u8) -> Option<(Pictures, Units)> {
        let units = Units::new(pos)?;
        let board = pos.board();
        let black_king = board.king_of(Color::Black)?;
        let t = tables();
        let castling = Castling::of(pos);
        let (white_moves, black_moves) = (plies.div_ceil(2), plies / 2);
        let white: Vec<(u8, Role, Square)> = units
            .units
            .iter()
            .enumerate()
            .filter_map(|(i, u)| match u {
                Some((Color::White, role, sq)) => Some((i as u8, *role, *sq)),
                _ => None,
            })
            .collect();
        let black_min = BlackBlocks::new(t, pos);
        let cheapest = black_min.cheapest_by_square();
        let mut all = Vec::new();
        let mut harmless = Vec::new();
        let mut block_rows = HashMap::new();
        let mut steps = 0;
        for king in Square::ALL {
            let kd = black_king_distance(&castling, black_king, king);
            if kd > black_moves {
                continue;
            }
            let spare = black_moves - kd;
            let flights = attacks::king_attacks(king);
            let zone = flights.with(king);
            let options: Vec<Vec<Candidate>> = white
                .iter()
                .map(|&(_, role, from)| {
                    unit_options(t, &castling, role, from, king, zone, white_moves)
                })
                .collect();
            let mut search = Enumeration {
                king,
                flights,
                white: &white,
                options: &options,
                white_moves,
                spare,
                black: &black_min,
                cheapest: &cheapest,
                checker: 0,
                steps,
                named: Vec::new(),
                out: &mut all,
                harmless: &mut harmless,
                block_rows: &mut block_rows,
            };
            // The unit giving the mating check first, then the others in
            // order, each only where it covers something new.
            for (c, checker_options) in options.iter().enumerate() {
                for o in checker_options.iter().filter(|o| o.covers.contains(king)) {
                    search.checker = c;
                    search.named.push(Placed {
                        id: white[c].0,
                        role: o.role,
                        sq: o.sq,
                    });
                    let ok = search.go(0, o.covers, Bitboard::from(o.sq), u32::from(o.cost));
                    search.named.pop();
                    if !ok {
                        return None;
                    }
                }
            }
            steps = search.steps;
        }
        let mut harmless_on = [0; 64];
        for (h, block) in harmless.iter().enumerate() {
            harmless_on[block.sq.to_usize()] |= 1 << (SQUARE_KINDS + h);
        }
        Some((
            Pictures {
                all,
                harmless,
                harmless_on,
            },
            units,
        ))
    }

    /// Moves for a Black unit now `role` on `from` to fill kind `k`.
    fn kind_dist(&self, t: &Tables, k: usize, role: Role, from: Square) -> u8 {
        match k.checked_sub(SQUARE_KINDS) {
            None => t.reach(Color::Black, role, from, Square::new(k as u32)),
            Some(h) => self.harmless[h].dist[(role as usize - 1) * 64 + from.to_usize()],
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.all.len()
    }

    /// The pictures among `from` (indices) still reachable in `pos`, with
    /// `left` plies to go, with their costs there, into `into`.
    pub(crate) fn filter(
        &self,
        pos: &Chess,
        units: &Units,
        left: u8,
        from: Option<&[Costs]>,
        into: &mut Vec<Costs>,
    ) {
        into.clear();
        let t = tables();
        let Some(black_king) = pos.board().king_of(Color::Black) else {
            return;
        };
        let white_moves = u32::from(left.div_ceil(2));
        let black_moves = u32::from(left / 2);
        let castling = Castling::of(pos);
        let rows = Rows::new(t, castling);
        let mut blocks = BlackBlocks::new(t, pos);
        let mut keep = |index: u32| {
            let p = &self.all[index as usize];
            let king = u32::from(black_king_distance(&castling, black_king, p.king));
            if king > black_moves {
                return;
            }
            let Some(blocks) = blocks.cost_within(self, p.kinds, black_moves - king) else {
                return;
            };
            let white = white_cost(t, &rows, units, p);
            if white <= white_moves {
                into.push(Costs {
                    index,
                    white: white as u8,
                    blocks: blocks as u8,
                    king: king as u8,
                    king_sq: p.king,
                    kinds: p.kinds,
                    named_ids: p.named_ids,
                });
            }
        };
        match from {
            Some(from) => from.iter().for_each(|c| keep(c.index)),
            None => (0..self.all.len() as u32).for_each(keep),
        }
    }
}

/// The moves White's last move may be, from the pictures alive before it
/// (see [`Pictures::last_moves`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LastMoves {
    /// By from-square, the squares a move from there may go to.
    to: [Bitboard; 64],
}

impl LastMoves {
    /// Whether `m` may be White's last move. Castling and en passant are
    /// let through untold: a castling rook's distance to its square after
    /// castling is naught (see [`castling`]) though it stands elsewhere,
    /// and en passant takes a Black unit off a checking line.
    pub(crate) fn may_be(&self, m: &Move) -> bool {
        match *m {
            Move::Normal { from, to, .. } => self.to[from.to_usize()].contains(to),
            _ => true,
        }
    }
}

impl Pictures {
    /// The moves White's last move may be, given the pictures `alive` at
    /// its node. The mate it gives contains an alive picture, whose named
    /// units stand in their states after the move. White's cost is the
    /// sum of their distances, each 0 exactly in place, so one move from
    /// the end at most one named unit is out of place:
    ///
    /// - one out of place makes the move: onto its state's square;
    /// - none out of place: the checker (a slider, or its cost would be
    ///   two) checks after the move but not before it (Black's last move
    ///   left no check), so the move takes a White unit off the line
    ///   between the checker and the king's square: any move from there.
    pub(crate) fn last_moves(&self, units: &Units, alive: &[Costs]) -> LastMoves {
        let mut last = LastMoves {
            to: [Bitboard::EMPTY; 64],
        };
        for c in alive {
            let p = &self.all[c.index as usize];
            let at = |n: &&Placed| units.units[usize::from(n.id)].map(|u| (u.1, u.2));
            let mut out = p.named[..usize::from(p.n_named)]
                .iter()
                .filter(|n| at(n) != Some((n.role, n.sq)));
            match (out.next(), out.next()) {
                (None, _) => {
                    for from in attacks::between(p.named[0].sq, p.king) {
                        last.to[from.to_usize()] = Bitboard::FULL;
                    }
                }
                (Some(n), None) => {
                    if let Some((_, from)) = at(&n) {
                        last.to[from.to_usize()].add(n.sq);
                    }
                }
                (Some(_), Some(_)) => {}
            }
        }
        last
    }
}

#[cfg(test)]
mod tests {
    use super::super::help_bound::may_mate;
    use super::*;
    use shakmaty::uci::UciMove;

    /// The mate corpus rows as maps from header to field.
    fn corpus() -> Vec<std::collections::HashMap<String, String>> {
        crate::testing::read_csv(&crate::testing::data("mate.csv"))
    }

    use crate::testing::position;

    /// The followed units agree with the board after captures, promotions,
    /// castling and en passant.
    #[test]
    fn units_follow_the_moves() {
        let lines = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "e1g1 e8c8 a2a4 b4a3 d5e6 a3b2 e6f7 b2a1q f7f8n",
            ),
            ("4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1", "e4d3 e1d2 e8e7 d2d3"),
        ];
        for (fen, line) in lines {
            let mut pos = position(fen);
            let mut units = Units::new(&pos).unwrap();
            for uci in line.split(' ') {
                let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                units.play(pos.turn(), &m);
                pos.play_unchecked(m);
                let board = pos.board();
                let alive: Vec<_> = units.units.iter().flatten().collect();
                assert_eq!(alive.len(), board.occupied().count(), "{fen} after {uci}");
                for &&(color, role, sq) in &alive {
                    assert_eq!(
                        board.piece_at(sq),
                        Some(shakmaty::Piece { color, role }),
                        "{fen} after {uci}"
                    );
                }
            }
        }
    }

    #[test]
    fn king_distance_is_the_squares_distance() {
        for a in Square::ALL {
            for b in Square::ALL {
                assert_eq!(king_distance(a, b), a.distance(b));
            }
        }
    }

    /// Ewald's h#4 (corpus hm122).
    const HM122: &str = "1r6/7B/4k3/1p2n3/3b2p1/2p5/5RpP/6Kb b - - 0 1";

    /// hm122's pictures, and those of them with the Black king on `king`
    /// and the named units `named` (the checker first).
    fn hm122_pictures(king: Square, named: &[(Role, Square)]) -> (Pictures, Vec<Picture>) {
        let (pictures, _) = Pictures::enumerate(&position(HM122), 8).unwrap();
        let family: Vec<Picture> = pictures
            .all
            .iter()
            .filter(|p| {
                let units = p.named[..usize::from(p.n_named)].iter();
                p.king == king && units.map(|n| (n.role, n.sq)).eq(named.iter().copied())
            })
            .copied()
            .collect();
        assert!(!family.is_empty());
        (pictures, family)
    }

    /// A blocker that could parry the check does not count when the
    /// units a picture leaves out can neither pin nor check: in hm122's
    /// mate of the king on e6 by a bishop on b3 with a rook on f7, White's
    /// h-pawn cannot reach a checking square in the two moves left, so
    /// the knight on e5 (which would step between, to c4) blocks nothing.
    #[test]
    fn a_blocker_that_parries_does_not_count() {
        let named = [(Role::Bishop, Square::B3), (Role::Rook, Square::F7)];
        let (pictures, family) = hm122_pictures(Square::E6, &named);
        for p in family {
            let e5: Vec<&HarmlessBlock> = kinds_of(p.kinds)
                .filter_map(|k| k.checked_sub(SQUARE_KINDS))
                .map(|h| &pictures.harmless[h])
                .filter(|b| b.sq == Square::E5)
                .collect();
            assert_eq!(e5.len(), 1, "{p:?}");
            assert_eq!(e5[0].roles & 1 << Role::Knight as usize, 0, "{p:?}");
        }
    }

    /// A ray stops at a named unit: in hm122's mate of the king on f4 by
    /// a rook on f5 (guarded by a bishop on g6, the White king on f2),
    /// the bishop's diagonal to e4 runs through the rook, and no White
    /// unit left out can reach e4 in time, so e4 must be blocked.
    #[test]
    fn a_named_unit_stops_the_rays_through_it() {
        let named = [
            (Role::Rook, Square::F5),
            (Role::King, Square::F2),
            (Role::Bishop, Square::G6),
        ];
        let (pictures, family) = hm122_pictures(Square::F4, &named);
        for p in family {
            let mut blocked = kinds_of(p.kinds).map(|k| match k.checked_sub(SQUARE_KINDS) {
                None => Square::new(k as u32),
                Some(h) => pictures.harmless[h].sq,
            });
            assert!(blocked.any(|sq| sq == Square::E4), "{p:?}");
        }
    }

    /// In a mate the line from the checker to the king is empty, so no
    /// picture names a unit on it (hm122 had a bishop checking through the
    /// square its rook was named on).
    #[test]
    fn no_named_unit_stands_on_the_check_line() {
        let (pictures, _) = Pictures::enumerate(&position(HM122), 8).unwrap();
        assert!(pictures.len() > 1000);
        for p in &pictures.all {
            let named = &p.named[..usize::from(p.n_named)];
            let line = attacks::between(named[0].sq, p.king);
            assert!(named.iter().all(|n| !line.contains(n.sq)), "{p:?}");
        }
    }

    /// Admissibility on verified data: along every solution of every
    /// helpmate in the corpus, each position keeps a reachable picture,
    /// each move is kept by the move test with a picture the next position
    /// still reaches (the pictures it passes on, as the search does), and
    /// each position passes the move-count test with the plies it has left.
    #[test]
    fn corpus_solutions_are_never_pruned() {
        let rows = corpus();
        let mut checked = 0;
        let mut with_pictures = 0;
        let mut exact_moves = 0;
        // Pictures the distinct-blocker test drops that the filter keeps.
        let mut distinct_dropped = 0;
        for row in rows.iter().filter(|r| r["genre"] == "help") {
            let id = &row["id"];
            let start = position(&row["fen"]);
            let stip: crate::Stipulation = row["stipulation"].parse().unwrap();
            let crate::Stipulation::Help { plies, .. } = stip else {
                panic!("{id}: {stip}");
            };
            let pictures = Pictures::enumerate(&start, plies as u8);
            with_pictures += usize::from(pictures.is_some());
            for line in row["keys_uci"].split(';').filter(|l| !l.is_empty()) {
                let moves: Vec<&str> = line.split(' ').collect();
                let mut pos = start.clone();
                let mut units = pictures.as_ref().map(|(_, u)| u.clone());
                let mut alive: Option<Vec<Costs>> = None;
                for (i, uci) in moves.iter().enumerate() {
                    let left = (moves.len() - i) as u8;
                    assert!(may_mate(&pos, left), "{id} before move {i} {uci}");
                    let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                    if let (Some((p, _)), Some(u)) = (&pictures, &units) {
                        let mut costs = Vec::new();
                        p.filter(&pos, u, left, alive.as_deref(), &mut costs);
                        assert!(!costs.is_empty(), "{id}: no picture before move {i} {uci}");
                        let mut distinct = Vec::new();
                        DistinctTest::new(p, &pos, &mut Vec::new()).keep(
                            left,
                            &costs,
                            &mut distinct,
                        );
                        assert!(
                            !distinct.is_empty(),
                            "{id}: no picture of distinct blockers before move {i} {uci}"
                        );
                        distinct_dropped += costs.len() - distinct.len();
                        if left >= crate::mate::help::DISTINCT_MIN_PLIES {
                            costs = distinct;
                        }
                        let mut kept = costs.clone();
                        if left >= 2 {
                            let exact = p.move_test(&pos, u, left, &costs).keep(&m, &mut kept);
                            assert!(!kept.is_empty(), "{id}: move {i} {uci} dropped");
                            if exact {
                                let (mut after, mut units_after) = (pos.clone(), u.clone());
                                units_after.play(pos.turn(), &m);
                                after.play_unchecked(m);
                                let mut want = Vec::new();
                                p.filter(&after, &units_after, left - 1, Some(&costs), &mut want);
                                assert_eq!(kept, want, "{id}: move {i} {uci}");
                                exact_moves += 1;
                            }
                        }
                        alive = Some(kept);
                    }
                    if let Some(u) = &mut units {
                        u.play(pos.turn(), &m);
                    }
                    pos.play_unchecked(m);
                }
                assert!(pos.is_checkmate(), "{id}: {line}");
                checked += 1;
            }
        }
        assert!(checked >= 100, "only {checked} solutions");
        assert!(
            distinct_dropped >= 1000,
            "distinct blockers dropped only {distinct_dropped} pictures"
        );
        assert!(
            exact_moves >= 500,
            "only {exact_moves} moves judged exactly"
        );
        assert!(
            with_pictures >= 80,
            "pictures for only {with_pictures} rows"
        );
    }

    /// Along the corpus solutions, every legal move the move test judges
    /// exactly gets the pictures and costs the filter finds after it, and
    /// every move it drops leaves the filter nothing.
    #[test]
    fn move_test_agrees_with_the_filter_on_every_move() {
        let mut exact_moves = 0;
        let mut dropped = 0;
        for row in corpus().iter().filter(|r| r["genre"] == "help") {
            let id = &row["id"];
            let start = position(&row["fen"]);
            let stip: crate::Stipulation = row["stipulation"].parse().unwrap();
            let crate::Stipulation::Help { plies, .. } = stip else {
                panic!("{id}: {stip}");
            };
            let Some((p, units)) = Pictures::enumerate(&start, plies as u8) else {
                continue;
            };
            // Only the first solution of each row: the others share most
            // of its positions.
            let line = row["keys_uci"].split(';').next().unwrap_or("");
            let moves: Vec<&str> = line.split(' ').filter(|m| !m.is_empty()).collect();
            let (mut pos, mut units) = (start.clone(), units);
            let mut alive: Option<Vec<Costs>> = None;
            for (i, uci) in moves.iter().enumerate() {
                let left = (moves.len() - i) as u8;
                let mut costs = Vec::new();
                p.filter(&pos, &units, left, alive.as_deref(), &mut costs);
                if left < 2 {
                    break;
                }
                let mut test = p.move_test(&pos, &units, left, &costs);
                for m in pos.legal_moves() {
                    let mut kept = Vec::new();
                    let exact = test.keep(&m, &mut kept);
                    let (mut after, mut units_after) = (pos.clone(), units.clone());
                    units_after.play(pos.turn(), &m);
                    after.play_unchecked(m);
                    let mut want = Vec::new();
                    p.filter(&after, &units_after, left - 1, Some(&costs), &mut want);
                    if exact {
                        assert_eq!(kept, want, "{id}: move {i}, {m}");
                        exact_moves += 1;
                    }
                    if kept.is_empty() {
                        assert!(want.is_empty(), "{id}: move {i}, {m} dropped");
                        dropped += 1;
                    }
                }
                let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                let mut kept = Vec::new();
                test.keep(&m, &mut kept);
                alive = Some(kept);
                units.play(pos.turn(), &m);
                pos.play_unchecked(m);
            }
        }
        assert!(
            exact_moves >= 5000,
            "only {exact_moves} moves judged exactly"
        );
        assert!(dropped >= 1000, "only {dropped} moves dropped");
    }
}
