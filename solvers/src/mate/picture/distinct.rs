//! The distinct-blocker test: a picture's blocks are squares that
//! distinct Black units fill at the end, so blocks that share their
//! cheapest unit cost more than the plain sum of cheapest blockers; and
//! Black units in the mate's way that White cannot capture in time must
//! leave.

use super::*;

/// Of the Black `units` (role, square), the cheapest blocker of kind `k`:
/// its moves and its index, and the next cheapest's moves (castling ways
/// included).
pub(super) fn two_cheapest(
    pictures: &Pictures,
    t: &Tables,
    castling: &Castling,
    units: &[(Role, Square)],
    k: usize,
) -> (u8, usize, u8) {
    let (mut best, mut index, mut second) = (FAR, 0, FAR);
    for (i, &(r, sq)) in units.iter().enumerate() {
        let d = castling.least(Color::Black, r, sq, |s| pictures.kind_dist(t, k, r, s));
        if d < best {
            second = best;
            (best, index) = (d, i);
        } else if d < second {
            second = d;
        }
    }
    (best, index, second)
}

/// Black's units but the king, as the distinct-blocker test reads them.
#[derive(Debug, Clone, Copy)]
struct BlackSide {
    units: [(Role, Square); 16],
    n: usize,
    /// Castling ways: a Black rook that may castle has a second way to
    /// its blocks. After a move, the node's (more ways, a lower bound).
    castling: Castling,
    /// An en passant capture may be possible: it takes a pawn where it
    /// does not stand, so nothing is counted for vacating.
    en_passant: bool,
}

impl BlackSide {
    fn units(&self) -> &[(Role, Square)] {
        &self.units[..self.n]
    }
}

/// The distinct-blocker test: which pictures Black can still complete
/// within its moves left, counting two things the filter's plain sum of
/// cheapest blockers does not see:
///
/// - A unit stands on one square at the end, so distinct units fill the
///   blocks: the least cost of such an assignment ([`Assignment`]).
/// - A Black unit standing where the mate needs the square empty (see
///   [`Pictures::to_vacate`]) leaves by a Black move of its own unless
///   White can capture it there within the moves it has to spare beyond
///   the picture's count ([`capture_extra`]). Its move is one more for
///   Black unless it is one of the blockers, whose moves are counted.
///
/// It runs at a node ([`DistinctTest::keep`]) and after each of its Black
/// moves before the move is played ([`DistinctTest::keep_after`]): at a
/// node with little to spare most Black moves lose every picture this
/// way, which the move test does not see. Each Black unit's cost to fill
/// a kind is worked out once per node. The costs kept are the alive ones
/// (their blocks the plain sum of cheapest blockers, which the move test
/// updates move by move).
pub(crate) struct DistinctTest<'a> {
    pictures: &'a Pictures,
    units: &'a Units,
    black: BlackSide,
    /// Their squares.
    black_on: Bitboard,
    /// Per kind (those in `known`), each Black unit's cost to fill it:
    /// a buffer the search keeps per depth (see [`DistinctTest::new`]).
    costs: &'a mut [KindCosts],
    known: Kinds,
    /// Per kind (those in `moved_known`), the cost of the unit the move
    /// under test moved.
    moved_costs: [u8; MAX_KINDS],
    moved_known: Kinds,
}

