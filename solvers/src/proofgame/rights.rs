//! Castling and en-passant rights at the end of a game: those a problem
//! states, and the games found grouped by the rights they end with.

use super::*;

/// What a problem states of its final position besides the board: its
/// castling rights and its en-passant square, each when stated. A game
/// reaches the diagram only if it ends with the stated ones. Unstated ones
/// are free (Stelvio's rule): any game to the board counts, and the
/// verdict groups the games by the rights they end with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rights {
    /// The castling rights (rook squares) the final position has.
    pub castling: Option<Bitboard>,
    /// The final position's en-passant square (one where a capture en
    /// passant is legal), `Some(None)` for none.
    pub en_passant: Option<Option<Square>>,
}

impl Rights {
    /// The rights `pos` has, all stated.
    pub fn of(pos: &Chess) -> Rights {
        Rights {
            castling: Some(pos.castles().castling_rights()),
            en_passant: Some(pos.ep_square(EnPassantMode::Legal)),
        }
    }

    /// Whether `pos` has the stated rights. A stated en-passant square
    /// says that the last move was a pawn's double step across it (FEN
    /// writers differ on whether a capture must be possible); a stated
    /// "none", that no capture en passant is possible.
    pub fn met_by(&self, pos: &Chess) -> bool {
        self.castling
            .is_none_or(|c| pos.castles().castling_rights() == c)
            && self.en_passant.is_none_or(|ep| match ep {
                Some(_) => pos.ep_square(EnPassantMode::Always) == ep,
                None => pos.ep_square(EnPassantMode::Legal).is_none(),
            })
    }

    /// The rights of `pos` that these leave unstated.
    pub(super) fn unstated_of(&self, pos: &Chess) -> Rights {
        let all = Rights::of(pos);
        Rights {
            castling: all.castling.filter(|_| self.castling.is_none()),
            en_passant: all.en_passant.filter(|_| self.en_passant.is_none()),
        }
    }

    /// Whether everything is stated.
    pub(super) fn all_stated(&self) -> bool {
        self.castling.is_some() && self.en_passant.is_some()
    }

    /// Whether a position with `castling` rights may still end with the
    /// stated ones: rights are lost, never gained.
    pub fn still_possible(&self, castling: Bitboard) -> bool {
        self.castling.is_none_or(|c| c.is_subset(castling))
    }

    /// `castling KQk, no en passant`, as a judge reads it; `any rights`
    /// when none is stated.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = self.castling {
            parts.push(format!("castling {}", castling_letters(c)));
        }
        match self.en_passant {
            Some(Some(sq)) => parts.push(format!("en passant on {sq}")),
            Some(None) => parts.push("no en passant".into()),
            None => {}
        }
        if parts.is_empty() {
            "any rights".into()
        } else {
            parts.join(", ")
        }
    }
}

/// `KQkq` for the castling rights on the four corners (`-` for none).
pub(super) fn castling_letters(rights: Bitboard) -> String {
    let letters: String = [
        (Square::H1, 'K'),
        (Square::A1, 'Q'),
        (Square::H8, 'k'),
        (Square::A8, 'q'),
    ]
    .iter()
    .filter(|(sq, _)| rights.contains(*sq))
    .map(|(_, c)| *c)
    .collect();
    if letters.is_empty() {
        "-".into()
    } else {
        letters
    }
}

/// The games that end with the same final rights (those the problem
/// leaves unstated): what a judge reads as "unique if Black cannot castle".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RightsGroup {
    /// The final rights; only the unstated ones are set.
    pub rights: Rights,
    /// Games of the stipulated length.
    pub exact: u64,
    /// Shorter games of the same parity.
    pub short: u64,
}

impl RightsGroup {
    /// Whether the problem would be sound with these rights stated.
    pub fn unique(&self) -> bool {
        self.exact == 1 && self.short == 0
    }
}

/// Fills `outcome.by_rights` from the games listed, and a note a judge
/// reads: which final rights (of those `stated` leaves open) would make the
/// problem sound.
pub(super) fn group_by_rights(outcome: &mut Outcome, stated: &Rights) {
    let mut groups: Vec<RightsGroup> = Vec::new();
    let mut listed = 0;
    let lengths =
        std::iter::once((&outcome.exact, true)).chain(outcome.short.iter().map(|g| (g, false)));
    for (games, exact) in lengths {
        for line in &games.lines {
            let Some(last) = replay(&line.uci) else {
                continue;
            };
            listed += 1;
            let rights = stated.unstated_of(&last);
            let i = match groups.iter().position(|g| g.rights == rights) {
                Some(i) => i,
                None => {
                    groups.push(RightsGroup {
                        rights,
                        exact: 0,
                        short: 0,
                    });
                    groups.len() - 1
                }
            };
            if exact {
                groups[i].exact += 1;
            } else {
                groups[i].short += 1;
            }
        }
    }
    let counted = std::iter::once(&outcome.exact)
        .chain(&outcome.short)
        .try_fold(0u64, |n, g| g.complete.then(|| n.saturating_add(g.count)));
    outcome.by_rights_complete = counted == Some(listed);
    if groups.is_empty() {
        return;
    }
    let described: Vec<String> = groups
        .iter()
        .map(|g| {
            format!(
                "{}: {} of {} plies, {} shorter{}",
                g.rights.describe(),
                g.exact,
                outcome.exact.plies,
                g.short,
                if g.unique() && outcome.by_rights_complete {
                    " (sound with these rights)"
                } else {
                    ""
                }
            )
        })
        .collect();
    let scope = if outcome.by_rights_complete {
        "the games"
    } else {
        "the games listed (not all that were counted)"
    };
    outcome.notes.push(format!(
        "final rights were not stated; {scope} by the rights they end with: {}",
        described.join("; ")
    ));
    if outcome.by_rights_complete {
        if let Some(g) = groups.iter().find(|g| g.unique()) {
            outcome.notes.push(format!(
                "unique if the diagram states {}: the other games end with other rights",
                g.rights.describe()
            ));
        }
    }
    outcome.by_rights = groups;
}

/// The position after the UCI moves `uci` from the initial array.
pub(super) fn replay(uci: &[String]) -> Option<Chess> {
    let mut pos = Chess::default();
    for text in uci {
        let m = text
            .parse::<shakmaty::uci::UciMove>()
            .ok()?
            .to_move(&pos)
            .ok()?;
        pos.play_unchecked(m);
    }
    Some(pos)
}
