//! The layout's encodings against each other and their definitions.

use super::*;

#[test]
fn king_pairs_match_the_classic_counts() {
    assert_eq!(Layout::new("KQvK".parse().unwrap()).king_pairs(), 462);
    assert_eq!(Layout::new("KPvK".parse().unwrap()).king_pairs(), 1806);
}

#[test]
fn identical_units_are_combinations() {
    let layout = Layout::new("KQQvK".parse().unwrap());
    assert_eq!(layout.size(), 2 * 462 * 63 * 64 / 2);
    let layout = Layout::new("KPPvKP".parse().unwrap());
    assert_eq!(layout.size(), 2 * 1806 * (48 * 47 / 2) * 48);
}

/// Splitting a slot into slice and place, and joining them again,
/// agree with the full index on every slot of small tables.
#[test]
fn split_slots_join_to_the_full_index() {
    for key in ["KPvK", "KPvKP", "KPPvK", "KRvKP", "KQvK"] {
        let layout = Layout::new(key.parse().unwrap());
        let rest_size = layout.rest_size();
        assert_eq!(
            rest_size * u64::from(layout.pawn_configs()),
            layout.size(),
            "{key}"
        );
        let mut lines = 0;
        for index in (0..layout.size()).step_by(7) {
            let Some(p) = layout.decode(index) else {
                continue;
            };
            if layout.encode(&p) != index {
                continue;
            }
            let (config, rest) = layout.encode_split(&p);
            assert!(rest < rest_size, "{key} {index}");
            assert_eq!(layout.join(config, rest), layout.encode(&p), "{key}");
            assert_eq!(layout.decode_split(config, rest), Some(p), "{key}");
            let (pawns, slots) = layout.config_pawns(config);
            for slot in slots {
                assert_eq!(pawns[slot], p.squares[slot], "{key} {index}");
            }
            assert_eq!(layout.config_of(&pawns), config, "{key} {index}");
            // Moving one unit re-encodes like a full encode.
            for (slot, q) in moved_one_unit(&layout, &p) {
                assert_eq!(
                    layout.encode_split_moved((config, rest), &p, slot, &q),
                    layout.encode_split(&q),
                    "{key} {index} slot {slot}"
                );
                // The line of a lone piece's moves gives the same place.
                if let Some((offset, stride)) = layout.place_line(&p, slot) {
                    let to = i64::from(q.squares[slot]);
                    let (_, moved) = layout.encode_split(&q);
                    assert_eq!(
                        rest as i64 + offset + stride * to,
                        moved as i64,
                        "{key} {index}"
                    );
                    lines += 1;
                }
            }
        }
        let lone = layout
            .groups()
            .iter()
            .any(|g| g.count == 1 && g.piece.role != Role::Pawn);
        assert_eq!(lines > 0, lone, "{key}: {lines} lines");
    }
}

#[test]
fn decode_then_encode_is_identity_on_canonical_slots() {
    for key in ["KQQvK", "KRvKN", "KPvKP", "KBNvK"] {
        let layout = Layout::new(key.parse().unwrap());
        let mut canonical = 0;
        for index in (0..layout.size()).step_by(97) {
            let Some(p) = layout.decode(index) else {
                continue;
            };
            let again = layout.encode(&p);
            // Only symmetric king placements have a second name.
            if again != index {
                assert_eq!(transform(4, p.squares[0]), p.squares[0], "{key} {index}");
                assert!(again < index);
            } else {
                canonical += 1;
            }
            // Every symmetric image has the same index.
            let transforms: &[u8] = if layout.material.has_pawns() {
                &[1]
            } else {
                &[1, 2, 3, 4, 5, 6, 7]
            };
            for &t in transforms {
                let mut q = p;
                for s in &mut q.squares[..layout.units] {
                    *s = transform(t, *s);
                }
                assert_eq!(layout.encode(&q), again, "{key} {index} t{t}");
            }
            // Moving one unit re-encodes like a full encode.
            if again == index {
                for (slot, q) in moved_one_unit(&layout, &p) {
                    assert_eq!(
                        layout.encode_moved(index, &p, slot, &q),
                        layout.encode(&q),
                        "{key} {index} slot {slot}"
                    );
                }
            }
        }
        assert!(canonical > 0);
    }
}

/// `p` with one unit moved nine squares on (and the other side to move),
/// for each unit where that gives a placement: the incremental encoders
/// must agree with the full ones on each.
fn moved_one_unit(layout: &Layout, p: &Placement) -> Vec<(usize, Placement)> {
    (0..layout.units)
        .filter_map(|slot| {
            let mut q = *p;
            q.squares[slot] = (p.squares[slot] + 9) % 64;
            q.white_to_move = !p.white_to_move;
            let free = q.squares[..layout.units]
                .iter()
                .filter(|&&s| s == q.squares[slot])
                .count()
                == 1;
            let pawn_ok =
                layout.piece(slot).role != Role::Pawn || (8..56).contains(&q.squares[slot]);
            (free && pawn_ok && kings_apart(q.squares[0], q.squares[1])).then_some((slot, q))
        })
        .collect()
}

/// The multiplying divisor agrees with hardware division on every size an
/// index divides by and on numbers up to 2^32 - 1, edges and a spread.
#[test]
fn divisor_agrees_with_division() {
    let sizes = [
        2,
        3,
        7,
        48,
        64,
        462,
        1128,
        1806,
        2016,
        17296,
        41664,
        (1 << 31) + 11,
    ];
    let mut numbers: Vec<u64> = vec![0, 1, (1 << 32) - 1, (1 << 32) - 2, 1 << 31];
    let mut x: u64 = 0x9e37_79b9;
    for _ in 0..100_000 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        numbers.push(x >> 32);
    }
    for d in sizes {
        let divisor = Divisor::new(d);
        for k in [1, 2, 1000, (1 << 32) / d] {
            numbers.extend(
                [k * d - 1, k * d, k * d + 1]
                    .iter()
                    .filter(|&&n| n < 1 << 32),
            );
        }
        for &n in &numbers {
            assert_eq!(divisor.div_rem(n), (n / d, n % d), "{n} / {d}");
        }
    }
}

/// A run decoded digit by digit gives every place's [`Layout::decode_split`],
/// across the carries into the king pair and the side to move.
#[test]
fn decode_run_agrees_with_decode_split() {
    for key in ["KPvK", "KRvKP", "KQQvK", "KBNvKP", "KPPvK"] {
        let layout = Layout::new(key.parse().unwrap());
        let rest_size = layout.rest_size();
        let config = layout.pawn_configs() / 2;
        // From the start, across the side to move, and to the end.
        for start in [0, rest_size / 2 - 700, rest_size - 1500] {
            let count = 1500.min(rest_size - start) as usize;
            let mut seen = 0;
            layout.decode_run(config, start, count, |rest, p| {
                assert_eq!(rest, start + seen, "{key}");
                assert_eq!(p, layout.decode_split(config, rest), "{key} {rest}");
                seen += 1;
            });
            assert_eq!(seen as usize, count, "{key}");
        }
    }
}
