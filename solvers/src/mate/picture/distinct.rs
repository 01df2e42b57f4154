//! The distinct-blocker test: a picture's blocks are squares that
//! distinct Black units fill at the end, so blocks that share their
//! cheapest unit cost more than the plain sum of cheapest blockers.

use super::assignment::{Assignment, MAX_BLOCKS};
use super::*;
use crate::fxhash::FxHashMap;

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
    let costs = KindCosts::of(units, |r, sq| pictures.blocker_cost(t, castling, k, r, sq));
    (costs.best.0, costs.best.1, costs.second.0)
}

/// Black's units but the king, as the distinct-blocker test reads them.
#[derive(Debug, Clone, Copy)]
struct BlackSide {
    units: [(Role, Square); 16],
    n: usize,
    /// Castling ways: a Black rook that may castle has a second way to
    /// its blocks. After a move, the node's (more ways, a lower bound).
    castling: Castling,
    /// The side as the memo knows it.
    key: SideKey,
}

impl BlackSide {
    fn units(&self) -> &[(Role, Square)] {
        &self.units[..self.n]
    }
}

/// The distinct-blocker test: which pictures Black can still complete
/// within its moves left, now that a unit stands on one square at the end,
/// so distinct units fill the blocks: the least cost of such an
/// assignment ([`Assignment`]), which the filter's plain sum of cheapest
/// blockers does not see.
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
    black: BlackSide,
    /// Per kind (those in `known`), each Black unit's cost to fill it:
    /// a buffer the search keeps per depth (see [`DistinctTest::new`]).
    costs: &'a mut [KindCosts],
    known: Kinds,
    /// Per kind (those in `moved_known`), the cost of the unit the move
    /// under test moved.
    moved_costs: [u8; MAX_KINDS],
    moved_known: Kinds,
}

/// A Black side as the test's verdict on a picture depends on it: its
/// units by role, the king's square among them (a picture's king
/// distance comes off its budget), its castling rights (a second way for
/// a rook) and its moves left. The roles are kept as three planes (see
/// [`black_planes`]): the memo's pages are each a page fault when first
/// touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct SideKey {
    planes: [u64; 3],
    /// The files of the rooks Black may castle with.
    rights: u8,
    moves: u8,
}

impl SideKey {
    /// The key of Black's side on `board` with castling `rights`, and no
    /// moves yet.
    fn of(board: &shakmaty::Board, rights: u8) -> SideKey {
        SideKey {
            planes: black_planes(board),
            rights,
            moves: 0,
        }
    }

    /// The key once the unit on `from` has moved to `to` (an empty
    /// square), as `role`.
    fn moved(self, from: Square, to: Square, role: Role) -> SideKey {
        let mut planes = self.planes;
        for (i, plane) in planes.iter_mut().enumerate() {
            *plane &= !Bitboard::from(from).0;
            if role as u32 & 1 << i != 0 {
                *plane |= Bitboard::from(to).0;
            }
        }
        SideKey { planes, ..self }
    }

    /// The key with `moves` moves left.
    fn with_moves(self, moves: u8) -> SideKey {
        SideKey { moves, ..self }
    }
}

/// The files of the rooks Black may castle with in `pos` (its castling
/// rights, as the keys of Black's side hold them).
pub(crate) fn black_rights(pos: &Chess) -> u8 {
    (pos.castles().castling_rights().0 >> 56) as u8
}

/// Black's units on `board` by role, as three planes: bit `i` of each
/// unit's role on plane `i` (every role has one, so the planes tell the
/// squares too). Half the size of a board per role.
pub(crate) fn black_planes(board: &shakmaty::Board) -> [u64; 3] {
    let mut planes = [0; 3];
    for role in Role::ALL {
        let on = (board.by_role(role) & board.black()).0;
        for (i, plane) in planes.iter_mut().enumerate() {
            if role as u32 & 1 << i != 0 {
                *plane |= on;
            }
        }
    }
    planes
}

/// Above this many words the memo starts afresh (8 MB): it grows with the
/// Black sides a search meets, and a side met long ago is seldom met again.
const MEMO_WORDS: usize = 1 << 20;

