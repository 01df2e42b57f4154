//! Search infrastructure shared by the solvers: a lock-free transposition
//! table of proven facts that several threads read and write at once.
//!
//! Each slot holds two words, `check = key ^ data` and `data` (Hyatt's
//! lockless hashing). Writes are racy on purpose: two threads may interleave
//! their stores, and a torn slot then fails the `check ^ data == key` test
//! and reads as a miss. Only proven facts are stored (with the full 64-bit
//! key verified on read), so a miss or an overwritten slot costs time, never
//! correctness.
//!
//! Slots come in buckets of two (see [`Table::put`]); the top byte of the
//! data is the replacement depth and the search's generation, so callers
//! store at most 56 bits.
//!
//! A table may outlive a search and serve the next one (see
//! [`Table::new_search`]): its pages are then already mapped, where a fresh
//! table pays a page fault for each page it first touches, and threads
//! faulting pages of one process in at once slow each other down.
//!
//! A search uses a *window* of the table, its first slots, that starts at
//! [`WINDOW_LOG2`] and doubles whenever half of it is filled: random probes
//! over the whole memory would touch every page of it (a one-shot solve of
//! a small helpmate with a 1 GB table spent four fifths of its CPU time in
//! the kernel, handing out pages), where the window touches what the search
//! needs. Doubling the window moves half of the entries out of their
//! slot's reach (a key's slot gains a bit): they read as misses, which cost
//! time, never correctness.

use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};

/// Log2 of the slots a search starts with (64 KiB): a small problem's
/// search fills a few thousand slots, and each page it first touches costs
/// a page fault (about 10 µs on a virtual machine, where a one-shot solve
/// of a small helpmate faulted in 1 MiB of window: 2 ms of its 9).
pub const WINDOW_LOG2: u32 = 12;

/// Bytes per slot.
const SLOT_BYTES: usize = 16;

/// A fixed-size, always-replace, lock-free table from 64-bit keys to 64-bit data.
#[derive(Debug)]
pub struct Table {
    /// Slot `i` is words `2i` (check) and `2i + 1` (data): a bucket of two
    /// slots is 32 bytes, so a probe touches one cache line.
    words: Box<[AtomicU64]>,
    /// The window's slots minus one: probes reach slots `0..=mask`.
    mask: AtomicUsize,
    /// Slots this search has filled in the window (an empty slot, or one
    /// of an earlier search, taken): at half the window it doubles.
    filled: AtomicUsize,
    /// The largest window so far: the slots whose pages may be mapped.
    reached: AtomicUsize,
    /// Counts searches (mod 4): entries of earlier ones yield their slots.
    generation: AtomicU8,
}

impl Table {
    /// A table of `2^log2_slots` slots (16 bytes each).
    pub fn with_log2_slots(log2_slots: u32) -> Table {
        let slots = 1usize << log2_slots.clamp(1, 40);
        let window = slots.min(1 << WINDOW_LOG2);
        Table {
            // Zeroed by the allocator: the pages come from the system
            // already zero and are only touched when a probe first reaches
            // them, so a small search in a large table does not pay for
            // writing it all.
            words: bytemuck::zeroed_slice_box(2 * slots),
            mask: AtomicUsize::new(window - 1),
            filled: AtomicUsize::new(0),
            reached: AtomicUsize::new(window),
            generation: AtomicU8::new(0),
        }
    }

    /// The largest table that fits in `mb` megabytes, but no more than
    /// `2^wanted_log2` slots: small problems get small tables, so they do
    /// not pay for zeroing memory they would never touch.
    pub fn sized(mb: u64, wanted_log2: u32) -> Table {
        let budget_slots = (mb.max(1) as usize * (1 << 20)) / SLOT_BYTES;
        let budget_log2 = usize::BITS - 1 - budget_slots.leading_zeros();
        Table::with_log2_slots(wanted_log2.clamp(10, budget_log2.max(10)))
    }

    /// Memory the table may use (its window grows up to this).
    pub fn bytes(&self) -> usize {
        self.words.len() / 2 * SLOT_BYTES
    }

    /// Memory in the current search's window.
    pub fn window_bytes(&self) -> usize {
        (self.mask.load(Ordering::Relaxed) + 1) * SLOT_BYTES
    }

