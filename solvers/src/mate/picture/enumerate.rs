//! Enumerating a problem's pictures: each Black king square, the White
//! units' final states that mate there, and the flights Black must block.

use crate::fxhash::FxHashMap;

use super::*;

/// Every final state of a White unit within `moves` that covers part of
/// the zone from a square it may stand on, cheapest first.
pub(super) fn unit_options(
    t: &Tables,
    castling: &Castling,
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
            let cost = castling.least(Color::White, role, from, |s| {
                t.state_dist(Color::White, role, s, r, sq)
            });
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
    // Cheapest first: the enumeration stops at the first one over its
    // budget.
    out.sort_by_key(|o| o.cost);
    out
}

/// Per White unit `i` (as in `options`) and budget `b`, at
/// `i * (moves + 1) + b`: the squares that units `i` and after, the
/// checker left out, cover from their options within `b` moves each.
pub(super) fn rest_covers(options: &[Vec<Candidate>], checker: usize, moves: u8) -> Vec<Bitboard> {
    let stride = usize::from(moves) + 1;
    let mut rest = vec![Bitboard::EMPTY; (options.len() + 1) * stride];
    for i in (0..options.len()).rev() {
        for b in 0..stride {
            let own = if i == checker {
                Bitboard::EMPTY
            } else {
                options[i]
                    .iter()
                    .take_while(|o| usize::from(o.cost) <= b)
                    .fold(Bitboard::EMPTY, |acc, o| acc | o.covers)
            };
            rest[i * stride + b] = own | rest[(i + 1) * stride + b];
        }
    }
    rest
}

/// The cheapest Black blocker per kind, computed as asked.
pub(super) struct BlackBlocks<'a> {
    pub(super) t: &'a Tables,
    /// The position's castling: a Black rook that may castle has a second
    /// way to its blocks.
    pub(super) castling: Castling,
    pub(super) units: [(Role, Square); 16],
    pub(super) n_units: usize,
    pub(super) cost: [u8; MAX_KINDS],
}

pub(super) const UNKNOWN: u8 = FAR - 1;

/// Black's units but the king, role by role (at most sixteen: pictures
/// are only made for positions with sixteen units a side or fewer), and
/// how many. Read from the role bitboards: looking up each square's role
/// was a third of a move test's setup.
pub(super) fn black_units(board: &shakmaty::Board) -> ([(Role, Square); 16], usize) {
    let mut units = [(Role::Pawn, Square::A1); 16];
    let mut n = 0;
    for role in [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ] {
        for sq in board.by_role(role) & board.black() {
            if let Some(slot) = units.get_mut(n) {
                *slot = (role, sq);
                n += 1;
            }
        }
    }
    (units, n)
}

