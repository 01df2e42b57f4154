//! Retrograde generation of a DTM table, slice by slice.
//!
//! A pawn never moves back and every capture leaves the table, so the
//! pawns' placement (a *slice*, see [`Layout::encode_split`]) only ever
//! moves forward: a pawn push leads to a slice whose pawns stand further
//! up the board. Slices are generated in order, the pawns furthest
//! advanced first, and a pawn push is then a move out of the slice being
//! generated into one that is finished, valued like a capture into a
//! sub-table. A king move across the middle of the board mirrors the
//! pawns, so a slice is generated together with its mirror image (a
//! *part*, one or more such pairs of equal pawn advance). A table without
//! pawns is one part. Only the part's state is in memory; finished slices
//! go to a scratch file beside the table, from which a part reads the
//! slices its pushes lead to and the table file is assembled at the end.
//!
//! Within a part, the classic loop: every slot starts unresolved. A first
//! pass over the part counts each position's moves that stay in the part
//! and values the moves that leave it (captures and promotions from the
//! sub-tables, pushes from finished slices). Then, ply by ply: the
//! positions lost at ply `n` make every predecessor (found by un-moves) a
//! win at `n + 1`; the positions won at ply `n` decrement their
//! predecessors' counters of unrefuted moves, and a predecessor whose
//! counter reaches zero — and whose moves out of the part all lose too —
//! is lost at `n + 1` (later, when a move out of the part holds out
//! longer). A move out of the part that wins at ply `w` makes the
//! position a win at `w` unless a faster one turned up before. Whatever is
//! unresolved at the end is a draw.
//!
//! State is two bytes per slot: the value once resolved, else
//! the counter and the best move out of the part. The frontier of a ply is
//! found by a scan of the part for slots resolved at that ply, and a move
//! out of the part that decides a position at a later ply is kept in the
//! slot itself and found by the scan at that ply: no lists of slots, whose
//! length (hundreds of millions of entries for a large table) no bound on
//! memory could allow for. Each pass runs in parallel on the rayon pool,
//! over ranges of the part.
//!
//! Sub-tables with fewer units than the table are held in memory (the
//! largest has a few tens of millions of slots). A promotion leads to a
//! table of as many units, as large as the table itself: its values are
//! asked for by slot, the questions kept per part by range of the
//! sub-table, and answered a range at a time, each range read from disk
//! only when asked about ([`SubTables`]).
//!
//! Un-moves do not test the position they reach for legality: an illegal
//! one is marked at the first pass, and a marked slot is never resolved
//! nor refuted.
//!
//! En passant: a double step that allows an en-passant capture leads to a
//! position the index cannot hold (the right to capture is not in it). Its
//! value is the better, for the side to move, of the stored position
//! (finished: a double step leaves the part) and the best en-passant
//! capture (valued from a sub-table).

mod first_pass;
mod slices;
mod state;
mod subtables;
mod unmoves;
pub use subtables::SubTables;
use unmoves::piece_unmoves;
pub use unmoves::unmoved;
use {state::*, subtables::Exits};

#[cfg(test)]
pub(crate) mod reference;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;
use shakmaty::{Color, Role};

use super::dtm::{Dtm, MAX_PLIES};
use super::file::FileError;
use super::index::{Layout, Placement};
use super::Material;
use slices::Slices;

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
    #[error(transparent)]
    File(#[from] FileError),
}

/// What a generation wrote.
#[derive(Debug, Clone, Copy)]
pub struct Written {
    pub file_bytes: u64,
    /// The longest win in the table, in plies.
    pub longest_win: u16,
}

/// Slots in a part at most, unless one slice and its mirror image hold
/// more: two bytes of state each, and as much again for the finished
/// slices its pushes lead to.
const PART_SLOTS: u64 = 1 << 25;

/// Bytes of working memory a generation of this layout needs, besides the
/// sub-tables held in memory: two bytes of state per slot of the largest
/// part, its marks of work (32 bytes per 256 slots) and the
/// batches the file is assembled in; with pawns also one
/// byte per slot of the finished slices a part reads (at most twice the
/// part), a range of a sub-table on disk while it answers, and eight bytes per
/// question to it (one per promotion: at most four per slot of the part's
/// White-to-move half, as many again for Black's).
pub fn memory_bytes(layout: &Layout) -> u64 {
    let slice = layout.rest_size();
    let batches = 4 * slices::BATCH_SLOTS;
    let marks = |slots: u64| slots.div_ceil(MARK_SLOTS as u64) * 32;
    if !layout.material().has_pawns() {
        return 2 * slice + marks(slice) + batches;
    }
    let part = (2 * slice).max(PART_SLOTS.min(slice * u64::from(layout.pawn_configs())));
    (2 + 2 + 8 * 2) * part + marks(part) + ANSWER_SLOTS + batches
}