    fn slot(&self, key: u64) -> usize {
        // The low bits index the slot; the full key is checked on read.
        (key as usize) & self.mask.load(Ordering::Relaxed)
    }

    /// Counts a slot newly filled, and doubles the window when half of it
    /// is (several threads may count at once: one of them doubles it).
    fn count_fill(&self) {
        let filled = self.filled.fetch_add(1, Ordering::Relaxed) + 1;
        let mask = self.mask.load(Ordering::Relaxed);
        let slots = mask + 1;
        if filled >= slots / 2 && 2 * slots <= self.words.len() / 2 {
            let grown = 2 * slots;
            if self
                .mask
                .compare_exchange(mask, grown - 1, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                self.reached.fetch_max(grown, Ordering::Relaxed);
            }
        }
    }

    /// The data stored for `key`, if a slot of its bucket holds it intact.
    pub fn get(&self, key: u64) -> Option<u64> {
        let first = self.slot(key) & !1;
        (first..first + 2).find_map(|i| {
            let data = self.words[2 * i + 1].load(Ordering::Relaxed);
            let check = self.words[2 * i].load(Ordering::Relaxed);
            (check ^ data == key && data != 0).then_some(data)
        })
    }

    /// Empties the table (its memory stays mapped) and starts a search.
    pub fn clear(&self) {
        let reached = self.reached.load(Ordering::Relaxed);
        for word in &self.words[..2 * reached] {
            word.store(0, Ordering::Relaxed);
        }
        self.new_search();
    }

    /// Starts a search on a table that may hold an earlier one's entries.
    /// They stay readable (callers key their entries so that a key means
    /// the same fact in every search), but no longer keep their slots from
    /// the new search's entries. The window starts small again: a small
    /// problem after a large one keeps to few cache lines.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
        let window = (self.words.len() / 2).min(1 << WINDOW_LOG2);
        self.mask.store(window - 1, Ordering::Relaxed);
        self.filled.store(0, Ordering::Relaxed);
    }

    /// Stores `data` (non-zero) for `key`. Each bucket has two slots: the
    /// first keeps the entry of this search that cost the most work to
    /// prove (`depth`, at most [`MAX_DEPTH`] counts), the second takes
    /// whatever comes, so deep results survive a flood of shallow ones.
    pub fn put(&self, key: u64, data: u64, depth: u8) {
        let generation = self.generation.load(Ordering::Relaxed) & 3;
        let tag = (generation << 6) | depth.min(MAX_DEPTH);
        let data = (data & !DEPTH_MASK) | (u64::from(tag) << 56);
        let first = self.slot(key) & !1;
        let held = self.words[2 * first + 1].load(Ordering::Relaxed);
        let held_key = self.words[2 * first].load(Ordering::Relaxed) ^ held;
        let held_tag = (held >> 56) as u8;
        let i = if held == 0
            || held_key == key
            || held_tag >> 6 != generation
            || held_tag & MAX_DEPTH <= depth.min(MAX_DEPTH)
        {
            first
        } else {
            first + 1
        };
        let old = if i == first {
            held
        } else {
            self.words[2 * i + 1].load(Ordering::Relaxed)
        };
        if old == 0 || (old >> 62) as u8 != generation {
            self.count_fill();
        }
        self.words[2 * i + 1].store(data, Ordering::Relaxed);
        self.words[2 * i].store(key ^ data, Ordering::Relaxed);
    }
}

/// The splitmix64 finaliser: a strong 64-bit mix, to derive keys. Salts
/// made with it keep apart the entries of searches sharing a table, where
/// a Zobrist-like salt would not: Zobrist keys are linear, so a problem
/// with one unit less than another would meet its positions' keys.
pub fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The top byte of a slot's data holds the search's generation (two bits)
/// and the depth used for replacement (six bits).
const DEPTH_MASK: u64 = 0xff << 56;
/// Depths above this count as this one for replacement.
pub const MAX_DEPTH: u8 = 63;

