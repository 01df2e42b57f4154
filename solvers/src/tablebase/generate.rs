//! Retrograde generation of a DTM table.
//!
//! The classic loop: every slot starts unresolved. A first pass over all
//! slots counts each position's moves that stay in the table and values
//! the moves that leave it (captures and promotions) from the sub-tables,
//! which the caller generated first. Then, ply by ply: the positions lost
//! at ply `n` make every predecessor (found by un-moves) a win at `n + 1`;
//! the positions won at ply `n` decrement their predecessors' counters of
//! unrefuted moves, and a predecessor whose counter reaches zero — and
//! whose moves out of the table all lose too — is lost at `n + 1` (later,
//! when a move out of the table holds out longer). A move out of the table
//! that wins at ply `w` makes the position a win at `w` unless a faster
//! one turned up before. Whatever is unresolved at the end is a draw.
//!
//! Each pass runs in parallel on the rayon pool: the first over index
//! ranges, the others over the positions resolved at the previous ply.
//! Three bytes per slot (value, counter, best exit) are all the state, so
//! memory use is known before starting ([`memory_bytes`]).
//!
//! En passant: a double step that allows an en-passant capture leads to a
//! position the index cannot hold (the right to capture is not in it).
//! Its value is the better, for the side to move, of the stored position
//! and the best en-passant capture (valued from a sub-table). The
//! generator tracks that exactly: the capture's value is known from the
//! start, so the double step is resolved at the earlier of the two plies
//! at which either part decides it (a scheduled event for the capture's
//! ply, the normal propagation for the stored position's).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;
use shakmaty::{attacks, Chess, Color, Move, Position, Role, Setup, Square};

use super::dtm::{Dtm, MAX_PLIES};
use super::index::{Layout, Placement};
use super::Material;

/// The value of a position of a smaller material (after a capture or a
/// promotion), from the sub-tables.
pub type SubTables<'a> = dyn Fn(&Chess) -> Dtm + Sync + 'a;

/// Where a generation stands, for a progress display.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub material: Material,
    pub phase: Phase,
    pub done: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Counting moves and valuing the exits, `done` of `total` slots.
    Init,
    /// Resolving positions at this ply; `done` slots resolved so far.
    Ply(u16),
    Finished,
}

#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("{material}: a mate longer than {MAX_PLIES} plies does not fit a table byte")]
    TooLong { material: Material },
}

/// Bytes of working memory a generation of this layout needs, besides the
/// sub-tables: three bytes per slot, plus four per position on a frontier
/// (bounded by the slot count).
pub fn memory_bytes(layout: &Layout) -> u64 {
    3 * layout.size() + 4 * layout.size() / 4
}

/// The best exit of a position, as stored during generation.
const EXIT_NONE: u8 = 255;
/// Some move out of the table draws or wins: the position is not lost.
const EXIT_HOLDS: u8 = 254;

const CHUNK: u64 = 1 << 14;

#[derive(Debug, Clone, Copy)]
enum Event {
    /// Resolve the slot at this ply if nothing faster did.
    Resolve(u32),
    /// An en-passant capture wins at this ply for the side that may take:
    /// the double step `by` (from slot `by`) into `to` is refuted now.
    Refuted { by: u32, to: u32 },
}

struct State<'a> {
    layout: &'a Layout,
    sub: &'a SubTables<'a>,
    value: Vec<AtomicU8>,
    counter: Vec<AtomicU8>,
    exit: Vec<AtomicU8>,
}