/// The test's verdicts per Black side and picture. Most of White's moves
/// leave Black's side as it was (in a king walk, all of them), so the same
/// Black move after each of them asks the same questions: hm032 (h#6)
/// tested 56,722 pictures after 35,209 Black moves, of which 7,952 and
/// 3,454 were distinct. The verdict on a picture needs nothing else: its
/// blocks and king square are its own, and the costs are Black's.
#[derive(Debug, Default)]
pub(crate) struct DistinctMemo {
    /// Per side, where its words start: two per 64 pictures, the judged
    /// ones and the kept ones.
    sides: FxHashMap<SideKey, usize>,
    words: Vec<u64>,
    per_side: usize,
}

impl DistinctMemo {
    /// The words of `side`, for `pictures` pictures (zeroed when new).
    fn of(&mut self, side: SideKey, pictures: usize) -> &mut [u64] {
        let per_side = 2 * pictures.div_ceil(64);
        if per_side != self.per_side || self.words.len() + per_side > MEMO_WORDS {
            self.sides.clear();
            self.words.clear();
            self.per_side = per_side;
        }
        // Room for all at once: pages untouched cost nothing, and a list
        // that grows by copies touches every page it had again.
        if self.words.capacity() == 0 {
            self.words.reserve(MEMO_WORDS);
        }
        let words = &mut self.words;
        let start = *self.sides.entry(side).or_insert_with(|| {
            let start = words.len();
            words.resize(start + per_side, 0);
            start
        });
        &mut self.words[start..start + per_side]
    }
}

