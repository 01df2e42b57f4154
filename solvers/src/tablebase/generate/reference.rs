//! The generator as it was before slices (one word per slot of the whole
//! table, frontiers and events in lists), kept to check that the sliced
//! generator finds every slot's value unchanged. Test-only.
//!
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
//! One word per slot (value, counter, best exit, and a mark for slots that
//! hold no legal position) is all the state, so memory use is known before
//! starting ([`memory_bytes`]); keeping a slot's state in one word costs
//! one cache miss per visit where three bytes in three arrays cost three.
//! Un-moves do not test the position they reach for legality: an illegal
//! one is marked at the first pass, and a marked slot is never resolved
//! nor refuted.
//!
//! En passant: a double step that allows an en-passant capture leads to a
//! position the index cannot hold (the right to capture is not in it).
//! Its value is the better, for the side to move, of the stored position
//! and the best en-passant capture (valued from a sub-table). The
//! generator tracks that exactly: the capture's value is known from the
//! start, so the double step is resolved at the earlier of the two plies
//! at which either part decides it (a scheduled event for the capture's
//! ply, the normal propagation for the stored position's).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use shakmaty::{Board, Chess, Color, Move, Position, Role, Setup, Square};

use super::super::dtm::{Dtm, MAX_PLIES};
use super::super::index::{Layout, Placement};
use super::super::moves;
use super::super::Material;
use super::{
    first_pass::played,
    unmoved,
    unmoves::{may_have_two_names, may_meet_symmetry, piece_unmoves},
    GenerateError, Phase, Progress,
};

/// The value of a position of a smaller material (after a capture or a
/// promotion), from the sub-tables: its board and the side to move.
pub type SubTables<'a> = dyn Fn(&Board, Color) -> Dtm + Sync + 'a;

/// The best exit of a position, as stored during generation.
const EXIT_NONE: u8 = 255;
/// Some move out of the table draws or wins: the position is not lost.
const EXIT_HOLDS: u8 = 254;

const CHUNK: u64 = 1 << 14;

/// What a pass finds: positions resolved at the next ply, and events for
/// later plies. Kept as plain slot numbers, because the first pass of a
/// large table schedules an event for every position with a winning
/// capture, hundreds of millions of them.
#[derive(Debug, Default)]
struct Found {
    next: Vec<u32>,
    /// `(ply, slot)`: resolve the slot at that ply if nothing faster did.
    resolve: Vec<(u16, u32)>,
    /// `(ply, by, to)`: an en-passant capture wins at that ply for the side
    /// that may take, which refutes the double step from slot `by` into
    /// slot `to` then.
    refuted: Vec<(u16, u32, u32)>,
}

/// Events by the ply they fall due at.
struct Agenda {
    resolve: Vec<Vec<u32>>,
    refuted: Vec<Vec<(u32, u32)>>,
    pending: usize,
}

impl Agenda {
    fn new() -> Agenda {
        let plies = usize::from(MAX_PLIES) + 1;
        Agenda {
            resolve: vec![Vec::new(); plies],
            refuted: vec![Vec::new(); plies],
            pending: 0,
        }
    }

    /// Files the events of `parts` (freeing each part as it goes) and
    /// returns their positions for the next ply.
    fn absorb(&mut self, parts: Vec<Found>, material: Material) -> Result<Vec<u32>, GenerateError> {
        let mut next = Vec::with_capacity(parts.iter().map(|p| p.next.len()).sum());
        for part in parts {
            next.extend(part.next);
            for (ply, slot) in part.resolve {
                self.slot(ply, material)?;
                self.resolve[usize::from(ply)].push(slot);
            }
            for (ply, by, to) in part.refuted {
                self.slot(ply, material)?;
                self.refuted[usize::from(ply)].push((by, to));
            }
        }
        Ok(next)
    }

    fn slot(&mut self, ply: u16, material: Material) -> Result<(), GenerateError> {
        if ply > MAX_PLIES {
            return Err(GenerateError::TooLong { material });
        }
        self.pending += 1;
        Ok(())
    }

    /// The events due at `ply`, taken off the agenda.
    fn take(&mut self, ply: u16) -> (Vec<u32>, Vec<(u32, u32)>) {
        let resolve = std::mem::take(&mut self.resolve[usize::from(ply)]);
        let refuted = std::mem::take(&mut self.refuted[usize::from(ply)]);
        self.pending -= resolve.len() + refuted.len();
        (resolve, refuted)
    }
}

