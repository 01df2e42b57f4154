//! The reference mate solvers: full width, no table, no pictures, no
//! bounds, no move ordering. Each answers with every key or solution
//! line, as the production solver does, or `None` when the position needs
//! more than the node budget (such a case is skipped, never judged). The
//! goal (mate or stalemate) is judged by shakmaty's own tests, not by the
//! production solver's faster ones.

use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::Goal;

/// Is the side to move in `pos` mated (stalemated)?
fn reached(pos: &Chess, goal: Goal) -> bool {
    match goal {
        Goal::Mate => pos.is_checkmate(),
        Goal::Stalemate => pos.is_stalemate(),
    }
}

/// Counts positions made, against a budget.
#[derive(Debug)]
pub struct Budget {
    pub nodes: u64,
    pub limit: u64,
}

impl Budget {
    pub fn new(limit: u64) -> Budget {
        Budget { nodes: 0, limit }
    }

    /// `pos` after `m`, or `None` once the budget is spent.
    fn play(&mut self, pos: &Chess, m: &Move) -> Option<Chess> {
        self.nodes += 1;
        if self.nodes > self.limit {
            return None;
        }
        let mut next = pos.clone();
        next.play_unchecked(*m);
        Some(next)
    }
}

fn uci(m: &Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// `#n` (`=n`): every White first move that mates (stalemates) within
/// `n` moves against every defence, with the fewest moves it needs.
pub fn direct_keys(
    pos: &Chess,
    n: u32,
    goal: Goal,
    budget: &mut Budget,
) -> Option<Vec<(String, u32)>> {
    keys(pos, n, goal, budget, black_is_mated_within)
}

/// `s#n` (`s=n`): every White first move that forces Black to mate
/// (stalemate) White within `n` moves, with the fewest moves it needs.
pub fn self_keys(
    pos: &Chess,
    n: u32,
    goal: Goal,
    budget: &mut Budget,
) -> Option<Vec<(String, u32)>> {
    keys(pos, n, goal, budget, black_must_mate_within)
}

/// The first moves `m` for which `wins(position after m, k)` holds for
/// some `k` up to `n`, each with the least such `k`.
fn keys(
    pos: &Chess,
    n: u32,
    goal: Goal,
    budget: &mut Budget,
    wins: fn(&Chess, u32, Goal, &mut Budget) -> Option<bool>,
) -> Option<Vec<(String, u32)>> {
    let mut out = Vec::new();
    for m in pos.legal_moves() {
        let after = budget.play(pos, &m)?;
        for k in 1..=n {
            if wins(&after, k, goal, budget)? {
                out.push((uci(&m), k));
                break;
            }
        }
    }
    Some(out)
}

/// White has just moved; Black is to move. Is Black mated (stalemated)
/// now, or does White reach the goal within `k - 1` more moves after
/// every Black reply (Black having one)?
fn black_is_mated_within(pos: &Chess, k: u32, goal: Goal, budget: &mut Budget) -> Option<bool> {
    if reached(pos, goal) {
        return Some(true);
    }
    let replies = pos.legal_moves();
    if k == 1 || replies.is_empty() {
        return Some(false);
    }
    for r in &replies {
        let after = budget.play(pos, r)?;
        let mut mates = false;
        for m in after.legal_moves() {
            if black_is_mated_within(&budget.play(&after, &m)?, k - 1, goal, budget)? {
                mates = true;
                break;
            }
        }
        if !mates {
            return Some(false);
        }
    }
    Some(true)
}

/// White has just moved; Black is to move. Must Black mate (stalemate)
/// White within `k` of its moves: Black has a move, and each of its moves
/// either reaches the goal or leaves White a move after which the same
/// holds with `k - 1`?
fn black_must_mate_within(pos: &Chess, k: u32, goal: Goal, budget: &mut Budget) -> Option<bool> {
    let replies = pos.legal_moves();
    if replies.is_empty() {
        return Some(false);
    }
    for r in &replies {
        let after = budget.play(pos, r)?;
        if reached(&after, goal) {
            continue;
        }
        if k == 1 {
            return Some(false);
        }
        let mut forces = false;
        for m in after.legal_moves() {
            if black_must_mate_within(&budget.play(&after, &m)?, k - 1, goal, budget)? {
                forces = true;
                break;
            }
        }
        if !forces {
            return Some(false);
        }
    }
    Some(true)
}

/// `h#` (`h=`): every line of exactly `plies` half-moves after which Black
/// is mated (stalemated), and every shorter one with the same side
/// starting (`plies - 2`, `plies - 4`, …), as UCI moves joined by spaces.
pub fn help_lines(pos: &Chess, plies: u32, goal: Goal, budget: &mut Budget) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut length = plies;
    while length >= 1 {
        let mut path = Vec::new();
        lines(pos, length, goal, budget, &mut path, &mut out)?;
        if length < 2 {
            break;
        }
        length -= 2;
    }
    Some(out)
}

fn lines(
    pos: &Chess,
    left: u32,
    goal: Goal,
    budget: &mut Budget,
    path: &mut Vec<Move>,
    out: &mut Vec<String>,
) -> Option<()> {
    if left == 0 {
        if pos.turn().is_black() && reached(pos, goal) {
            out.push(path.iter().map(uci).collect::<Vec<_>>().join(" "));
        }
        return Some(());
    }
    for m in pos.legal_moves() {
        let after = budget.play(pos, &m)?;
        path.push(m);
        lines(&after, left - 1, goal, budget, path, out)?;
        path.pop();
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::position;

    /// The reference solvers on cases checked by hand (the corpus rows,
    /// verified by other solvers, are in the oracle's integration test).
    #[test]
    fn reference_answers_known_problems() {
        let mut b = Budget::new(u64::MAX);
        // Back-rank mate: only Ra8.
        let pos = position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        assert_eq!(
            direct_keys(&pos, 1, Goal::Mate, &mut b).unwrap(),
            vec![("a1a8".to_string(), 1)]
        );
        // h#1: the king's only move is Kg8, then Ra8 mates.
        let pos = position("7k/8/6K1/8/8/8/8/R7 b - - 0 1");
        assert_eq!(
            help_lines(&pos, 2, Goal::Mate, &mut b).unwrap(),
            vec!["h8g8 a1a8".to_string()]
        );
        // With the king able to escape there is no mate in one.
        let pos = position("7k/8/8/8/8/8/8/R5K1 w - - 0 1");
        assert_eq!(direct_keys(&pos, 1, Goal::Mate, &mut b).unwrap(), vec![]);
        // =1: only Qb6 takes a7, b7 and b8 from the king without giving
        // check (Qb7+ and Qb8+ check, Qb5 and Qg7 leave a square).
        let pos = position("k7/8/8/8/8/8/1Q6/K7 w - - 0 1");
        assert_eq!(
            direct_keys(&pos, 1, Goal::Stalemate, &mut b).unwrap(),
            vec![("b2b6".to_string(), 1)]
        );
    }

    #[test]
    fn budget_is_respected() {
        let pos = Chess::default();
        let mut b = Budget::new(1000);
        assert_eq!(direct_keys(&pos, 3, Goal::Mate, &mut b), None);
    }
}
