//! The sub-tables a table's captures and promotions lead to: held in
//! memory, or (promotions into tables as large as the one generated) read
//! from disk only while a part's questions to them are answered.

use rayon::prelude::*;
use shakmaty::{Board, ByRole, Color, Role};

use super::super::file::{FileError, TableFile, BLOCK_SLOTS};
use super::super::index::{Layout, Placement, MAX_UNITS};
use super::super::moves::PlacementMove;
use super::super::{Dtm, Material};

/// The sub-tables a table's captures and promotions lead to.
#[derive(Debug, Default)]
pub struct SubTables {
    tables: Vec<SubTable>,
}

#[derive(Debug)]
struct SubTable {
    material: Material,
    layout: Layout,
    source: Source,
}

#[derive(Debug)]
enum Source {
    Memory(Vec<u8>),
    /// Read whole while a part's questions to it are answered, one
    /// sub-table at a time.
    Disk(TableFile),
}

/// Where each capture and promotion of one table's placements leads (see
/// [`SubTables::exits`]): the generator's first pass finds the sub-table
/// slot from the placement, without building a board and reading its
/// material for every such move.
#[derive(Debug)]
pub(super) struct Exits {
    /// By [`Exits::key`]; `None` where no such move exists or its table
    /// is absent.
    to: Vec<Option<Exit>>,
}

#[derive(Debug, Clone, Copy)]
enum Exit {
    BareKings,
    Table {
        number: usize,
        /// The sub-table holds the colour-mirrored material.
        mirrored: bool,
        /// By the sub-table's placement slot, the parent's slot.
        from: [u8; MAX_UNITS],
    },
}

impl Exits {
    const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];
    const KEYS: usize = (MAX_UNITS + 1) * (1 + MAX_UNITS * 4);

    fn key(captured: Option<usize>, promotion: Option<(usize, Role)>) -> usize {
        let promoted = promotion.map_or(0, |(slot, role)| {
            let r = Exits::PROMOTIONS.iter().position(|&x| x == role);
            1 + slot * 4 + r.expect("a promotion role")
        });
        captured.unwrap_or(MAX_UNITS) * (1 + MAX_UNITS * 4) + promoted
    }

    fn locate(&self, subs: &SubTables, p: &Placement, m: &PlacementMove) -> Option<(usize, u64)> {
        let exit = self.to[Exits::key(m.captured, m.promotion.map(|r| (m.slot, r)))];
        match exit.expect("sub-table present") {
            Exit::BareKings => None,
            Exit::Table {
                number,
                mirrored,
                from,
            } => {
                let layout = &subs.tables[number].layout;
                let mut q = Placement {
                    squares: [0; MAX_UNITS],
                    // The side to move after `m`, in the sub-table's colours.
                    white_to_move: p.white_to_move == mirrored,
                };
                for (sq, &s) in q.squares.iter_mut().zip(&from).take(layout.units()) {
                    let s = usize::from(s);
                    let at = if s == m.slot { m.to } else { p.squares[s] };
                    *sq = if mirrored { at ^ 56 } else { at };
                }
                Some((number, layout.encode(&q)))
            }
        }
    }
}

/// What the sub-tables say about a position.
pub(super) enum Lookup {
    Known(Dtm),
    /// Asked later: the table's number in [`SubTables`] and the slot.
    Deferred(usize, u32),
}

impl SubTables {
    pub fn new() -> SubTables {
        SubTables::default()
    }

    /// Adds a table held in memory: every slot's code.
    pub fn add_in_memory(&mut self, material: Material, codes: Vec<u8>) {
        self.tables.push(SubTable {
            material,
            layout: Layout::new(material),
            source: Source::Memory(codes),
        });
    }

    /// Adds a table read from disk only when a part's questions to it are
    /// answered.
    pub fn add_on_disk(&mut self, file: TableFile) {
        self.tables.push(SubTable {
            material: file.material(),
            layout: Layout::new(file.material()),
            source: Source::Disk(file),
        });
    }

    /// How many sub-tables there are.
    pub(super) fn count(&self) -> usize {
        self.tables.len()
    }

    /// The slots of sub-table `number`.
    pub(super) fn size(&self, number: usize) -> u64 {
        self.tables[number].layout.size()
    }

    pub(super) fn lookup(&self, board: &Board, turn: Color) -> Lookup {
        self.answer(self.locate(board, turn))
    }

    /// Where a position is stored: its sub-table's number and slot, `None`
    /// for bare kings (a draw).
    fn locate(&self, board: &Board, turn: Color) -> Option<(usize, u64)> {
        let m = Material::of(board);
        if m.count() <= 2 {
            return None;
        }
        let (normal, mirrored) = m.normalized();
        let number = self.number(normal).expect("sub-table present");
        let layout = &self.tables[number].layout;
        Some((
            number,
            layout.encode(&layout.placement(board, turn, mirrored)),
        ))
    }

    fn number(&self, material: Material) -> Option<usize> {
        self.tables.iter().position(|t| t.material == material)
    }

    fn answer(&self, at: Option<(usize, u64)>) -> Lookup {
        let Some((number, slot)) = at else {
            return Lookup::Known(Dtm::Draw);
        };
        match &self.tables[number].source {
            Source::Memory(codes) => Lookup::Known(Dtm::from_code(codes[slot as usize])),
            Source::Disk(_) => Lookup::Deferred(number, slot as u32),
        }
    }

    /// [`SubTables::lookup`] of the position after `m`, a capture or a
    /// promotion in `p` (a placement of `layout`), found from the
    /// placement without a board.
    pub(super) fn lookup_exit(&self, exits: &Exits, p: &Placement, m: &PlacementMove) -> Lookup {
        self.answer(exits.locate(self, p, m))
    }

