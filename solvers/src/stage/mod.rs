//! The stages: a problem and the long-lived [`Resources`] in, its part of the
//! [`Verdict`] out. This is the library's front door; the solvers behind
//! it ([`crate::legality`], [`crate::mate`], [`crate::proofgame`],
//! [`crate::tablebase`]) are what each stage calls.
//!
//! ```text
//! file -> problem::parse -> Problem -> stages -> Verdict
//! ```
//!
//! Each stage reads the verdict so far and fills in its own fields:
//!
//! | stage         | genres             | fills in                            |
//! |---------------|--------------------|-------------------------------------|
//! | [`legality`]  | all                | `legality`; `illegal`               |
//! | [`mate`]      | `#n`, `s#n`, `h#n` | `keys` / `solutions`, `tree`, word  |
//! | [`cooks`]     | `#n`               | `quality` (sound), `repairs`        |
//! | [`proofgame`] | `SPG n`            | `solutions`, word; settles legality |
//! | [`tablebase`] | studies, `#n`      | `tablebase`, `engine`; word         |
//!
//! The caller (the daemon's pipeline) sequences them as the configuration's
//! [`Stage`] list says, times them and turns a panic into an `error`
//! verdict; the stages themselves never print, and touch no files but the
//! tables'.
//!
//! [`Verdict`]: crate::Verdict

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::recognizer::Registry;
use crate::tablebase::syzygy::{OpenError, SyzygyTables};
use crate::tablebase::DtmTables;
use crate::transposition::Table;

pub mod cooks;
pub mod legality;
pub mod mate;
pub mod options;
pub mod proofgame;
pub mod tablebase;

pub use options::Stage;

/// What the stages keep from one problem to the next; several problems may
/// use it at once.
///
/// The search table (mates and proof games alike; each keys its entries
/// apart) is mapped once, where a fresh table pays a page fault for each
/// page it touches and threads faulting pages in at once slow each other
/// down. The DTM and Syzygy tables stay open with their caches.
#[derive(Debug, Default)]
pub struct Resources {
    search: OnceLock<Arc<Table>>,
    recognizers: OnceLock<Arc<Registry>>,
    /// Per table folder: the recognizers that read its smaller tables.
    recognizers_in: Mutex<Vec<(PathBuf, Arc<Registry>)>>,
    dtm: Mutex<Vec<Arc<DtmTables>>>,
    syzygy: Mutex<Vec<(PathBuf, Arc<SyzygyTables>)>>,
}

impl Resources {
    /// The search table, of `hash_mb` megabytes when first asked for.
    pub fn search_table(&self, hash_mb: u64) -> &Arc<Table> {
        self.search
            .get_or_init(|| Arc::new(Table::sized(hash_mb, u32::MAX)))
    }

    /// The endgame recognizers, made on first use (the KPK bitbase inside
    /// is built once and shared by every problem after).
    pub fn recognizers(&self) -> &Arc<Registry> {
        self.recognizers.get_or_init(|| Arc::new(Registry::new()))
    }

    /// The recognizers with `tables` at hand for those that read smaller
    /// tables (see [`Registry::with_tables`]), made on first use per folder.
    pub fn recognizers_in(&self, tables: &Arc<DtmTables>) -> Arc<Registry> {
        let mut made = self
            .recognizers_in
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some((_, registry)) = made.iter().find(|(d, _)| d == tables.dir()) {
            return Arc::clone(registry);
        }
        let registry = Arc::new(Registry::with_tables(Arc::clone(tables)));
        made.push((tables.dir().to_owned(), Arc::clone(&registry)));
        registry
    }

    /// The DTM tables in `dir`, opened on first use. (A configuration
    /// reloaded with another folder adds one; there are never many.)
    pub fn dtm(&self, dir: &Path) -> Arc<DtmTables> {
        let mut open = self.dtm.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tables) = open.iter().find(|t| t.dir() == dir) {
            return Arc::clone(tables);
        }
        let tables = Arc::new(DtmTables::new(dir));
        open.push(Arc::clone(&tables));
        tables
    }

    /// The Syzygy tables in `dir`, opened on first use; a folder that
    /// cannot be read is tried again next time.
    pub fn syzygy(&self, dir: &Path) -> Result<Arc<SyzygyTables>, OpenError> {
        let mut open = self.syzygy.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, tables)) = open.iter().find(|(d, _)| d == dir) {
            return Ok(Arc::clone(tables));
        }
        let (tables, _) = SyzygyTables::open(dir)?;
        let tables = Arc::new(tables);
        open.push((dir.to_owned(), Arc::clone(&tables)));
        Ok(tables)
    }
}
