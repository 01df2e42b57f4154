//! The generator's tests: un-moves against moves, and the sliced generator
//! against the whole-table one it replaced.

use super::super::file::{self, TableFile};
use super::super::tables::{sub_materials, DtmTables};
use super::first_pass::played;
use super::reference::unmoves;
use super::*;
use shakmaty::{Chess, Position, Square};

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
            unmoves(&layout, &p, |slot, to, _| {
                let q = unmoved(&p, slot, to);
                let Some(prev) = layout.position(&q) else {
                    // Only a check on the side that moves next in `p`
                    // makes a predecessor illegal.
                    let them = if p.white_to_move { 0 } else { 1 };
                    assert!(attacked(&layout, &q, q.squares[them]), "{key}: {q:?}");
                    return;
                };
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
                unmoves(&layout, &c, |slot, to, _| {
                    seen |= layout.encode(&unmoved(&c, slot, to)) == index
                });
                assert!(seen, "{key}: {} -> {m} not un-made", fen(&pos));
            }
            checked += 1;
        }
        assert!(checked > 100, "{key}: {checked}");
    }
}

fn attacked(layout: &Layout, q: &Placement, king: u8) -> bool {
    layout
        .board(q)
        .attacks_to(
            Square::new(u32::from(king)),
            Color::from_white(q.white_to_move),
            layout.occupied(q),
        )
        .any()
}

