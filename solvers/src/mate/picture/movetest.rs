//! The move test: a node's moves dropped before they are played when the
//! position after them reaches none of the node's pictures.

use super::*;

/// What one reachable picture costs at a node: White's moves for its
/// named units, Black's for its blocks, and the Black king's distance to
/// its square. (Each within a budget of at most 255 plies' moves; the
/// node lists are copied move by move, so they are kept small.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Costs {
    pub(crate) index: u32,
    pub(super) white: u8,
    pub(super) blocks: u8,
    /// The Black king's distance to the picture's king square.
    pub(super) king: u8,
    /// Copied from the picture, so that most moves are judged without
    /// reading it.
    pub(super) king_sq: Square,
    pub(super) kinds: Kinds,
    pub(super) named_ids: u32,
    /// The picture's first named unit, which gives the check: the unit
    /// most of White's moves move, priced without reading the picture
    /// (a cache miss, in the long picture lists of h#3s).
    pub(super) checker: Placed,
}

// The node lists are copied move by move: the checker fits in the padding.
const _: () = assert!(std::mem::size_of::<Costs>() == 32);

impl Costs {
    /// Black's part: its moves for the blocks and the king's distance.
    pub(crate) fn black(&self) -> (u8, u8) {
        (self.blocks, self.king)
    }

    /// These costs with Black's part `black` (see [`Costs::black`]).
    pub(crate) fn with_black(self, (blocks, king): (u8, u8)) -> Costs {
        Costs {
            blocks,
            king,
            ..self
        }
    }
}

/// Tests a node's moves before they are played: a move is dropped when the
/// position after it reaches none of the node's pictures, which is what
/// the filter there would find after the cost of playing the move. The
/// test looks at the moving unit (and at the White unit a Black capture
/// takes), and where it cannot tell cheaply (castling, en passant, White's
/// captures' effect on Black's blocks) it keeps the move's pictures, so it
/// never drops a move the filter would keep.
pub(crate) struct MoveTest<'a> {
    pub(super) pictures: &'a Pictures,
    pub(super) units: &'a Units,
    pub(super) costs: &'a [Costs],
    /// What the test works out as it goes (see [`Scratch`]).
    pub(super) scratch: &'a mut Scratch,
    /// Whether `scratch.blockers` holds the node's blocker kinds (worked
    /// out when first asked: by Black's targets or its first move that is
    /// not the king's).
    pub(super) blockers_known: bool,
    pub(super) turn: Color,
    /// The side to move may castle: its king's and rooks' moves may
    /// lose a way (see [`super::castling`]).
    pub(super) rights: bool,
    /// White's state rows at the node, with its castling ways (a child's
    /// distances are never shorter).
    pub(super) rows: Rows,
    /// The child's budgets.
    pub(super) white_moves: u32,
    pub(super) black_moves: u32,
    pub(super) king_moves: u32,
    /// Black's units but the king, at Black's nodes (none at White's).
    pub(super) black: [(Role, Square); 16],
    pub(super) n_black: usize,
    /// Their squares.
    pub(super) black_on: Bitboard,
    /// Every unit's square, and White's, at the node.
    pub(super) occupied: Bitboard,
    pub(super) white_on: Bitboard,
    /// Whether White may still castle (the finish test then keeps every
    /// picture: castling moves two units at once).
    pub(super) white_rights: bool,
}

/// A move test's working tables, kept from node to node (one per plies
/// left) so that a node neither fills nor copies them: each is read only
/// where its node wrote it, but for the cheapest blockers, which depend on
/// Black's units alone: the Black nodes after each White move of one node
/// (visited one after the other at their depth) share them.
#[derive(Debug, Clone)]
pub(crate) struct Scratch {
    /// Per blocker kind (those in `best_known`), the cheapest blocker's
    /// cost and square and the second cheapest's cost, for Black's units
    /// and castling rights `side`.
    pub(super) best: [(u8, Square, u8); MAX_KINDS],
    pub(super) best_known: Kinds,
    /// Black's units by role (but the king) and the castling rights.
    pub(super) side: [u64; 6],
    /// Per blocker kind, its cheapest blocker's cost after the move under
    /// test (only the kinds it changes are read).
    pub(super) after: [u8; MAX_KINDS],
    /// The node's [`Blockers`] (see [`MoveTest::blockers_known`]).
    pub(super) blockers: Blockers,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            best: [(0, Square::A1, 0); MAX_KINDS],
            best_known: 0,
            side: [0; 6],
            after: [0; MAX_KINDS],
            blockers: Blockers::default(),
        }
    }
}

