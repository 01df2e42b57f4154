//! The stages' options: the `stages:` list of `pipeline.yaml` is these
//! types' serde form (each struct denies unknown fields, so a typo names its
//! key instead of being ignored; every field has a default).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One pipeline stage with its options.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Stage {
    Legality(LegalityOptions),
    Solve(SolveOptions),
    Cooks(CooksOptions),
    Tablebase(TablebaseOptions),
}

impl Stage {
    pub fn name(&self) -> &'static str {
        match self {
            Stage::Legality(_) => "legality",
            Stage::Solve(_) => "solve",
            Stage::Cooks(_) => "cooks",
            Stage::Tablebase(_) => "tablebase",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LegalityOptions {}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SolveOptions {
    #[serde(default = "default_budget_s")]
    pub budget_s: f64,
    #[serde(default = "default_hash_mb")]
    pub hash_mb: u64,
    /// How the threads share one problem; `cookd tune` measures both.
    #[serde(default)]
    pub parallel: Parallel,
    /// Proof games: plies from the initial array at which the threads claim
    /// subtrees (Stelvio's synchronisation depth).
    #[serde(default = "default_spg_sync_depth")]
    pub spg_sync_depth: u32,
}

impl Default for SolveOptions {
    fn default() -> SolveOptions {
        SolveOptions {
            budget_s: default_budget_s(),
            hash_mb: default_hash_mb(),
            parallel: Parallel::default(),
            spg_sync_depth: default_spg_sync_depth(),
        }
    }
}

fn default_spg_sync_depth() -> u32 {
    crate::proofgame::DEFAULT_SYNC_DEPTH
}

/// `parallel:` in the solve stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Parallel {
    /// First moves (and, near the root, Black's replies) shared out.
    #[default]
    Split,
    /// Lazy SMP: every thread solves it all, sharing the table.
    Lazy,
}

impl Parallel {
    pub fn to_solver(self) -> crate::mate::Parallelism {
        match self {
            Parallel::Split => crate::mate::Parallelism::Split,
            Parallel::Lazy => crate::mate::Parallelism::Lazy,
        }
    }
}

fn default_budget_s() -> f64 {
    600.0
}

fn default_hash_mb() -> u64 {
    1024
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CooksOptions {
    /// Sound direct and self mates: search every other first move for tries.
    #[serde(default = "yes")]
    pub tries: bool,
    /// Sound direct and self mates: list the solution's duals.
    #[serde(default = "yes")]
    pub duals: bool,
    /// Cooked and unsolvable `#2`/`#3`: search for the lightest sound,
    /// legal corrections (`null`: none). Helpmates and proof games are
    /// never repaired.
    #[serde(default = "default_repair")]
    pub repair: Option<RepairOptions>,
}

/// `repair:` in the cooks stage.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RepairOptions {
    /// Wall-clock seconds per problem (on the whole pool).
    pub budget_s: f64,
    /// 1: single changes of one unit; 2: pairs of them too.
    pub max_changes: u32,
}

impl Default for RepairOptions {
    fn default() -> RepairOptions {
        RepairOptions {
            budget_s: 10.0,
            max_changes: 2,
        }
    }
}

fn default_repair() -> Option<RepairOptions> {
    Some(RepairOptions::default())
}

fn yes() -> bool {
    true
}

impl Default for CooksOptions {
    fn default() -> CooksOptions {
        CooksOptions {
            tries: true,
            duals: true,
            repair: default_repair(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct TablebaseOptions {
    #[serde(default = "default_max_pieces")]
    pub max_pieces: u32,
    /// cookd's DTM tables; none: the per-user cache
    /// (`$XDG_CACHE_HOME/cookd/tables`).
    #[serde(default)]
    pub dir: Option<PathBuf>,
    #[serde(default)]
    pub syzygy: Option<PathBuf>,
    /// Missing tables up to this many units are generated when a problem
    /// needs them (4: seconds; 5: minutes to tens of minutes each).
    #[serde(default = "default_generate_up_to")]
    pub generate_up_to: u32,
    /// Studies beyond the tables: a UCI engine's suspected findings.
    #[serde(default)]
    pub engine: Option<EngineOptions>,
}

impl TablebaseOptions {
    /// The folder of cookd's DTM tables: `dir`, else the per-user cache;
    /// `None` without either (no `HOME`).
    pub fn folder(&self) -> Option<PathBuf> {
        self.dir.clone().or_else(|| {
            let env = |name| std::env::var_os(name).map(PathBuf::from);
            crate::tablebase::tables::user_cache_dir(
                env("XDG_CACHE_HOME").as_deref(),
                env("HOME").as_deref(),
            )
        })
    }
}

impl Default for TablebaseOptions {
    fn default() -> TablebaseOptions {
        TablebaseOptions {
            max_pieces: default_max_pieces(),
            dir: None,
            syzygy: None,
            generate_up_to: default_generate_up_to(),
            engine: None,
        }
    }
}

fn default_max_pieces() -> u32 {
    5
}

fn default_generate_up_to() -> u32 {
    4
}

/// `engine:` in the tablebase stage.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineOptions {
    #[serde(default = "default_engine_path")]
    pub path: PathBuf,
    /// Search depth per main-line position.
    #[serde(default = "default_engine_depth")]
    pub depth: u32,
    /// Time cap per position, milliseconds.
    #[serde(default = "default_engine_movetime_ms")]
    pub movetime_ms: u64,
    /// Engine time per study, seconds, shared over its positions and the
    /// pool's threads.
    #[serde(default = "default_engine_budget_s")]
    pub budget_s: f64,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            path: default_engine_path(),
            depth: default_engine_depth(),
            movetime_ms: default_engine_movetime_ms(),
            budget_s: default_engine_budget_s(),
        }
    }
}

fn default_engine_path() -> PathBuf {
    PathBuf::from("/usr/games/stockfish")
}

fn default_engine_depth() -> u32 {
    18
}

fn default_engine_movetime_ms() -> u64 {
    3000
}

fn default_engine_budget_s() -> f64 {
    60.0
}
