//! The cooks stage's own work, after the solve stage: the quality score of
//! a sound direct mate ([`crate::mate::quality`]) and the repairs of a
//! cooked or unsolvable `#2`/`#3` ([`crate::mate::repair`]). (Tries and
//! duals are worked out by the solve stage as it builds the tree, as this
//! stage's options say.)

use std::time::{Duration, Instant};

use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, FromSetup, Role, Square};

use super::options::CooksOptions;
use crate::mate::{quality, repair};
use crate::problem::Problem;
use crate::stipulation::{Goal, Stipulation};
use crate::verdict::{Kind, Verdict};

/// The longest direct mates repaired: every candidate is a search of its
/// own, and beyond `#3` a budget of seconds checks too few of them.
pub const MAX_REPAIR_MOVES: u32 = 3;

/// Adds `quality` to a sound direct mate with a complete tree, and
/// `repairs` to a cooked or unsolvable `#2`/`#3` when `options.repair`
/// is set.
pub fn run(problem: &Problem, options: &CooksOptions, verdict: &mut Verdict) {
    let Stipulation::Direct {
        moves,
        goal: Goal::Mate,
    } = problem.stipulation
    else {
        return;
    };
    let Ok(pos) = Chess::from_setup(problem.setup.clone(), CastlingMode::Standard) else {
        return;
    };
    match verdict.verdict {
        Kind::Sound => {
            if let Some(tree) = verdict.tree.as_ref().filter(|t| t.truncated.is_none()) {
                verdict.quality = Some(quality::score(&pos, tree, None));
            }
        }
        Kind::Cooked | Kind::NoSolution if moves <= MAX_REPAIR_MOVES => {
            let Some(settings) = &options.repair else {
                return;
            };
            let key = intended_key(problem, &pos);
            let started = Instant::now();
            let outcome = repair::repair(&repair::Request {
                setup: &problem.setup,
                moves,
                key: key.as_deref(),
                deadline: started + Duration::from_secs_f64(settings.budget_s.max(0.0)),
                max_changes: settings.max_changes,
                limit: 3,
                aim: repair::Aim::Repair,
            });
            let kept = match &key {
                Some(k) => format!("keeping the intended key {k}"),
                None => "any one key".to_owned(),
            };
            let searched = if outcome.complete {
                format!("every change of up to {} unit(s)", settings.max_changes)
            } else {
                format!("the budget of {} s ran out", settings.budget_s)
            };
            verdict.notes.push(format!(
                "repair: {} found ({kept}; {} diagrams checked, {searched})",
                outcome.repairs.len(),
                outcome.examined
            ));
            verdict.repairs = outcome.repairs;
        }
        _ => {}
    }
}

/// The key the composer intends, in UCI: the first move of the file's
/// solution that reads as a move of the diagram (SAN, or long algebraic
/// such as `Qa7-f2`, which names its squares even when the unit is
/// missing from the diagram).
pub fn intended_key(problem: &Problem, pos: &Chess) -> Option<String> {
    let solution = problem.solution.as_deref()?;
    solution.split_whitespace().find_map(|token| {
        // `1.Qf2!`, `1...Kb1`, `2.Qb2#`: the move without its number and marks.
        let word = token
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
            .trim_end_matches(['!', '?', '+', '#']);
        if let Ok(san) = word.parse::<SanPlus>() {
            if let Ok(m) = san.san.to_move(pos) {
                return Some(m.to_uci(CastlingMode::Standard).to_string());
            }
        }
        long_algebraic(word)
    })
}

/// `Qa7-f2`, `e7-e8=S`, `Rh1xh6`: the move in UCI.
fn long_algebraic(word: &str) -> Option<String> {
    let word = word.trim_start_matches(['K', 'Q', 'R', 'B', 'S', 'N', 'P']);
    let (from, rest) = word.split_at_checked(2)?;
    let rest = rest.strip_prefix(['-', 'x', ':'])?;
    let (to, promotion) = rest.split_at_checked(2)?;
    let (from, to) = (from.parse::<Square>().ok()?, to.parse::<Square>().ok()?);
    let promotion = match promotion.trim_start_matches('=') {
        "" => None,
        "S" | "N" => Some(Role::Knight),
        p => Some(Role::from_char(p.chars().next()?.to_ascii_lowercase())?),
    };
    let uci = UciMove::Normal {
        from,
        to,
        promotion,
    };
    Some(uci.to_string())
}

/// Why a problem cannot be improved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImproveError {
    #[error("only direct mates #2 and #3 are improved, not {0}")]
    Genre(Stipulation),
    #[error("the position cannot be played: {0}")]
    Unplayable(String),
    #[error("only a sound problem is improved; this one is {0}")]
    NotSound(Kind),
}

/// A sound problem's score and the changes that raise it.
#[derive(Debug, Clone, PartialEq)]
pub struct Improvement {
    pub key: String,
    pub quality: quality::Quality,
    /// Best score first; each keeps the problem sound (same key) and legal.
    pub better: Vec<repair::Repair>,
    pub examined: usize,
    pub complete: bool,
}