/// The board after Black's last move (see [`MoveTest::finish`]).
#[derive(Debug, Clone, Copy)]
struct Finish {
    occupied: Bitboard,
    white: Bitboard,
    ep: Bitboard,
}

/// Which blocker kinds a Black move may make cheaper or dearer, so that a
/// move works out only those (see [`MoveTest::keep`]).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Blockers {
    /// By Black unit (as in [`MoveTest::black`]): the kinds it is the
    /// cheapest blocker of, which may get dearer when it moves.
    pub(super) led: [Kinds; 16],
    /// The squares of the kinds whose cheapest blocker costs `d` (1 to
    /// [`NEAR`] − 1): a unit that moves within `d − 1` moves of one may
    /// make it cheaper (a harmless block is never cheaper than its plain
    /// square). Plain squares, then harmless blocks.
    pub(super) by_cost: [[Bitboard; NEAR]; 2],
    /// The largest such cost.
    pub(super) top: usize,
    /// The node's harmless kinds.
    pub(super) harmless: Kinds,
    /// Kinds that every move may make cheaper: those whose blockers are
    /// all far.
    pub(super) always: Kinds,
}

impl Pictures {
    /// A test for the moves of `pos`, which has `left` plies to go (at
    /// least two: the last ply's child is judged by mate, not pictures)
    /// and reaches the pictures whose `costs` are given; it works in
    /// `scratch`.
    pub(crate) fn move_test<'a>(
        &'a self,
        pos: &Chess,
        units: &'a Units,
        left: u8,
        costs: &'a [Costs],
        scratch: &'a mut Scratch,
    ) -> MoveTest<'a> {
        debug_assert!(left >= 2);
        let child = left - 1;
        let board = pos.board();
        // Black's units are read by Black's moves only.
        let (black, n_black) = match pos.turn() {
            Color::Black => black_units(board),
            Color::White => ([(Role::Pawn, Square::A1); 16], 0),
        };
        if pos.turn().is_black() {
            let by_role = |role: Role| (board.by_role(role) & board.black()).0;
            let side = [
                by_role(Role::Pawn),
                by_role(Role::Knight),
                by_role(Role::Bishop),
                by_role(Role::Rook),
                by_role(Role::Queen),
                pos.castles().castling_rights().0,
            ];
            if scratch.side != side {
                scratch.side = side;
                scratch.best_known = 0;
            }
        }
        MoveTest {
            pictures: self,
            units,
            costs,
            scratch,
            blockers_known: false,
            turn: pos.turn(),
            rights: pos.castles().has_color(pos.turn()),
            rows: Rows::new(tables(), Castling::of(pos)),
            white_moves: u32::from(child.div_ceil(2)),
            black_moves: u32::from(child / 2),
            king_moves: u32::from(child / 2),
            black,
            n_black,
            black_on: board.black() & !board.kings(),
            occupied: board.occupied(),
            white_on: board.white(),
            white_rights: pos.castles().has_color(Color::White),
        }
    }
}