impl<'a> DistinctTest<'a> {
    /// The test at `pos`, whose White units `units` follows, with `costs`
    /// to work in (reused from node to node: the test runs at most nodes
    /// and its table is 2 KB).
    pub(crate) fn new(
        pictures: &'a Pictures,
        units: &'a Units,
        pos: &Chess,
        costs: &'a mut Vec<KindCosts>,
    ) -> DistinctTest<'a> {
        let blocks = BlackBlocks::new(tables(), pos);
        costs.resize(MAX_KINDS, KindCosts::default());
        let board = pos.board();
        DistinctTest {
            pictures,
            units,
            black: BlackSide {
                units: blocks.units,
                n: blocks.n_units,
                castling: blocks.castling,
                en_passant: pos.ep_square(EnPassantMode::Legal).is_some(),
            },
            black_on: board.black() & !board.kings(),
            costs,
            known: 0,
            moved_costs: [FAR; MAX_KINDS],
            moved_known: 0,
        }
    }

    /// The pictures of `alive` that Black can still complete at the node,
    /// with `left` plies to go, into `into`.
    pub(crate) fn keep(&mut self, left: u8, alive: &[Costs], into: &mut Vec<Costs>) {
        let black = self.black;
        self.run(&black, self.black_on, None, left, alive, into);
    }

    /// The pictures of `kept` (those Black's move `m` keeps, with their
    /// costs after it) that Black can still complete after it, with
    /// `left` plies to go there, into `into`; `false` for the moves it
    /// does not follow (castling, en passant), which the child tests.
    pub(crate) fn keep_after(
        &mut self,
        m: &Move,
        left: u8,
        kept: &[Costs],
        into: &mut Vec<Costs>,
    ) -> bool {
        let Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } = *m
        else {
            return false;
        };
        let mut after = self.black;
        // A double step may give White an en passant capture.
        after.en_passant = role == Role::Pawn && from.distance(to) == 2;
        let mut moved = None;
        let mut black_on = self.black_on;
        if role != Role::King {
            let Some(i) = after.units().iter().position(|u| u.1 == from) else {
                return false;
            };
            after.units[i] = (promotion.unwrap_or(role), to);
            moved = Some(i);
            black_on.toggle(from);
            black_on.add(to);
        }
        self.moved_known = 0;
        self.run(&after, black_on, moved, left, kept, into);
        true
    }

    /// The test on `black` (the node's units, or the node's with unit
    /// `moved` moved), standing on `black_on`.
    fn run(
        &mut self,
        black: &BlackSide,
        black_on: Bitboard,
        moved: Option<usize>,
        left: u8,
        alive: &[Costs],
        into: &mut Vec<Costs>,
    ) {
        into.clear();
        let t = tables();
        let pictures = self.pictures;
        let black_moves = u32::from(left / 2);
        // Castling moves two White units at once and gives the named
        // king and rooks other routes, and en passant captures a pawn
        // where it does not stand: the vacating count is left out then.
        let may_vacate = !black.castling.any(Color::White) && !black.en_passant;
        let castling = &black.castling;
        let n_units = black.n;
        for c in alive {
            let vacate = if may_vacate {
                pictures.to_vacate(t, self.units, c, left, black, black_on)
            } else {
                0
            };
            // A single block has its cheapest unit to itself.
            if c.kinds.count_ones() < 2 && vacate == 0 {
                into.push(*c);
                continue;
            }
            // Plain kinds are squares, distinct by their numbers; a
            // harmless block may share its square with another kind, whose
            // unit could then fill both: such a picture is kept as it is.
            if c.kinds >> SQUARE_KINDS != 0 && pictures.kinds_share_a_square(c.kinds) {
                into.push(*c);
                continue;
            }
            let Some(budget) = black_moves.checked_sub(u32::from(c.king)) else {
                continue;
            };
            for k in kinds_of(c.kinds & !self.known) {
                let node = self.black.units();
                self.costs[k] = KindCosts::of(node, |r, sq| {
                    castling.least(Color::Black, r, sq, |s| pictures.kind_dist(t, k, r, s))
                });
            }
            self.known |= c.kinds;
            let mut kinds = [0; MAX_BLOCKS];
            let mut moved_costs = [FAR; MAX_BLOCKS];
            let mut n = 0;
            // More blocks than a king has flights: the rest are left out
            // of the count (a lower bound still).
            for k in kinds_of(c.kinds).take(MAX_BLOCKS) {
                kinds[n] = k;
                if let Some(i) = moved {
                    if self.moved_known & 1 << k == 0 {
                        let (r, sq) = black.units[i];
                        self.moved_costs[k] =
                            castling.least(Color::Black, r, sq, |s| pictures.kind_dist(t, k, r, s));
                        self.moved_known |= 1 << k;
                    }
                    moved_costs[n] = self.moved_costs[k];
                }
                n += 1;
            }
            let assignment = Assignment {
                costs: self.costs,
                kinds: &kinds[..n],
                moved: moved.map(|i| (i, moved_costs)),
                n_units,
                vacate,
            };
            if assignment.within(budget) {
                into.push(*c);
            }
        }
    }
}