impl<'a> DistinctTest<'a> {
    /// The test at `pos`, with `costs` to work in (reused from node to
    /// node: the test runs at most nodes and its table is 6 KB).
    pub(crate) fn new(
        pictures: &'a Pictures,
        pos: &Chess,
        costs: &'a mut Vec<KindCosts>,
    ) -> DistinctTest<'a> {
        let blocks = BlackBlocks::new(tables(), pos);
        costs.resize(MAX_KINDS, KindCosts::default());
        let rights = black_rights(pos);
        DistinctTest {
            pictures,
            black: BlackSide {
                units: blocks.units,
                n: blocks.n_units,
                castling: blocks.castling,
                key: SideKey::of(pos.board(), rights),
            },
            costs,
            known: 0,
            moved_costs: [FAR; MAX_KINDS],
            moved_known: 0,
        }
    }

    /// The pictures of `alive` that Black can still complete at the node,
    /// with `left` plies to go, into `into`.
    pub(crate) fn keep(
        &mut self,
        left: u8,
        alive: &[Costs],
        into: &mut Vec<Costs>,
        memo: &mut DistinctMemo,
    ) {
        let black = self.black;
        self.run(&black, None, left, alive, into, memo);
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
        memo: &mut DistinctMemo,
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
        let mut moved = None;
        if role != Role::King {
            let Some(i) = after.units().iter().position(|u| u.1 == from) else {
                return false;
            };
            after.units[i] = (promotion.unwrap_or(role), to);
            moved = Some(i);
        }
        after.key = after.key.moved(from, to, promotion.unwrap_or(role));
        self.moved_known = 0;
        self.run(&after, moved, left, kept, into, memo);
        true
    }

    /// The test on `black` (the node's units, or the node's with unit
    /// `moved` moved).
    fn run(
        &mut self,
        black: &BlackSide,
        moved: Option<usize>,
        left: u8,
        alive: &[Costs],
        into: &mut Vec<Costs>,
        memo: &mut DistinctMemo,
    ) {
        into.clear();
        let side = black.key.with_moves(left / 2);
        let known = memo.of(side, self.pictures.all.len());
        for c in alive {
            if self.untold(c) || self.fits(black, moved, u32::from(left / 2), c, known) {
                into.push(*c);
            }
        }
    }

    /// Whether the test keeps picture `c` as it is: a single block has its
    /// cheapest unit to itself, and a harmless block may share its square
    /// with another kind, whose unit could then fill both.
    fn untold(&self, c: &Costs) -> bool {
        // Plain kinds are squares, distinct by their numbers.
        c.kinds.count_ones() < 2
            || (c.kinds >> SQUARE_KINDS != 0 && self.pictures.kinds_share_a_square(c.kinds))
    }

    /// Whether distinct units of `black` can fill picture `c`'s blocks
    /// within `black_moves` less its king's distance, `known` holding the
    /// memo's verdicts for the side with those moves.
    fn fits(
        &mut self,
        black: &BlackSide,
        moved: Option<usize>,
        black_moves: u32,
        c: &Costs,
        known: &mut [u64],
    ) -> bool {
        let (word, bit) = (2 * (c.index as usize / 64), 1 << (c.index % 64));
        if known[word] & bit != 0 {
            return known[word + 1] & bit != 0;
        }
        known[word] |= bit;
        let Some(budget) = black_moves.checked_sub(u32::from(c.king)) else {
            return false;
        };
        self.know(c.kinds);
        let t = tables();
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
                    self.moved_costs[k] = self.pictures.blocker_cost(t, &black.castling, k, r, sq);
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
            n_units: black.n,
        };
        let fits = assignment.within(budget);
        if fits {
            known[word + 1] |= bit;
        }
        fits
    }

    /// Works out the node's units' costs for `kinds`, those not known.
    fn know(&mut self, kinds: Kinds) {
        let t = tables();
        for k in kinds_of(kinds & !self.known) {
            let (pictures, castling) = (self.pictures, &self.black.castling);
            self.costs[k] = KindCosts::of(self.black.units(), |r, sq| {
                pictures.blocker_cost(t, castling, k, r, sq)
            });
        }
        self.known |= kinds;
    }

    /// Whether some picture of `alive` (at the node, with `left` plies to
    /// go) leaves Black a move to spare with its blocks filled by distinct
    /// units. Where none does, each Black move must make some picture's
    /// least assignment cheaper (see [`DistinctTest::targets`]).
    fn has_slack(&mut self, left: u8, alive: &[Costs], memo: &mut DistinctMemo) -> bool {
        let moves = left / 2;
        let Some(spared) = moves.checked_sub(1) else {
            return false;
        };
        let side = self.black.key.with_moves(spared);
        let known = memo.of(side, self.pictures.all.len());
        let black = self.black;
        alive.iter().any(|c| {
            // The plain sum of cheapest blockers is never dearer.
            u32::from(c.king) + u32::from(c.blocks) < u32::from(moves)
                && (self.untold(c) || self.fits(&black, None, u32::from(spared), c, known))
        })
    }

    /// Where Black's moves may go, by from-square, at a node with `left`
    /// plies to go where no picture of `alive` has a move to spare
    /// ([`DistinctTest::has_slack`], its verdicts remembered in `memo`),
    /// into `onto`; false (and no targets) where one has.
    ///
    /// A move must then make some picture's least assignment one move
    /// cheaper (or, where the test does not count, see
    /// [`DistinctTest::untold`], its plain sum of cheapest blockers): the
    /// unit that moves fills one of its blocks nearer than it is now, and
    /// no nearer than its cheapest unit now plus what the picture's other
    /// blocks leave of Black's moves at their cheapest (see
    /// [`DistinctTest::caps`]). Within that many moves of a block is a
    /// ball around its square (the distances of pieces on the empty board
    /// are symmetric, and a harmless block is never nearer than its
    /// square); pawns' moves are judged one by one, their promotions
    /// included. The king must come nearer a picture's king square.
    /// Castling and en passant are not told. False too when a picture has
    /// more blocks than are followed.
    pub(crate) fn targets(
        &mut self,
        board: &shakmaty::Board,
        left: u8,
        alive: &[Costs],
        memo: &mut DistinctMemo,
        onto: &mut [Bitboard; 64],
    ) -> bool {
        if self.has_slack(left, alive, memo) {
            return false;
        }
        let t = tables();
        let Some((kinds, caps)) = self.caps(left, alive) else {
            return false;
        };
        *onto = [Bitboard::EMPTY; 64];
        let pictures = self.pictures;
        for (u, &(role, from)) in self.black.units().iter().enumerate() {
            // How near the unit must come to each block.
            let radius = |k: usize| {
                let now = i32::from(self.costs[k].units[u]);
                usize::try_from(caps[k].min(now - 1)).ok()
            };
            let slot = &mut onto[from.to_usize()];
            if role == Role::Pawn {
                *slot = movetest::pawn_targets(board, from, |role, to| {
                    kinds_of(kinds).any(|k| {
                        radius(k).is_some_and(|radius| {
                            usize::from(pictures.kind_dist(t, k, role, to)) <= radius
                        })
                    })
                });
                continue;
            }
            for k in kinds_of(kinds) {
                match radius(k) {
                    None => {}
                    Some(radius) if radius < NEAR => {
                        *slot |= t.near(Color::Black, role, pictures.kind_square(k), radius);
                    }
                    Some(_) => *slot = Bitboard::FULL,
                }
            }
        }
        movetest::king_targets(board, alive, onto);
        true
    }

    /// The blocker kinds a Black move at the node (with `left` plies to
    /// go) may keep some picture of `alive` by, each with how near its
    /// unit must come: a picture's least cost after the move is at most
    /// Black's moves left then less its king's distance, and each of its
    /// other blocks costs at least its cheapest unit's moves. Where the
    /// test counts a picture, the blocks past the first [`MAX_BLOCKS`]
    /// are not counted, and do not keep it; `None` when a picture the
    /// test does not count has more blocks than [`MAX_COUNTED`].
    fn caps(&mut self, left: u8, alive: &[Costs]) -> Option<(Kinds, [i32; MAX_KINDS])> {
        let mut kinds: Kinds = 0;
        let mut caps = [i32::MIN; MAX_KINDS];
        for c in alive {
            self.know(c.kinds);
            let counted = if self.untold(c) {
                if c.kinds.count_ones() as usize > MAX_COUNTED {
                    return None;
                }
                MAX_COUNTED
            } else {
                MAX_BLOCKS
            };
            let blocks = || kinds_of(c.kinds).take(counted);
            let plain: i32 = blocks().map(|k| i32::from(self.costs[k].best.0)).sum();
            let spare = i32::from(left / 2) - 1 - i32::from(c.king) - plain;
            for k in blocks() {
                kinds |= 1 << k;
                caps[k] = caps[k].max(i32::from(self.costs[k].best.0) + spare);
            }
        }
        Some((kinds, caps))
    }
}