impl MoveTest<'_> {
    /// The pictures that may still be reachable after the legal move `m`,
    /// with their costs after it, into `into` (empty when the move can be
    /// dropped). Returns whether those are exactly the pictures the filter
    /// would keep after the move, with its costs: true unless the move
    /// captures, castles, takes en passant or may lose a castling right,
    /// which the test does not follow, or is Black's last and leaves
    /// pictures White's one move cannot complete (see
    /// [`MoveTest::may_finish`]), which the filter keeps.
    pub(crate) fn keep(&mut self, m: &Move, into: &mut Vec<Costs>) -> bool {
        into.clear();
        let Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } = *m
        else {
            into.extend_from_slice(self.costs);
            return false;
        };
        let moved = promotion.unwrap_or(role);
        match (self.turn, moved) {
            (Color::White, _) => {
                let id = self.units.by_square[from.to_usize()];
                let bit = 1u32.checked_shl(u32::from(id)).unwrap_or(0);
                let t = tables();
                // The unit's ways before and after the move (a unit that
                // could castle no longer can).
                let rows = self.units.units[usize::from(id)].map(|(color, was, _)| {
                    (
                        self.rows.way(t, was, from),
                        (t.state_row(color, moved, to), moved, false),
                    )
                });
                for c in self.costs {
                    if c.named_ids & bit == 0 {
                        if u32::from(c.white) <= self.white_moves {
                            into.push(*c);
                        }
                    } else if let Some(white) = rows.and_then(|r| self.white_cost_after(c, id, r)) {
                        into.push(Costs {
                            white: white as u8,
                            ..*c
                        });
                    }
                }
            }
            (Color::Black, Role::King) => {
                for c in self.costs {
                    let king = king_distance(c.king_sq, to);
                    // The king's budget is never above Black's.
                    if king <= self.king_moves && u32::from(c.blocks) + king <= self.black_moves {
                        into.push(Costs {
                            king: king as u8,
                            ..*c
                        });
                    }
                }
            }
            (Color::Black, _) if self.black_moves == 0 => {
                // Black's last move: every block must stand after it.
                let t = tables();
                let on = self.black_on.without(from).with(to);
                let role_on = |sq: Square| match sq {
                    _ if sq == to => Some(moved),
                    _ if sq == from => None,
                    _ => self.black[..self.n_black]
                        .iter()
                        .find(|u| u.1 == sq)
                        .map(|u| u.0),
                };
                for c in self.costs {
                    let plain = Bitboard(c.kinds as u64);
                    if c.king != 0 || !(plain & !on).is_empty() {
                        continue;
                    }
                    let harmless = c.kinds & !Kinds::from(u64::MAX);
                    let stands = kinds_of(harmless).all(|k| {
                        let sq = self.pictures.harmless[k - SQUARE_KINDS].sq;
                        role_on(sq).is_some_and(|r| self.pictures.kind_dist(t, k, r, sq) == 0)
                    });
                    if stands {
                        into.push(Costs { blocks: 0, ..*c });
                    }
                }
            }
            (Color::Black, _) => {
                // The blocks change only for kinds where the moving unit
                // was the cheapest blocker or becomes one: work those out
                // once for the move, then each picture looks at its own.
                let t = tables();
                let may_change = self.may_change(from, to, moved);
                let mut changed: Kinds = 0;
                for k in kinds_of(may_change) {
                    let (best, best_sq, second) = self.scratch.best[k];
                    let others = if best_sq == from { second } else { best };
                    let cost = others.min(self.pictures.kind_dist(t, k, moved, to));
                    self.scratch.after[k] = cost;
                    if cost != best {
                        changed |= 1 << k;
                    }
                }
                for c in self.costs {
                    if u32::from(c.king) > self.king_moves {
                        continue;
                    }
                    let mut blocks = u32::from(c.blocks);
                    for k in kinds_of(c.kinds & changed) {
                        blocks = blocks + u32::from(self.scratch.after[k])
                            - u32::from(self.scratch.best[k].0);
                    }
                    if u32::from(c.king) + blocks <= self.black_moves {
                        into.push(Costs {
                            blocks: blocks as u8,
                            ..*c
                        });
                    }
                }
            }
        }
        // A White unit Black takes is in no picture any more.
        if let (Color::Black, Some(_)) = (self.turn, capture) {
            let lost = 1u32
                .checked_shl(u32::from(self.units.by_square[to.to_usize()]))
                .unwrap_or(0);
            into.retain(|c| c.named_ids & lost == 0);
        }
        // After Black's last move, the pictures White's one move cannot
        // complete; the filter does not look at them (the move is then not
        // judged exactly).
        let mut finished = true;
        if let Some(f) = self.finish(
            from,
            to,
            (role == Role::Pawn && from.distance(to) == 2).then_some(to),
        ) {
            let before = into.len();
            into.retain(|c| self.may_finish(c, f));
            finished = into.len() == before;
        }
        finished && capture.is_none() && !(self.rights && matches!(role, Role::King | Role::Rook))
    }

    /// Where the side to move's moves may go, by from-square, when no
    /// picture at the node has a move to spare for it (see
    /// [`MoveTest::white_targets`] and [`MoveTest::black_targets`]), into
    /// `onto`; false when there are none.
    pub(crate) fn targets(&mut self, board: &shakmaty::Board, onto: &mut [Bitboard; 64]) -> bool {
        match self.turn {
            Color::White => self.white_targets(board, onto),
            Color::Black => self.black_targets(board, onto),
        }
    }

    /// Where White's moves may go, by from-square, when no picture at the
    /// node has a move to spare for White: each must then cost one move
    /// less after this one, so the move is a named unit's, to a square
    /// nearer its state (as [`MoveTest::keep`] prices it; castling and en
    /// passant aside). Generating only those skips most of White's moves,
    /// which the test would drop. False when a picture can wait.
    fn white_targets(&self, board: &shakmaty::Board, onto: &mut [Bitboard; 64]) -> bool {
        let t = tables();
        let occupied = board.occupied();
        *onto = [Bitboard::EMPTY; 64];
        // Pictures share their named units' states: a unit's squares
        // nearer a state (as the checker or not, with the king on its
        // square) are the same in each, and worked out once where the
        // last such state seen is remembered.
        let mut seen = [u32::MAX; 64];
        for c in self.costs {
            if u32::from(c.white) <= self.white_moves {
                return false;
            }
            let p = &self.pictures.all[c.index as usize];
            for (i, n) in p.named[..usize::from(p.n_named)].iter().enumerate() {
                let state = u32::from(n.id)
                    | (n.role as u32) << 8
                    | (n.sq as u32) << 11
                    | (p.king as u32) << 17
                    | u32::from(i == 0) << 23;
                let slot = &mut seen[(state.wrapping_mul(0x9E37_79B1) >> 26) as usize];
                if *slot == state {
                    continue;
                }
                *slot = state;
                let Some((color, role, from)) = self.units.units[usize::from(n.id)] else {
                    continue;
                };
                let old = named_dist_in(self.rows.way(t, role, from), i, n, p.king);
                if old == 0 {
                    continue;
                }
                let reach = crate::checking::unit_reach(color, role, from, occupied, board.black())
                    & !board.white();
                let slot = &mut onto[from.to_usize()];
                for to in reach & !*slot {
                    let promoting = role == Role::Pawn && Bitboard::BACKRANKS.contains(to);
                    let nearer = crate::checking::promotions(promoting)
                        .iter()
                        .any(|promotion| {
                            let moved = promotion.unwrap_or(role);
                            let after = (t.state_row(color, moved, to), moved, false);
                            named_dist_in(after, i, n, p.king) < old
                        });
                    if nearer {
                        slot.add(to);
                    }
                }
            }
        }
        true
    }

    /// Where Black's moves may go, by from-square, at a node that is not
    /// Black's last when no picture there has a move to spare for Black:
    /// each must then cost one move less after this one. A king's move
    /// does so only nearer a picture's king square; another unit's only
    /// where it makes some blocker kind cheaper than its cheapest blocker
    /// now, that is within `d - 1` moves of a block whose cheapest blocker
    /// is `d` away (as [`MoveTest::may_change`] finds; castling and en
    /// passant aside). False when a picture can wait, or when some kind
    /// has no blocker near (any move may then make it cheaper).
    fn black_targets(&mut self, board: &shakmaty::Board, onto: &mut [Bitboard; 64]) -> bool {
        if self.black_moves == 0 {
            return false;
        }
        let spare = |c: &Costs| {
            u32::from(c.king) <= self.king_moves
                && u32::from(c.king) + u32::from(c.blocks) <= self.black_moves
        };
        if self.costs.iter().any(spare) {
            return false;
        }
        self.know_blockers();
        let b = &self.scratch.blockers;
        if b.always != 0 {
            return false;
        }
        *onto = [Bitboard::EMPTY; 64];
        let t = tables();
        // The blocks a unit of `role` on `sq` may make cheaper.
        let nearer = |role: Role, sq: Square| {
            (1..=b.top).any(|d| {
                let near = t.near(Color::Black, role, sq, d - 1);
                (near & (b.by_cost[0][d] | b.by_cost[1][d])).any()
            })
        };
        // Squares within `d - 1` moves of such a block, per piece role
        // (a piece's distances on the empty board are symmetric).
        let mut toward = [Bitboard::EMPTY; 6];
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for d in 1..=b.top {
                for sq in b.by_cost[0][d] | b.by_cost[1][d] {
                    toward[role as usize - 1] |= t.near(Color::Black, role, sq, d - 1);
                }
            }
        }
        for &(role, from) in &self.black[..self.n_black] {
            onto[from.to_usize()] = match role {
                Role::Pawn => pawn_targets(board, from, nearer),
                _ => toward[role as usize - 1],
            };
        }
        king_targets(board, self.costs, onto);
        true
    }

    /// The board after Black's last move from `from` to `to`, for
    /// [`MoveTest::may_finish`]: `None` unless the move is Black's last
    /// (or when White may castle). `ep` is the square of a pawn White may
    /// take en passant (its square empties with White's move).
    fn finish(&self, from: Square, to: Square, ep: Option<Square>) -> Option<Finish> {
        let last = self.turn.is_black() && self.black_moves == 0;
        (last && !self.white_rights).then(|| Finish {
            occupied: self.occupied.without(from).with(to),
            white: self.white_on.without(to),
            ep: ep.map_or(Bitboard::EMPTY, Bitboard::from),
        })
    }

    /// Whether White's one move left may end in picture `c` after Black's
    /// last move, whose board is `f`. The checker's line to the king is
    /// empty in the mate, and White's move empties one square (and an en
    /// passant victim's): with no named unit out of place, the line holds
    /// exactly one White unit, which moves off it (the check is
    /// discovered); with one out of place (White's cost 1), that unit
    /// makes the move: nothing else stands on the line, and a line
    /// piece's way to its square is clear and the square holds no White
    /// unit.
    fn may_finish(&self, c: &Costs, f: Finish) -> bool {
        let p = &self.pictures.all[c.index as usize];
        let line = attacks::between(p.named[0].sq, p.king) & f.occupied & !f.ep;
        match p.out_of_place(self.units) {
            (None, _) => line.count() == 1 && (line & !f.white).is_empty(),
            (Some(n), None) => {
                let Some((_, role, from)) = self.units.units[usize::from(n.id)] else {
                    return false;
                };
                let way_clear = role != n.role
                    || !is_slider(role)
                    || (attacks::between(from, n.sq) & f.occupied).is_empty();
                line.without(from).is_empty() && way_clear && !f.white.contains(n.sq)
            }
            // White's cost would be two or more: not kept at the node.
            (Some(_), Some(_)) => true,
        }
    }

    /// White's cost of a picture once its named unit `id` moved, given
    /// the unit's [`Tables::state_row`] and role before and after, when
    /// within the child's budget.
    pub(super) fn white_cost_after(
        &self,
        c: &Costs,
        id: u8,
        (before, after): (Way, Way),
    ) -> Option<u32> {
        let (i, n) = if c.checker.id == id {
            (0, c.checker)
        } else {
            let p = &self.pictures.all[c.index as usize];
            let named = &p.named[..usize::from(p.n_named)];
            let i = named.iter().position(|n| n.id == id)?;
            (i, named[i])
        };
        let old = u32::from(named_dist_in(before, i, &n, c.king_sq));
        let new = named_dist_in(after, i, &n, c.king_sq);
        let white = u32::from(c.white) - old + u32::from(new);
        (new != FAR && white <= self.white_moves).then_some(white)
    }

    /// The blocker kinds whose cheapest blocker's cost the Black move of
    /// the unit on `from` to `to` (as `role`) may change.
    pub(super) fn may_change(&mut self, from: Square, to: Square, role: Role) -> Kinds {
        self.know_blockers();
        let b = &self.scratch.blockers;
        let mut kinds = b.always;
        if let Some(i) = self.black[..self.n_black].iter().position(|u| u.1 == from) {
            kinds |= b.led[i];
        }
        let t = tables();
        let (mut plain, mut harmless) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for d in 1..=b.top {
            let near = t.near(Color::Black, role, to, d - 1);
            plain |= near & b.by_cost[0][d];
            harmless |= near & b.by_cost[1][d];
        }
        kinds |= Kinds::from(plain.0);
        for sq in harmless {
            kinds |= self.pictures.harmless_on[sq.to_usize()] & b.harmless;
        }
        kinds
    }

    /// Works out the node's [`Blockers`] into the scratch, when first
    /// asked.
    fn know_blockers(&mut self) {
        if !self.blockers_known {
            self.scratch.blockers = self.blockers();
            self.blockers_known = true;
        }
    }

    /// The node's [`Blockers`].
    pub(super) fn blockers(&mut self) -> Blockers {
        let kinds = self.costs.iter().fold(0, |b: Kinds, c| b | c.kinds);
        let mut blockers = Blockers {
            led: [0; 16],
            by_cost: [[Bitboard::EMPTY; NEAR]; 2],
            top: 0,
            harmless: kinds & !Kinds::from(u64::MAX),
            always: 0,
        };
        for k in kinds_of(kinds) {
            let (best, best_sq, _) = self.best(k);
            if best == FAR {
                // No unit can block it: none leads, any may come.
                blockers.always |= 1 << k;
                continue;
            }
            if let Some(i) = self.black[..self.n_black]
                .iter()
                .position(|b| b.1 == best_sq)
            {
                blockers.led[i] |= 1 << k;
            }
            let plain = usize::from(k >= SQUARE_KINDS);
            let sq = self.pictures.kind_square(k);
            match usize::from(best) {
                0 => {}
                d if d < NEAR => {
                    blockers.by_cost[plain][d].add(sq);
                    blockers.top = blockers.top.max(d);
                }
                _ => blockers.always |= 1 << k,
            }
        }
        blockers
    }

    /// The cheapest blocker of kind `k`: its cost and square, and the
    /// next cheapest's cost.
    pub(super) fn best(&mut self, k: usize) -> (u8, Square, u8) {
        if self.scratch.best_known & 1 << k == 0 {
            self.scratch.best_known |= 1 << k;
            let units = &self.black[..self.n_black];
            let (best, i, second) =
                two_cheapest(self.pictures, tables(), self.rows.castling(), units, k);
            let best_sq = units.get(i).map_or(Square::A1, |u| u.1);
            self.scratch.best[k] = (best, best_sq, second);
        }
        self.scratch.best[k]
    }
}

