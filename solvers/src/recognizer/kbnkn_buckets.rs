//! A KBNKN rule mined from the KBNvKN table: positions are sorted into
//! buckets by eighteen features of the knight side's safety, and the
//! buckets in which the table has no win at all are draws. The largest
//! such buckets are kept (33,637 of the 1,464,926 the table fills, which
//! hold 40 % of its draws) in `kbnkn_draws.bin`; `cargo run --release -p
//! solvers --example mine_kbnkn -- TABLES_DIR` makes that file again from
//! the table. Like every recognizer it is checked over every position in
//! both colour orientations by `cookd tb verify kbnkn`.
//!
//! The features, with the side holding bishop and knight as the strong
//! side: whose turn; check; strong units attacking the weak knight (0 to
//! 2) and whether its king defends it; the knight's free squares (those
//! no strong unit attacks, 0 to 5) and the weak king's (0 to 5); the
//! distances weak king to knight, strong king to knight and king to king
//! (each up to 5); the edge distances of the weak king, the weak knight
//! and the strong king (0 to 3); whether the strong knight or bishop can
//! fork the weak king and knight; whether they stand on one diagonal;
//! whether the strong king touches the weak knight's squares; the weak
//! king's distance to a corner of the bishop's colour (up to 4); whether
//! the strong king stands next to its own minor piece.
//!
//! The file: `CKBN`, the key count (u32, little-endian), then the sorted
//! keys as differences from the one before, each a LEB128 varint.

use std::sync::OnceLock;

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks};
use shakmaty::{Bitboard, Chess, Color, Position, Role, Square};

use super::{edge_distance, single};

/// Each feature's number of values, in key order.
const RADIX: [u64; 18] = [2, 2, 3, 2, 6, 6, 6, 6, 6, 4, 4, 4, 2, 2, 2, 2, 5, 2];

const MAGIC: &[u8; 4] = b"CKBN";

/// The bucket of a KBNKN position with `strong` holding bishop and
/// knight; `None` with other material.
pub fn key(pos: &Chess, strong: Color) -> Option<u32> {
    let b = pos.board();
    let sk = b.king_of(strong)?;
    let wk = b.king_of(!strong)?;
    let bi = single(b.by_piece(Role::Bishop.of(strong)))?;
    let kn = single(b.by_piece(Role::Knight.of(strong)))?;
    let wn = single(b.by_piece(Role::Knight.of(!strong)))?;
    if b.occupied().count() != 5 {
        return None;
    }
    let occ = b.occupied();
    let attacked = king_attacks(sk) | bishop_attacks(bi, occ) | knight_attacks(kn);
    let attackers = [
        king_attacks(sk),
        bishop_attacks(bi, occ),
        knight_attacks(kn),
    ]
    .iter()
    .filter(|a| a.contains(wn))
    .count() as u64;
    let own = b.by_color(strong);
    let without_bishop = occ ^ Bitboard::from(bi);
    let corner = [Square::A1, Square::H1, Square::A8, Square::H8]
        .into_iter()
        .filter(|c| c.is_light() == bi.is_light())
        .map(|c| wk.distance(c))
        .min()
        .unwrap_or(0);
    let count = |bb: Bitboard| u64::from(bb.count() as u32).min(5);
    let features: [u64; 18] = [
        u64::from(pos.turn() != strong),
        u64::from(pos.is_check()),
        attackers.min(2),
        u64::from(king_attacks(wk).contains(wn)),
        count(knight_attacks(wn) & !attacked & !Bitboard::from(wk)),
        count(king_attacks(wk) & !attacked & !Bitboard::from(wn) & !king_attacks(sk)),
        u64::from(wk.distance(wn).min(5)),
        u64::from(sk.distance(wn).min(5)),
        u64::from(sk.distance(wk).min(5)),
        u64::from(edge_distance(wk)),
        u64::from(edge_distance(wn)),
        u64::from(edge_distance(sk)),
        u64::from((knight_attacks(kn) & knight_attacks(wk) & knight_attacks(wn) & !own).any()),
        u64::from(
            (bishop_attacks(bi, occ)
                & bishop_attacks(wk, without_bishop)
                & bishop_attacks(wn, without_bishop)
                & !own)
                .any(),
        ),
        u64::from(bishop_attacks(wk, occ).contains(wn)),
        u64::from((king_attacks(sk) & king_attacks(wn)).any()),
        u64::from(corner.min(4)),
        u64::from((king_attacks(sk) & (Bitboard::from(bi) | Bitboard::from(kn))).any()),
    ];
    let key = features
        .iter()
        .zip(RADIX)
        .fold(0, |key, (&v, radix)| key * radix + v);
    u32::try_from(key).ok()
}

