//! The solution tree of a direct or self mate, as judges read it.
//!
//! Given a key, [`build`] lists what the solver proves about it:
//!
//! - the **threat**: what White would play if Black could pass (the key's
//!   position with Black's turn skipped; when that position is not legal,
//!   e.g. the key gives check, there is no threat), or **zugzwang** when
//!   White threatens nothing within the moves left;
//! - every **Black defence**, each with White's **continuations**: the White
//!   moves that reach the goal soonest after it, recursively down to the
//!   goal (for `#n`, n ≥ 3, each continuation again has Black's defences);
//!   a variation that reaches the goal before the stipulated length is
//!   **short**;
//! - the **duals** (several continuations after one defence), classified as
//!   in Fainshtein's k-mover model (seed 003, §3, "Duals"): a dual is
//!   **minor** when each of its continuations is forced (the only
//!   continuation) after another Black defence of the same cluster, i.e. the
//!   same White move's set of defences ("if A=7, B=8 and C=9, then the
//!   primary dual is minor"); otherwise it is **major**. Moves are compared
//!   by from-square, to-square and promotion (their UCI), so `Rde1` and
//!   `Re1` are the same move. The thesis names a dual by its ply (3-ply =
//!   primary, 5-ply = secondary; the deeper, the less serious); [`Dual::ply`]
//!   carries it;
//! - the **Black duals** of the same model: two defences of one cluster
//!   answered by the same (forced) White move;
//! - the **tries**: White first moves refuted by exactly one Black defence,
//!   with that refutation.
//!
//! Only the shortest continuations after a defence are listed (as Popeye
//! does): a longer move that also reaches the goal in time is not counted as
//! a dual. Threat lines get their own Black defences but no threat of their
//! own; their duals are classified on the tree but not listed in
//! [`Tree::duals`], which covers the solution proper.
//!
//! The size is bounded: the tree is built deeper and deeper (one White move
//! more each round, the solver's table making every round after the first
//! cheap) and the deepest one within [`Limits::max_variations`] is kept;
//! when the full tree does not fit, or the solver's deadline passes,
//! [`Tree::truncated`] says so, and White moves below the depth reached are
//! listed without their defences.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::{Genre, Solver};
use crate::stipulation::Stipulation;

mod cooks;
mod render;
use cooks::*;
pub use render::render;

/// The default bound on the number of Black defences listed in one tree.
pub const DEFAULT_MAX_VARIATIONS: usize = 200;

/// How much of the tree to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// At most this many Black defences (variations, threat lines included).
    pub max_variations: usize,
    /// Look for tries (costs a search of every other first move).
    pub tries: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_variations: DEFAULT_MAX_VARIATIONS,
            tries: true,
        }
    }
}

/// The solution tree of one key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tree {
    /// `#2`, `s#3`, ...
    pub stipulation: String,
    /// The key, with its threat and Black's defences below it.
    pub key: Play,
    /// White first moves refuted by exactly one Black defence.
    pub tries: Vec<Try>,
    /// Every dual of the solution (threat lines excepted), flattened.
    pub duals: Vec<Dual>,
    /// Every Black dual of the solution (threat lines excepted), flattened.
    pub black_duals: Vec<BlackDual>,
    /// Why the tree is not complete, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
}

/// A White move and the play that follows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Play {
    pub san: String,
    pub uci: String,
    /// White moves to the goal against best defence, this one included.
    pub length: u32,
    /// What White threatens after this move (the shortest threats); absent
    /// when Black is in check, when the goal is one move away or reached,
    /// or below the depth a truncated tree reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threat: Option<Vec<Play>>,
    /// No threat although Black could pass: Black is in zugzwang.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zugzwang: bool,
    /// Every Black reply (none when the move mates Black).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variations: Vec<Variation>,
}

/// A Black defence and White's answers to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variation {
    pub san: String,
    pub uci: String,
    /// White moves still needed after this defence (0 when the defence
    /// itself reaches the goal: a selfmate's mating move).
    pub length: u32,
    /// The goal comes sooner than the stipulation allows.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub short: bool,
    /// White's moves reaching the goal soonest; two or more = a dual.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub continuations: Vec<Play>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dual: Option<DualKind>,
    /// Another defence of the same White move has the same (forced) answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub black_dual: bool,
}

/// Fainshtein's classification of a dual.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DualKind {
    /// Each continuation is also the forced answer to another defence.
    Minor,
    /// Some continuation is forced nowhere else.
    Major,
}

impl DualKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DualKind::Minor => "minor",
            DualKind::Major => "major",
        }
    }
}

/// A try: `1.X? but 1...Y!`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Try {
    pub san: String,
    pub uci: String,
    pub refutation_san: String,
    pub refutation_uci: String,
}

