//! The least assignment of Black units to a picture's blocks, one unit a
//! block, that the distinct-blocker test (`distinct`) prices.

use super::distinct::KindCosts;

/// Blocks a picture has at most: the king's flights.
pub(super) const MAX_BLOCKS: usize = 8;

/// Black units assigned to a picture's blocks, one unit a block: the
/// least total cost, by branch and bound over the blocks in turn.
pub(super) struct Assignment<'a> {
    /// The node's costs by kind.
    pub(super) costs: &'a [KindCosts],
    /// The blocks' kinds.
    pub(super) kinds: &'a [usize],
    /// The unit a move under test moved, and its costs by block after it.
    pub(super) moved: Option<(usize, [u8; MAX_BLOCKS])>,
    pub(super) n_units: usize,
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
    pub(super) fn within(&self, budget: u32) -> bool {
        // `rest[i]`: the sum of blocks `i..`'s cheapest costs, a bound on
        // what they add.
        let mut rest = [0u32; MAX_BLOCKS + 1];
        let mut cheapest = 0u16;
        // Per unit, the sum and the largest of (second - cheapest) over
        // the blocks it is cheapest for, and the units cheapest for two
        // blocks or more.
        let mut gaps = [(0u32, 0u32); 16];
        let mut shared = 0u16;
        for (i, &k) in self.kinds.iter().enumerate().rev() {
            let ((cost, unit), second) = match self.moved {
                Some((m, now)) => self.costs[k].best_with(m, now[i]),
                None => (self.costs[k].best, self.costs[k].second.0),
            };
            rest[i] = rest[i + 1] + u32::from(cost);
            let gap = u32::from(second) - u32::from(cost);
            let g = &mut gaps[unit];
            if cheapest & 1 << unit == 0 {
                *g = (gap, gap);
            } else {
                shared |= 1 << unit;
                *g = (g.0 + gap, g.1.max(gap));
            }
            cheapest |= 1 << unit;
        }
        // Each block its cheapest unit, when those are distinct, is the
        // least assignment.
        if shared == 0 {
            return rest[0] <= budget;
        }
        // Of the blocks that share their cheapest unit, all but one get
        // another unit, at their second cheapest's cost or more.
        let mut bound = rest[0];
        while shared != 0 {
            let (sum, largest) = gaps[shared.trailing_zeros() as usize];
            bound += sum - largest;
            shared &= shared - 1;
        }
        if bound > budget {
            return false;
        }
        // A block's unit costing more than `slack` over its cheapest
        // leaves the others too little: only the rest are tried.
        let slack = budget - rest[0];
        let mut candidates = [0u16; MAX_BLOCKS];
        for (i, units) in candidates[..self.kinds.len()].iter_mut().enumerate() {
            let within = rest[i] - rest[i + 1] + slack;
            for u in 0..self.n_units {
                if u32::from(self.cost(i, u)) <= within {
                    *units |= 1 << u;
                }
            }
        }
        let bounds = Bounds {
            candidates,
            rest,
            budget,
        };
        self.fill(&bounds, 0, 0, 0, &mut 0)
    }

    /// Whether blocks `i..` can take distinct units of their candidates
    /// not `used`, within the budget with `spent` spent.
    fn fill(&self, bounds: &Bounds, i: usize, used: u16, spent: u32, branches: &mut u32) -> bool {
        if i == self.kinds.len() {
            return true;
        }
        let mut free = bounds.candidates[i] & !used;
        while free != 0 {
            let u = free.trailing_zeros() as usize;
            free &= free - 1;
            let d = u32::from(self.cost(i, u));
            if spent + d + bounds.rest[i + 1] > bounds.budget {
                continue;
            }
            *branches += 1;
            if *branches > MAX_BRANCHES
                || self.fill(bounds, i + 1, used | 1 << u, spent + d, branches)
            {
                return true;
            }
        }
        false
    }
}

/// What bounds an assignment's search.
struct Bounds {
    /// Per block, the units that may fill it within the budget.
    candidates: [u16; MAX_BLOCKS],
    /// `rest[i]`: the sum of blocks `i..`'s cheapest costs.
    rest: [u32; MAX_BLOCKS + 1],
    budget: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    /// The least total cost of blocks `i..` given distinct units not in
    /// `used`, by trying every unit for every block.
    fn least(a: &Assignment, i: usize, used: u16) -> u32 {
        if i == a.kinds.len() {
            return 0;
        }
        (0..a.n_units)
            .filter(|u| used & 1 << u == 0)
            .map(|u| u32::from(a.cost(i, u)) + least(a, i + 1, used | 1 << u))
            .min()
            .unwrap_or(u32::MAX / 2)
    }

    /// On random costs (far units included, a moved unit or none), the
    /// search never says no where the least assignment fits, and where
    /// its branches cannot run out (few units and blocks) it says no
    /// wherever that does not fit.
    #[test]
    fn the_search_agrees_with_every_assignment_tried() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let (mut fits, mut refused) = (0, 0);
        for _ in 0..20_000 {
            let n_units = 1 + next(10) as usize;
            let n_blocks = 2 + next(4) as usize;
            let cost = |r: u64| match r {
                0 => crate::mate::tablegen::FAR,
                c => c as u8 - 1,
            };
            let units: Vec<(Role, Square)> = (0..n_units)
                .map(|u| (Role::Knight, Square::new(u as u32)))
                .collect();
            let table: Vec<Vec<u8>> = (0..n_blocks)
                .map(|_| (0..n_units).map(|_| cost(next(8))).collect())
                .collect();
            let costs: Vec<KindCosts> = table
                .iter()
                .map(|row| KindCosts::of(&units, |_, sq| row[sq.to_usize()]))
                .collect();
            let kinds: Vec<usize> = (0..n_blocks).collect();
            let moved = (next(2) == 0).then(|| {
                let mut now = [crate::mate::tablegen::FAR; MAX_BLOCKS];
                for c in &mut now[..n_blocks] {
                    *c = cost(next(8));
                }
                (next(n_units as u64) as usize, now)
            });
            let a = Assignment {
                costs: &costs,
                kinds: &kinds,
                moved,
                n_units,
            };
            let budget = next(14) as u32;
            let least = least(&a, 0, 0);
            let said = a.within(budget);
            if least <= budget {
                assert!(said, "{table:?} {moved:?} {budget}");
                fits += 1;
            } else if n_units <= 4 && n_blocks <= 3 {
                assert!(!said, "{table:?} {moved:?} {budget}: {least}");
                refused += 1;
            }
        }
        assert!(fits > 2_000 && refused > 2_000, "{fits} {refused}");
    }
}
