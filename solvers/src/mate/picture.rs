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
//! are per unit on an empty board (see [`super::help_bound`]), so the test
//! is admissible: it never loses a solution.
//!
//! A flight to block is a blocker *kind*: a plain square, which any Black
//! unit may fill, or, in a picture where nothing White can pin a blocker
//! (see [`Enumeration::sole_check`]), a square with the roles that may
//! stand there without parrying the mating check.

use shakmaty::{attacks, Bitboard, Chess, Color, Move, Position, Role, Square};

use super::help_bound::{castling_bonus, empty_attacks, tables, Tables, FAR, NEAR};

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

/// White's cost of a picture's named units from where they stand now;
/// `FAR` when a named unit is gone. The first named unit gives the mating
/// check: it moves last, or it is a slider and the check is discovered. A
/// knight or pawn already on its checking square must therefore leave and
/// come back, which a pawn cannot.
fn white_cost(t: &Tables, units: &Units, p: &Picture) -> u32 {
    let mut total = 0u32;
    for (i, n) in p.named[..usize::from(p.n_named)].iter().enumerate() {
        let Some((color, role, sq)) = units.units[usize::from(n.id)] else {
            return u32::from(FAR);
        };
        let d = named_dist(t, color, role, sq, i, n);
        if d == FAR {
            return u32::from(FAR);
        }
        total += u32::from(d);
    }
    total
}

/// Moves for a unit now `role` on `sq` to take its state `n`, named `i`th
/// in its picture (the first gives the mating check, see [`white_cost`]).
fn named_dist(t: &Tables, color: Color, role: Role, sq: Square, i: usize, n: &Placed) -> u8 {
    named_dist_in(t.state_row(color, role, sq), role, i, n)
}

/// A unit's row of [`Tables::state_row`], and its role.
type Way<'t> = (&'t [u8], Role);

/// [`named_dist`] from the unit's row of [`Tables::state_row`].
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
        let white_moves = plies.div_ceil(2) + castling_bonus(pos, Color::White);
        let (black_moves, black_bonus) = (plies / 2, castling_bonus(pos, Color::Black));
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
        let mut block_rows = vec![None; 2 * 64 * HARMLESS_ROLES];
        let mut steps = 0;
        for king in Square::ALL {
            let kd = king.distance(black_king);
            if kd > u32::from(black_moves + black_bonus / 2) {
                continue;
            }
            let spare = black_moves + black_bonus - kd as u8;
            let flights = attacks::king_attacks(king);
            let zone = flights.with(king);
            let options: Vec<Vec<Candidate>> = white
                .iter()
                .map(|&(_, role, from)| unit_options(t, role, from, king, zone, white_moves))
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
        let white_moves = u32::from(left.div_ceil(2) + castling_bonus(pos, Color::White));
        let black_bonus = u32::from(castling_bonus(pos, Color::Black));
        let black_moves = u32::from(left / 2);
        let mut blocks = BlackBlocks::new(t, pos);
        let mut keep = |index: u32| {
            let p = &self.all[index as usize];
            let king = king_distance(p.king, black_king);
            if king > black_moves + black_bonus / 2 {
                return;
            }
            let Some(blocks) = blocks.cost_within(self, p.kinds, black_moves + black_bonus - king)
            else {
                return;
            };
            let white = white_cost(t, units, p);
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

/// What one reachable picture costs at a node: White's moves for its
/// named units, Black's for its blocks, and the Black king's distance to
/// its square. (Each within a budget of at most 255 plies' moves; the
/// node lists are copied move by move, so they are kept small.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Costs {
    pub(crate) index: u32,
    white: u8,
    blocks: u8,
    /// The Black king's distance to the picture's king square.
    king: u8,
    /// Copied from the picture, so that most moves are judged without
    /// reading it.
    king_sq: Square,
    kinds: Kinds,
    named_ids: u32,
}

/// Tests a node's moves before they are played: a move is dropped when the
/// position after it reaches none of the node's pictures, which is what
/// the filter there would find after the cost of playing the move. The
/// test looks at the moving unit (and at the White unit a Black capture
/// takes), and where it cannot tell cheaply (castling, en passant, White's
/// captures' effect on Black's blocks) it keeps the move's pictures, so it
/// never drops a move the filter would keep.
pub(crate) struct MoveTest<'a> {
    pictures: &'a Pictures,
    units: &'a Units,
    costs: &'a [Costs],
    /// The node's blocker kinds, worked out for its first Black move that
    /// is not the king's.
    blockers: Option<Blockers>,
    turn: Color,
    /// The side to move may castle: its king's and rooks' moves may
    /// change the castling bonus.
    rights: bool,
    /// The child's budgets, with this node's castling bonus (a child's is
    /// never larger).
    white_moves: u32,
    black_moves: u32,
    king_moves: u32,
    /// Black units but the king, and per blocker kind the cheapest
    /// blocker's cost and square and the second cheapest's cost (computed
    /// as asked).
    black: [(Role, Square); 16],
    n_black: usize,
    /// Their squares.
    black_on: Bitboard,
    best: [(u8, Square, u8); MAX_KINDS],
    /// Per blocker kind, its cheapest blocker's cost after the move under
    /// test (only the kinds it changes are read).
    after: [u8; MAX_KINDS],
}