/// A slot's word: the value code in bits 0–7 (0 while unresolved), the
/// counter of unrefuted moves in bits 8–15, the best exit in bits 16–23.
const COUNTER: u32 = 1 << 8;
const EXIT_SHIFT: u32 = 16;
/// The slot holds no legal position (the side not to move is in check).
const INVALID: u32 = 1 << 24;

fn value_code(word: u32) -> u8 {
    if word & INVALID != 0 {
        0
    } else {
        word as u8
    }
}

struct State<'a> {
    layout: &'a Layout,
    sub: &'a SubTables<'a>,
    slots: Vec<AtomicU32>,
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
    let state = State {
        layout,
        sub,
        slots: (0..size).map(|_| AtomicU32::new(0)).collect(),
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
    let parts: Vec<Found> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut found = Found::default();
            let mut children = Vec::new();
            for index in c * CHUNK..((c + 1) * CHUNK).min(size) {
                state.init(index as u32, &mut children, &mut found);
            }
            let d = done.fetch_add(CHUNK, Relaxed) + CHUNK;
            if c % 64 == 0 {
                report(Phase::Init, d.min(size));
            }
            found
        })
        .collect();
    let mut agenda = Agenda::new();
    let mut frontier = agenda.absorb(parts, material)?;
    for &index in &frontier {
        state.set(index, 0);
    }

    let mut resolved = frontier.len() as u64;
    let mut ply: u16 = 0;
    loop {
        let (due, refuted) = agenda.take(ply);
        for index in due {
            if state.set(index, ply) {
                frontier.push(index);
            }
        }
        resolved += frontier.len() as u64;
        report(Phase::Ply(ply), resolved);
        if frontier.is_empty() && refuted.is_empty() && agenda.pending == 0 {
            break;
        }
        if ply >= MAX_PLIES {
            return Err(GenerateError::TooLong { material });
        }
        let parts = if ply % 2 == 0 {
            state.expand_losses(&frontier, ply)
        } else {
            state.expand_wins(&frontier, &refuted, ply)
        };
        frontier = agenda.absorb(parts, material)?;
        ply += 1;
    }
    report(Phase::Finished, resolved);
    Ok(state
        .slots
        .into_iter()
        .map(|w| value_code(w.into_inner()))
        .collect())
}

/// Runs `visit` over `items` on the rayon pool, each worker with its own
/// output and scratch list.
fn gather<T: Sync>(
    items: &[T],
    visit: impl Fn(&T, &mut Found, &mut Vec<Predecessor>) + Sync,
) -> Vec<Found> {
    items
        .par_iter()
        .fold(
            || (Found::default(), Vec::new()),
            |(mut out, mut scratch), item| {
                visit(item, &mut out, &mut scratch);
                (out, scratch)
            },
        )
        .map(|(out, _)| out)
        .collect()
}

/// A predecessor found by an un-move; `ep` when the move was a double step
/// that leaves an en-passant capture possible, with that capture's value
/// for the side that may take.
struct Predecessor {
    index: u32,
    ep: Option<Dtm>,
}