/// One blocker kind's costs at a node: each Black unit's, and the two
/// cheapest (cost, unit).
#[derive(Debug, Clone, Copy)]
pub(crate) struct KindCosts {
    units: [u8; 16],
    best: (u8, usize),
    second: (u8, usize),
}

impl Default for KindCosts {
    fn default() -> KindCosts {
        KindCosts {
            units: [FAR; 16],
            best: (FAR, 0),
            second: (FAR, 0),
        }
    }
}

impl KindCosts {
    /// The costs of `units`, each by `cost(role, square)`.
    fn of(units: &[(Role, Square)], cost: impl Fn(Role, Square) -> u8) -> KindCosts {
        let mut k = KindCosts::default();
        for (u, &(r, sq)) in units.iter().enumerate() {
            let d = cost(r, sq);
            k.units[u] = d;
            if d < k.best.0 {
                k.second = k.best;
                k.best = (d, u);
            } else if d < k.second.0 {
                k.second = (d, u);
            }
        }
        k
    }

    /// The cheapest (cost, unit) once unit `moved` costs `now`.
    fn best_with(&self, moved: usize, now: u8) -> (u8, usize) {
        if self.best.1 != moved {
            return if now < self.best.0 {
                (now, moved)
            } else {
                self.best
            };
        }
        if now <= self.second.0 {
            (now, moved)
        } else {
            self.second
        }
    }
}

impl Pictures {
    /// The Black units (bits by index in `black`) standing where picture
    /// `c`'s mate needs an empty square (the king's square, the line from
    /// the checker to it, and the squares a named pawn pushes through to
    /// its square) that White cannot capture there within its moves to
    /// spare (see [`capture_extra`]), with `left` plies to go: they leave
    /// by a Black move. A rook that may castle is left out: castling
    /// moves it with the king, at no move of its own.
    fn to_vacate(
        &self,
        t: &Tables,
        units: &Units,
        c: &Costs,
        left: u8,
        black: &BlackSide,
        black_on: Bitboard,
    ) -> u16 {
        let p = &self.all[c.index as usize];
        let named = &p.named[..usize::from(p.n_named)];
        let mut empty = attacks::between(named[0].sq, p.king).with(p.king);
        for n in named.iter().filter(|n| n.role == Role::Pawn) {
            if let Some((_, Role::Pawn, from)) = units.units[usize::from(n.id)] {
                if from.file() == n.sq.file() && from.rank() < n.sq.rank() {
                    empty |= attacks::between(from, n.sq).with(n.sq);
                }
            }
        }
        if (empty & black_on).is_empty() {
            return 0;
        }
        let spare = u32::from(left.div_ceil(2)).saturating_sub(u32::from(c.white));
        let mut vacate = 0u16;
        for (i, &(role, sq)) in black.units().iter().enumerate() {
            // Castling moves a rook out of the way with the king's move.
            if black.castling.may_castle(Color::Black, role, sq) {
                continue;
            }
            if empty.contains(sq) && capture_extra(t, units, named, c.named_ids, sq, spare) > spare
            {
                vacate |= 1 << i;
            }
        }
        vacate
    }

    /// Whether two of `kinds` are blocks of the same square.
    fn kinds_share_a_square(&self, kinds: Kinds) -> bool {
        let mut squares = Bitboard::EMPTY;
        for k in kinds_of(kinds) {
            let sq = match k.checked_sub(SQUARE_KINDS) {
                None => Square::new(k as u32),
                Some(h) => self.harmless[h].sq,
            };
            if squares.contains(sq) {
                return true;
            }
            squares.add(sq);
        }
        false
    }
}

