//! KPK: an exact bitbase for king and pawn against king, built the way
//! Stockfish builds its own: classify the positions that are decided at
//! once (promotion that cannot be stopped, pawn lost, stalemate), then pass
//! over the rest again and again, deciding a position from its successors,
//! until a pass changes nothing. What is still undecided then is a draw: the
//! strong side cannot force anything out of those cycles.
//!
//! The strong side (the one with the pawn) is seen as White, its pawn on
//! files a-d (the board is mirrored otherwise). The index of a position is
//!
//! | bits  | meaning                                           |
//! |-------|---------------------------------------------------|
//! | 0-5   | strong king square (a1 = 0 ... h8 = 63)           |
//! | 6-11  | weak king square                                  |
//! | 12    | side to move: 0 strong, 1 weak                    |
//! | 13-14 | pawn file, a = 0 ... d = 3                        |
//! | 15-17 | pawn rank minus 2, rank 2 = 0 ... rank 7 = 5      |
//!
//! 6 * 2^15 = 196,608 positions; one bit each says "the strong side wins".

use std::fmt;
use std::sync::OnceLock;

use shakmaty::attacks::{king_attacks, pawn_attacks};
use shakmaty::{Chess, Color, File, Position, Rank, Role, Square};

use super::View;
use crate::tablebase::Wdl;

const SIZE: usize = 6 << 15;

/// The KPK bitbase, built on first use.
#[derive(Default)]
pub struct Kpk {
    wins: OnceLock<Vec<u64>>,
}

impl fmt::Debug for Kpk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kpk")
            .field("built", &self.wins.get().is_some())
            .finish()
    }
}

impl Kpk {
    /// Whether the strong side wins: `strong_king`, `weak_king` and `pawn`
    /// as the strong side sees the board (its pawn moving up).
    pub fn strong_wins(
        &self,
        strong_king: Square,
        weak_king: Square,
        pawn: Square,
        strong_to_move: bool,
    ) -> bool {
        let wins = self.wins.get_or_init(build);
        let (sk, wk, p) = if pawn.file() > File::D {
            (
                strong_king.flip_horizontal(),
                weak_king.flip_horizontal(),
                pawn.flip_horizontal(),
            )
        } else {
            (strong_king, weak_king, pawn)
        };
        let idx = index(!strong_to_move, sk, wk, p);
        wins[idx / 64] & (1 << (idx % 64)) != 0
    }

    /// The value of a KPK position (either colour with the pawn); `None`
    /// for other materials. The material is checked by counting units, not
    /// by parsing a key: this runs once per position in a verification.
    pub fn recognize(&self, pos: &Chess) -> Option<Wdl> {
        let board = pos.board();
        let pawns = board.pawns();
        if board.occupied().count() != 3 || pawns.count() != 1 {
            return None;
        }
        let strong = board.color_at(pawns.first()?)?;
        let view = View::new(pos, strong);
        let sk = view.single(pos, true, Role::King)?;
        let wk = view.single(pos, false, Role::King)?;
        let p = view.single(pos, true, Role::Pawn)?;
        let value = if self.strong_wins(sk, wk, p, view.strong_to_move) {
            Wdl::Win
        } else {
            Wdl::Draw
        };
        Some(view.for_side_to_move(value))
    }
}

fn index(weak_to_move: bool, strong_king: Square, weak_king: Square, pawn: Square) -> usize {
    debug_assert!(pawn.file() <= File::D && pawn.rank() >= Rank::Second);
    strong_king.to_usize()
        | weak_king.to_usize() << 6
        | usize::from(weak_to_move) << 12
        | pawn.file().to_usize() << 13
        | (pawn.rank().to_usize() - 1) << 15
}

fn decode(idx: usize) -> (bool, Square, Square, Square) {
    let sq = |i: usize| Square::new((i & 63) as u32);
    let pawn = Square::from_coords(
        File::new(((idx >> 13) & 3) as u32),
        Rank::new(((idx >> 15) + 1) as u32),
    );
    (idx >> 12 & 1 == 1, sq(idx), sq(idx >> 6), pawn)
}

/// What is known of a position while the table is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Invalid,
    Unknown,
    Draw,
    Win,
}

fn build() -> Vec<u64> {
    let mut states: Vec<State> = (0..SIZE).map(initial).collect();
    loop {
        let mut changed = false;
        for idx in 0..SIZE {
            if states[idx] == State::Unknown {
                let next = from_successors(idx, &states);
                if next != State::Unknown {
                    states[idx] = next;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut wins = vec![0u64; SIZE / 64];
    for (idx, state) in states.iter().enumerate() {
        if *state == State::Win {
            wins[idx / 64] |= 1 << (idx % 64);
        }
    }
    wins
}

fn push(pawn: Square) -> Option<Square> {
    pawn.offset(8)
}

/// The positions decided without looking at successors.
fn initial(idx: usize) -> State {
    let (weak_to_move, sk, wk, p) = decode(idx);
    if sk.distance(wk) <= 1
        || sk == p
        || wk == p
        || (!weak_to_move && pawn_attacks(Color::White, p).contains(wk))
    {
        return State::Invalid;
    }
    if !weak_to_move && p.rank() == Rank::Seventh {
        let queening = push(p).expect("rank 7 pawn has a square ahead");
        // The new queen is safe when the weak king cannot take it; the
        // table verification covers the rare stalemate such a queen gives
        // (a rook promotion or a king move wins there instead).
        if queening != sk
            && queening != wk
            && (wk.distance(queening) > 1 || sk.distance(queening) == 1)
        {
            return State::Win;
        }
    }
    if weak_to_move {
        let guarded = king_attacks(sk) | pawn_attacks(Color::White, p);
        let flight = king_attacks(wk) & !guarded;
        let takes_pawn = (king_attacks(wk) & !king_attacks(sk)).contains(p);
        if flight.is_empty() || takes_pawn {
            return State::Draw;
        }
    }
    State::Unknown
}

fn from_successors(idx: usize, states: &[State]) -> State {
    let (weak_to_move, sk, wk, p) = decode(idx);
    let mut seen = [false; 4];
    let mut note = |s: State| seen[s as usize] = true;
    if weak_to_move {
        let guarded = king_attacks(sk) | pawn_attacks(Color::White, p);
        for to in king_attacks(wk) & !guarded {
            note(states[index(false, sk, to, p)]);
        }
        // The weak king wants a draw; one drawing move is enough.
        if seen[State::Draw as usize] {
            State::Draw
        } else if seen[State::Unknown as usize] {
            State::Unknown
        } else {
            State::Win
        }
    } else {
        for to in king_attacks(sk) & !king_attacks(wk) {
            if to != p {
                note(states[index(true, to, wk, p)]);
            }
        }
        if p.rank() < Rank::Seventh {
            let one = push(p).expect("pawn below rank 7");
            let free = |sq: Square| sq != sk && sq != wk;
            if free(one) {
                note(states[index(true, sk, wk, one)]);
                if p.rank() == Rank::Second {
                    let two = push(one).expect("rank 4 exists");
                    if free(two) {
                        note(states[index(true, sk, wk, two)]);
                    }
                }
            }
        }
        if seen[State::Win as usize] {
            State::Win
        } else if seen[State::Unknown as usize] {
            State::Unknown
        } else {
            State::Draw
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trips() {
        for idx in [0, 12345, SIZE - 1, 1 << 12, 5 << 15 | 3 << 13] {
            let (w, sk, wk, p) = decode(idx);
            assert_eq!(index(w, sk, wk, p), idx);
        }
    }
}