/// Blocks a picture the distinct-blocker test does not count may have for
/// [`DistinctTest::targets`] to follow it.
const MAX_COUNTED: usize = 16;

/// One blocker kind's costs at a node: each Black unit's, and the two
/// cheapest (cost, unit).
#[derive(Debug, Clone, Copy)]
pub(crate) struct KindCosts {
    pub(super) units: [u8; 16],
    pub(super) best: (u8, usize),
    pub(super) second: (u8, usize),
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
    pub(super) fn of(units: &[(Role, Square)], cost: impl Fn(Role, Square) -> u8) -> KindCosts {
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

    /// The cheapest (cost, unit) once unit `moved` costs `now`, and a
    /// lower bound on the second cheapest's cost (the third cheapest,
    /// which may become the second, is not kept).
    pub(super) fn best_with(&self, moved: usize, now: u8) -> ((u8, usize), u8) {
        if self.best.1 != moved {
            return if now < self.best.0 {
                ((now, moved), self.best.0)
            } else {
                (self.best, self.second.0.min(now))
            };
        }
        if now <= self.second.0 {
            ((now, moved), self.second.0)
        } else {
            (self.second, self.second.0)
        }
    }
}

impl Pictures {
    /// Moves for the Black unit now `role` on `sq` to fill kind `k`,
    /// castling ways included.
    fn blocker_cost(
        &self,
        t: &Tables,
        castling: &Castling,
        k: usize,
        role: Role,
        sq: Square,
    ) -> u8 {
        castling.least(Color::Black, role, sq, |s| self.kind_dist(t, k, role, s))
    }

