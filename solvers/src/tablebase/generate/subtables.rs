//! The sub-tables a table's captures and promotions lead to: held in
//! memory, or (promotions into tables as large as the one generated) read
//! from disk only while a part's questions to them are answered.

use rayon::prelude::*;
use shakmaty::{Board, Color};

use super::super::file::{FileError, TableFile, BLOCK_SLOTS};
use super::super::index::Layout;
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
        let m = Material::of(board);
        if m.count() <= 2 {
            return Lookup::Known(Dtm::Draw);
        }
        let (normal, mirrored) = m.normalized();
        let (number, table) = self
            .tables
            .iter()
            .enumerate()
            .find(|(_, t)| t.material == normal)
            .expect("sub-table present");
        let slot = table
            .layout
            .encode(&table.layout.placement(board, turn, mirrored));
        match &table.source {
            Source::Memory(codes) => Lookup::Known(Dtm::from_code(codes[slot as usize])),
            Source::Disk(_) => Lookup::Deferred(number, slot as u32),
        }
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
