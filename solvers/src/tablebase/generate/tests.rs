//! The generator's tests: un-moves against moves, and the sliced generator
//! against the whole-table one it replaced.

use super::super::file::{self, TableFile};
use super::super::tables::{sub_materials, DtmTables};
use super::first_pass::played;
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
        let mut subs = SubTables::new();
        for sub in sub_materials(&material) {
            if sub.count() > 2 {
                let file = TableFile::open(&tables.path(&sub), &sub).unwrap();
                subs.add_in_memory(sub, file.read_all().unwrap());
            }
        }
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