/// `cookd improve`: changes of up to `max_changes` units that keep
/// `problem` (a sound `#2`/`#3`) sound with its key and legal and raise
/// its quality score, the best `top` of them found within `budget_s`.
pub fn improve(
    problem: &Problem,
    budget_s: f64,
    max_changes: u32,
    top: usize,
) -> Result<Improvement, ImproveError> {
    let moves = match problem.stipulation {
        Stipulation::Direct {
            moves,
            goal: Goal::Mate,
        } if moves <= MAX_REPAIR_MOVES => moves,
        other => return Err(ImproveError::Genre(other)),
    };
    let pos = Chess::from_setup(problem.setup.clone(), CastlingMode::Standard)
        .map_err(|e| ImproveError::Unplayable(e.to_string()))?;
    let started = Instant::now();
    let mut solver = crate::mate::Solver::new(None);
    let found = solver
        .solve(&pos, problem.stipulation)
        .map_err(|e| ImproveError::Unplayable(e.to_string()))?;
    let keys = match found {
        Ok(crate::mate::Found::Keys(keys)) => keys,
        _ => return Err(ImproveError::NotSound(Kind::Unsolved)),
    };
    let key = match keys.as_slice() {
        [only] if only.length == moves => only.clone(),
        [] => return Err(ImproveError::NotSound(Kind::NoSolution)),
        _ => return Err(ImproveError::NotSound(Kind::Cooked)),
    };
    let limits = crate::mate::tree::Limits {
        tries: false,
        ..Default::default()
    };
    let tree = crate::mate::tree::build(&mut solver, &pos, problem.stipulation, &key.uci, limits)
        .map_err(|e| ImproveError::Unplayable(e.to_string()))?;
    let quality = quality::score(&pos, &tree, None);
    let outcome = repair::repair(&repair::Request {
        setup: &problem.setup,
        moves,
        key: Some(&key.uci),
        deadline: started + Duration::from_secs_f64(budget_s.max(0.0)),
        max_changes,
        limit: top,
        aim: repair::Aim::Improve {
            score: quality.score,
        },
    });
    Ok(Improvement {
        key: key.san,
        quality,
        better: outcome.repairs,
        examined: outcome.examined,
        complete: outcome.complete,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str, name: &str) -> Problem {
        crate::parse(name, text.as_bytes()).remove(0).unwrap()
    }

    /// The yacpdb entry's solution writes its key in long algebraic
    /// (`1.Qa7-f2!`); with the queen gone from the diagram the key still
    /// reads off its squares. SAN keys read against the diagram.
    #[test]
    fn the_intended_key_is_the_solutions_first_move() {
        let text =
            std::fs::read_to_string(crate::testing::data("formats/yacpdb-entry.yaml")).unwrap();
        let p = problem(&text, "e.yaml");
        let pos = Chess::from_setup(p.setup.clone(), CastlingMode::Standard).unwrap();
        assert_eq!(intended_key(&p, &pos).as_deref(), Some("a7f2"));
        let no_queen = text.replace("[Ke1, Qa7, Rh1]", "[Ke1, Rh1]");
        let p = problem(&no_queen, "e.yaml");
        let pos = Chess::from_setup(p.setup.clone(), CastlingMode::Standard).unwrap();
        assert_eq!(intended_key(&p, &pos).as_deref(), Some("a7f2"));
        let san = text.replace("1.Qa7-f2! zugzwang", "1.Qf2! zugzwang");
        let p = problem(&san, "e.yaml");
        let pos = Chess::from_setup(p.setup.clone(), CastlingMode::Standard).unwrap();
        assert_eq!(intended_key(&p, &pos).as_deref(), Some("a7f2"));
        assert_eq!(long_algebraic("e7-e8=S").as_deref(), Some("e7e8n"));
        assert_eq!(long_algebraic("Rh1xh6").as_deref(), Some("h1h6"));
        assert_eq!(long_algebraic("Kb1"), None);
    }

    /// Improving Schöpfer's #2 (score 17): every change offered keeps it
    /// sound with 1.Qf2 (the plain solver says so), scores above 17, and
    /// they come best first.
    #[test]
    fn improvements_keep_the_key_and_raise_the_score() {
        let p = problem("8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n", "s.fen");
        let found = improve(&p, 20.0, 1, 5).unwrap();
        assert_eq!(found.key, "Qf2");
        assert_eq!(found.quality.score, 17.0);
        assert!(!found.better.is_empty(), "{found:?}");
        let scores: Vec<f64> = found.better.iter().map(|r| r.score).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
        for r in &found.better {
            assert!(r.score > 17.0, "{r:?}");
            let setup = r.fen.parse::<shakmaty::fen::Fen>().unwrap().into_setup();
            let pos = Chess::from_setup(setup, CastlingMode::Standard).unwrap();
            let keys = crate::mate::Solver::new(None)
                .solve(&pos, p.stipulation)
                .unwrap()
                .unwrap();
            let crate::mate::Found::Keys(keys) = keys else {
                panic!("keys")
            };
            assert_eq!(keys.len(), 1, "{r:?}");
            assert_eq!((keys[0].uci.as_str(), keys[0].length), ("a7f2", 2), "{r:?}");
        }
        // Not sound: refused, with the reason.
        let cooked = problem("nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1 ; #2\n", "c.fen");
        assert_eq!(
            improve(&cooked, 1.0, 1, 5),
            Err(ImproveError::NotSound(Kind::Cooked))
        );
    }
}
