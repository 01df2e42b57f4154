//! The oracle: deliberately simple reference solvers, and a generator of
//! test problems rich in the special rules, to check the production solvers
//! against.
//!
//! Every shortcut of the production search (mate pictures, move-count
//! bounds, the transposition table, killers, material recognisers, the
//! parallel drivers) is a claim that no solution is lost. The reference
//! solvers here make no such claim: they walk the whole game tree to the
//! stipulated length with shakmaty's legal move generator and nothing else,
//! so each is short enough to be checked by reading it. [`check`] compares
//! the two on generated problems (see [`generate`]); a disagreement is a
//! bug in the production solver (or, if ever, in the generator's rules).

pub mod check;
pub mod generate;
pub mod reference;

pub use check::{run, run_legality, Config, Summary};

/// A small deterministic random number generator (SplitMix64): the same
/// seed gives the same problems on every machine, so a failing case can
/// be replayed from its seed and index.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// An index into `weights`, drawn in proportion to them (not all 0).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut x = self.next_u64() % total;
        for (i, &w) in weights.iter().enumerate() {
            if x < u64::from(w) {
                return i;
            }
            x -= u64::from(w);
        }
        weights.len() - 1
    }
}