/// Generates the table of `layout`: one [`Dtm::code`] per slot.
pub fn generate(
    layout: &Layout,
    sub: &SubTables<'_>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Vec<u8>, GenerateError> {
    let size = layout.size();
    assert!(size < u64::from(u32::MAX), "slot numbers fit in u32");
    let material = layout.material();
    let zeros = || (0..size).map(|_| AtomicU8::new(0)).collect::<Vec<_>>();
    let state = State {
        layout,
        sub,
        value: zeros(),
        counter: zeros(),
        exit: zeros(),
    };
    let report = |phase, done| {
        progress(Progress {
            material,
            phase,
            done,
            total: size,
        })
    };

    let done = AtomicU64::new(0);
    let chunks = size.div_ceil(CHUNK);
    let (mut frontier, scheduled) = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut mates = Vec::new();
            let mut events = Vec::new();
            let mut children = Vec::new();
            for index in c * CHUNK..((c + 1) * CHUNK).min(size) {
                state.init(index as u32, &mut children, &mut mates, &mut events);
            }
            let d = done.fetch_add(CHUNK, Relaxed) + CHUNK;
            if c % 64 == 0 {
                report(Phase::Init, d.min(size));
            }
            (mates, events)
        })
        .reduce(
            || (Vec::new(), Vec::new()),
            |mut a, b| {
                a.0.extend(b.0);
                a.1.extend(b.1);
                a
            },
        );
    let mut agenda: Vec<Vec<Event>> = vec![Vec::new(); usize::from(MAX_PLIES) + 2];
    let mut pending = 0usize;
    for (ply, event) in scheduled {
        agenda[usize::from(ply)].push(event);
        pending += 1;
    }
    for &index in &frontier {
        state.value[index as usize].store(Dtm::Loss(0).code(), Relaxed);
    }

    let mut resolved = frontier.len() as u64;
    let mut ply: u16 = 0;
    loop {
        let events = std::mem::take(&mut agenda[usize::from(ply)]);
        pending -= events.len();
        let mut refuted = Vec::new();
        for event in events {
            match event {
                Event::Resolve(index) => {
                    if state.set(index, ply) {
                        frontier.push(index);
                    }
                }
                Event::Refuted { by, to } => refuted.push((by, to)),
            }
        }
        resolved += frontier.len() as u64;
        report(Phase::Ply(ply), resolved);
        if frontier.is_empty() && refuted.is_empty() && pending == 0 {
            break;
        }
        if ply >= MAX_PLIES {
            return Err(GenerateError::TooLong { material });
        }
        let (next, later) = if ply % 2 == 0 {
            state.expand_losses(&frontier, ply)
        } else {
            state.expand_wins(&frontier, &refuted, ply)
        };
        for (at, event) in later {
            if at > MAX_PLIES {
                return Err(GenerateError::TooLong { material });
            }
            agenda[usize::from(at)].push(event);
            pending += 1;
        }
        frontier = next;
        ply += 1;
    }
    report(Phase::Finished, resolved);
    Ok(state.value.into_iter().map(AtomicU8::into_inner).collect())
}

type Expansion = (Vec<u32>, Vec<(u16, Event)>);

fn merge(mut a: Expansion, b: Expansion) -> Expansion {
    a.0.extend(b.0);
    a.1.extend(b.1);
    a
}

/// A predecessor found by an un-move; `ep` when the move was a double step
/// that leaves an en-passant capture possible, with that capture's value
/// for the side that may take.
struct Predecessor {
    index: u32,
    ep: Option<Dtm>,
}

