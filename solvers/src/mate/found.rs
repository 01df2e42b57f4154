//! What a mate search answers: the keys or solution lines it found, what
//! it had proven when its budget ran out, why it could not start, and its
//! statistics.

use serde::{Deserialize, Serialize};

use crate::stipulation::Stipulation;

/// A first move that forces the goal, and in how many moves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    pub san: String,
    pub uci: String,
    /// Moves to the goal with best defence (shorter than stipulated = short solution).
    pub length: u32,
}

/// One helpmate solution: the whole line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// Numbered SAN, e.g. `1.Kb8 O-O 2.g2 Rf8#`.
    pub san: String,
    pub uci: Vec<String>,
}

/// What the solver found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Direct and self mates: every key.
    Keys(Vec<Key>),
    /// Helpmates: every solution.
    Lines(Vec<Line>),
}

/// The budget ran out; what was proven so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    pub found: Found,
    /// First moves fully examined, out of all.
    pub examined: usize,
    pub total: usize,
}

/// Why a problem cannot be solved at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("{0} is not a mate stipulation")]
    NotMate(Stipulation),
    #[error("{stipulation} needs {needed} to move in the diagram")]
    WrongSide {
        stipulation: Stipulation,
        needed: &'static str,
    },
}

/// Search statistics, for benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub nodes: u64,
    pub tt_hits: u64,
    /// Helpmate mate pictures enumerated (0: none, or too many to use).
    pub pictures: u64,
    /// Directmate nodes a recognizer proved to hold no win.
    pub recognized: u64,
}

impl Stats {
    pub(super) fn add(&mut self, other: Stats) {
        self.nodes += other.nodes;
        self.tt_hits += other.tt_hits;
        self.pictures = self.pictures.max(other.pictures);
        self.recognized += other.recognized;
    }
}