fn fen(pos: &Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// Every slot of each table generated slice by slice has the value the
/// whole-table generator (kept in `reference`) gives it, and the files are
/// byte for byte the same: tables with and without pawns, with en passant
/// (KPvKP), with promotions into a table of as many units (KPvKP into
/// KQvKP, whose values are asked for by slot and read from disk), and with
/// two pawns of one colour, whose slices can be their own mirror image
/// (KPPvK: un-moves are not sorted out with pawns).
#[test]
fn slices_give_every_slot_the_value_of_the_whole_table_generator() {
    let dir = std::env::temp_dir().join(format!("cookd-slices-{}", std::process::id()));
    let tables = DtmTables::new(&dir);
    for key in ["KQvK", "KPvK", "KRvKN", "KPvKP", "KPPvK"] {
        let material: Material = key.parse().unwrap();
        tables.ensure(&material, &|_| {}).unwrap();
        let subs = sub_tables(&tables, &material);
        let layout = Layout::new(material);
        let old = reference::generate(&layout, &|b, c| subs.value(b, c), &|_| {}).unwrap();
        let path = tables.path(&material);
        let new = TableFile::open(&path, &material)
            .unwrap()
            .read_all()
            .unwrap();
        assert_eq!(old.len() as u64, layout.size(), "{key}");
        let differ = old.iter().zip(&new).filter(|(a, b)| a != b).count();
        assert_eq!(differ, 0, "{key}: {differ} of {} slots differ", old.len());
        let old_path = dir.join(format!("{key}.old"));
        file::write(&old_path, &material, &old).unwrap();
        assert!(
            std::fs::read(&old_path).unwrap() == std::fs::read(&path).unwrap(),
            "{key}: the files differ"
        );
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "slices"))
        .collect();
    assert!(left.is_empty(), "scratch files left: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The sub-tables of `material` from `tables`, in memory.
fn sub_tables(tables: &DtmTables, material: &Material) -> SubTables {
    let mut subs = SubTables::new();
    for sub in sub_materials(material) {
        if sub.count() > 2 {
            let file = TableFile::open(&tables.path(&sub), &sub).unwrap();
            subs.add_in_memory(sub, file.read_all().unwrap());
        }
    }
    subs
}

/// The limit on a mate's length refuses exactly the tables that exceed it.
/// Lowered to a table's own longest mate (no small table comes near
/// [`MAX_PLIES`]) the table is the same file, where positions lost at the
/// limit stand because their predecessors are won sooner; lowered one move
/// further, the table is refused.
#[test]
fn the_limit_refuses_only_tables_whose_mates_exceed_it() {
    let dir = std::env::temp_dir().join(format!("cookd-limit-{}", std::process::id()));
    let tables = DtmTables::new(&dir);
    for key in ["KRvK", "KPvK", "KPvKP"] {
        let material: Material = key.parse().unwrap();
        tables.ensure(&material, &|_| {}).unwrap();
        let subs = sub_tables(&tables, &material);
        let path = tables.path(&material);
        let codes = TableFile::open(&path, &material)
            .unwrap()
            .read_all()
            .unwrap();
        let needed = needed_limit(&codes);
        let lost_at_the_limit = codes.iter().filter(|&&c| u16::from(c) == needed + 1);
        assert!(
            lost_at_the_limit.count() > 0,
            "{key}: its longest mate is a win"
        );
        for limit in [needed - 2, needed, needed + 2] {
            let (left_out, limited) = generate_limited(&dir, &material, &subs, limit);
            if limit >= needed {
                assert!(limited.unwrap() == codes, "{key} at {limit} plies");
                assert_eq!(left_out, 0, "{key}: no exit is too long");
            } else {
                assert!(
                    limited.is_none(),
                    "{key}: a mate of {needed} plies in {limit}"
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A win longer than the limit through a move out of the part is left out
/// where a shorter win stands. No real small table has such a move at its
/// own limit, so KPvK is generated from a KQvK and a KRvK in which every
/// position no KPvK position promotes into with a best move is lost 100
/// plies later: KPvK's values stay the same (only moves that were not best
/// got worse), but where promoting now is the best move out of the part and
/// a king move first is better, the promotion is now a win far longer than
/// KPvK's longest mate. With every position of those tables lost 100
/// plies later, KPvK needs longer mates and is refused.
#[test]
fn a_win_too_long_through_an_exit_is_left_out_when_a_shorter_one_stands() {
    let dir = std::env::temp_dir().join(format!("cookd-exit-{}", std::process::id()));
    let tables = DtmTables::new(&dir);
    let material: Material = "KPvK".parse().unwrap();
    tables.ensure(&material, &|_| {}).unwrap();
    let layout = Layout::new(material);
    let kpk = TableFile::open(&tables.path(&material), &material)
        .unwrap()
        .read_all()
        .unwrap();
    let real = sub_tables(&tables, &material);
    let (mut subs, mut all) = (SubTables::new(), SubTables::new());
    for sub in sub_materials(&material) {
        if sub.count() == 2 {
            continue;
        }
        let codes = TableFile::open(&tables.path(&sub), &sub)
            .unwrap()
            .read_all()
            .unwrap();
        let best = best_promotions(&layout, &kpk, &real, &Layout::new(sub));
        // A loss in `l` plies is code `l + 1`, odd.
        let stretch = |keep: &dyn Fn(usize) -> bool| -> Vec<u8> {
            let stretched = |(slot, &c): (usize, &u8)| {
                if c % 2 == 1 && !keep(slot) {
                    c + 100
                } else {
                    c
                }
            };
            codes.iter().enumerate().map(stretched).collect()
        };
        subs.add_in_memory(sub, stretch(&|slot| best.contains(&(slot as u64))));
        all.add_in_memory(sub, stretch(&|_| false));
    }
    let whole = reference::generate(&layout, &|b, c| subs.value(b, c), &|_| {}).unwrap();
    assert!(whole == kpk, "the whole-table generator finds other values");
    let needed = needed_limit(&kpk);
    let (left_out, limited) = generate_limited(&dir, &material, &subs, needed);
    assert!(left_out > 0, "no exit longer than {needed} plies");
    assert!(
        limited.unwrap() == kpk,
        "KPvK at its limit of {needed} plies"
    );
    let (_, refused) = generate_limited(&dir, &material, &subs, needed - 2);
    assert!(
        refused.is_none(),
        "a mate of {needed} plies in {}",
        needed - 2
    );
    let (_, refused) = generate_limited(&dir, &material, &all, needed);
    assert!(refused.is_none(), "every promotion 100 plies longer");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The slots of sub-table `sub` that some position of KPvK (valued by
/// `kpk`) promotes into with a best move.
fn best_promotions(
    layout: &Layout,
    kpk: &[u8],
    subs: &SubTables,
    sub: &Layout,
) -> std::collections::HashSet<u64> {
    let role = sub.piece(2).role;
    let mut best = std::collections::HashSet::new();
    for (index, &code) in kpk.iter().enumerate() {
        let Some(pos) = layout
            .decode(index as u64)
            .and_then(|p| layout.position(&p))
        else {
            continue;
        };
        let value = Dtm::from_code(code);
        for m in &pos.legal_moves() {
            if m.promotion() != Some(role) {
                continue;
            }
            let child = played(&pos, m);
            if subs.value(child.board(), child.turn()).before_move() == value {
                let p = sub.placement(child.board(), child.turn(), false);
                best.insert(sub.encode(&p));
            }
        }
    }
    best
}

/// The smallest even limit that holds every value of `codes`: a win's
/// ply is odd and needs the next even limit.
fn needed_limit(codes: &[u8]) -> u16 {
    let longest = codes.iter().map(|&c| u16::from(c).saturating_sub(1)).max();
    (longest.unwrap() + 1) & !1
}

/// Generates `material` with mates up to `limit` plies: the exits left out
/// as too long, and the codes, or `None` when refused as too long.
fn generate_limited(
    dir: &Path,
    material: &Material,
    subs: &SubTables,
    limit: u16,
) -> (u64, Option<Vec<u8>>) {
    let path = dir.join(format!("{material}-{limit}.table"));
    match generate_within(&Layout::new(*material), subs, &path, &|_| {}, limit) {
        Ok((_, left_out)) => {
            let file = TableFile::open(&path, material).unwrap();
            (left_out, Some(file.read_all().unwrap()))
        }
        Err(GenerateError::TooLong { .. }) => (0, None),
        Err(e) => panic!("{material}: {e}"),
    }
}