    /// Whether two of `kinds` are blocks of the same square.
    fn kinds_share_a_square(&self, kinds: Kinds) -> bool {
        let mut squares = Bitboard::EMPTY;
        for k in kinds_of(kinds) {
            let sq = self.kind_square(k);
            if squares.contains(sq) {
                return true;
            }
            squares.add(sq);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::position;
    use shakmaty::uci::UciMove;
    use std::collections::HashMap;

    /// The corpus helpmates with pictures: each row, its plies, its
    /// diagram, its pictures and its units.
    fn helpmates() -> impl Iterator<Item = (HashMap<String, String>, u32, Chess, Pictures, Units)> {
        crate::testing::read_csv(&crate::testing::data("mate.csv"))
            .into_iter()
            .filter_map(|row| {
                let Ok(crate::Stipulation::Help { plies, .. }) = row["stipulation"].parse() else {
                    return None;
                };
                let start = position(&row["fen"]);
                let (p, units) = Pictures::enumerate(&start, plies as u8)?;
                Some((row, plies, start, p, units))
            })
    }

    /// Along the first solution of every corpus helpmate, each Black
    /// move's test before it is played keeps every picture the test at
    /// the position after it keeps (the move's units followed, not worked
    /// out again), and the solution's own move keeps one.
    #[test]
    fn the_test_before_a_move_keeps_what_the_test_after_it_keeps() {
        let mut compared = 0;
        let mut dropped = 0;
        for (row, plies, start, p, mut units) in helpmates() {
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
                let mut scratch = Scratch::default();
                let mut test = p.move_test(&pos, &units, left, &costs, &mut scratch);
                let mut columns = Vec::new();
                let mut before = DistinctTest::new(&p, &pos, &mut columns);
                let mut memo = DistinctMemo::default();
                let solution = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                for m in pos.legal_moves() {
                    let mut kept = Vec::new();
                    let exact = test.keep(&m, &mut kept);
                    if !exact || pos.turn().is_white() || kept.is_empty() {
                        continue;
                    }
                    let mut ahead = Vec::new();
                    if !before.keep_after(&m, left - 1, &kept, &mut ahead, &mut memo) {
                        continue;
                    }
                    let (mut after, mut units_after) = (pos.clone(), units.clone());
                    units_after.play(pos.turn(), &m);
                    after.play_unchecked(m);
                    let mut columns = Vec::new();
                    let mut there = Vec::new();
                    DistinctTest::new(&p, &after, &mut columns).keep(
                        left - 1,
                        &kept,
                        &mut there,
                        &mut DistinctMemo::default(),
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
        assert!(dropped >= 150, "only {dropped} moves dropped");
    }

    /// The memo answers as the test would: from every corpus helpmate's
    /// diagram (with few enough pictures to walk), at each position two
    /// plies on (Black's side met again after each White reply) and after
    /// each of its Black moves, one memo shared by all of them keeps
    /// the pictures a fresh one keeps.
    #[test]
    fn the_memo_keeps_what_the_test_keeps() {
        let mut compared = 0;
        let mut dropped = 0;
        let mut sides = 0;
        for (row, plies, start, p, units) in helpmates() {
            if p.len() > 2_000 || plies < 6 {
                continue;
            }
            let mut memo = DistinctMemo::default();
            let mut columns = Vec::new();
            for a in start.legal_moves().into_iter().take(8) {
                let (mut one, mut units_one) = (start.clone(), units.clone());
                units_one.play(start.turn(), &a);
                one.play_unchecked(a);
                for b in one.legal_moves() {
                    let (mut pos, mut u) = (one.clone(), units_one.clone());
                    u.play(one.turn(), &b);
                    pos.play_unchecked(b);
                    let left = plies as u8 - 2;
                    let mut costs = Vec::new();
                    p.filter(&pos, &u, left, None, &mut costs);
                    let fresh = |run: &mut dyn FnMut(&mut DistinctMemo, &mut Vec<Costs>)| {
                        let mut out = Vec::new();
                        run(&mut DistinctMemo::default(), &mut out);
                        out
                    };
                    let mut test = DistinctTest::new(&p, &pos, &mut columns);
                    let mut shared = Vec::new();
                    test.keep(left, &costs, &mut shared, &mut memo);
                    let want = fresh(&mut |m, out| test.keep(left, &costs, out, m));
                    assert_eq!(shared, want, "{}: {a} {b}", row["id"]);
                    compared += 1;
                    dropped += usize::from(want.len() < costs.len());
                    let mut scratch = Scratch::default();
                    let mut move_test = p.move_test(&pos, &u, left, &costs, &mut scratch);
                    for m in pos.legal_moves() {
                        let mut kept = Vec::new();
                        move_test.keep(&m, &mut kept);
                        let mut shared = Vec::new();
                        if !test.keep_after(&m, left - 1, &kept, &mut shared, &mut memo) {
                            continue;
                        }
                        let want = fresh(&mut |memo, out| {
                            test.keep_after(&m, left - 1, &kept, out, memo);
                        });
                        assert_eq!(shared, want, "{}: {a} {b} {m}", row["id"]);
                        compared += 1;
                        dropped += usize::from(want.len() < kept.len());
                    }
                }
            }
            sides += memo.sides.len();
        }
        assert!(compared >= 10_000, "only {compared} tests compared");
        assert!(dropped >= 1_000, "only {dropped} tests dropped a picture");
        assert!(sides >= 1_000, "only {sides} sides remembered");
    }
}
