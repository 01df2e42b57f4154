//! What the tree shows beyond its play: dual classes, the flaws of the
//! variations (duals, short mates), and the tries with their refutations.

use super::*;

/// Marks the duals and Black duals of one cluster (a White move's defences).
pub(super) fn classify(variations: &mut [Variation]) {
    let mut forced: HashMap<&str, usize> = HashMap::new();
    for v in variations.iter() {
        if let [only] = v.continuations.as_slice() {
            *forced.entry(only.uci.as_str()).or_default() += 1;
        }
    }
    let kinds: Vec<(Option<DualKind>, bool)> = variations
        .iter()
        .map(|v| match v.continuations.as_slice() {
            [] => (None, false),
            [only] => (None, forced[only.uci.as_str()] > 1),
            several => {
                let minor = several.iter().all(|c| forced.contains_key(c.uci.as_str()));
                let kind = if minor {
                    DualKind::Minor
                } else {
                    DualKind::Major
                };
                (Some(kind), false)
            }
        })
        .collect();
    for (v, (dual, black_dual)) in variations.iter_mut().zip(kinds) {
        v.dual = dual;
        v.black_dual = black_dual;
    }
}

/// The flat lists of duals and Black duals.
#[derive(Default)]
pub(super) struct Flaws {
    pub(super) duals: Vec<Dual>,
    pub(super) black_duals: Vec<BlackDual>,
}

impl Flaws {
    /// `play` is White's move number `number`, reached by `line`.
    pub(super) fn walk(&mut self, play: &Play, line: &str, number: u32, ply: u32) {
        let mut groups: Vec<(&str, &str, Vec<String>)> = Vec::new();
        for v in &play.variations {
            let defence = format!("{number}...{}", v.san);
            if let Some(kind) = v.dual {
                self.duals.push(Dual {
                    line: format!("{line} {}", v.san),
                    continuations: v
                        .continuations
                        .iter()
                        .map(|c| format!("{}.{}", number + 1, c.san))
                        .collect(),
                    kind,
                    ply,
                });
            }
            if v.black_dual {
                let only = &v.continuations[0];
                match groups.iter_mut().find(|g| g.0 == only.uci) {
                    Some(group) => group.2.push(defence),
                    None => groups.push((&only.uci, &only.san, vec![defence])),
                }
            }
            for c in &v.continuations {
                let deeper = format!("{line} {} {}.{}", v.san, number + 1, c.san);
                self.walk(c, &deeper, number + 1, ply + 2);
            }
        }
        for (uci, san, defences) in groups {
            let threat = play
                .threat
                .as_ref()
                .is_some_and(|threats| threats.iter().any(|t| t.uci == uci));
            self.black_duals.push(BlackDual {
                line: line.to_owned(),
                defences,
                continuation: format!("{}.{san}", number + 1),
                threat,
            });
        }
    }
}

/// Every other first move refuted by exactly one defence; `None` when the
/// deadline passed.
pub(super) fn tries(
    solver: &mut Solver,
    pos: &Chess,
    key: &Move,
    n: u8,
    genre: Genre,
) -> Option<Vec<Try>> {
    let mut found = Vec::new();
    for m in pos.legal_moves() {
        if m == *key {
            continue;
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        if solver.defence_fails(&after, n, genre) {
            continue; // another key
        }
        if solver.out_of_time {
            return None;
        }
        let mut refutations = Vec::new();
        for b in after.legal_moves() {
            let mut next = after.clone();
            next.play_unchecked(b);
            let lost = (genre == Genre::Self_ && solver.goal.reached(&next))
                || (n > 1 && solver.attack_wins(&next, n - 1, genre));
            if solver.out_of_time {
                return None;
            }
            if !lost {
                refutations.push(b);
                if refutations.len() > 1 {
                    break;
                }
            }
        }
        if let [refutation] = refutations.as_slice() {
            found.push(Try {
                san: SanPlus::from_move(pos.clone(), m).to_string(),
                uci: uci(&m),
                refutation_san: SanPlus::from_move(after, *refutation).to_string(),
                refutation_uci: uci(refutation),
            });
        }
    }
    Some(found)
}
