//! A slot's state during generation, two bytes, and the exit codes it
//! holds.

use super::super::dtm::{Dtm, MAX_PLIES};

/// A slot's state, two bytes. Resolved: [`RESOLVED`] and the value code
/// (plies + 1) in the low byte. Marked as holding no legal position:
/// [`INVALID`]. Unresolved: the counter of unrefuted moves within the part
/// in bits 8–14 and the best exit (see [`exit_code`]) in bits 0–7.
pub(super) type Word = u16;
pub(super) const RESOLVED: Word = 0x8000;
pub(super) const INVALID: Word = 0xc000;
pub(super) const COUNTER: Word = 1 << 8;
/// With five units a side has at most 89 moves (three queens and a king).
pub(super) const COUNTER_MAX: usize = 0x7f;

pub(super) fn resolved_at(ply: u16) -> Word {
    RESOLVED | (ply + 1)
}

pub(super) fn is_resolved(w: Word) -> bool {
    w & RESOLVED != 0
}

pub(super) fn counter(w: Word) -> usize {
    usize::from((w >> 8) & 0x7f)
}

/// The table byte of a finished slot: unresolved and invalid slots are
/// draws (code 0).
pub(super) fn output_code(w: Word) -> u8 {
    if w & INVALID == RESOLVED {
        w as u8
    } else {
        0
    }
}

/// The best value among a position's moves out of the part, in a byte:
/// 0 none, 1 a draw, 2–128 a loss in 2–254 plies (the exit never loses at
/// once: the other side needs a move to mate), 129–255 a win in 1–253
/// plies. `None` for a longer win, which no table byte can hold.
pub(super) fn exit_code(v: Dtm) -> Option<u8> {
    match v {
        Dtm::Draw => Some(1),
        Dtm::Loss(l) => {
            debug_assert!((2..=MAX_PLIES).contains(&l) && l % 2 == 0);
            Some(1 + (l / 2) as u8)
        }
        Dtm::Win(w) if w < MAX_PLIES => Some(129 + ((w - 1) / 2) as u8),
        Dtm::Win(_) => None,
    }
}

pub(super) const EXIT_NONE: u8 = 0;

pub(super) fn exit_value(code: u8) -> Option<Dtm> {
    match code {
        EXIT_NONE => None,
        1 => Some(Dtm::Draw),
        2..=128 => Some(Dtm::Loss(2 * u16::from(code - 1))),
        _ => Some(Dtm::Win(2 * u16::from(code - 129) + 1)),
    }
}

pub(super) fn unresolved(counter: usize, exit: u8) -> Word {
    assert!(counter <= COUNTER_MAX, "{counter} moves fit seven bits");
    (counter as Word * COUNTER) | Word::from(exit)
}

/// The ply at which an unresolved slot is decided by its exit alone: a
/// winning exit, or a losing one once every move in the part is refuted.
pub(super) fn due(w: Word) -> Option<u16> {
    match exit_value(w as u8) {
        Some(Dtm::Win(x)) => Some(x),
        Some(Dtm::Loss(l)) if counter(w) == 0 => Some(l),
        _ => None,
    }
}

/// The words [`due`] at `ply`, as `(mask, value)`: `w & mask == value`
/// exactly when `due(w) == Some(ply)`. One comparison per word lets the
/// scan of a ply skip blocks of words at once.
pub(super) fn due_at(ply: u16) -> (Word, Word) {
    const NEVER: (Word, Word) = (0, 1);
    let v = if ply % 2 == 1 {
        Dtm::Win(ply)
    } else if (2..=MAX_PLIES).contains(&ply) {
        Dtm::Loss(ply)
    } else {
        return NEVER;
    };
    match exit_code(v) {
        // Unresolved, the code in the low byte, any counter.
        Some(code) if ply % 2 == 1 => (RESOLVED | 0xff, Word::from(code)),
        // Unresolved, the code, and no move left in the part.
        Some(code) => (Word::MAX, Word::from(code)),
        None => NEVER,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_at_matches_due_on_every_word() {
        for ply in 0..=MAX_PLIES + 2 {
            let (mask, value) = due_at(ply);
            for w in 0..=Word::MAX {
                let expected = !is_resolved(w) && due(w) == Some(ply);
                assert_eq!(w & mask == value, expected, "ply {ply} word {w:#06x}");
            }
        }
    }
}