    /// Where the captures and promotions of `layout`'s placements lead.
    pub(super) fn exits(&self, layout: &Layout) -> Exits {
        let units = layout.units();
        let mut to = vec![None; Exits::KEYS];
        for captured in (2..units).map(Some).chain([None]) {
            let pawns = (2..units).filter(|&s| layout.piece(s).role == Role::Pawn);
            let promotions = pawns
                .flat_map(|s| Exits::PROMOTIONS.map(|r| Some((s, r))))
                .chain([None]);
            for promotion in promotions {
                let mover = promotion.map(|(s, _)| layout.piece(s).color);
                let taken = captured.map(|c| layout.piece(c).color);
                let possible = match (mover, taken) {
                    (Some(m), Some(t)) => m != t,
                    (None, None) => false,
                    _ => true,
                };
                if possible {
                    to[Exits::key(captured, promotion)] = self.exit(layout, captured, promotion);
                }
            }
        }
        Exits { to }
    }

    /// Where a capture of the unit in `captured` and a promotion of the
    /// pawn in a slot to a role lead, when the table is present.
    fn exit(
        &self,
        layout: &Layout,
        captured: Option<usize>,
        promotion: Option<(usize, Role)>,
    ) -> Option<Exit> {
        // The units left, by slot of the parent placement.
        let left: Vec<(usize, Color, Role)> = (0..layout.units())
            .filter(|&s| Some(s) != captured)
            .map(|s| {
                let piece = layout.piece(s);
                let role = match promotion {
                    Some((p, r)) if p == s => r,
                    _ => piece.role,
                };
                (s, piece.color, role)
            })
            .collect();
        if left.len() <= 2 {
            return Some(Exit::BareKings);
        }
        let mut material = Material {
            white: ByRole::default(),
            black: ByRole::default(),
        };
        for &(_, color, role) in &left {
            let side = match color {
                Color::White => &mut material.white,
                Color::Black => &mut material.black,
            };
            *side.get_mut(role) += 1;
        }
        let (normal, mirrored) = material.normalized();
        let number = self.number(normal)?;
        let child = &self.tables[number].layout;
        let mut from = [0u8; MAX_UNITS];
        let mut used = [false; MAX_UNITS];
        for (j, slot) in from.iter_mut().enumerate().take(child.units()) {
            let piece = child.piece(j);
            let color = if mirrored { !piece.color } else { piece.color };
            let &(s, _, _) = left
                .iter()
                .find(|&&(s, c, r)| !used[s] && c == color && r == piece.role)
                .expect("the child's units are the parent's");
            used[s] = true;
            *slot = s as u8;
        }
        Some(Exit::Table {
            number,
            mirrored,
            from,
        })
    }
    /// The value of a position of a sub-table held in memory (an
    /// en-passant capture leads to a table of fewer units: always one).
    pub fn value(&self, board: &Board, turn: Color) -> Dtm {
        match self.lookup(board, turn) {
            Lookup::Known(v) => v,
            Lookup::Deferred(..) => panic!("an en-passant capture into a table on disk"),
        }
    }

    /// The codes of sub-table `number` for `len` slots from `start` (a
    /// multiple of the file's block), read from disk when kept there.
    pub(super) fn codes(
        &self,
        number: usize,
        start: u64,
        len: u64,
    ) -> Result<std::borrow::Cow<'_, [u8]>, FileError> {
        let table = &self.tables[number];
        let end = (start + len).min(table.layout.size());
        Ok(match &table.source {
            Source::Memory(codes) => {
                std::borrow::Cow::Borrowed(&codes[start as usize..end as usize])
            }
            Source::Disk(file) => {
                let block = u64::from(BLOCK_SLOTS);
                debug_assert_eq!(start % block, 0);
                let blocks = (start / block) as usize..end.div_ceil(block) as usize;
                let codes = blocks
                    .into_par_iter()
                    .map(|b| file.read_block(b))
                    .collect::<Result<Vec<_>, _>>()?;
                std::borrow::Cow::Owned(codes.concat())
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::moves::legal_moves;
    use crate::tablebase::tables::sub_materials;
    use shakmaty::Square;

    /// The placement path finds the very sub-table and slot the board path
    /// finds, for every capture and promotion of a spread of slots, in
    /// tables whose exits lead to colour-mirrored materials, bare kings,
    /// groups of two, and captures that promote.
    #[test]
    fn exits_agree_with_boards() {
        for key in ["KPvKP", "KRPvKB", "KNvKPP", "KRvKPP", "KQvKR"] {
            let material: Material = key.parse().unwrap();
            let layout = Layout::new(material);
            let mut subs = SubTables::new();
            for sub in sub_materials(&material) {
                if sub.count() > 2 {
                    // Only slots are compared: no codes needed.
                    subs.add_in_memory(sub, Vec::new());
                }
            }
            let exits = subs.exits(&layout);
            let mut checked = 0;
            for index in (0..layout.size()).step_by(997) {
                let Some(p) = layout.decode(index) else {
                    continue;
                };
                if layout.position(&p).is_none() {
                    continue;
                }
                let us = Color::from_white(p.white_to_move);
                legal_moves(&layout, &p, |m| {
                    if !m.leaves_table() {
                        return;
                    }
                    let mut board = layout.board(&p);
                    let piece = board
                        .remove_piece_at(Square::new(u32::from(m.from)))
                        .unwrap();
                    let role = m.promotion.unwrap_or(piece.role);
                    board.set_piece_at(Square::new(u32::from(m.to)), role.of(piece.color));
                    assert_eq!(
                        exits.locate(&subs, &p, &m),
                        subs.locate(&board, !us),
                        "{key} {index} {m:?}"
                    );
                    checked += 1;
                });
            }
            assert!(checked > 1000, "{key}: {checked}");
        }
    }
}