/// Which blocker kinds a Black move may make cheaper or dearer, so that a
/// move works out only those (see [`MoveTest::keep`]).
#[derive(Debug, Clone, Copy)]
struct Blockers {
    /// By Black unit (as in [`MoveTest::black`]): the kinds it is the
    /// cheapest blocker of, which may get dearer when it moves.
    led: [Kinds; 16],
    /// The squares of the kinds whose cheapest blocker costs `d` (1 to
    /// [`NEAR`] − 1): a unit that moves within `d − 1` moves of one may
    /// make it cheaper (a harmless block is never cheaper than its plain
    /// square). Plain squares, then harmless blocks.
    by_cost: [[Bitboard; NEAR]; 2],
    /// The largest such cost.
    top: usize,
    /// The node's harmless kinds.
    harmless: Kinds,
    /// Kinds that every move may make cheaper: those whose blockers are
    /// all far.
    always: Kinds,
}

impl Pictures {
    /// A test for the moves of `pos`, which has `left` plies to go (at
    /// least two: the last ply's child is judged by mate, not pictures)
    /// and reaches the pictures whose `costs` are given.
    pub(crate) fn move_test<'a>(
        &'a self,
        pos: &Chess,
        units: &'a Units,
        left: u8,
        costs: &'a [Costs],
    ) -> MoveTest<'a> {
        debug_assert!(left >= 2);
        let child = left - 1;
        let board = pos.board();
        let mut black = [(Role::Pawn, Square::A1); 16];
        let mut n_black = 0;
        for sq in board.black() & !board.kings() {
            if let (Some(r), Some(slot)) = (board.role_at(sq), black.get_mut(n_black)) {
                *slot = (r, sq);
                n_black += 1;
            }
        }
        let black_bonus = u32::from(castling_bonus(pos, Color::Black));
        MoveTest {
            pictures: self,
            units,
            costs,
            blockers: None,
            turn: pos.turn(),
            rights: pos.castles().has_color(pos.turn()),
            white_moves: u32::from(child.div_ceil(2) + castling_bonus(pos, Color::White)),
            black_moves: u32::from(child / 2) + black_bonus,
            king_moves: u32::from(child / 2) + black_bonus / 2,
            black,
            n_black,
            black_on: board.black() & !board.kings(),
            best: [(UNKNOWN, Square::A1, UNKNOWN); MAX_KINDS],
            after: [0; MAX_KINDS],
        }
    }
}

