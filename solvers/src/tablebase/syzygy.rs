//! The Syzygy bridge: WDL and DTZ from Syzygy tables a judge already has
//! (`tablebase.syzygy` in pipeline.yaml, `--syzygy DIR` on the command line).
//!
//! Syzygy values respect the 50-move rule; problem chess does not, so a
//! cursed win counts as a win and a blessed loss as a loss.

use std::path::Path;

use shakmaty::Chess;
use shakmaty_syzygy::{SyzygyError, Tablebase};

use super::{Material, ProbeError, Wdl, WdlOracle};

const NAME: &str = "Syzygy";

/// The Syzygy tables found in some folders. Files are opened lazily, on the
/// first probe that needs them.
#[derive(Debug)]
pub struct SyzygyTables {
    tables: Tablebase<Chess>,
}

/// A folder that cannot serve as a Syzygy folder.
#[derive(Debug, thiserror::Error)]
#[error("cannot read Syzygy tables in {dir}: {source}")]
pub struct OpenError {
    dir: String,
    source: std::io::Error,
}

impl SyzygyTables {
    /// Registers every table file in `dir`; an error when the folder cannot
    /// be listed. Finding no table at all is not an error (the count says so).
    pub fn open(dir: &Path) -> Result<(SyzygyTables, usize), OpenError> {
        let mut tables = Tablebase::new();
        let count = tables.add_directory(dir).map_err(|source| OpenError {
            dir: dir.display().to_string(),
            source,
        })?;
        Ok((SyzygyTables { tables }, count))
    }

    /// Like [`SyzygyTables::open`], but each table file is read into memory
    /// whole when first needed, so probes make no system calls: for
    /// verification runs that probe every position of a table (the 3-4-unit
    /// files are a few MB in all).
    pub fn open_in_memory(dir: &Path) -> Result<(SyzygyTables, usize), OpenError> {
        let mut tables = Tablebase::with_filesystem(std::sync::Arc::new(InMemory));
        let count = tables.add_directory(dir).map_err(|source| OpenError {
            dir: dir.display().to_string(),
            source,
        })?;
        Ok((SyzygyTables { tables }, count))
    }

    /// The largest number of units any registered table covers.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// Distance to zeroing (capture or pawn move) in plies, signed as
    /// Syzygy signs it (positive: the side to move wins), when the tables
    /// give it exactly rather than rounded.
    pub fn dtz(&self, pos: &Chess) -> Result<Option<i32>, ProbeError> {
        match self.tables.probe_dtz(pos) {
            Ok(shakmaty_syzygy::MaybeRounded::Precise(dtz)) => Ok(Some(dtz.0)),
            Ok(shakmaty_syzygy::MaybeRounded::Rounded(_)) => Ok(None),
            Err(error) => Err(probe_error(pos, error)),
        }
    }
}

impl WdlOracle for SyzygyTables {
    fn wdl(&self, pos: &Chess) -> Result<Wdl, ProbeError> {
        use shakmaty_syzygy::Wdl as S;
        match self.tables.probe_wdl_after_zeroing(pos) {
            Ok(S::Win | S::CursedWin) => Ok(Wdl::Win),
            Ok(S::Draw) => Ok(Wdl::Draw),
            Ok(S::Loss | S::BlessedLoss) => Ok(Wdl::Loss),
            Err(error) => Err(probe_error(pos, error)),
        }
    }
}

fn probe_error(pos: &Chess, error: SyzygyError) -> ProbeError {
    use shakmaty::Position;
    let material = Material::of(pos.board());
    match error {
        SyzygyError::MissingTable { .. } => ProbeError::MissingTable {
            source_name: NAME,
            material,
        },
        SyzygyError::Castling => ProbeError::Unsupported {
            material,
            why: "Syzygy tables hold no positions with castling rights".into(),
        },
        SyzygyError::TooManyPieces => ProbeError::Unsupported {
            material,
            why: "more units than any Syzygy table holds".into(),
        },
        other => ProbeError::Failed {
            source_name: NAME,
            material,
            error: other.to_string(),
        },
    }
}

/// Table files read whole into memory on opening.
#[derive(Debug)]
struct InMemory;

impl shakmaty_syzygy::filesystem::Filesystem for InMemory {
    fn regular_file_size(&self, path: &Path) -> std::io::Result<u64> {
        let meta = std::fs::metadata(path)?;
        if meta.is_file() {
            Ok(meta.len())
        } else {
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            ))
        }
    }

    fn read_dir(&self, path: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
        std::fs::read_dir(path)?
            .map(|entry| entry.map(|e| e.path()))
            .collect()
    }

    fn open(
        &self,
        path: &Path,
    ) -> std::io::Result<Box<dyn shakmaty_syzygy::filesystem::RandomAccessFile>> {
        Ok(Box::new(InMemoryFile(std::fs::read(path)?)))
    }
}

struct InMemoryFile(Vec<u8>);

impl shakmaty_syzygy::filesystem::RandomAccessFile for InMemoryFile {
    fn read_at(
        &self,
        buf: &mut [u8],
        offset: u64,
        _hint: shakmaty_syzygy::filesystem::ReadHint,
    ) -> std::io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.0.len());
        let n = buf.len().min(self.0.len() - start);
        buf[..n].copy_from_slice(&self.0[start..start + n]);
        Ok(n)
    }
}