/// One dual, with the line that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dual {
    /// The play up to the defence, e.g. `1.Qf2 Kd1`.
    pub line: String,
    /// The White continuations, numbered SAN, e.g. `["2.Qe1#", "2.Qd2#"]`.
    pub continuations: Vec<String>,
    pub kind: DualKind,
    /// The ply of the continuations: 3 = primary dual, 5 = secondary, ...
    pub ply: u32,
}

/// Black defences of one White move answered by the same White move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlackDual {
    /// The play up to the White move, e.g. `1.Qf2`.
    pub line: String,
    /// The defences, numbered SAN, e.g. `["1...Kd1", "1...Kc1"]`.
    pub defences: Vec<String>,
    /// Their common answer, e.g. `2.Qe1#`.
    pub continuation: String,
    /// That answer is the White move's threat: the defences merely fail to
    /// stop it. Thesis-wise still a Black dual, but not one judges count;
    /// the text report leaves these out.
    pub threat: bool,
}

/// Why a tree is incomplete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    /// More variations than [`Limits::max_variations`].
    Size,
    /// The solver's deadline passed.
    Deadline,
}

/// Why no tree can be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    #[error("{0} has no solution tree (direct and self mates only)")]
    Genre(Stipulation),
    #[error("{0} needs White to move in the diagram")]
    WrongSide(Stipulation),
    #[error("{0} is not a legal first move")]
    Illegal(String),
    #[error("{key} does not force the goal in {stipulation}")]
    NotAKey {
        key: String,
        stipulation: Stipulation,
    },
}

/// The solution tree of `key` (a first move in UCI, as in
/// [`super::Key::uci`]) for a direct or self mate. Pass the solver that
/// solved the problem: its table is sized and already holds most of what
/// the tree needs, and its deadline bounds the work.
pub fn build(
    solver: &mut Solver,
    pos: &Chess,
    stipulation: Stipulation,
    key: &str,
    limits: Limits,
) -> Result<Tree, TreeError> {
    let (n, genre, goal) = match stipulation {
        Stipulation::Direct { moves, goal } => (moves, Genre::Direct, goal),
        Stipulation::SelfMate { moves, goal } => (moves, Genre::Self_, goal),
        other => return Err(TreeError::Genre(other)),
    };
    // The solver may come from another problem.
    solver.goal = goal;
    if pos.turn().is_black() {
        return Err(TreeError::WrongSide(stipulation));
    }
    let n = n.clamp(1, u32::from(u8::MAX)) as u8;
    let illegal = || TreeError::Illegal(key.to_owned());
    let m = key
        .parse::<UciMove>()
        .map_err(|_| illegal())?
        .to_move(pos)
        .map_err(|_| illegal())?;
    let mut after = pos.clone();
    after.play_unchecked(m);

    let mut length = None;
    for k in 1..=n {
        if solver.defence_fails(&after, k, genre) {
            length = Some(k);
            break;
        }
        if solver.out_of_time {
            break;
        }
    }
    let mut tree = Tree {
        stipulation: stipulation.to_string(),
        key: Play {
            san: SanPlus::from_move(pos.clone(), m).to_string(),
            uci: uci(&m),
            length: u32::from(length.unwrap_or(n)),
            threat: None,
            zugzwang: false,
            variations: Vec::new(),
        },
        tries: Vec::new(),
        duals: Vec::new(),
        black_duals: Vec::new(),
        truncated: None,
    };
    let Some(length) = length else {
        if solver.out_of_time {
            tree.truncated = Some(Truncation::Deadline);
            return Ok(tree);
        }
        return Err(TreeError::NotAKey {
            key: key.to_owned(),
            stipulation,
        });
    };

    // Deeper and deeper, keeping the deepest tree within the limits.
    let mut best: Option<(Play, Option<Truncation>)> = None;
    for depth in 1..=n {
        let mut builder = Builder {
            solver: &mut *solver,
            genre,
            count: 0,
            max_variations: limits.max_variations,
            max_depth: depth,
            cut: false,
            stopped: None,
        };
        let play = builder.play(pos, m, n, length, 0, true);
        let (cut, stopped) = (builder.cut, builder.stopped);
        match stopped {
            None if !cut => {
                best = Some((play, None));
                break;
            }
            None => best = Some((play, Some(Truncation::Size))),
            Some(why) => {
                if best.is_none() {
                    best = Some((play, Some(why)));
                }
                if let Some(best) = &mut best {
                    best.1 = Some(why);
                }
                break;
            }
        }
    }
    let (play, truncated) = best.expect("at least one round");
    tree.key = play;
    tree.truncated = truncated;
    let mut flaws = Flaws::default();
    flaws.walk(&tree.key, &format!("1.{}", tree.key.san), 1, 3);
    tree.duals = flaws.duals;
    tree.black_duals = flaws.black_duals;

    if limits.tries && !solver.out_of_time {
        match tries(solver, pos, &m, n, genre) {
            Some(found) => tree.tries = found,
            None => {
                tree.truncated.get_or_insert(Truncation::Deadline);
            }
        }
    }
    Ok(tree)
}