impl MoveTest<'_> {
    /// The pictures that may still be reachable after the legal move `m`,
    /// with their costs after it, into `into` (empty when the move can be
    /// dropped). Returns whether those are exactly the pictures the filter
    /// would keep after the move, with its costs: true unless the move
    /// captures, castles, takes en passant or may lose a castling right,
    /// which the test does not follow.
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
                // The unit's ways before and after the move.
                let rows = self.units.units[usize::from(id)].map(|(color, was, _)| {
                    (
                        (t.state_row(color, was, from), was),
                        (t.state_row(color, moved, to), moved),
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
                    let (best, best_sq, second) = self.best[k];
                    let others = if best_sq == from { second } else { best };
                    let cost = others.min(self.pictures.kind_dist(t, k, moved, to));
                    self.after[k] = cost;
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
                        blocks = blocks + u32::from(self.after[k]) - u32::from(self.best[k].0);
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
        capture.is_none() && !(self.rights && matches!(role, Role::King | Role::Rook))
    }

    /// White's cost of a picture once its named unit `id` moved, given
    /// the unit's [`Tables::state_row`] and role before and after, when
    /// within the child's budget.
    fn white_cost_after(&self, c: &Costs, id: u8, (before, after): (Way, Way)) -> Option<u32> {
        let p = &self.pictures.all[c.index as usize];
        let named = &p.named[..usize::from(p.n_named)];
        let i = named.iter().position(|n| n.id == id)?;
        let n = &named[i];
        let old = u32::from(named_dist_in(before.0, before.1, i, n));
        let new = named_dist_in(after.0, after.1, i, n);
        let white = u32::from(c.white) - old + u32::from(new);
        (new != FAR && white <= self.white_moves).then_some(white)
    }

    /// The blocker kinds whose cheapest blocker's cost the Black move of
    /// the unit on `from` to `to` (as `role`) may change.
    fn may_change(&mut self, from: Square, to: Square, role: Role) -> Kinds {
        if self.blockers.is_none() {
            self.blockers = Some(self.blockers());
        }
        let Some(b) = &self.blockers else {
            unreachable!("worked out above")
        };
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

    /// The node's [`Blockers`].
    fn blockers(&mut self) -> Blockers {
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
            let (plain, sq) = match k.checked_sub(SQUARE_KINDS) {
                None => (0, Square::new(k as u32)),
                Some(h) => (1, self.pictures.harmless[h].sq),
            };
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
    fn best(&mut self, k: usize) -> (u8, Square, u8) {
        if self.best[k].0 == UNKNOWN {
            let t = tables();
            let (mut best, mut best_sq, mut second) = (FAR, Square::A1, FAR);
            for &(r, sq) in &self.black[..self.n_black] {
                let d = self.pictures.kind_dist(t, k, r, sq);
                if d < best {
                    second = best;
                    (best, best_sq) = (d, sq);
                } else if d < second {
                    second = d;
                }
            }
            self.best[k] = (best, best_sq, second);
        }
        self.best[k]
    }
}

/// Every final state of a White unit within `moves` that covers part of
/// the zone from a square it may stand on.
fn unit_options(
    t: &Tables,
    role: Role,
    from: Square,
    king: Square,
    zone: Bitboard,
    moves: u8,
) -> Vec<Candidate> {
    let roles: &[Role] = if role == Role::Pawn {
        &[
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ]
    } else {
        std::slice::from_ref(match role {
            Role::Knight => &Role::Knight,
            Role::Bishop => &Role::Bishop,
            Role::Rook => &Role::Rook,
            Role::Queen => &Role::Queen,
            _ => &Role::King,
        })
    };
    let mut out = Vec::new();
    for &r in roles {
        for sq in Square::ALL {
            if sq == king || (r == Role::King && sq.distance(king) < 2) {
                continue;
            }
            let cost = t.state_dist(Color::White, role, from, r, sq);
            if cost > moves {
                continue;
            }
            let covers = empty_attacks(Color::White, r, sq) & zone;
            if covers.any() {
                out.push(Candidate {
                    role: r,
                    sq,
                    cost,
                    covers,
                });
            }
        }
    }
    out
}

/// The cheapest Black blocker per kind, computed as asked.
struct BlackBlocks<'a> {
    t: &'a Tables,
    units: [(Role, Square); 16],
    n_units: usize,
    cost: [u8; MAX_KINDS],
}

const UNKNOWN: u8 = FAR - 1;

impl<'a> BlackBlocks<'a> {
    fn new(t: &'a Tables, pos: &Chess) -> BlackBlocks<'a> {
        let board = pos.board();
        let mut units = [(Role::Pawn, Square::A1); 16];
        let mut n_units = 0;
        // At most fifteen Black units besides the king: pictures are only
        // made for positions with sixteen units a side or fewer.
        for sq in board.black() & !board.kings() {
            if let (Some(r), Some(slot)) = (board.role_at(sq), units.get_mut(n_units)) {
                *slot = (r, sq);
                n_units += 1;
            }
        }
        BlackBlocks {
            t,
            units,
            n_units,
            cost: [UNKNOWN; MAX_KINDS],
        }
    }

    fn units(&self) -> &[(Role, Square)] {
        &self.units[..self.n_units]
    }

    /// Per square, its cheapest blocker's moves to stand there.
    fn cheapest_by_square(&self) -> [u8; 64] {
        Square::ALL.map(|f| {
            self.units()
                .iter()
                .map(|&(r, sq)| self.t.reach(Color::Black, r, sq, f))
                .min()
                .unwrap_or(FAR)
        })
    }

    fn cost(&mut self, pictures: &Pictures, k: usize) -> u8 {
        if self.cost[k] == UNKNOWN {
            self.cost[k] = self
                .units()
                .iter()
                .map(|&(r, sq)| pictures.kind_dist(self.t, k, r, sq))
                .min()
                .unwrap_or(FAR);
        }
        self.cost[k]
    }

    /// Moves for distinct Black units to fill all of `kinds`, when within
    /// `moves`. (A lower bound: each kind's cheapest unit, counted once
    /// each.)
    fn cost_within(&mut self, pictures: &Pictures, kinds: Kinds, moves: u32) -> Option<u32> {
        if kinds.count_ones() as usize > self.n_units {
            return None;
        }
        let mut total = 0u32;
        for k in kinds_of(kinds) {
            total += u32::from(self.cost(pictures, k));
            if total > moves {
                return None;
            }
        }
        Some(total)
    }
}

struct Enumeration<'a, 'b> {
    king: Square,
    flights: Bitboard,
    white: &'a [(u8, Role, Square)],
    options: &'a [Vec<Candidate>],
    white_moves: u8,
    spare: u8,
    black: &'a BlackBlocks<'b>,
    /// [`BlackBlocks::cheapest_by_square`].
    cheapest: &'a [u8; 64],
    /// The unit giving check (already named first).
    checker: usize,
    steps: u32,
    named: Vec<Placed>,
    out: &'a mut Vec<Picture>,
    /// The harmless blocker kinds so far (see [`Pictures::harmless`]).
    harmless: &'a mut Vec<HarmlessBlock>,
    /// By whether pawns may capture, flight and roles
    /// (`(captures * 64 + sq) * HARMLESS_ROLES + roles`), each Black unit's
    /// moves to block it in one of the roles, once asked for.
    block_rows: &'a mut Vec<Option<BlockRow>>,
}

/// Role sets, as bits `1 << role as usize`.
const HARMLESS_ROLES: usize = 1 << 7;

/// Per Black unit (as in [`BlackBlocks::units`]), moves to fill a block.
type BlockRow = [u8; 16];

impl Enumeration<'_, '_> {
    /// Chooses, for unit `i` on, a final state or none; `false` once the
    /// pictures are too many.
    fn go(&mut self, i: usize, covered: Bitboard, occupied: Bitboard, cost: u32) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return false;
        }
        if i == self.white.len() {
            self.finish(covered, occupied, cost);
            return self.out.len() <= MAX_PICTURES;
        }
        if !self.go(i + 1, covered, occupied, cost) {
            return false;
        }
        if i == self.checker {
            return true;
        }
        for o in &self.options[i] {
            let cost = cost + u32::from(o.cost);
            if cost > u32::from(self.white_moves)
                || (o.covers & !covered).is_empty()
                || occupied.contains(o.sq)
            {
                continue;
            }
            self.named.push(Placed {
                id: self.white[i].0,
                role: o.role,
                sq: o.sq,
            });
            let ok = self.go(i + 1, covered | o.covers, occupied.with(o.sq), cost);
            self.named.pop();
            if !ok {
                return false;
            }
        }
        true
    }

    fn finish(&mut self, covered: Bitboard, occupied: Bitboard, cost: u32) {
        if !covered.contains(self.king) {
            return;
        }
        // The covers are the units' on an empty board, but no named unit
        // may stand between the checker and the king: in a real mate that
        // line is empty, and the named units stand where the mate has them.
        if (attacks::between(self.named[0].sq, self.king) & occupied).any() {
            return;
        }
        // A White unit on a flight must be guarded, not blocked by Black,
        // and each block takes a Black unit. More blocks only fail sooner,
        // so the occluded flights are looked for after a first test.
        let hopeless =
            |blocked: Bitboard| (blocked & occupied).any() || blocked.count() > self.black.n_units;
        let blocked = self.flights & !covered;
        if hopeless(blocked) {
            return;
        }
        // The moves the named units leave to those the picture leaves out.
        let spare = u32::from(self.white_moves) - cost;
        let blocked = blocked | self.occluded(occupied, spare);
        if hopeless(blocked) {
            return;
        }
        // With a sole check, each flight with the roles that may block it
        // without parrying the check.
        let mut harmless = [(Square::A1, 0u8); 8];
        let sole = self.sole_check(spare);
        if let Some(check) = sole {
            for (slot, f) in harmless.iter_mut().zip(blocked) {
                *slot = (f, harmless_roles(f, check, self.king));
            }
        }
        let harmless = &harmless[..blocked.count()];
        // Black pawns may capture on their way to a block unless every
        // White unit but the king is named: the named ones stand in the
        // mate, so they are never taken, but one left out may be.
        let pawns_capture = self
            .white
            .iter()
            .any(|&(id, role, _)| role != Role::King && self.named.iter().all(|n| n.id != id));
        let fits = match sole {
            Some(_) => self.harmless_blocks_fit(harmless, pawns_capture),
            None => {
                let block_cost: u32 = blocked
                    .into_iter()
                    .map(|f| u32::from(self.cheapest[f.to_usize()]))
                    .sum();
                block_cost <= u32::from(self.spare)
            }
        };
        if !fits {
            return;
        }
        let kinds = match sole {
            Some(_) => harmless.iter().fold(0, |kinds: Kinds, &(f, roles)| {
                kinds | 1 << self.harmless_kind(f, roles, pawns_capture)
            }),
            None => blocked
                .into_iter()
                .fold(0, |kinds: Kinds, f| kinds | 1 << f.to_usize()),
        };
        let mut named = [Placed {
            id: 0,
            role: Role::Pawn,
            sq: Square::A1,
        }; MAX_NAMED];
        let n = self.named.len().min(MAX_NAMED);
        named[..n].copy_from_slice(&self.named[..n]);
        self.out.push(Picture {
            king: self.king,
            named,
            n_named: n as u8,
            named_ids: named[..n].iter().fold(0, |ids, u| ids | 1 << u.id),
            kinds,
        });
    }

    /// The flights the named units cover on an empty board but not once
    /// they stand on `occupied` (the named units' squares; the covers go
    /// through the king), leaving out those a unit the picture does not
    /// name could still cover within its `spare` moves. In a mate no unit
    /// covers those: the named units' rays stop at the named squares, and
    /// a unit left out would need more moves than there are.
    fn occluded(&self, occupied: Bitboard, spare: u32) -> Bitboard {
        // Only a slider's ray can stop short.
        let stops = |n: &Placed| {
            is_slider(n.role) && (empty_attacks(Color::White, n.role, n.sq) & occupied).any()
        };
        if !self.named.iter().any(stops) {
            return Bitboard::EMPTY;
        }
        let mut real = Bitboard::EMPTY;
        for n in &self.named {
            let piece = shakmaty::Piece {
                color: Color::White,
                role: n.role,
            };
            real |= attacks::attacks(n.sq, piece, occupied);
        }
        let occluded = self.flights & !real;
        if occluded.is_empty() {
            return occluded;
        }
        let t = self.black.t;
        let left_out = self
            .white
            .iter()
            .filter(|&&(id, _, _)| self.named.iter().all(|n| n.id != id));
        occluded
            .into_iter()
            .filter(|&f| {
                !left_out.clone().any(|&(_, role, from)| {
                    u32::from(t.attack(Color::White, role, from, f)) <= spare
                })
            })
            .collect()
    }

    /// The kind of a block on `f` by one of `roles`: a harmless block, or
    /// the plain square once there are too many kinds.
    fn harmless_kind(&mut self, f: Square, roles: u8, pawns_capture: bool) -> usize {
        if let Some(h) = self
            .harmless
            .iter()
            .position(|b| b.sq == f && b.roles == roles && b.pawns_capture == pawns_capture)
        {
            return SQUARE_KINDS + h;
        }
        if SQUARE_KINDS + self.harmless.len() >= MAX_KINDS {
            return f.to_usize();
        }
        let t = self.black.t;
        let dist = Role::ALL
            .iter()
            .flat_map(|&role| {
                Square::ALL.map(|from| block_dist(t, role, from, f, roles, pawns_capture))
            })
            .collect();
        self.harmless.push(HarmlessBlock {
            sq: f,
            roles,
            pawns_capture,
            dist,
        });
        SQUARE_KINDS + self.harmless.len() - 1
    }

    /// The checker's final state when every White unit but the king is
    /// named or can neither pin nor check (see
    /// [`Tables::never_pins_nor_checks`]) within the `spare` moves the
    /// named units leave, and no other named unit lines up with the Black
    /// king: then nothing White can pin a Black blocker or give a second
    /// check, and a blocker that could parry the check breaks the mate.
    fn sole_check(&self, spare: u32) -> Option<Placed> {
        let t = self.black.t;
        let all_named = self
            .white
            .iter()
            .filter(|&&(_, role, _)| role != Role::King)
            .all(|&(id, role, from)| {
                self.named.iter().any(|n| n.id == id)
                    || t.never_pins_nor_checks(role, from, self.king, spare)
            });
        let lined_up = self.named[1..].iter().any(|n| {
            n.role != Role::King && empty_attacks(Color::White, n.role, n.sq).contains(self.king)
        });
        (all_named && !lined_up).then(|| self.named[0])
    }

    /// Whether distinct Black units can stand on every square of
    /// `blocks` within the spare moves, each in one of the roles given
    /// with its square.
    fn harmless_blocks_fit(&mut self, blocks: &[(Square, u8)], pawns_capture: bool) -> bool {
        let mut costs = [[FAR; 16]; 8];
        for (row, &(f, roles)) in costs.iter_mut().zip(blocks) {
            let slot = (usize::from(pawns_capture) * 64 + f.to_usize()) * HARMLESS_ROLES
                + usize::from(roles);
            *row = *self.block_rows[slot].get_or_insert_with(|| {
                let mut row = [FAR; 16];
                for (c, &(role, from)) in row.iter_mut().zip(self.black.units()) {
                    *c = block_dist(self.black.t, role, from, f, roles, pawns_capture);
                }
                row
            });
        }
        let n = self.black.n_units;
        cheapest_assignment(&costs[..blocks.len()], n, 0, 0, u32::from(self.spare))
    }
}

/// Moves for a Black pawn on `from` to stand on `to` as `role`
/// without capturing: straight down its file, promoting on the first
/// rank for any other role. (With every White unit but the king in
/// the picture there is nothing a Black pawn could take: named units
/// stand in the mate.)
fn pawn_dist_without_captures(t: &Tables, from: Square, role: Role, to: Square) -> u8 {
    let rank = from.rank() as u8;
    // A pawn from its home rank may double-step once it goes two ranks.
    let steps = |ranks: u8| {
        if rank == 6 && ranks >= 2 {
            ranks - 1
        } else {
            ranks
        }
    };
    if role == Role::Pawn {
        let ranks = rank.saturating_sub(to.rank() as u8);
        return if to == from {
            0
        } else if to.file() == from.file() && ranks > 0 && to.rank() as u8 != 0 {
            steps(ranks)
        } else {
            FAR
        };
    }
    let promotion = Square::from_coords(from.file(), shakmaty::Rank::First);
    let after = t.state_dist(Color::Black, role, promotion, role, to);
    steps(rank).saturating_add(after)
}

/// Moves for a Black unit now `role` on `from` to stand on `f` in one of
/// `roles` (bit `role as usize`); its pawns never capture unless
/// `pawns_capture` (see [`pawn_dist_without_captures`]).
fn block_dist(
    t: &Tables,
    role: Role,
    from: Square,
    f: Square,
    roles: u8,
    pawns_capture: bool,
) -> u8 {
    final_roles(role)
        .iter()
        .filter(|&&r| roles & 1 << r as usize != 0)
        .map(|&r| match role {
            Role::Pawn if !pawns_capture => pawn_dist_without_captures(t, from, r, f),
            _ => t.state_dist(Color::Black, role, from, r, f),
        })
        .min()
        .unwrap_or(FAR)
}

/// The roles (bit `role as usize`) a Black unit may have on `f` without
/// parrying `check` on `king` (see [`parries`]).
fn harmless_roles(f: Square, check: Placed, king: Square) -> u8 {
    final_roles(Role::Pawn)
        .iter()
        .filter(|&&r| !parries(r, f, check, king))
        .fold(0, |roles, &r| roles | 1 << r as usize)
}

/// The roles a unit of `role` may have later (a pawn's promotions).
fn final_roles(role: Role) -> &'static [Role] {
    match role {
        Role::Pawn => &[
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ],
        Role::Knight => &[Role::Knight],
        Role::Bishop => &[Role::Bishop],
        Role::Rook => &[Role::Rook],
        Role::Queen => &[Role::Queen],
        Role::King => &[Role::King],
    }
}