impl State<'_> {
    fn set(&self, index: u32, ply: u16) -> bool {
        self.value[index as usize]
            .compare_exchange(0, (ply + 1) as u8, Relaxed, Relaxed)
            .is_ok()
    }

    /// The first pass for one slot.
    fn init(
        &self,
        index: u32,
        children: &mut Vec<u32>,
        mates: &mut Vec<u32>,
        events: &mut Vec<(u16, Event)>,
    ) {
        let layout = self.layout;
        let Some(p) = layout.decode(u64::from(index)) else {
            return;
        };
        if may_have_two_names(layout, &p) && layout.encode(&p) != u64::from(index) {
            return;
        }
        let Some(pos) = layout.position(&p) else {
            return;
        };
        let moves = pos.legal_moves();
        if moves.is_empty() {
            if pos.is_check() {
                mates.push(index);
            }
            return;
        }
        children.clear();
        // Distinct moves can lead to one slot only through a symmetric
        // position; only then are children told apart by slot.
        let dedup = may_meet_symmetry(layout, &p);
        let mut quiet = 0usize;
        let mut best_exit: Option<Dtm> = None;
        let mut exit = |v: Dtm| best_exit = Some(best_exit.map_or(v, |b| b.max(v)));
        for m in &moves {
            if m.is_capture() || m.is_promotion() {
                exit((self.sub)(&played(&pos, m)).before_move());
                continue;
            }
            if !dedup && !is_double_step(m) {
                quiet += 1;
                continue;
            }
            let from = u8::from(m.from().expect("no drops in chess"));
            let slot = (0..layout.units())
                .find(|&s| p.squares[s] == from)
                .expect("a unit on the from square");
            let mut q = p;
            q.squares[slot] = u8::from(m.to());
            q.white_to_move = !p.white_to_move;
            let child_index = layout.encode(&q) as u32;
            if is_double_step(m) {
                let child = played(&pos, m);
                if let Some(e) = ep_value(&child, self.sub) {
                    if child.legal_moves().iter().all(|m| m.is_en_passant()) {
                        // Only the capture can be played: its value is all.
                        exit(e.before_move());
                        continue;
                    }
                    if let Dtm::Win(a) = e {
                        events.push((
                            a,
                            Event::Refuted {
                                by: index,
                                to: child_index,
                            },
                        ));
                    }
                }
            }
            if dedup {
                children.push(child_index);
            } else {
                quiet += 1;
            }
        }
        if dedup {
            children.sort_unstable();
            children.dedup();
            quiet = children.len();
        }
        self.counter[index as usize].store(quiet as u8, Relaxed);
        let code = match best_exit {
            None => EXIT_NONE,
            Some(Dtm::Win(w)) => {
                events.push((w, Event::Resolve(index)));
                EXIT_HOLDS
            }
            Some(Dtm::Draw) => EXIT_HOLDS,
            Some(Dtm::Loss(l)) => {
                if quiet == 0 {
                    events.push((l, Event::Resolve(index)));
                }
                (l / 2) as u8
            }
        };
        self.exit[index as usize].store(code, Relaxed);
    }

    /// Positions lost at `ply` make their predecessors wins at `ply + 1`.
    fn expand_losses(&self, frontier: &[u32], ply: u16) -> Expansion {
        frontier
            .par_iter()
            .fold(
                || (Vec::new(), Vec::new()),
                |mut out, &index| {
                    for pred in self.predecessors(index) {
                        match pred.ep {
                            None => {}
                            // Being mated was the stored position's only
                            // answer; the capture counted as an exit.
                            Some(_) if ply == 0 => continue,
                            Some(Dtm::Loss(a)) if a > ply => {
                                out.1.push((a + 1, Event::Resolve(pred.index)));
                                continue;
                            }
                            Some(Dtm::Loss(_)) => {}
                            // The capture saves the side to move.
                            Some(_) => continue,
                        }
                        if self.set(pred.index, ply + 1) {
                            out.0.push(pred.index);
                        }
                    }
                    out
                },
            )
            .reduce(|| (Vec::new(), Vec::new()), merge)
    }

    /// Positions won at `ply` refute one move of each predecessor; a
    /// predecessor with every move refuted is lost.
    fn expand_wins(&self, frontier: &[u32], refuted: &[(u32, u32)], ply: u16) -> Expansion {
        let from_frontier = frontier
            .par_iter()
            .fold(
                || (Vec::new(), Vec::new()),
                |mut out, &index| {
                    for pred in self.predecessors(index) {
                        if let Some(Dtm::Win(a)) = pred.ep {
                            if a <= ply {
                                // Refuted already by the capture's event.
                                continue;
                            }
                        }
                        self.refute(pred.index, ply, &mut out);
                    }
                    out
                },
            )
            .reduce(|| (Vec::new(), Vec::new()), merge);
        let from_events = refuted
            .par_iter()
            .fold(
                || (Vec::new(), Vec::new()),
                |mut out, &(by, to)| {
                    let stored = Dtm::from_code(self.value[to as usize].load(Relaxed));
                    if !matches!(stored, Dtm::Win(b) if b < ply) {
                        self.refute(by, ply, &mut out);
                    }
                    out
                },
            )
            .reduce(|| (Vec::new(), Vec::new()), merge);
        merge(from_frontier, from_events)
    }

    fn refute(&self, index: u32, ply: u16, out: &mut Expansion) {
        let i = index as usize;
        if self.value[i].load(Relaxed) != 0 {
            return;
        }
        if self.counter[i].fetch_sub(1, Relaxed) != 1 {
            return;
        }
        let lost_at = match self.exit[i].load(Relaxed) {
            EXIT_HOLDS => return,
            EXIT_NONE => ply + 1,
            half => (u16::from(half) * 2).max(ply + 1),
        };
        if lost_at == ply + 1 {
            if self.set(index, ply + 1) {
                out.0.push(index);
            }
        } else {
            out.1.push((lost_at, Event::Resolve(index)));
        }
    }

    /// Every distinct position (by slot) from which a move that captures
    /// nothing and promotes nothing leads to the position in `index`.
    fn predecessors(&self, index: u32) -> Vec<Predecessor> {
        let layout = self.layout;
        let p = layout
            .decode(u64::from(index))
            .expect("a resolved slot is valid");
        let mut preds: Vec<Predecessor> = Vec::new();
        unmoves(layout, &p, |q, skipped| {
            preds.push(Predecessor {
                index: layout.encode(&q) as u32,
                ep: skipped.and_then(|sq| self.ep_after_double_step(&p, sq)),
            })
        });
        preds.sort_unstable_by_key(|pred| pred.index);
        preds.dedup_by_key(|pred| pred.index);
        preds
    }

    fn ep_after_double_step(&self, p: &Placement, skipped: u8) -> Option<Dtm> {
        let setup = Setup {
            board: self.layout.board(p),
            turn: Color::from_white(p.white_to_move),
            ep_square: Some(Square::new(u32::from(skipped))),
            ..Setup::empty()
        };
        let pos: Chess = match setup.position(shakmaty::CastlingMode::Standard) {
            Ok(pos) => pos,
            Err(e) => e.ignore_impossible_check().ok()?,
        };
        ep_value(&pos, self.sub)
    }
}

