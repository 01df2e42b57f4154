//! The index seen slice by slice: a pawn table is generated one pawn
//! placement (a *slice*) at a time, so a slot splits into its slice and its
//! place in the slice (see [`Layout::encode_split`]).

use shakmaty::Role;

use super::{group_rank, Layout, Placement, MAX_UNITS, TRANSFORMS};

impl Layout {
    /// Pawn placements a table has (the product of its pawn groups' sizes;
    /// 1 without pawns). A pawn table is generated slice by slice, one
    /// slice per pawn placement: see [`Layout::encode_split`].
    pub fn pawn_configs(&self) -> u32 {
        self.pawn_configs
    }

    /// Slots of one slice: [`Layout::size`] over [`Layout::pawn_configs`].
    pub fn rest_size(&self) -> u64 {
        self.size() / u64::from(self.pawn_configs())
    }

    /// The slot of `p` split into its slice (the pawn groups' ranks, mixed
    /// radix in group order) and its place in the slice (side to move, king
    /// pair and the other groups' ranks, in the order of the full index).
    /// Without pawns the slice is 0 and the place is [`Layout::encode`].
    /// With pawns only one symmetry applies, so no minimum is taken.
    pub fn encode_split(&self, p: &Placement) -> (u32, u64) {
        if !self.material.has_pawns() {
            return (0, self.encode(p));
        }
        let (wk, bk) = (p.squares[0], p.squares[1]);
        let mask = self.symmetries[usize::from(wk) * 64 + usize::from(bk)];
        debug_assert!(mask.count_ones() == 1, "kings adjacent or on one square");
        let map = &TRANSFORMS[mask.trailing_zeros() as usize];
        let (wk, bk) = (map[usize::from(wk)], map[usize::from(bk)]);
        let mut rest = u64::from(self.pair_index[usize::from(wk) * 64 + usize::from(bk)]);
        let mut config = 0u64;
        for group in &self.groups {
            let r = group_rank(group, map, p);
            if group.piece.role == Role::Pawn {
                config = config * group.size + r;
            } else {
                rest = rest * group.size + r;
            }
        }
        if !p.white_to_move {
            rest += self.rest_per_side();
        }
        (config as u32, rest)
    }

    /// [`Layout::encode_split`] of `q`, which is `p` with the unit in
    /// `slot` moved and the other side to move, where `(config, rest)` is
    /// the split slot of `p` (in stored orientation): a piece's move by
    /// [`Layout::place_delta`] where it applies, a pawn's by its group's
    /// digit of the slice number. The generator's hot path saves a full
    /// encode.
    pub fn encode_split_moved(
        &self,
        (config, rest): (u32, u64),
        p: &Placement,
        slot: usize,
        q: &Placement,
    ) -> (u32, u64) {
        if !self.material.has_pawns() {
            return self.encode_split(q);
        }
        if self.piece(slot).role != Role::Pawn {
            return match self.place_delta(p, slot, q.squares[slot]) {
                Some(delta) => (config, rest.wrapping_add_signed(delta)),
                None => self.encode_split(q),
            };
        }
        // A pawn: its group's digit in the slice number changes.
        let group = self.group_of(slot);
        let mut within = if p.white_to_move {
            rest
        } else {
            rest - self.rest_per_side()
        };
        if !q.white_to_move {
            within += self.rest_per_side();
        }
        let config = u64::from(config) + group.split_stride * group.rank(q)
            - group.split_stride * group.rank(p);
        (config as u32, within)
    }

    fn rest_per_side(&self) -> u64 {
        self.rest_per_side
    }

    /// The placement stored at place `rest` of slice `config` (see
    /// [`Layout::encode_split`]), `None` when two units would share a
    /// square.
    pub fn decode_split(&self, config: u32, rest: u64) -> Option<Placement> {
        let digits = self.split_digits(config, rest);
        self.with_kings(digits.squares, digits.pair, digits.white_to_move)
    }