impl State<'_> {
    /// Resolves the slot at `ply` (a loss when even, a win when odd)
    /// unless it is resolved already or holds no legal position.
    fn set(&self, index: u32, ply: u16) -> bool {
        self.slots[index as usize]
            .fetch_update(Relaxed, Relaxed, |w| {
                (w & (INVALID | 0xff) == 0).then_some(w | u32::from(ply + 1))
            })
            .is_ok()
    }

    fn resolved_at(&self, index: u32) -> Dtm {
        Dtm::from_code(value_code(self.slots[index as usize].load(Relaxed)))
    }

    /// The first pass for one slot.
    fn init(&self, index: u32, children: &mut Vec<u32>, found: &mut Found) {
        let layout = self.layout;
        let Some(p) = layout.decode(u64::from(index)) else {
            return;
        };
        if may_have_two_names(layout, &p) && layout.encode(&p) != u64::from(index) {
            return;
        }
        let us = Color::from_white(p.white_to_move);
        if moves::in_check(layout, &p, !us) {
            self.slots[index as usize].store(INVALID, Relaxed);
            return;
        }
        children.clear();
        // Distinct moves can lead to one slot only through a symmetric
        // position; only then are children told apart by slot.
        let dedup = may_meet_symmetry(layout, &p);
        let mut board = None;
        let mut any = false;
        let mut quiet = 0usize;
        let mut best_exit: Option<Dtm> = None;
        let mut exit = |v: Dtm| best_exit = Some(best_exit.map_or(v, |b| b.max(v)));
        moves::legal_moves(layout, &p, |m| {
            any = true;
            if m.leaves_table() {
                let mut child = board.get_or_insert_with(|| layout.board(&p)).clone();
                let piece = child
                    .remove_piece_at(Square::new(u32::from(m.from)))
                    .expect("a unit on the from square");
                let role = m.promotion.unwrap_or(piece.role);
                child.set_piece_at(Square::new(u32::from(m.to)), role.of(piece.color));
                exit((self.sub)(&child, !us).before_move());
                return;
            }
            let double = m.is_double_step(layout);
            if !dedup && !double {
                quiet += 1;
                return;
            }
            let mut q = p;
            q.squares[m.slot] = m.to;
            q.white_to_move = !p.white_to_move;
            let child_index = layout.encode_moved(u64::from(index), &p, m.slot, &q) as u32;
            if double {
                let pos = layout.position(&p).expect("a legal position");
                let child = played(
                    &pos,
                    &Move::Normal {
                        role: Role::Pawn,
                        from: Square::new(u32::from(m.from)),
                        capture: None,
                        to: Square::new(u32::from(m.to)),
                        promotion: None,
                    },
                );
                if let Some(e) = ep_value(&child, self.sub) {
                    if child.legal_moves().iter().all(|m| m.is_en_passant()) {
                        // Only the capture can be played: its value is all.
                        exit(e.before_move());
                        return;
                    }
                    if let Dtm::Win(a) = e {
                        found.refuted.push((a, index, child_index));
                    }
                }
            }
            if dedup {
                children.push(child_index);
            } else {
                quiet += 1;
            }
        });
        if !any {
            if moves::in_check(layout, &p, us) {
                found.next.push(index);
            }
            return;
        }
        if dedup {
            children.sort_unstable();
            children.dedup();
            quiet = children.len();
        }
        let code = match best_exit {
            None => EXIT_NONE,
            Some(Dtm::Win(w)) => {
                found.resolve.push((w, index));
                EXIT_HOLDS
            }
            Some(Dtm::Draw) => EXIT_HOLDS,
            Some(Dtm::Loss(l)) => {
                if quiet == 0 {
                    found.resolve.push((l, index));
                }
                (l / 2) as u8
            }
        };
        self.slots[index as usize].store(
            (quiet as u32 * COUNTER) | (u32::from(code) << EXIT_SHIFT),
            Relaxed,
        );
    }

    /// Positions lost at `ply` make their predecessors wins at `ply + 1`.
    fn expand_losses(&self, frontier: &[u32], ply: u16) -> Vec<Found> {
        gather(frontier, |&index, out, preds| {
            // A second visit finds the slot resolved (or its event
            // scheduled twice, which resolves it once).
            self.predecessors(index, preds, false);
            for pred in preds.iter() {
                match pred.ep {
                    None => {}
                    // Being mated was the stored position's only answer;
                    // the capture counted as an exit.
                    Some(_) if ply == 0 => continue,
                    Some(Dtm::Loss(a)) if a > ply => {
                        out.resolve.push((a + 1, pred.index));
                        continue;
                    }
                    Some(Dtm::Loss(_)) => {}
                    // The capture saves the side to move.
                    Some(_) => continue,
                }
                if self.set(pred.index, ply + 1) {
                    out.next.push(pred.index);
                }
            }
        })
    }

    /// Positions won at `ply` refute one move of each predecessor; a
    /// predecessor with every move refuted is lost.
    fn expand_wins(&self, frontier: &[u32], refuted: &[(u32, u32)], ply: u16) -> Vec<Found> {
        let mut parts = gather(frontier, |&index, out, preds| {
            self.predecessors(index, preds, true);
            for pred in preds.iter() {
                // A double step refuted already by the capture's event.
                if !matches!(pred.ep, Some(Dtm::Win(a)) if a <= ply) {
                    self.refute(pred.index, ply, out);
                }
            }
        });
        parts.extend(gather(refuted, |&(by, to), out, _| {
            if !matches!(self.resolved_at(to), Dtm::Win(b) if b < ply) {
                self.refute(by, ply, out);
            }
        }));
        parts
    }

    fn refute(&self, index: u32, ply: u16, out: &mut Found) {
        let Ok(word) = self.slots[index as usize].fetch_update(Relaxed, Relaxed, |w| {
            (w & (INVALID | 0xff) == 0).then(|| w - COUNTER)
        }) else {
            return;
        };
        if (word >> 8) as u8 != 1 {
            return;
        }
        let lost_at = match (word >> EXIT_SHIFT) as u8 {
            EXIT_HOLDS => return,
            EXIT_NONE => ply + 1,
            half => (u16::from(half) * 2).max(ply + 1),
        };
        if lost_at == ply + 1 {
            if self.set(index, ply + 1) {
                out.next.push(index);
            }
        } else {
            out.resolve.push((lost_at, index));
        }
    }

    /// The slots from which a move that captures nothing and promotes
    /// nothing leads to the position in `index`, into `preds` (cleared
    /// first); each once when `distinct`, else symmetric positions may come
    /// twice. Slots of illegal positions may be among them.
    fn predecessors(&self, index: u32, preds: &mut Vec<Predecessor>, distinct: bool) {
        let layout = self.layout;
        let p = layout
            .decode(u64::from(index))
            .expect("a resolved slot is valid");
        preds.clear();
        unmoves(layout, &p, |slot, to, skipped| {
            let q = unmoved(&p, slot, to);
            preds.push(Predecessor {
                index: layout.encode_moved(u64::from(index), &p, slot, &q) as u32,
                ep: skipped.and_then(|sq| self.ep_after_double_step(&p, sq)),
            })
        });
        if distinct {
            preds.sort_unstable_by_key(|pred| pred.index);
            preds.dedup_by_key(|pred| pred.index);
        }
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

/// The best en-passant capture in `pos` for the side to move, if any.
fn ep_value(pos: &Chess, sub: &SubTables<'_>) -> Option<Dtm> {
    pos.legal_moves()
        .iter()
        .filter(|m| m.is_en_passant())
        .map(|m| {
            let child = played(pos, m);
            sub(child.board(), child.turn()).before_move()
        })
        .max()
}

/// Calls `found` with every un-move of `p`: a move that captures nothing
/// and promotes nothing leads to `p` from `p` with the unit in the slot
/// back on the square (see [`unmoved`]), and for a pawn's double step the
/// square it skipped. Those placements are not yet brought into the
/// stored part of the board. Kings never stand side by side in them, but
/// the side that moves next in `p` may stand in check: the generator knows
/// those slots as illegal already, which is cheaper than an attack test
/// here. The sliced generator un-moves pieces alone (with
/// [`piece_unmoves`]): a pawn's un-move leads to a slice generated later.
pub(super) fn unmoves(
    layout: &Layout,
    p: &Placement,
    mut found: impl FnMut(usize, u8, Option<u8>),
) {
    let mover = if p.white_to_move {
        Color::Black
    } else {
        Color::White
    };
    let occupied = layout.occupied(p);
    for slot in 0..layout.units() {
        let piece = layout.piece(slot);
        if piece.color != mover {
            continue;
        }
        let from = p.squares[slot];
        if piece.role == Role::Pawn {
            let back: i16 = if mover == Color::White { -8 } else { 8 };
            let one = (i16::from(from) + back) as u8;
            let home_rank = if mover == Color::White { 1 } else { 6 };
            let double_rank = if mover == Color::White { 3 } else { 4 };
            if (8..56).contains(&one) && !occupied.contains(Square::new(u32::from(one))) {
                found(slot, one, None);
                let two = (i16::from(one) + back) as u8;
                if from >> 3 == double_rank
                    && two >> 3 == home_rank
                    && !occupied.contains(Square::new(u32::from(two)))
                {
                    found(slot, two, Some(one));
                }
            }
        } else {
            for to in piece_unmoves(p, slot, piece, occupied) {
                found(slot, u8::from(to), None);
            }
        }
    }
}
