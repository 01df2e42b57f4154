//! The first pass over a part: every slot's counter of moves that stay in
//! the part and its best move out of it (captures and promotions from the
//! sub-tables, pushes from finished slices), then the answers of the
//! sub-tables on disk.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use shakmaty::{Chess, Color, Move, Position, Role, Square};

use super::state::*;
use super::subtables::Lookup;
use super::unmoves::{may_have_two_names, may_meet_symmetry};
use super::{GenerateError, Part, SubTables, Target, ANSWER_SLOTS, CHUNK};
use crate::tablebase::dtm::Dtm;
use crate::tablebase::index::Placement;
use crate::tablebase::moves::{self, PlacementMove};

impl Part<'_> {
    /// The first pass: every slot's counter and best exit, then the
    /// answers of the sub-tables on disk.
    pub(super) fn init(&self, report: &(dyn Fn(u64) + Sync)) -> Result<(), GenerateError> {
        let size = self.words.len();
        let done = AtomicU64::new(0);
        let questions: Vec<Vec<Vec<(u32, u32)>>> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut asked = vec![Vec::new(); self.buckets[self.subs.count()]];
                let mut children = Vec::new();
                let (mut local, end) = (c * CHUNK, ((c + 1) * CHUNK).min(size));
                while local < end {
                    // A run of slots within one slice, decoded in turn.
                    let (config, start) = self.split(local as u32);
                    let run = (end - local).min(self.rest_size - start as usize);
                    let first = local - start as usize;
                    self.layout.decode_run(config, start, run, |rest, p| {
                        let local = first + rest as usize;
                        let word = self.first_word(
                            local as u32,
                            (config, rest),
                            p,
                            &mut children,
                            &mut asked,
                        );
                        self.words[local].store(word, Relaxed);
                    });
                    local += run;
                }
                let d = done.fetch_add(CHUNK as u64, Relaxed) + CHUNK as u64;
                if c % 64 == 0 {
                    report(d.min(size as u64));
                }
                asked
            })
            .collect();
        for number in 0..self.subs.count() {
            // A range of the sub-table at a time, so that a table as large
            // as the one being generated is never in memory whole; only
            // the ranges asked about are read.
            let size = self.subs.size(number);
            for (range, start) in (0..size).step_by(ANSWER_SLOTS as usize).enumerate() {
                let bucket = self.buckets[number] + range;
                if questions.iter().all(|q| q[bucket].is_empty()) {
                    continue;
                }
                let codes = self.subs.codes(number, start, ANSWER_SLOTS)?;
                questions.par_iter().for_each(|asked| {
                    for &(local, slot) in &asked[bucket] {
                        let code = codes[(u64::from(slot) - start) as usize];
                        self.merge_exit(local, Dtm::from_code(code).before_move());
                    }
                });
            }
        }
        if self.too_long.load(Relaxed) {
            return Err(self.too_long());
        }
        let last = (0..size)
            .into_par_iter()
            .filter_map(|local| {
                let w = self.words[local].load(Relaxed);
                let ply = if w == resolved_at(0) {
                    Some(0)
                } else if is_resolved(w) {
                    None
                } else {
                    due(w)
                };
                if let Some(ply) = ply {
                    self.mark(local as u32, ply);
                }
                ply
            })
            .max()
            .unwrap_or(0);
        self.last_due.store(last, Relaxed);
        Ok(())
    }

    /// Makes `v` the slot's best exit when it is better.
    fn merge_exit(&self, local: u32, v: Dtm) {
        // Questions are asked before a slot's legality is settled: an
        // illegal one's answers are not its exits.
        if is_resolved(self.word(local)) {
            return;
        }
        let Some(code) = self.exit(local, v) else {
            return;
        };
        let _ = self.words[local as usize].fetch_update(Relaxed, Relaxed, |w| {
            let better = exit_value(w as u8).is_none_or(|old| v > old);
            (!is_resolved(w) && better).then_some((w & !0xff) | Word::from(code))
        });
    }

    /// The first pass for one slot, `from` split and `placement` decoded:
    /// its word, and the questions to sub-tables on disk in `asked`, by bucket
    /// (see `Part::buckets`).
    fn first_word(
        &self,
        local: u32,
        from: (u32, u64),
        placement: Option<Placement>,
        children: &mut Vec<u32>,
        asked: &mut [Vec<(u32, u32)>],
    ) -> Word {
        let layout = self.layout;
        let Some(p) = placement else {
            return INVALID;
        };
        if self.pawnless && may_have_two_names(layout, &p) && layout.encode(&p) != u64::from(local)
        {
            return INVALID;
        }
        let us = Color::from_white(p.white_to_move);
        children.clear();
        // Distinct moves can lead to one slot only through a symmetric
        // position; only then are children told apart by slot.
        let dedup = may_meet_symmetry(layout, &p);
        let mut any = false;
        let mut quiet = 0usize;
        let mut best: Option<Dtm> = None;
        let mut exit = |v: Dtm| best = Some(best.map_or(v, |b| b.max(v)));
        let mut visit = |m: PlacementMove| {
            any = true;
            if m.leaves_table() {
                match self.subs.lookup_exit(&self.exits, &p, &m) {
                    Lookup::Known(v) => exit(v.before_move()),
                    Lookup::Deferred(number, slot) => {
                        let range = (u64::from(slot) / ANSWER_SLOTS) as usize;
                        asked[self.buckets[number] + range].push((local, slot));
                    }
                }
                return;
            }
            let mut q = p;
            q.squares[m.slot] = m.to;
            q.white_to_move = !p.white_to_move;
            match self.target(from, &p, m.slot, &q) {
                Target::Part(child) if dedup => children.push(child),
                Target::Part(_) => quiet += 1,
                Target::Finished(code) => {
                    let stored = Dtm::from_code(code);
                    let v = if m.is_double_step(layout) {
                        self.after_double_step(&p, m.from, m.to, stored)
                    } else {
                        stored
                    };
                    exit(v.before_move());
                }
            }
        };
        // A piece's move that takes nothing stays in the part: without
        // symmetry to tell children apart it only counts, and needs no
        // index.
        let counted = if dedup {
            if moves::in_check(layout, &p, !us) {
                return INVALID;
            }
            moves::legal_moves(layout, &p, visit);
            None
        } else {
            match moves::legal_moves_counting_quiet(layout, &p, &mut visit) {
                None => return INVALID,
                counted => counted,
            }
        };
        if let Some(c) = counted {
            quiet += c.quiet;
            any |= c.quiet > 0;
        }
        if !any {
            let in_check = counted.map_or_else(|| moves::in_check(layout, &p, us), |c| c.in_check);
            return if in_check {
                resolved_at(0)
            } else {
                unresolved(0, exit_code(Dtm::Draw).expect("a draw fits"))
            };
        }
        if dedup {
            children.sort_unstable();
            children.dedup();
            quiet = children.len();
        }
        let exit = best.and_then(|v| self.exit(local, v)).unwrap_or(EXIT_NONE);
        unresolved(quiet, exit)
    }

    /// The value, for the side that may take, of the position after a
    /// double step whose stored position is worth `stored`.
    fn after_double_step(&self, p: &Placement, from: u8, to: u8, stored: Dtm) -> Dtm {
        let pos = self.layout.position(p).expect("a legal position");
        let mut child = pos;
        child.play_unchecked(Move::Normal {
            role: Role::Pawn,
            from: Square::new(u32::from(from)),
            capture: None,
            to: Square::new(u32::from(to)),
            promotion: None,
        });
        match ep_value(&child, self.subs) {
            None => stored,
            // Only the capture can be played: its value is all.
            Some(e) if child.legal_moves().iter().all(|m| m.is_en_passant()) => e,
            Some(e) => stored.max(e),
        }
    }
}

pub(super) fn played(pos: &Chess, m: &Move) -> Chess {
    let mut child = pos.clone();
    child.play_unchecked(*m);
    child
}

/// The best en-passant capture in `pos` for the side to move, if any.
fn ep_value(pos: &Chess, subs: &SubTables) -> Option<Dtm> {
    pos.legal_moves()
        .iter()
        .filter(|m| m.is_en_passant())
        .map(|m| {
            let child = played(pos, m);
            subs.value(child.board(), child.turn()).before_move()
        })
        .max()
}