    /// Place `rest` of slice `config` taken apart: every group's rank and
    /// its units' squares, the king pair and the side to move.
    #[inline]
    fn split_digits(&self, config: u32, rest: u64) -> SplitDigits {
        let per_side = self.rest_per_side();
        let white_to_move = rest < per_side;
        let mut rest = if white_to_move { rest } else { rest - per_side };
        let mut config = u64::from(config);
        let mut squares = [0u8; MAX_UNITS];
        let mut ranks = [0usize; MAX_UNITS];
        for (g, group) in self.groups.iter().enumerate().rev() {
            let number = if group.piece.role == Role::Pawn {
                &mut config
            } else {
                &mut rest
            };
            let (q, r) = group.divisor.div_rem(*number);
            *number = q;
            ranks[g] = r as usize;
            group.place(r as usize, &mut squares);
        }
        SplitDigits {
            squares,
            ranks,
            pair: rest,
            white_to_move,
        }
    }

    /// [`Layout::decode_split`] of places `start`, `start + 1`, … of slice
    /// `config`, `count` of them, each passed to `visit` in turn with its
    /// place: the places are counted up digit by digit like an odometer,
    /// so that a run costs an addition per place instead of a division per
    /// group (the generator's first pass decodes every slot of a table).
    pub fn decode_run(
        &self,
        config: u32,
        start: u64,
        count: usize,
        mut visit: impl FnMut(u64, Option<Placement>),
    ) {
        let SplitDigits {
            mut squares,
            mut ranks,
            mut pair,
            mut white_to_move,
        } = self.split_digits(config, start);
        for place in start..start + count as u64 {
            visit(place, self.with_kings(squares, pair, white_to_move));
            // The next place: the last group's digit up by one, carried
            // into the groups before it (pawn groups are the slice's and
            // stay), then the king pair and the side to move.
            let carried = self
                .groups
                .iter()
                .enumerate()
                .rev()
                .filter(|(_, group)| group.piece.role != Role::Pawn)
                .all(|(g, group)| {
                    ranks[g] += 1;
                    if ranks[g] as u64 == group.size {
                        ranks[g] = 0;
                    }
                    group.place(ranks[g], &mut squares);
                    ranks[g] == 0
                });
            if carried {
                pair += 1;
                if pair == self.king_pairs() as u64 {
                    pair = 0;
                    white_to_move = false;
                }
            }
        }
    }

    /// The full index of place `rest` of slice `config`.
    pub fn join(&self, config: u32, rest: u64) -> u64 {
        let per_side = self.rest_per_side();
        let side = rest / per_side;
        let mut rest = rest % per_side;
        let mut config = u64::from(config);
        let mut index = 0;
        for group in self.groups.iter().rev() {
            let digits = if group.piece.role == Role::Pawn {
                &mut config
            } else {
                &mut rest
            };
            index += (*digits % group.size) * group.stride;
            *digits /= group.size;
        }
        let per_pair = self.per_side / self.pairs.len() as u64;
        side * self.per_side + rest * per_pair + index
    }

    /// The squares of the pawns in slice `config`, by placement slot (the
    /// other slots 0), and which slots hold pawns.
    pub fn config_pawns(&self, config: u32) -> ([u8; MAX_UNITS], Vec<usize>) {
        let mut config = u64::from(config);
        let mut squares = [0u8; MAX_UNITS];
        let mut slots = Vec::new();
        for group in self.groups.iter().rev() {
            if group.piece.role != Role::Pawn {
                continue;
            }
            let r = (config % group.size) as usize;
            config /= group.size;
            for (i, &s) in group.unrank[r][..group.count].iter().enumerate() {
                squares[group.first + i] = s + group.domain_offset();
                slots.push(group.first + i);
            }
        }
        (squares, slots)
    }

    /// The slice of the pawns on `squares` (by placement slot, as
    /// [`Layout::config_pawns`] gives them), in stored orientation.
    pub fn config_of(&self, squares: &[u8; MAX_UNITS]) -> u32 {
        let p = Placement {
            squares: *squares,
            white_to_move: true,
        };
        let mut config = 0u64;
        for group in &self.groups {
            if group.piece.role == Role::Pawn {
                config = config * group.size + group_rank(group, &TRANSFORMS[0], &p);
            }
        }
        config as u32
    }
}

/// See [`Layout::split_digits`].
struct SplitDigits {
    squares: [u8; MAX_UNITS],
    /// By group: its rank.
    ranks: [usize; MAX_UNITS],
    pair: u64,
    white_to_move: bool,
}