/// Whether a Black unit of `role` on `f` could parry `check` on `king`
/// by a move no other unit can obstruct: taking the checker or stepping
/// between it and the king with a knight's jump, a pawn's single step or
/// a step to a neighbouring square.
fn parries(role: Role, f: Square, check: Placed, king: Square) -> bool {
    let unobstructed = |to: Square| !is_slider(role) || f.distance(to) == 1;
    let captures = empty_attacks(Color::Black, role, f);
    if captures.contains(check.sq) && unobstructed(check.sq) {
        return true;
    }
    if !is_slider(check.role) {
        return false;
    }
    let steps = match role {
        Role::Pawn => f.offset(-8).map_or(Bitboard::EMPTY, Bitboard::from),
        _ => captures,
    };
    (steps & attacks::between(check.sq, king))
        .into_iter()
        .any(unobstructed)
}

/// Whether `costs[i][u]` (square `i` filled by unit `u`, of `units`)
/// admits distinct units for squares `i..` within `budget`, units in
/// `used` taken.
fn cheapest_assignment(costs: &[BlockRow], units: usize, i: usize, used: u32, budget: u32) -> bool {
    let Some(row) = costs.get(i) else {
        return true;
    };
    row[..units].iter().enumerate().any(|(u, &c)| {
        used & 1 << u == 0
            && u32::from(c) <= budget
            && cheapest_assignment(costs, units, i + 1, used | 1 << u, budget - u32::from(c))
    })
}

#[cfg(test)]
mod tests {
    use super::super::help_bound::may_mate;
    use super::*;
    use shakmaty::uci::UciMove;

    /// The corpus rows as maps from header to field (fields may be quoted).
    fn corpus() -> Vec<std::collections::HashMap<String, String>> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mate.csv");
        let text = std::fs::read_to_string(path).unwrap();
        let split = |line: &str| {
            let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match (c, quoted) {
                    ('"', true) if chars.peek() == Some(&'"') => {
                        field.push('"');
                        chars.next();
                    }
                    ('"', _) => quoted = !quoted,
                    (',', false) => fields.push(std::mem::take(&mut field)),
                    _ => field.push(c),
                }
            }
            fields.push(field);
            fields
        };
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header = split(lines.next().unwrap());
        lines
            .map(|l| header.iter().cloned().zip(split(l)).collect())
            .collect()
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
        for row in rows.iter().filter(|r| r["genre"] == "help") {
            let id = &row["id"];
            let start = position(&row["fen"]);
            let stip: crate::Stipulation = row["stipulation"].parse().unwrap();
            let crate::Stipulation::Help { plies } = stip else {
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
            let crate::Stipulation::Help { plies } = stip else {
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
