//! The distinct-blocker test: a picture's blocks are squares that
//! distinct Black units fill at the end, so blocks that share their
//! cheapest unit cost more than the plain sum of cheapest blockers.

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

impl Pictures {
    /// The pictures of `alive` whose blocks distinct Black units can still
    /// fill within Black's moves left (with `left` plies to go), into
    /// `into`. A unit stands on one square at the end, so of the kinds
    /// whose cheapest blocker is the same unit at most one gets it; each
    /// other one costs at least its second cheapest blocker. The costs
    /// kept are the alive ones (their blocks the plain sum of cheapest
    /// blockers, which the move test updates move by move).
    pub(crate) fn distinct_blockers(
        &self,
        pos: &Chess,
        left: u8,
        alive: &[Costs],
        into: &mut Vec<Costs>,
    ) {
        into.clear();
        let t = tables();
        let black_moves = u32::from(left / 2);
        let blocks = BlackBlocks::new(t, pos);
        // Per kind, worked out as asked: the cheapest blocker's cost and
        // unit, the second's cost.
        let mut best = [(UNKNOWN, 0u8, UNKNOWN); MAX_KINDS];
        for c in alive {
            // A single block has its cheapest unit to itself.
            if c.kinds.count_ones() < 2 {
                into.push(*c);
                continue;
            }
            // Plain kinds are squares, distinct by their numbers; a
            // harmless block may share its square with another kind, whose
            // unit could then fill both: such a picture is kept as it is.
            if c.kinds >> SQUARE_KINDS != 0 && self.kinds_share_a_square(c.kinds) {
                into.push(*c);
                continue;
            }
            let mut total = 0u32;
            // Per unit: the sum and the largest of (second - best) over
            // the kinds it is cheapest for (set when `seen`), and the units
            // cheapest for two kinds or more.
            let mut extra = [(0u32, 0u32); 16];
            let (mut seen, mut shared) = (0u16, 0u16);
            for k in kinds_of(c.kinds) {
                if best[k].0 == UNKNOWN {
                    let (b, unit, second) =
                        two_cheapest(self, t, &blocks.castling, blocks.units(), k);
                    best[k] = (b, unit as u8, second);
                }
                let (b, unit, second) = best[k];
                total += u32::from(b);
                let gap = u32::from(second) - u32::from(b);
                let bit = 1 << unit;
                let e = &mut extra[usize::from(unit)];
                if seen & bit == 0 {
                    seen |= bit;
                    *e = (gap, gap);
                } else {
                    shared |= bit;
                    *e = (e.0 + gap, e.1.max(gap));
                }
            }
            while shared != 0 {
                let (sum, largest) = extra[shared.trailing_zeros() as usize];
                total += sum - largest;
                shared &= shared - 1;
            }
            if u32::from(c.king) + total <= black_moves {
                into.push(*c);
            }
        }
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