/// Slots the first pass hands a worker at once.
const CHUNK: usize = 1 << 14;

/// Slots per bit of [`Part::work`]: small, because a ply resolves about
/// one slot in a hundred, spread thin, and a scan reads every slot of a
/// marked range (with 2^14 slots per bit the scans of KRPvKR read 70 times
/// the slots they resolve, with 2^8 slots 23 times).
const MARK_SLOTS: usize = 1 << 8;

/// Slots of a sub-table on disk read at once to answer questions (a
/// multiple of the file's block).
const ANSWER_SLOTS: u64 = 1 << 25;

/// Generates the table of `layout` and writes it to `path` (a scratch
/// file beside it holds the finished slices meanwhile).
pub fn generate(
    layout: &Layout,
    subs: &SubTables,
    path: &Path,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Written, GenerateError> {
    generate_within(layout, subs, path, progress, MAX_PLIES).map(|(written, _)| written)
}

/// [`generate`] with mates up to `limit` plies (even, at most
/// [`MAX_PLIES`]); a test lowers it to reach the limit with a small table.
/// Also returns how many exits were left out as too long (see
/// [`Part::exit`]).
fn generate_within(
    layout: &Layout,
    subs: &SubTables,
    path: &Path,
    progress: &(dyn Fn(Progress) + Sync),
    limit: u16,
) -> Result<(Written, u64), GenerateError> {
    assert!(limit % 2 == 0 && limit <= MAX_PLIES, "limit {limit}");
    let mut store = Slices::create(path, layout)?;
    let result = generate_slices(layout, subs, &mut store, progress, limit).and_then(|left_out| {
        let written = store.assemble(layout, path)?;
        Ok((written, left_out))
    });
    store.remove();
    let result = result?;
    progress(Progress {
        material: layout.material(),
        phase: Phase::Finished,
        done: layout.size(),
        total: layout.size(),
    });
    Ok(result)
}

fn generate_slices(
    layout: &Layout,
    subs: &SubTables,
    store: &mut Slices,
    progress: &(dyn Fn(Progress) + Sync),
    limit: u16,
) -> Result<u64, GenerateError> {
    let report = |phase, done| {
        progress(Progress {
            material: layout.material(),
            phase,
            done,
            total: layout.size(),
        })
    };
    let (mut initialized, mut resolved, mut left_out) = (0u64, 0u64, 0u64);
    for configs in parts(layout) {
        let mut finished = vec![None; layout.pawn_configs() as usize];
        for config in pushed_to(layout, &configs) {
            finished[config as usize] = Some(store.read(config)?);
        }
        let part = Part::new(layout, subs, &configs, finished, limit);
        part.init(&|done| report(Phase::Init, initialized + done))?;
        initialized += part.words.len() as u64;
        resolved += part.resolve(&|ply, done| report(Phase::Ply(ply), resolved + done))?;
        left_out += part.long_exits.lock().expect("no panic holds it").len() as u64;
        for (i, &config) in configs.iter().enumerate() {
            let words = &part.words[i * part.rest_size..(i + 1) * part.rest_size];
            store.write(config, words.iter().map(|w| output_code(w.load(Relaxed))))?;
        }
    }
    Ok(left_out)
}

/// How far the pawns of slice `config` have advanced: a pawn push adds
/// one or two, a king move that mirrors the board nothing.
fn advance(layout: &Layout, config: u32) -> u32 {
    let (squares, slots) = layout.config_pawns(config);
    slots
        .iter()
        .map(|&slot| {
            let rank = u32::from(squares[slot] >> 3);
            match layout.piece(slot).color {
                Color::White => rank,
                Color::Black => 7 - rank,
            }
        })
        .sum()
}

/// The slice of `config` mirrored left to right.
fn mirrored(layout: &Layout, config: u32) -> u32 {
    let (mut squares, slots) = layout.config_pawns(config);
    for slot in slots {
        squares[slot] ^= 7;
    }
    layout.config_of(&squares)
}

/// The parts in the order they are generated: slices of equal advance,
/// each with its mirror image, furthest advanced first.
fn parts(layout: &Layout) -> Vec<Vec<u32>> {
    let mut levels: BTreeMap<u32, Vec<Vec<u32>>> = BTreeMap::new();
    for config in 0..layout.pawn_configs() {
        let image = mirrored(layout, config);
        if image < config {
            continue;
        }
        let pair = if image == config {
            vec![config]
        } else {
            vec![config, image]
        };
        levels
            .entry(advance(layout, config))
            .or_default()
            .push(pair);
    }
    let mut parts = Vec::new();
    for (_, pairs) in levels.into_iter().rev() {
        let mut part: Vec<u32> = Vec::new();
        for pair in pairs {
            let slots = (part.len() + pair.len()) as u64 * layout.rest_size();
            if !part.is_empty() && slots > PART_SLOTS {
                parts.push(std::mem::take(&mut part));
            }
            part.extend(pair);
        }
        parts.push(part);
    }
    parts
}

/// The slices one pawn push (single or double) leads to from `configs`.
fn pushed_to(layout: &Layout, configs: &[u32]) -> Vec<u32> {
    let mut out = std::collections::BTreeSet::new();
    for &config in configs {
        let (squares, slots) = layout.config_pawns(config);
        let taken = |sq: u8| slots.iter().any(|&s| squares[s] == sq);
        for &slot in &slots {
            let white = layout.piece(slot).color == Color::White;
            let step: i8 = if white { 8 } else { -8 };
            let from = squares[slot];
            let one = from.wrapping_add_signed(step);
            if !(8..56).contains(&one) || taken(one) {
                continue;
            }
            let mut to = squares;
            to[slot] = one;
            out.insert(layout.config_of(&to));
            let two = one.wrapping_add_signed(step);
            let home = if white { 1 } else { 6 };
            if from >> 3 == home && !taken(two) {
                to[slot] = two;
                out.insert(layout.config_of(&to));
            }
        }
    }
    out.into_iter().collect()
}

/// Where a move within the table leads.
enum Target {
    /// A slot of the part.
    Part(u32),
    /// A finished slot, with its code.
    Finished(u8),
}

/// The state of the part being generated.
struct Part<'a> {
    layout: &'a Layout,
    subs: &'a SubTables,
    configs: &'a [u32],
    /// By slice: its place in `configs`, `u32::MAX` when not in the part.
    position: Vec<u32>,
    /// By slice: the codes of a finished slice a push leads to.
    finished: Vec<Option<Vec<u8>>>,
    rest_size: usize,
    pawnless: bool,
    words: Vec<AtomicU16>,
    exits: Exits,
    /// By sub-table number, the first of its buckets of questions, one per
    /// range of [`ANSWER_SLOTS`] (and the number of buckets at the end).
    buckets: Vec<usize>,
    /// By range of [`MARK_SLOTS`] slots, a bit per ply: whether some slot in it
    /// is resolved at that ply or decided then by its exit. The scan of a
    /// ply visits only the ranges marked for it, so the long tail of plies
    /// that resolve a few slots each costs little.
    work: Vec<[AtomicU64; 4]>,
    /// The last ply at which an exit decides a slot.
    last_due: AtomicU16,
    /// The longest mate the table may hold, in plies.
    limit: u16,
    /// Slots whose best exit, a win longer than `limit`, was left out: each
    /// must be won sooner within the part (see [`Part::exit`]).
    long_exits: Mutex<Vec<u32>>,
    /// Set when a position is found to need a mate longer than `limit`.
    too_long: AtomicBool,
}