/// The data a caller stored, without the depth byte.
pub fn payload(data: u64) -> u64 {
    data & !DEPTH_MASK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_verifies_keys() {
        let table = Table::with_log2_slots(10);
        assert_eq!(table.get(42), None);
        table.put(42, 7, 5);
        assert_eq!(table.get(42).map(payload), Some(7));
        // Same bucket, other key: a miss, not a wrong answer.
        assert_eq!(table.get(42 + 1024), None);
        // A shallower entry goes to the second slot; the deep one stays.
        table.put(42 + 1024, 9, 1);
        assert_eq!(table.get(42).map(payload), Some(7));
        assert_eq!(table.get(42 + 1024).map(payload), Some(9));
        // A third key in the bucket replaces the shallow one.
        table.put(42 + 2048, 11, 1);
        assert_eq!(table.get(42 + 1024), None);
        assert_eq!(table.get(42).map(payload), Some(7));
        // A deeper one takes the first slot.
        table.put(42 + 3072, 13, 9);
        assert_eq!(table.get(42 + 3072).map(payload), Some(13));
        assert_eq!(table.get(42), None);
    }

    #[test]
    fn a_new_search_takes_the_slots_of_the_last_one() {
        let table = Table::with_log2_slots(10);
        table.put(42, 7, 40);
        table.put(42 + 1024, 9, 1);
        table.new_search();
        // Still readable...
        assert_eq!(table.get(42).map(payload), Some(7));
        // ...but a shallow entry of the new search takes the deep one's
        // slot, and the second slot keeps the old shallow one.
        table.put(42 + 2048, 11, 1);
        assert_eq!(table.get(42 + 2048).map(payload), Some(11));
        assert_eq!(table.get(42), None);
        assert_eq!(table.get(42 + 1024).map(payload), Some(9));
        // Within one search, depth decides again (beyond MAX_DEPTH too).
        table.put(42 + 3072, 13, 200);
        table.put(42 + 4096, 15, 5);
        assert_eq!(table.get(42 + 3072).map(payload), Some(13));
        assert_eq!(table.get(42 + 4096).map(payload), Some(15));
        table.clear();
        assert_eq!(table.get(42 + 4096), None);
    }

    #[test]
    fn sizes_to_budget_and_need() {
        assert_eq!(Table::sized(1024, 12).bytes(), (1 << 12) * SLOT_BYTES);
        assert_eq!(Table::sized(1, 30).bytes(), 1 << 20);
    }

    #[test]
    fn the_window_doubles_at_half_full_and_starts_small_each_search() {
        let table = Table::with_log2_slots(WINDOW_LOG2 + 2);
        let window = 1usize << WINDOW_LOG2;
        assert_eq!(table.window_bytes(), window * SLOT_BYTES);
        // One key per bucket (even keys: the bucket's first slot) fills
        // distinct slots; at half of the window, it doubles.
        for bucket in 1..window as u64 / 2 {
            table.put(2 * bucket, 2 * bucket, 1);
        }
        assert_eq!(table.window_bytes(), window * SLOT_BYTES);
        table.put(window as u64, 1, 1);
        assert_eq!(table.window_bytes(), 2 * window * SLOT_BYTES);
        // Entries whose slot is the same in the larger window still read.
        assert_eq!(table.get(14).map(payload), Some(14));
        // Rewriting a key fills nothing new; it never grows past capacity.
        for _ in 0..4 {
            for key in 1..4 * window as u64 {
                table.put(key, key, 1);
            }
        }
        assert_eq!(table.window_bytes(), table.bytes());
        // A new search starts small again, and entries of the last one
        // that it overwrites count as filled.
        table.new_search();
        assert_eq!(table.window_bytes(), window * SLOT_BYTES);
        for bucket in 1..=window as u64 / 2 {
            table.put(2 * bucket, 3, 1);
        }
        assert_eq!(table.window_bytes(), 2 * window * SLOT_BYTES);
        table.clear();
        assert_eq!(table.get(14), None);
        assert_eq!(table.window_bytes(), window * SLOT_BYTES);
    }

    #[test]
    fn concurrent_writers_never_produce_wrong_data() {
        let table = Table::with_log2_slots(4);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let table = &table;
                s.spawn(move || {
                    for i in 0..20_000u64 {
                        let key = i * 4 + t + 1;
                        let data = key.wrapping_mul(31) | 1;
                        table.put(key, data, (i % 7) as u8);
                        if let Some(d) = table.get(key) {
                            assert_eq!(payload(d), payload(data));
                        }
                    }
                });
            }
        });
    }
}
