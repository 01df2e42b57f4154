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