impl<'a> Part<'a> {
    fn new(
        layout: &'a Layout,
        subs: &'a SubTables,
        configs: &'a [u32],
        finished: Vec<Option<Vec<u8>>>,
        limit: u16,
    ) -> Part<'a> {
        let rest_size = layout.rest_size() as usize;
        let slots = rest_size * configs.len();
        assert!(slots < u32::MAX as usize, "slot numbers fit in u32");
        let mut position = vec![u32::MAX; layout.pawn_configs() as usize];
        for (i, &config) in configs.iter().enumerate() {
            position[config as usize] = i as u32;
        }
        Part {
            layout,
            subs,
            configs,
            position,
            finished,
            rest_size,
            pawnless: !layout.material().has_pawns(),
            words: (0..slots).map(|_| AtomicU16::new(0)).collect(),
            exits: subs.exits(layout),
            buckets: std::iter::once(0)
                .chain((0..subs.count()).scan(0, |first, number| {
                    *first += subs.size(number).div_ceil(ANSWER_SLOTS) as usize;
                    Some(*first)
                }))
                .collect(),
            work: (0..slots.div_ceil(MARK_SLOTS))
                .map(|_| Default::default())
                .collect(),
            last_due: AtomicU16::new(0),
            limit,
            long_exits: Mutex::new(Vec::new()),
            too_long: AtomicBool::new(false),
        }
    }

    /// The slice and place of slot `local`.
    fn split(&self, local: u32) -> (u32, u64) {
        let local = local as usize;
        let config = self.configs[local / self.rest_size];
        (config, (local % self.rest_size) as u64)
    }

    /// Where the move of the unit in `slot` from `p` (at `from`, split) to
    /// `q` leads. A table without pawns is one part, its slots the index.
    fn target(&self, from: (u32, u64), p: &Placement, slot: usize, q: &Placement) -> Target {
        let (config, rest) = if self.pawnless {
            (0, self.layout.encode_moved(from.1, p, slot, q))
        } else {
            self.layout.encode_split_moved(from, p, slot, q)
        };
        let place = self.position[config as usize];
        if place != u32::MAX {
            return Target::Part(place * self.rest_size as u32 + rest as u32);
        }
        let codes = self.finished[config as usize]
            .as_ref()
            .expect("a push leads to a finished slice");
        Target::Finished(codes[rest as usize])
    }

    /// Marks the range of `local` for the scan at `ply`.
    fn mark(&self, local: u32, ply: u16) {
        let bits = &self.work[local as usize / MARK_SLOTS];
        bits[usize::from(ply / 64)].fetch_or(1 << (ply % 64), Relaxed);
    }

    fn marked(&self, chunk: usize, ply: u16) -> bool {
        let bits = &self.work[chunk];
        bits[usize::from(ply / 64)].load(Relaxed) & (1 << (ply % 64)) != 0
    }

    fn word(&self, local: u32) -> Word {
        self.words[local as usize].load(Relaxed)
    }

    /// The exit code of `v`, a move out of the part from slot `local`.
    /// A win longer than the limit is left out (`None`) and the slot
    /// noted: it is only the slot's value if no shorter win turns up
    /// within the part, and [`Part::resolve`] checks that one did. Every
    /// other exit is worse, so leaving it out loses nothing when one did.
    /// A loss longer than the limit would lose in a mate too long (only
    /// with a limit below [`MAX_PLIES`]: sub-tables hold no longer loss).
    fn exit(&self, local: u32, v: Dtm) -> Option<u8> {
        match v {
            Dtm::Win(w) if w > self.limit => {
                self.long_exits
                    .lock()
                    .expect("no panic holds it")
                    .push(local);
                None
            }
            Dtm::Loss(l) if l > self.limit => {
                self.too_long.store(true, Relaxed);
                None
            }
            _ => Some(exit_code(v).expect("a value within the limit fits a byte")),
        }
    }

    fn too_long(&self) -> GenerateError {
        GenerateError::TooLong {
            material: self.layout.material(),
        }
    }

    /// The plies, until nothing is left to resolve or the limit is
    /// reached; returns the slots resolved.
    fn resolve(&self, report: &(dyn Fn(u16, u64) + Sync)) -> Result<u64, GenerateError> {
        let mut resolved = 0;
        let mut ply: u16 = 0;
        loop {
            let found = self.scan(ply);
            resolved += found;
            report(ply, resolved);
            // No exit is due after the limit (see `Part::exit`).
            if ply == self.limit || (found == 0 && ply >= self.last_due.load(Relaxed)) {
                break;
            }
            ply += 1;
        }
        let long_exits = self.long_exits.lock().expect("no panic holds it");
        let won = |&local: &u32| {
            let w = self.words[local as usize].load(Relaxed);
            w & INVALID == RESOLVED && (w as u8) % 2 == 0
        };
        if self.too_long.load(Relaxed) || !long_exits.iter().all(won) {
            return Err(self.too_long());
        }
        Ok(resolved)
    }

    /// One ply: resolves the slots whose exit decides them now, then
    /// expands every slot resolved at `ply`. Returns how many slots were
    /// resolved at `ply`.
    fn scan(&self, ply: u16) -> u64 {
        let resolved = resolved_at(ply);
        let (due_mask, due_word) = due_at(ply);
        // Most words match neither: a block is skipped on one branch.
        let hit = |w: Word| (w == resolved) | (w & due_mask == due_word);
        self.words
            .par_chunks(MARK_SLOTS)
            .enumerate()
            .filter(|&(c, _)| self.marked(c, ply))
            .map(|(c, range)| {
                let mut preds = Vec::new();
                let mut found = 0;
                for (b, block) in range.chunks(16).enumerate() {
                    if !block
                        .iter()
                        .fold(false, |any, w| any | hit(w.load(Relaxed)))
                    {
                        continue;
                    }
                    for (i, word) in block.iter().enumerate() {
                        let local = (c * MARK_SLOTS + b * 16 + i) as u32;
                        let w = word.load(Relaxed);
                        let now = w == resolved || (hit(w) && self.set(local, ply));
                        if !now {
                            continue;
                        }
                        found += 1;
                        if ply == self.limit {
                            // Lost at the limit: a predecessor not won
                            // sooner would win in a mate too long.
                            self.predecessors(local, &mut preds, false);
                            if !preds.iter().all(|&p| is_resolved(self.word(p))) {
                                self.too_long.store(true, Relaxed);
                            }
                        } else if ply % 2 == 0 {
                            // Lost now: every predecessor wins next ply.
                            self.predecessors(local, &mut preds, false);
                            for &pred in &preds {
                                self.set(pred, ply + 1);
                            }
                        } else {
                            self.predecessors(local, &mut preds, true);
                            for &pred in &preds {
                                self.refute(pred, ply);
                            }
                        }
                    }
                }
                found
            })
            .sum()
    }

    /// Resolves the slot at `ply` (a loss when even, a win when odd)
    /// unless it is resolved already or holds no legal position.
    fn set(&self, local: u32, ply: u16) -> bool {
        let set = self.words[local as usize]
            .fetch_update(Relaxed, Relaxed, |w| {
                (!is_resolved(w)).then_some(resolved_at(ply))
            })
            .is_ok();
        if set {
            self.mark(local, ply);
        }
        set
    }

    /// One move of the slot is refuted at `ply`; with none left, the slot
    /// is lost at `ply + 1`, or when its best exit loses if that is later.
    fn refute(&self, local: u32, ply: u16) {
        let Ok(w) = self.words[local as usize].fetch_update(Relaxed, Relaxed, |w| {
            (!is_resolved(w) && counter(w) > 0).then(|| w - COUNTER)
        }) else {
            return;
        };
        if counter(w) != 1 {
            return;
        }
        match exit_value(w as u8) {
            None => {
                self.set(local, ply + 1);
            }
            Some(Dtm::Loss(l)) if l <= ply + 1 => {
                self.set(local, ply + 1);
            }
            // The scan at ply `l` resolves it.
            Some(Dtm::Loss(l)) => {
                self.mark(local, l);
                self.last_due.fetch_max(l, Relaxed);
            }
            // Some exit holds: never lost.
            Some(_) => {}
        }
    }

    /// The slots of the part from which a move that captures nothing and
    /// promotes nothing leads to `local`, into `preds` (cleared first);
    /// each once when `distinct`, else symmetric positions may come twice.
    /// With pawns the first pass counts every move (no symmetry can make
    /// two of them one, see [`may_meet_symmetry`]), so nothing is sorted
    /// out: a refutation per un-move is a refutation per move.
    /// Slots of illegal positions may be among them. A pawn's un-move
    /// leads to a slice generated later, which values its push then.
    fn predecessors(&self, local: u32, preds: &mut Vec<u32>, distinct: bool) {
        let layout = self.layout;
        let from = self.split(local);
        let p = layout
            .decode_split(from.0, from.1)
            .expect("a resolved slot is valid");
        preds.clear();
        let mover = Color::from_white(!p.white_to_move);
        let occupied = layout.occupied(&p);
        for slot in 0..layout.units() {
            let piece = layout.piece(slot);
            if piece.color != mover || piece.role == Role::Pawn {
                continue;
            }
            let squares = piece_unmoves(&p, slot, piece, occupied);
            if let Some((offset, stride)) = layout.place_line(&p, slot) {
                let base = i64::from(local) + offset;
                preds.extend(
                    squares
                        .into_iter()
                        .map(|to| (base + stride * i64::from(u8::from(to))) as u32),
                );
                continue;
            }
            for to in squares.into_iter().map(u8::from) {
                // Most un-moves change a digit or two of the slot.
                if let Some(delta) = layout.place_delta(&p, slot, to) {
                    preds.push(local.wrapping_add_signed(delta as i32));
                    continue;
                }
                match self.target(from, &p, slot, &unmoved(&p, slot, to)) {
                    Target::Part(pred) => preds.push(pred),
                    Target::Finished(_) => unreachable!("a piece's move stays in its part"),
                }
            }
        }
        if distinct && self.pawnless {
            preds.sort_unstable();
            preds.dedup();
        }
    }
}

#[cfg(test)]
mod tests;
