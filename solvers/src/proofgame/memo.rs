//! Small caches for what the search works out again and again.

use shakmaty::{Board, Castles, Color};

use super::analysis::{Analysis, Matching, MoveBound, Need};

/// A direct-mapped cache of values by 64-bit key (a clash overwrites).
///
/// It starts with [`MEMO_START_BITS`] slots and grows fourfold, up to its
/// size, each time it has taken as many entries as it has slots (dropping
/// them: it is a cache). Every slot is written when it is made, so a cache
/// made at full size costs its whole memory's page faults even for a
/// search that needs a few entries, as the legality stage's short searches
/// for every problem do.
pub(super) struct Memo<V> {
    slots: Vec<Option<(u64, V)>>,
    max_bits: u32,
    /// Entries taken since the cache last grew.
    taken: usize,
}

/// Log2 of a [`Memo`]'s slots when it is made.
const MEMO_START_BITS: u32 = 4;

impl<V: Clone> Memo<V> {
    pub fn new(bits: u32) -> Memo<V> {
        Memo {
            slots: vec![None; 1 << bits.min(MEMO_START_BITS)],
            max_bits: bits,
            taken: 0,
        }
    }

    /// Counts an entry taken, and grows the cache when it is due.
    fn take(&mut self) {
        self.taken += 1;
        let len = self.slots.len();
        if self.taken >= len && len < 1 << self.max_bits {
            let bits = (len.trailing_zeros() + 2).min(self.max_bits);
            self.slots = vec![None; 1 << bits];
            self.taken = 0;
        }
    }

    /// The value for `key`, from the cache or `compute`d into it.
    pub fn get(&mut self, key: u64, compute: impl FnOnce() -> V) -> V {
        self.get_ref(key, compute).clone()
    }

    /// [`Memo::get`] without the copy.
    pub fn get_ref(&mut self, key: u64, compute: impl FnOnce() -> V) -> &V {
        if self.lookup(key).is_none() {
            let value = compute();
            self.insert(key, value);
        }
        let slot = self.slot(key);
        match &self.slots[slot] {
            Some((_, value)) => value,
            None => unreachable!("the entry was just inserted"),
        }
    }

    /// The value kept for `key`, if any.
    pub fn lookup(&self, key: u64) -> Option<&V> {
        match &self.slots[self.slot(key)] {
            Some((k, v)) if *k == key => Some(v),
            _ => None,
        }
    }

    /// Keeps `value` for `key`.
    pub fn insert(&mut self, key: u64, value: V) {
        self.take();
        let slot = self.slot(key);
        self.slots[slot] = Some((key, value));
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }
}

/// A direct-mapped cache of yes/no answers by 64-bit key (a clash
/// overwrites), one word a slot: the key's upper 63 bits and the answer.
/// The slots start as zero pages the system fills in when first touched,
/// so a large cache costs only what a search uses of it.
pub(super) struct Answers {
    slots: Vec<u64>,
}

impl Answers {
    pub fn new(bits: u32) -> Answers {
        Answers {
            slots: vec![0; 1 << bits],
        }
    }

    /// The answer for `key`, from the cache or `compute`d into it.
    pub fn get(&mut self, key: u64, compute: impl FnOnce() -> bool) -> bool {
        self.lookup(key).unwrap_or_else(|| {
            let answer = compute();
            self.insert(key, answer);
            answer
        })
    }

    /// The answer kept for `key`, if any.
    pub fn lookup(&self, key: u64) -> Option<bool> {
        let kept = self.slots[self.slot(key)];
        // A key whose upper bits are all zero reads as empty: a miss.
        (kept != 0 && kept | 1 == key | 1).then_some(kept & 1 == 1)
    }

    /// Keeps `answer` for `key`.
    pub fn insert(&mut self, key: u64, answer: bool) {
        let slot = self.slot(key);
        self.slots[slot] = (key & !1) | u64::from(answer);
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }
}

/// What the static tests work out for one side's units, cached by its
/// [`side_key`](super::hash::side_key) (or by a key salted apart from it):
/// the search and the own-side test share it.
pub(super) struct SideCache {
    pub needs: Memo<Option<Need>>,
    pub matchings: Memo<Option<Matching>>,
    pub bounds: Memo<Option<MoveBound>>,
}

impl SideCache {
    /// Caches of `needs` and `bounds` log2 slots (matchings as bounds).
    pub fn new(needs: u32, bounds: u32) -> SideCache {
        SideCache {
            needs: Memo::new(needs),
            matchings: Memo::new(bounds),
            bounds: Memo::new(bounds),
        }
    }

    /// [`Analysis::need`].
    pub fn need(
        &mut self,
        a: &Analysis,
        (board, castles): Units,
        color: Color,
        key: u64,
    ) -> Option<Need> {
        self.needs.get(key, || a.need(board, castles, color))
    }

    /// [`Analysis::matching`].
    pub fn matching(
        &mut self,
        a: &Analysis,
        (board, castles): Units,
        color: Color,
        key: u64,
    ) -> Option<&Matching> {
        self.matchings
            .get_ref(key, || a.matching(board, castles, color))
            .as_ref()
    }

    /// [`Analysis::move_bound`] of the side's [`Analysis::matching`].
    pub fn bound(
        &mut self,
        a: &Analysis,
        units: Units,
        color: Color,
        key: u64,
    ) -> Option<MoveBound> {
        if let Some(&known) = self.bounds.lookup(key) {
            return known;
        }
        let bound = self
            .matching(a, units, color, key)
            .map(|m| a.move_bound(units.0, m, None));
        self.bounds.insert(key, bound);
        bound
    }
}

/// A board and its castling rights, of which a side's units count.
pub(super) type Units<'b> = (&'b Board, &'b Castles);
