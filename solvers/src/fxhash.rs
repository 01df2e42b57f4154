//! A fast hasher for maps keyed by what the searches make themselves
//! (retraction positions, pawn-structure assignments): the standard
//! library's SipHash, built to resist keys chosen by an attacker, was a
//! sixth of a small one-shot `cookd solve`'s CPU in the legality stage.
//! The mixing step is the Fx hash of the Rust compiler (rotate, xor,
//! multiply by a 64-bit odd constant).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hasher: one rotate, xor and multiply per word.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub(crate) type FxHashSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash<T: Hash>(value: &T) -> u64 {
        let mut h = FxHasher::default();
        value.hash(&mut h);
        h.finish()
    }

    #[test]
    fn different_keys_hash_apart_and_maps_work() {
        // Byte strings that differ only past the last whole word, and
        // arrays that differ in one element, hash apart.
        assert_ne!(hash(&[1u8; 9].as_slice()), hash(&[1u8; 8].as_slice()));
        assert_ne!(hash(&[0u8, 0, 0, 0, 0, 0, 0, 0, 0, 1]), hash(&[0u8; 10]));
        assert_ne!(hash(&(1u8, [Some(2u8); 8])), hash(&(1u8, [Some(3u8); 8])));
        let mut map = FxHashMap::default();
        for i in 0..1000u32 {
            map.insert((i, [i as u8; 8]), i);
        }
        assert_eq!(map.len(), 1000);
        assert_eq!(map[&(777, [777u32 as u8; 8])], 777);
        let set: FxHashSet<u64> = (0..100).collect();
        assert!(set.contains(&42) && !set.contains(&100));
    }
}