/// The Black pawn on `from`'s moves (promotions included) for which
/// `nearer(role after the move, square)` holds.
pub(super) fn pawn_targets(
    board: &shakmaty::Board,
    from: Square,
    nearer: impl Fn(Role, Square) -> bool,
) -> Bitboard {
    let reach = crate::checking::unit_reach(
        Color::Black,
        Role::Pawn,
        from,
        board.occupied(),
        board.white(),
    );
    let mut to_squares = Bitboard::EMPTY;
    for to in reach {
        let promoting = Bitboard::BACKRANKS.contains(to);
        if crate::checking::promotions(promoting)
            .iter()
            .any(|p| nearer(p.unwrap_or(Role::Pawn), to))
        {
            to_squares.add(to);
        }
    }
    to_squares
}

/// Into `onto`, the Black king's moves nearer the king square of one of
/// the pictures `costs` (a king's distances are symmetric), where each
/// must cost a move less.
pub(super) fn king_targets(board: &shakmaty::Board, costs: &[Costs], onto: &mut [Bitboard; 64]) {
    let Some(king) = board.king_of(Color::Black) else {
        return;
    };
    let slot = &mut onto[king.to_usize()];
    for c in costs {
        match usize::from(c.king) {
            0 => {}
            d if d <= NEAR => *slot |= tables().near(Color::Black, Role::King, c.king_sq, d - 1),
            _ => *slot = Bitboard::FULL,
        }
    }
}