impl<'a> BlackBlocks<'a> {
    pub(super) fn new(t: &'a Tables, pos: &Chess) -> BlackBlocks<'a> {
        let (units, n_units) = black_units(pos.board());
        BlackBlocks {
            t,
            castling: Castling::of(pos),
            units,
            n_units,
            cost: [UNKNOWN; MAX_KINDS],
        }
    }

    pub(super) fn units(&self) -> &[(Role, Square)] {
        &self.units[..self.n_units]
    }

    /// Per square, its cheapest blocker's moves to stand there.
    pub(super) fn cheapest_by_square(&self) -> [u8; 64] {
        Square::ALL.map(|f| {
            self.units()
                .iter()
                .map(|&(r, sq)| self.dist(r, sq, |s| self.t.reach(Color::Black, r, s, f)))
                .min()
                .unwrap_or(FAR)
        })
    }

    /// `dist` from the Black unit `role` on `sq`, castling included.
    pub(super) fn dist(&self, role: Role, sq: Square, dist: impl Fn(Square) -> u8) -> u8 {
        self.castling.least(Color::Black, role, sq, dist)
    }

    pub(super) fn cost(&mut self, pictures: &Pictures, k: usize) -> u8 {
        if self.cost[k] == UNKNOWN {
            self.cost[k] = self.cheapest(pictures, k);
        }
        self.cost[k]
    }

    /// The cheapest Black unit's moves to fill kind `k`. Worked out once
    /// per kind and node, and never inlined: inlined into the filter's
    /// loop over pictures ([`BlackBlocks::cost_within`]), it made that
    /// loop dearer or cheaper with changes elsewhere in the crate.
    #[inline(never)]
    fn cheapest(&self, pictures: &Pictures, k: usize) -> u8 {
        self.units()
            .iter()
            .map(|&(r, sq)| self.dist(r, sq, |s| pictures.kind_dist(self.t, k, r, s)))
            .min()
            .unwrap_or(FAR)
    }

    /// Moves for distinct Black units to fill all of `kinds`, when within
    /// `moves`. (A lower bound: each kind's cheapest unit, counted once
    /// each.)
    pub(super) fn cost_within(
        &mut self,
        pictures: &Pictures,
        kinds: Kinds,
        moves: u32,
    ) -> Option<u32> {
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

pub(super) struct Enumeration<'a, 'b> {
    pub(super) king: Square,
    pub(super) flights: Bitboard,
    pub(super) white: &'a [(u8, Role, Square)],
    pub(super) options: &'a [Vec<Candidate>],
    pub(super) white_moves: u8,
    pub(super) spare: u8,
    pub(super) black: &'a BlackBlocks<'b>,
    /// [`BlackBlocks::cheapest_by_square`].
    pub(super) cheapest: &'a [u8; 64],
    /// The unit giving check (already named first).
    pub(super) checker: usize,
    /// [`rest_covers`] for this checker.
    pub(super) rest: Vec<Bitboard>,
    pub(super) steps: u32,
    pub(super) named: Vec<Placed>,
    pub(super) out: &'a mut Vec<Picture>,
    /// The harmless blocker kinds so far (see [`Pictures::harmless`]).
    pub(super) harmless: &'a mut Vec<HarmlessBlock>,
    /// By whether pawns may capture, flight and roles
    /// (`(captures * 64 + sq) * HARMLESS_ROLES + roles`), each Black unit's
    /// moves to block it in one of the roles, once asked for. A map, not a
    /// table of every key: a problem asks for a few dozen of the 16,384,
    /// and a table's pages cost a one-shot solve more than the lookups.
    pub(super) block_rows: &'a mut BlockRows,
}

/// [`Enumeration::block_rows`]' map: its keys are small numbers, and
/// the default hasher's rounds were 40 % of the lookups' cost (a few
/// thousand per h#3).
pub(super) type BlockRows = FxHashMap<usize, BlockRow>;

/// Role sets, as bits `1 << role as usize`.
pub(super) const HARMLESS_ROLES: usize = 1 << 7;

/// Per Black unit (as in [`BlackBlocks::units`]), moves to fill a block.
pub(super) type BlockRow = [u8; 16];

impl Enumeration<'_, '_> {
    /// Chooses, for unit `i` on, a final state or none; `false` once the
    /// pictures are too many.
    pub(super) fn go(
        &mut self,
        i: usize,
        covered: Bitboard,
        occupied: Bitboard,
        cost: u32,
    ) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return false;
        }
        if i == self.white.len() {
            self.finish(covered, occupied, cost);
            return self.out.len() <= MAX_PICTURES;
        }
        // The flights no unit still to choose can cover need blocks: when
        // those fail as a finished picture's would, so does every picture
        // below (choices only cover more).
        let budget = usize::from(self.white_moves) - cost as usize;
        let must =
            self.flights & !covered & !self.rest[i * (usize::from(self.white_moves) + 1) + budget];
        if (must & occupied).any()
            || must.count() > self.black.n_units
            || self.plain_block_cost(must) > u32::from(self.spare)
        {
            return true;
        }
        if !self.go(i + 1, covered, occupied, cost) {
            return false;
        }
        if i == self.checker {
            return true;
        }
        for o in &self.options[i] {
            let cost = cost + u32::from(o.cost);
            if cost > u32::from(self.white_moves) {
                break;
            }
            if (o.covers & !covered).is_empty() || occupied.contains(o.sq) {
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

    pub(super) fn finish(&mut self, covered: Bitboard, occupied: Bitboard, cost: u32) {
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
        // Each block costs at least its square's cheapest blocker's moves
        // (a harmless block no less), which rules out most combinations
        // before the dearer tests below.
        if hopeless(blocked) || self.plain_block_cost(blocked) > u32::from(self.spare) {
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
            None => self.plain_block_cost(blocked) <= u32::from(self.spare),
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

    /// Moves for Black to block `flights`, each by its cheapest blocker
    /// (a lower bound: one unit may be the cheapest of several).
    fn plain_block_cost(&self, flights: Bitboard) -> u32 {
        flights
            .into_iter()
            .map(|f| u32::from(self.cheapest[f.to_usize()]))
            .sum()
    }

    /// The flights the named units cover on an empty board but not once
    /// they stand on `occupied` (the named units' squares; the covers go
    /// through the king), leaving out those a unit the picture does not
    /// name could still cover within its `spare` moves. In a mate no unit
    /// covers those: the named units' rays stop at the named squares, and
    /// a unit left out would need more moves than there are.
    pub(super) fn occluded(&self, occupied: Bitboard, spare: u32) -> Bitboard {
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
                    let attack = self.black.castling.least(Color::White, role, from, |s| {
                        t.attack(Color::White, role, s, f)
                    });
                    u32::from(attack) <= spare
                })
            })
            .collect()
    }

    /// The kind of a block on `f` by one of `roles`: a harmless block, or
    /// the plain square once there are too many kinds.
    pub(super) fn harmless_kind(&mut self, f: Square, roles: u8, pawns_capture: bool) -> usize {
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
    pub(super) fn sole_check(&self, spare: u32) -> Option<Placed> {
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
    pub(super) fn harmless_blocks_fit(
        &mut self,
        blocks: &[(Square, u8)],
        pawns_capture: bool,
    ) -> bool {
        let mut costs = [[FAR; 16]; 8];
        for (row, &(f, roles)) in costs.iter_mut().zip(blocks) {
            let slot = (usize::from(pawns_capture) * 64 + f.to_usize()) * HARMLESS_ROLES
                + usize::from(roles);
            *row = *self.block_rows.entry(slot).or_insert_with(|| {
                let mut row = [FAR; 16];
                for (c, &(role, from)) in row.iter_mut().zip(self.black.units()) {
                    *c = self.black.dist(role, from, |s| {
                        block_dist(self.black.t, role, s, f, roles, pawns_capture)
                    });
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
pub(super) fn pawn_dist_without_captures(t: &Tables, from: Square, role: Role, to: Square) -> u8 {
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
pub(super) fn block_dist(
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
pub(super) fn harmless_roles(f: Square, check: Placed, king: Square) -> u8 {
    final_roles(Role::Pawn)
        .iter()
        .filter(|&&r| !parries(r, f, check, king))
        .fold(0, |roles, &r| roles | 1 << r as usize)
}

/// The roles a unit of `role` may have later (a pawn's promotions).
pub(super) fn final_roles(role: Role) -> &'static [Role] {
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
pub(super) fn parries(role: Role, f: Square, check: Placed, king: Square) -> bool {
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
pub(super) fn cheapest_assignment(
    costs: &[BlockRow],
    units: usize,
    i: usize,
    used: u32,
    budget: u32,
) -> bool {
    let Some(row) = costs.get(i) else {
        return true;
    };
    row[..units].iter().enumerate().any(|(u, &c)| {
        used & 1 << u == 0
            && u32::from(c) <= budget
            && cheapest_assignment(costs, units, i + 1, used | 1 << u, budget - u32::from(c))
    })
}