/// Whether the position's bucket is one of the drawn ones.
pub(super) fn drawn(pos: &Chess, strong: Color) -> bool {
    static KEYS: OnceLock<Vec<u32>> = OnceLock::new();
    let keys = KEYS.get_or_init(|| {
        decode(include_bytes!("kbnkn_draws.bin")).expect("the shipped bucket file decodes")
    });
    key(pos, strong).is_some_and(|k| keys.binary_search(&k).is_ok())
}

/// The file of the sorted, distinct `keys`.
pub fn encode(keys: &[u32]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(keys.len() as u32).to_le_bytes());
    let mut previous = 0;
    for &k in keys {
        let mut rest = k - previous;
        previous = k;
        loop {
            let low = (rest & 0x7f) as u8;
            rest >>= 7;
            if rest == 0 {
                out.push(low);
                break;
            }
            out.push(low | 0x80);
        }
    }
    out
}

/// The keys of a bucket file; `None` when it is not one.
fn decode(bytes: &[u8]) -> Option<Vec<u32>> {
    let body = bytes.strip_prefix(MAGIC)?;
    let (count, mut rest) = body.split_first_chunk::<4>()?;
    let count = u32::from_le_bytes(*count) as usize;
    let mut keys = Vec::with_capacity(count);
    let mut previous = 0u32;
    while let Some((&byte, after)) = rest.split_first() {
        let mut delta = u32::from(byte & 0x7f);
        let mut shift = 7;
        rest = after;
        let mut more = byte & 0x80 != 0;
        while more {
            let (&b, after) = rest.split_first()?;
            rest = after;
            delta |= u32::from(b & 0x7f).checked_shl(shift)?;
            shift += 7;
            more = b & 0x80 != 0;
        }
        previous = previous.checked_add(delta)?;
        keys.push(previous);
    }
    (keys.len() == count).then_some(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::position;

    #[test]
    fn the_file_round_trips_and_the_shipped_one_decodes() {
        let keys = [0, 1, 127, 128, 300, 16_384, 2_000_000_000];
        assert_eq!(decode(&encode(&keys)).unwrap(), keys);
        assert!(decode(b"CKBN\x02\x00\x00\x00\x05").is_none());
        let shipped = decode(include_bytes!("kbnkn_draws.bin")).unwrap();
        assert_eq!(shipped.len(), 33_637);
        assert!(shipped.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn keys_are_the_same_in_both_colour_orientations() {
        // The same position with colours swapped and the board flipped.
        let a = position("8/8/3k4/3n4/8/8/2B5/K1N5 b - - 0 1");
        let b = position("k1n5/2b5/8/8/3N4/3K4/8/8 w - - 0 1");
        assert_eq!(key(&a, Color::White), key(&b, Color::Black));
        assert!(key(&a, Color::White).is_some());
        // Other material has no bucket.
        let c = position("8/8/3k4/3n4/8/8/2B5/K7 b - - 0 1");
        assert_eq!(key(&c, Color::White), None);
    }

    #[test]
    fn a_drawn_bucket_and_a_lost_position() {
        // A safe knight beside its king, far from the strong units: in a
        // drawn bucket.
        let draw = position("8/8/3k4/3n4/8/8/2B5/K1N5 b - - 0 1");
        assert!(drawn(&draw, Color::White));
        // A knight dominated far from its king: a loss (the table), in
        // no drawn bucket.
        let loss = position("8/1k3N1B/8/8/8/3K1n2/8/8 b - - 0 1");
        assert!(!drawn(&loss, Color::White));
    }
}