/// Blocks a picture has at most: the king's flights.
const MAX_BLOCKS: usize = 8;

/// The fewest White moves beyond a picture's count that capturing a
/// unit standing on `sq` costs: a named unit's detour through `sq` (its
/// route there and on to its square, less its cost in the picture), or
/// another White unit's route there (which the picture does not count).
/// The units are where `units` has them; `named_ids` has the named ones'
/// bits. (White may not castle: see [`DistinctTest`].) Once it finds a
/// capture within `enough` moves, it answers that one.
fn capture_extra(
    t: &Tables,
    units: &Units,
    named: &[Placed],
    named_ids: u32,
    sq: Square,
    enough: u32,
) -> u32 {
    let mut least = u32::from(FAR);
    for (i, n) in named.iter().enumerate() {
        let Some((_, role, from)) = units.units[usize::from(n.id)] else {
            continue;
        };
        let row = t.state_row(Color::White, role, from);
        let cost = u32::from(named_dist_in(row, role, i, n));
        for via in Role::ALL {
            let there = landing(row, role, sq, via);
            let on = t.state_dist(Color::White, via, sq, n.role, n.sq);
            if there != FAR && on != FAR {
                least = least.min((u32::from(there) + u32::from(on)).saturating_sub(cost));
            }
        }
        if least <= enough {
            return least;
        }
    }
    for (id, unit) in units.units.iter().enumerate() {
        if let Some((Color::White, role, from)) = *unit {
            if named_ids & 1 << id == 0 {
                let row = t.state_row(Color::White, role, from);
                for via in Role::ALL {
                    least = least.min(u32::from(landing(row, role, sq, via)));
                }
                if least <= enough {
                    return least;
                }
            }
        }
    }
    least
}

/// Moves for a White unit now `role`, with its state `row`, to capture on
/// `sq` in the role `via`: a pawn that stays one captures diagonally. (A
/// promoted pawn's last step may be counted as a capture though it was a
/// push: that only makes the count lower.)
fn landing(row: &[u8], role: Role, sq: Square, via: Role) -> u8 {
    if role == Role::Pawn && via == Role::Pawn {
        let pawn = (Role::Pawn as usize - 1) * 64;
        attacks::pawn_attacks(Color::Black, sq)
            .into_iter()
            .map(|from| row[pawn + from.to_usize()].saturating_add(1))
            .min()
            .unwrap_or(FAR)
    } else {
        row[(via as usize - 1) * 64 + sq.to_usize()]
    }
}

/// Black units assigned to a picture's blocks, one unit a block: the
/// least total cost, by branch and bound over the blocks in turn.
struct Assignment<'a> {
    /// The node's costs by kind.
    costs: &'a [KindCosts],
    /// The blocks' kinds.
    kinds: &'a [usize],
    /// The unit a move under test moved, and its costs by block after it.
    moved: Option<(usize, [u8; MAX_BLOCKS])>,
    n_units: usize,
    /// Units that must leave their squares (see
    /// [`Pictures::to_vacate`]): one move each unless assigned.
    vacate: u16,
}

/// Branches the assignment search takes at most: past them it answers
/// that an assignment fits (which keeps the test a lower bound). With
/// many units and moves to spare, a conflict deep down would otherwise
/// cost a search through their combinations.
const MAX_BRANCHES: u32 = 64;

