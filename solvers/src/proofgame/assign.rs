//! Minimum-cost assignment (the Hungarian method with potentials), used to
//! match the units on the board to the units of the diagram.

/// Largest matrix side (a side has at most 16 units).
pub const MAX_N: usize = 16;

/// Cost that stands for "impossible". Sums of up to 16 of these still fit.
pub const INF: i32 = 1 << 20;

/// The least total cost of a perfect matching of rows to columns of the
/// square matrix `cost` (row-major, `n × n`), or `None` when every matching
/// uses an impossible pair.
pub fn min_cost(cost: &[i32], n: usize) -> Option<i32> {
    if let Some(total) = row_minima_matching(cost, n).or_else(|| column_minima_matching(cost, n)) {
        return (total < INF).then_some(total);
    }
    min_cost_with_duals(cost, n).map(|(total, _)| total)
}

/// The sum of the row minima, when every row can take a column of its
/// minimum without two rows sharing one: no matching costs less than that
/// sum, so it is then the optimum. Most matrices of the search are like
/// that (units already on their targets, free captures), and this check is
/// far cheaper than the full method.
fn row_minima_matching(cost: &[i32], n: usize) -> Option<i32> {
    let mut used = 0u32;
    let mut total = 0i32;
    for i in 0..n {
        let row = &cost[i * n..(i + 1) * n];
        let least = *row.iter().min()?;
        let j = (0..n).find(|&j| used & (1 << j) == 0 && row[j] == least)?;
        used |= 1 << j;
        total = total.saturating_add(least);
    }
    Some(total.min(INF))
}

/// [`row_minima_matching`] by columns: the sum of the column minima, when
/// every column can take a row of its minimum without two columns sharing
/// one. Where a few units compete for the same targets the rows' check
/// fails, and often this one does not.
fn column_minima_matching(cost: &[i32], n: usize) -> Option<i32> {
    let mut used = 0u32;
    let mut total = 0i32;
    for j in 0..n {
        let least = (0..n).map(|i| cost[i * n + j]).min()?;
        let i = (0..n).find(|&i| used & (1 << i) == 0 && cost[i * n + j] == least)?;
        used |= 1 << i;
        total = total.saturating_add(least);
    }
    Some(total.min(INF))
}

/// Dual potentials of an optimal matching: `u[i] + v[j] <= cost[i][j]`
/// for every pair, with equality on the matching, so any perfect matching
/// that uses the pair `(i, j)` costs at least the optimum plus the reduced
/// cost `cost[i][j] - u[i] - v[j]` (LP duality).
#[derive(Debug, Clone, Copy)]
pub struct Duals {
    u: [i32; MAX_N + 1],
    v: [i32; MAX_N + 1],
}

impl Duals {
    /// How much more than the optimum a matching that pairs row `i` with
    /// column `j` costs at least.
    pub fn reduced(&self, cost: &[i32], n: usize, i: usize, j: usize) -> i64 {
        i64::from(cost[i * n + j] - self.u[i + 1] - self.v[j + 1])
    }

    /// The potential of row `i`.
    pub fn row(&self, i: usize) -> i32 {
        self.u[i + 1]
    }

    /// The potential of column `j`.
    pub fn column(&self, j: usize) -> i32 {
        self.v[j + 1]
    }
}

/// [`min_cost`] with the dual potentials that prove it.
pub fn min_cost_with_duals(cost: &[i32], n: usize) -> Option<(i32, Duals)> {
    // Potentials stay within the sum of n costs, far inside i32.
    let mut u = [0i32; MAX_N + 1];
    let mut v = [0i32; MAX_N + 1];
    if n == 0 {
        return Some((0, Duals { u, v }));
    }
    assert!(n <= MAX_N, "at most {MAX_N} rows");
    // Classic O(n^3) shortest-augmenting-path formulation; index 0 is the
    // virtual column that starts each augmentation. Fixed-size arrays: this
    // runs at nearly every node of the search.
    let mut p = [0usize; MAX_N + 1];
    let mut way = [0usize; MAX_N + 1];
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0;
        let mut minv = [i32::MAX; MAX_N + 1];
        let mut used = [false; MAX_N + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = i32::MAX;
            let mut j1 = 0;
            for j in 1..=n {
                if !used[j] {
                    let cur = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=n {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let total: i64 = (1..=n)
        .map(|j| i64::from(cost[(p[j] - 1) * n + (j - 1)]))
        .sum();
    (total < i64::from(INF)).then_some((total as i32, Duals { u, v }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation, for comparison on small matrices.
    fn brute(cost: &[i32], n: usize) -> Option<i32> {
        fn go(cost: &[i32], n: usize, row: usize, used: &mut Vec<bool>) -> i64 {
            if row == n {
                return 0;
            }
            let mut best = i64::MAX;
            for j in 0..n {
                if !used[j] {
                    used[j] = true;
                    let rest = go(cost, n, row + 1, used);
                    best = best.min(rest.saturating_add(i64::from(cost[row * n + j])));
                    used[j] = false;
                }
            }
            best
        }
        let best = go(cost, n, 0, &mut vec![false; n]);
        (best < i64::from(INF)).then_some(best as i32)
    }

    /// The cheapest matching that pairs `i` with `j`.
    fn brute_forced(cost: &[i32], n: usize, i: usize, j: usize) -> Option<i32> {
        let mut forced = cost.to_vec();
        for k in 0..n {
            if k != j {
                forced[i * n + k] = INF;
            }
        }
        brute(&forced, n)
    }

    #[test]
    fn agrees_with_brute_force() {
        let mut rng = crate::testing::Lcg(12345);
        for n in 1..=6 {
            for _ in 0..200 {
                let cost: Vec<i32> = (0..n * n)
                    .map(|_| match rng.next(10) {
                        0 | 1 => INF,
                        k => k as i32,
                    })
                    .collect();
                assert_eq!(min_cost(&cost, n), brute(&cost, n), "{cost:?}");
                if let Some((total, duals)) = min_cost_with_duals(&cost, n) {
                    // Forcing a pair costs exactly the optimum plus at least
                    // its reduced cost, and never less.
                    for i in 0..n {
                        for j in 0..n {
                            let rc = duals.reduced(&cost, n, i, j);
                            assert!(rc >= 0, "{cost:?}");
                            if let Some(forced) = brute_forced(&cost, n, i, j) {
                                assert!(i64::from(forced) >= i64::from(total) + rc, "{cost:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}