/// Calls `found` with every legal position from which a move that captures
/// nothing and promotes nothing leads to `p`, and for a pawn's double step
/// the square it skipped. Positions come as placements, not yet brought
/// into the stored part of the board.
pub fn unmoves(layout: &Layout, p: &Placement, mut found: impl FnMut(Placement, Option<u8>)) {
    let mover = if p.white_to_move {
        Color::Black
    } else {
        Color::White
    };
    let victim_king = if p.white_to_move {
        p.squares[0]
    } else {
        p.squares[1]
    };
    let occupied = layout.occupied(p);
    for slot in 0..layout.units() {
        let piece = layout.piece(slot);
        if piece.color != mover {
            continue;
        }
        let from = p.squares[slot];
        let mut push = |to: u8, double: bool| {
            let mut q = *p;
            q.squares[slot] = to;
            q.white_to_move = !p.white_to_move;
            // The side that moves next in `p` must not stand in check in `q`.
            if !layout.attacked(&q, victim_king, mover) {
                found(q, double.then_some((from + to) / 2));
            }
        };
        if piece.role == Role::Pawn {
            let back: i16 = if mover == Color::White { -8 } else { 8 };
            let one = (i16::from(from) + back) as u8;
            let home_rank = if mover == Color::White { 1 } else { 6 };
            let double_rank = if mover == Color::White { 3 } else { 4 };
            if (8..56).contains(&one) && !occupied.contains(Square::new(u32::from(one))) {
                push(one, false);
                let two = (i16::from(one) + back) as u8;
                if from >> 3 == double_rank
                    && two >> 3 == home_rank
                    && !occupied.contains(Square::new(u32::from(two)))
                {
                    push(two, true);
                }
            }
        } else {
            let sq = Square::new(u32::from(from));
            for to in attacks::attacks(sq, piece, occupied) & !occupied {
                push(u8::from(to), false);
            }
        }
    }
}