fn uci(m: &Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// Builds plays down to a depth, counting variations.
struct Builder<'a> {
    solver: &'a mut Solver,
    genre: Genre,
    count: usize,
    max_variations: usize,
    /// Plays at this depth (the key is at 0) are listed without defences.
    max_depth: u8,
    /// Some play was left unexpanded at `max_depth`.
    cut: bool,
    stopped: Option<Truncation>,
}

impl Builder<'_> {
    /// Notes a passed deadline; true when building must stop.
    fn halted(&mut self) -> bool {
        if self.solver.out_of_time {
            self.stopped.get_or_insert(Truncation::Deadline);
        }
        self.stopped.is_some()
    }

    /// White to move: the fewest moves (at most `max`) forcing the goal.
    fn shortest(&mut self, pos: &Chess, max: u8) -> Option<u8> {
        (1..=max).find(|&j| self.solver.attack_wins(pos, j, self.genre) || self.halted())
    }

    /// White to move: every move forcing the goal within `j`.
    fn winners(&mut self, pos: &Chess, j: u8) -> Vec<Move> {
        let mut found = Vec::new();
        for w in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(w);
            if self.solver.defence_fails(&after, j, self.genre) {
                found.push(w);
            } else if self.halted() {
                break;
            }
        }
        found
    }

    /// White plays `m` in `pos`, forcing the goal in `length` moves (the
    /// fewest possible); `budget` is the number of moves the stipulation
    /// leaves for it (a defence answered sooner is short).
    fn play(
        &mut self,
        pos: &Chess,
        m: Move,
        budget: u8,
        length: u8,
        depth: u8,
        with_threat: bool,
    ) -> Play {
        let mut after = pos.clone();
        let san = SanPlus::from_move_and_play_unchecked(&mut after, m).to_string();
        let mut play = Play {
            san,
            uci: uci(&m),
            length: u32::from(length),
            threat: None,
            zugzwang: false,
            variations: Vec::new(),
        };
        let replies = after.legal_moves();
        if replies.is_empty() || self.halted() {
            return play;
        }
        if depth >= self.max_depth {
            self.cut = true;
            return play;
        }
        if with_threat && budget >= 2 {
            if let Ok(null) = after.clone().swap_turn() {
                match self.shortest(&null, budget - 1) {
                    _ if self.stopped.is_some() => return play,
                    Some(t) => {
                        let threats = self.winners(&null, t);
                        let mut lines = Vec::with_capacity(threats.len());
                        for w in threats {
                            lines.push(self.play(&null, w, t, t, depth + 1, false));
                        }
                        play.threat = Some(lines);
                    }
                    None => play.zugzwang = true,
                }
            }
        }
        for b in replies {
            if self.halted() {
                break;
            }
            self.count += 1;
            if self.count > self.max_variations {
                self.stopped = Some(Truncation::Size);
                break;
            }
            let mut next = after.clone();
            let san = SanPlus::from_move_and_play_unchecked(&mut next, b).to_string();
            let mut variation = Variation {
                san,
                uci: uci(&b),
                length: 0,
                short: false,
                continuations: Vec::new(),
                dual: None,
                black_dual: false,
            };
            let rest = budget - 1;
            if self.genre == Genre::Self_ && self.solver.goal.reached(&next) {
                variation.short = rest > 0;
                play.variations.push(variation);
                continue;
            }
            let Some(j) = (if rest == 0 {
                None
            } else {
                self.shortest(&next, rest)
            }) else {
                // The solver proved the key; only a passed deadline can
                // leave a defence unanswered.
                self.halted();
                break;
            };
            if self.stopped.is_some() {
                break;
            }
            variation.length = u32::from(j);
            variation.short = j < rest;
            for w in self.winners(&next, j) {
                let cont = self.play(&next, w, j, j, depth + 1, with_threat);
                variation.continuations.push(cont);
            }
            play.variations.push(variation);
        }
        classify(&mut play.variations);
        play
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::position;

    fn tree(fen: &str, stipulation: &str, key: &str) -> Tree {
        let mut solver = Solver::new(None);
        build(
            &mut solver,
            &position(fen),
            stipulation.parse().unwrap(),
            key,
            Limits::default(),
        )
        .unwrap()
    }

    fn variation<'a>(play: &'a Play, san: &str) -> &'a Variation {
        play.variations
            .iter()
            .find(|v| v.san == san)
            .unwrap_or_else(|| panic!("no defence {san}"))
    }

    fn sans(plays: &[Play]) -> Vec<&str> {
        plays.iter().map(|p| p.san.as_str()).collect()
    }

    /// Plays numbered-free SAN moves from `fen` and says whether the side
    /// to move at the end is checkmated.
    fn ends_in_mate(fen: &str, moves: &[&str]) -> bool {
        let mut pos = position(fen);
        for san in moves {
            let m = san.parse::<SanPlus>().unwrap().san.to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
        pos.is_checkmate()
    }

    /// Schöpfer, dm001, checked by hand: after 1.Qf2 the king on c1 has
    /// only b1 (b2/c2/d2 on the queen's rank, d1 next to Ke1). If Black
    /// could pass, 2.O-O# mates (Rf1 checks along the first rank, b1 is on
    /// the line, the queen holds the second rank); after 1...Kb1 the same
    /// 2.O-O# mates (a2 too is on the queen's rank).
    #[test]
    fn schoepfer_castling_twomover() {
        let fen = "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1";
        assert!(ends_in_mate(fen, &["Qf2", "Kb1", "O-O#"]));
        let t = tree(fen, "#2", "a7f2");
        assert_eq!(t.key.san, "Qf2");
        assert_eq!(t.key.length, 2);
        assert!(!t.key.zugzwang);
        assert_eq!(sans(t.key.threat.as_ref().expect("a threat")), ["O-O#"]);
        assert_eq!(t.key.variations.len(), 1);
        assert_eq!(sans(&variation(&t.key, "Kb1").continuations), ["O-O#"]);
        assert!(t.duals.is_empty());
        assert!(t.truncated.is_none());
        let text = render(&t);
        assert!(text.starts_with("1.Qf2! (threat: 2.O-O#)\n"), "{text}");
        assert!(text.contains("\n    1...Kb1 2.O-O#\n"), "{text}");
    }

    /// dm035, checked by hand: after 1.Ka6 the king on a8 cannot move (b8
    /// guarded by a7, a7 and b7 by Ka6), nothing is threatened (zugzwang),
    /// and both pawn moves allow 2.Nb6#: a Black dual in Fainshtein's sense.
    #[test]
    fn zugzwang_key_and_black_dual() {
        let fen = "k7/P1p5/1K6/8/N7/8/8/8 w - - 0 1";
        assert!(ends_in_mate(fen, &["Ka6", "c6", "Nb6#"]));
        assert!(ends_in_mate(fen, &["Ka6", "c5", "Nb6#"]));
        let t = tree(fen, "#2", "b6a6");
        assert!(t.key.zugzwang, "{t}");
        assert!(t.key.threat.is_none());
        assert_eq!(t.key.variations.len(), 2);
        for v in &t.key.variations {
            assert_eq!(sans(&v.continuations), ["Nb6#"], "{}", v.san);
            assert!(v.black_dual && v.dual.is_none());
        }
        assert_eq!(t.black_duals.len(), 1);
        assert_eq!(t.black_duals[0].continuation, "2.Nb6#");
        let text = render(&t);
        assert!(text.starts_with("1.Ka6! (zugzwang)\n"), "{text}");
    }

    #[test]
    fn classify_minor_major_and_black_duals() {
        let play = |uci: &str| Play {
            san: uci.to_owned(),
            uci: uci.to_owned(),
            length: 1,
            threat: None,
            zugzwang: false,
            variations: Vec::new(),
        };
        let var = |conts: &[&str]| Variation {
            san: String::new(),
            uci: String::new(),
            length: 1,
            short: false,
            continuations: conts.iter().map(|c| play(c)).collect(),
            dual: None,
            black_dual: false,
        };
        // A=7, B=8: the dual {A, B} is minor; {A, C} is major (C is forced
        // nowhere); the two defences answered only by A are a Black dual.
        let mut vs = vec![
            var(&["a"]),
            var(&["b"]),
            var(&["a", "b"]),
            var(&["a", "c"]),
            var(&["a"]),
        ];
        classify(&mut vs);
        let got: Vec<_> = vs.iter().map(|v| (v.dual, v.black_dual)).collect();
        assert_eq!(
            got,
            [
                (None, true),
                (None, false),
                (Some(DualKind::Minor), false),
                (Some(DualKind::Major), false),
                (None, true),
            ]
        );
    }

    #[test]
    fn not_a_key_is_an_error() {
        let mut solver = Solver::new(None);
        let pos = position("8/Q7/8/8/8/8/8/2k1K2R w K - 0 1");
        let err = build(
            &mut solver,
            &pos,
            "#2".parse().unwrap(),
            "a7g1",
            Limits::default(),
        );
        assert!(matches!(err, Err(TreeError::NotAKey { .. })));
        let err = build(
            &mut solver,
            &pos,
            "#2".parse().unwrap(),
            "e1e3",
            Limits::default(),
        );
        assert!(matches!(err, Err(TreeError::Illegal(_))));
    }
}
