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
    if n == 0 {
        return Some(0);
    }
    assert!(n <= MAX_N, "at most {MAX_N} rows");
    // Classic O(n^3) shortest-augmenting-path formulation; index 0 is the
    // virtual column that starts each augmentation. Fixed-size arrays: this
    // runs at nearly every node of the search.
    let mut u = [0i64; MAX_N + 1];
    let mut v = [0i64; MAX_N + 1];
    let mut p = [0usize; MAX_N + 1];
    let mut way = [0usize; MAX_N + 1];
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0;
        let mut minv = [i64::MAX; MAX_N + 1];
        let mut used = [false; MAX_N + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = i64::MAX;
            let mut j1 = 0;
            for j in 1..=n {
                if !used[j] {
                    let cur = i64::from(cost[(i0 - 1) * n + (j - 1)]) - u[i0] - v[j];
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
    (total < i64::from(INF)).then_some(total as i32)
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

    #[test]
    fn agrees_with_brute_force() {
        let mut seed = 12345u64;
        for n in 1..=6 {
            for _ in 0..200 {
                let cost: Vec<i32> = (0..n * n)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        match (seed >> 33) % 10 {
                            0 | 1 => INF,
                            k => k as i32,
                        }
                    })
                    .collect();
                assert_eq!(min_cost(&cost, n), brute(&cost, n), "{cost:?}");
            }
        }
    }
}