impl Assignment<'_> {
    /// Unit `u`'s cost to fill block `i`.
    fn cost(&self, i: usize, u: usize) -> u8 {
        match self.moved {
            Some((m, now)) if m == u => now[i],
            _ => self.costs[self.kinds[i]].units[u],
        }
    }

    /// Whether some assignment costs at most `budget` moves.
    fn within(&self, budget: u32) -> bool {
        // `rest[i]`: the sum of blocks `i..`'s cheapest costs, a bound on
        // what they add.
        let mut rest = [0u32; MAX_BLOCKS + 1];
        let mut cheapest = 0u16;
        let mut distinct = true;
        for (i, &k) in self.kinds.iter().enumerate().rev() {
            let (cost, unit) = match self.moved {
                Some((m, now)) => self.costs[k].best_with(m, now[i]),
                None => self.costs[k].best,
            };
            rest[i] = rest[i + 1] + u32::from(cost);
            distinct &= cheapest & 1 << unit == 0;
            cheapest |= 1 << unit;
        }
        // Each block its cheapest unit, when those are distinct, is the
        // least assignment but for the units to vacate.
        if rest[0] > budget
            || distinct && rest[0] + (self.vacate & !cheapest).count_ones() <= budget
        {
            return rest[0] <= budget;
        }
        self.fill(&rest, 0, 0, 0, budget, &mut 0)
    }

    fn fill(
        &self,
        rest: &[u32; MAX_BLOCKS + 1],
        i: usize,
        used: u16,
        spent: u32,
        budget: u32,
        branches: &mut u32,
    ) -> bool {
        if i == self.kinds.len() {
            return spent + (self.vacate & !used).count_ones() <= budget;
        }
        (0..self.n_units).any(|u| {
            let d = u32::from(self.cost(i, u));
            if used & 1 << u != 0 || spent + d + rest[i + 1] > budget {
                return false;
            }
            *branches += 1;
            *branches > MAX_BRANCHES
                || self.fill(rest, i + 1, used | 1 << u, spent + d, budget, branches)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::position;
    use shakmaty::uci::UciMove;

    /// The indices of the pictures the filter and then the distinct test
    /// keep at `fen` with `left` plies to go (its pictures enumerated
    /// there), and the pictures themselves.
    fn tested(fen: &str, left: u8) -> (Vec<Picture>, Vec<u32>, Vec<u32>) {
        let pos = position(fen);
        let (pictures, units) = Pictures::enumerate(&pos, left).unwrap();
        let mut alive = Vec::new();
        pictures.filter(&pos, &units, left, None, &mut alive);
        let mut kept = Vec::new();
        let mut columns = Vec::new();
        DistinctTest::new(&pictures, &units, &pos, &mut columns).keep(left, &alive, &mut kept);
        let indices = |costs: &[Costs]| costs.iter().map(|c| c.index).collect();
        (pictures.all.clone(), indices(&alive), indices(&kept))
    }

    /// The pictures of a rook's mate from a8 of a king on h8.
    fn from_a8(all: &[Picture]) -> Vec<u32> {
        (0..all.len() as u32)
            .filter(|&i| {
                let p = &all[i as usize];
                p.king == Square::H8 && (p.named[0].role, p.named[0].sq) == (Role::Rook, Square::A8)
            })
            .collect()
    }

    /// With no White move to spare, a Black unit on the check line leaves
    /// by a Black move: the rook from b2 needs both White moves to mate
    /// from a8, the Black king its one move to h8, so the knight on c8
    /// cannot get out of the way. From c2 the rook's way to a8 may take
    /// the knight on c8, and the picture stays.
    #[test]
    fn a_unit_in_the_way_must_leave_unless_a_named_unit_takes_it() {
        let (all, alive, kept) = tested("2n3k1/6pp/8/8/8/8/1R6/6K1 w - - 0 1", 3);
        let a8 = from_a8(&all);
        assert!(!a8.is_empty());
        assert!(
            a8.iter().all(|i| alive.contains(i)),
            "the filter keeps them"
        );
        assert!(a8.iter().all(|i| !kept.contains(i)), "{kept:?}");
        let (all, alive, kept) = tested("2n3k1/6pp/8/8/8/8/2R5/6K1 w - - 0 1", 3);
        let a8 = from_a8(&all);
        assert!(a8.iter().all(|i| alive.contains(i)));
        assert!(a8.iter().any(|i| kept.contains(i)), "{a8:?} {kept:?}");
    }

    /// What capturing a unit costs White beyond a picture's count: a rook
    /// named for a8 detours from b2 through c8 by one move and through c7
    /// by two (the king is farther, and the pawn on c6 cannot capture on
    /// c7 but by promoting first: three moves); from c2 it passes c8.
    #[test]
    fn a_capture_costs_the_detour_or_another_units_route() {
        let t = tables();
        for (fen, rook, c8, c7) in [
            ("2n3k1/2p3pp/2P5/8/8/8/1R6/6K1 w - - 0 1", Square::B2, 1, 2),
            ("2n3k1/2p3pp/2P5/8/8/8/2R5/6K1 w - - 0 1", Square::C2, 0, 1),
        ] {
            let units = Units::new(&position(fen)).unwrap();
            let named = Placed {
                id: units.by_square[rook.to_usize()],
                role: Role::Rook,
                sq: Square::A8,
            };
            let ids = 1 << named.id;
            let extra = |sq| capture_extra(t, &units, &[named], ids, sq, 0);
            assert_eq!(extra(Square::C8), c8, "{fen}");
            assert_eq!(extra(Square::C7), c7, "{fen}");
        }
    }

    /// Along the first solution of every corpus helpmate, each Black
    /// move's test before it is played keeps every picture the test at
    /// the position after it keeps (the move's units followed, not worked
    /// out again), and the solution's own move keeps one.
    #[test]
    fn the_test_before_a_move_keeps_what_the_test_after_it_keeps() {
        let mut compared = 0;
        let mut dropped = 0;
        for row in crate::testing::read_csv(&crate::testing::data("mate.csv")) {
            let Ok(crate::Stipulation::Help { plies, .. }) = row["stipulation"].parse() else {
                continue;
            };
            let start = position(&row["fen"]);
            let Some((p, mut units)) = Pictures::enumerate(&start, plies as u8) else {
                continue;
            };
            let line = row["keys_uci"].split(';').next().unwrap_or("");
            let mut pos = start;
            let mut alive: Option<Vec<Costs>> = None;
            for (i, uci) in line.split(' ').filter(|m| !m.is_empty()).enumerate() {
                let left = (plies as usize - i) as u8;
                let mut costs = Vec::new();
                p.filter(&pos, &units, left, alive.as_deref(), &mut costs);
                if left < 2 {
                    break;
                }
                let mut test = p.move_test(&pos, &units, left, &costs);
                let mut columns = Vec::new();
                let mut before = DistinctTest::new(&p, &units, &pos, &mut columns);
                let solution = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                for m in pos.legal_moves() {
                    let mut kept = Vec::new();
                    let exact = test.keep(&m, &mut kept);
                    if !exact || pos.turn().is_white() || kept.is_empty() {
                        continue;
                    }
                    let mut ahead = Vec::new();
                    if !before.keep_after(&m, left - 1, &kept, &mut ahead) {
                        continue;
                    }
                    let (mut after, mut units_after) = (pos.clone(), units.clone());
                    units_after.play(pos.turn(), &m);
                    after.play_unchecked(m);
                    let mut columns = Vec::new();
                    let mut there = Vec::new();
                    DistinctTest::new(&p, &units_after, &after, &mut columns).keep(
                        left - 1,
                        &kept,
                        &mut there,
                    );
                    for c in &there {
                        assert!(ahead.contains(c), "{}: move {i}, {m}: {c:?}", row["id"]);
                    }
                    assert!(m != solution || !ahead.is_empty(), "{}: {m}", row["id"]);
                    dropped += usize::from(ahead.is_empty());
                    compared += 1;
                }
                let mut kept = Vec::new();
                test.keep(&solution, &mut kept);
                alive = Some(kept);
                units.play(pos.turn(), &solution);
                pos.play_unchecked(solution);
            }
        }
        assert!(compared >= 1000, "only {compared} moves compared");
        assert!(dropped >= 200, "only {dropped} moves dropped");
    }
}