fn on_a1h8(sq: u8) -> bool {
    sq >> 3 == sq & 7
}

fn on_a8h1(sq: u8) -> bool {
    (sq >> 3) + (sq & 7) == 7
}

/// Only a placement with both kings on the a1–h8 diagonal has a mirror
/// image with another slot (see `index`); others need no check.
fn may_have_two_names(layout: &Layout, p: &Placement) -> bool {
    !layout.material().has_pawns() && on_a1h8(p.squares[0]) && on_a1h8(p.squares[1])
}

/// Whether two moves of this placement can lead to one slot: then their
/// children are mirror images in a diagonal (the only symmetry that fixes
/// squares), which fixes both kings after the move, so at most one king
/// stands off that diagonal now. Without pawns only; pawns rule out the
/// diagonal mirrors.
fn may_meet_symmetry(layout: &Layout, p: &Placement) -> bool {
    if layout.material().has_pawns() {
        return false;
    }
    let kings = &p.squares[..2];
    [on_a1h8 as fn(u8) -> bool, on_a8h1]
        .iter()
        .any(|on| kings.iter().any(|&s| on(s)))
}

fn played(pos: &Chess, m: &Move) -> Chess {
    let mut child = pos.clone();
    child.play_unchecked(*m);
    child
}

fn is_double_step(m: &Move) -> bool {
    m.role() == Role::Pawn
        && m.from()
            .is_some_and(|from| u32::from(from).abs_diff(u32::from(m.to())) == 16)
}

/// The best en-passant capture in `pos` for the side to move, if any.
pub(crate) fn ep_value(pos: &Chess, sub: &SubTables<'_>) -> Option<Dtm> {
    pos.legal_moves()
        .iter()
        .filter(|m| m.is_en_passant())
        .map(|m| sub(&played(pos, m)).before_move())
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Un-moves and moves agree: every predecessor has a move back to the
    /// position, and every quiet move of a position has the position among
    /// its child's predecessors. Checked on a spread of slots.
    #[test]
    fn unmoves_invert_quiet_moves() {
        for key in ["KRvKN", "KQQvK", "KPvKP", "KRPvKB", "KBNvKP"] {
            let layout = Layout::new(key.parse().unwrap());
            let mut checked = 0;
            for index in (0..layout.size()).step_by(9973) {
                let Some(p) = layout.decode(index) else {
                    continue;
                };
                if layout.encode(&p) != index {
                    continue;
                }
                let Some(pos) = layout.position(&p) else {
                    continue;
                };
                unmoves(&layout, &p, |q, _| {
                    let prev = layout.position(&q).expect("legal predecessor");
                    let back = prev.legal_moves().iter().any(|m| {
                        !m.is_capture()
                            && !m.is_promotion()
                            && layout.encode(&layout.placement(
                                played(&prev, m).board(),
                                pos.turn(),
                                false,
                            )) == index
                    });
                    assert!(back, "{key}: {} has no move to {}", fen(&prev), fen(&pos));
                });
                for m in &pos.legal_moves() {
                    if m.is_capture() || m.is_promotion() {
                        continue;
                    }
                    let child = played(&pos, m);
                    let c = layout.placement(child.board(), child.turn(), false);
                    let mut seen = false;
                    unmoves(&layout, &c, |q, _| seen |= layout.encode(&q) == index);
                    assert!(seen, "{key}: {} -> {m} not un-made", fen(&pos));
                }
                checked += 1;
            }
            assert!(checked > 100, "{key}: {checked}");
        }
    }

    fn fen(pos: &Chess) -> String {
        shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
    }
}
