//! `cookd tb verify`: run endgame recognizers over every position of their
//! materials and compare each answer with a tablebase. Prints one row per
//! recognizer and material orientation: positions, incorrect answers,
//! spotted draws, missed draws, spotted wins, time, positions per second
//! (recognizer and table probe together). Exit status 1 when any
//! recognizer gave an incorrect answer.
//!
//! The oracle for a material is chosen by [`oracle_for`]: Syzygy tables
//! (`--syzygy DIR`, 3-4 units here) or cookd's own tables (`--dir DIR`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use solvers::recognizer::{verify as run_verify, Recognizer, Registry, Sample, Stats};
use solvers::tablebase::syzygy::SyzygyTables;
use solvers::tablebase::tables::{DtmTables, LoadedTable};
use solvers::tablebase::{Material, WdlOracle};

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Folder of cookd's own tables (`cookd tb generate`).
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// Folder of Syzygy tables.
    #[arg(long)]
    syzygy: Option<PathBuf>,
    /// Check only every Nth placement of the first two units (a quick,
    /// deterministic sample; default: every position).
    #[arg(long, default_value_t = 1)]
    every: usize,
    /// Recognizers to verify (default: all), e.g. kpk kbpk.
    recognizers: Vec<String>,
}

/// The tables a verification can consult.
struct Oracles {
    syzygy: Option<SyzygyTables>,
    dtm: DtmTables,
}

/// Where the truth about one material comes from.
enum Oracle<'a> {
    Syzygy(&'a SyzygyTables),
    /// cookd's own table, read whole: a verification probes every slot.
    Dtm(LoadedTable),
    /// Kings alone, which need no table.
    Folder(&'a DtmTables),
}

impl Oracle<'_> {
    fn as_dyn(&self) -> &(dyn WdlOracle + Sync) {
        match self {
            Oracle::Syzygy(tables) => *tables,
            Oracle::Dtm(table) => table,
            Oracle::Folder(tables) => *tables,
        }
    }
}

/// The oracle that covers `material`, or why there is none: Syzygy
/// first, then cookd's own DTM tables in `--dir`.
fn oracle_for<'a>(oracles: &'a Oracles, material: &Material) -> Result<Oracle<'a>, String> {
    if let Some(syzygy) = &oracles.syzygy {
        if material.count() as usize <= syzygy.max_pieces() {
            return Ok(Oracle::Syzygy(syzygy));
        }
    }
    if material.count() <= 2 {
        return Ok(Oracle::Folder(&oracles.dtm));
    }
    let key = material.normalized().0;
    if oracles.dtm.has(material) {
        return oracles
            .dtm
            .load(material)
            .map(Oracle::Dtm)
            .map_err(|e| format!("cannot read the table for {key}: {e}"));
    }
    Err(format!(
        "no table for {key} in {}; generate it with cookd tb generate {key}",
        oracles.dtm.dir().display()
    ))
}

pub fn verify(args: VerifyArgs) -> Result<ExitCode> {
    // Recognizers that read smaller tables read them from the same folder.
    let registry = Registry::with_tables(std::sync::Arc::new(DtmTables::new(&args.dir)));
    let chosen: Vec<&Recognizer> = if args.recognizers.is_empty() {
        registry.all().iter().collect()
    } else {
        args.recognizers
            .iter()
            .map(|name| {
                registry.by_name(name).with_context(|| {
                    let names: Vec<&str> = registry.all().iter().map(|r| r.name()).collect();
                    format!("no recognizer {name:?} (known: {})", names.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    if args.every == 0 {
        bail!("--every must be at least 1");
    }
    let syzygy = match &args.syzygy {
        Some(dir) => {
            let (tables, count) = SyzygyTables::open_in_memory(dir)?;
            if count == 0 {
                bail!("no Syzygy tables in {}", dir.display());
            }
            Some(tables)
        }
        None => None,
    };
    let oracles = Oracles {
        syzygy,
        dtm: DtmTables::new(&args.dir),
    };
    let sample = match args.every {
        1 => Sample::All,
        n => Sample::EveryNth(n),
    };

    println!(
        "{:<10} {:<8} {:>9} {:>12} {:>10} {:>14} {:>14} {:>14} {:>9} {:>12}",
        "recognizer",
        "status",
        "material",
        "positions",
        "incorrect",
        "spotted draws",
        "missed draws",
        "spotted wins",
        "time s",
        "positions/s"
    );
    let mut any_incorrect = false;
    for recognizer in chosen {
        let status = if recognizer.verified() {
            "ships"
        } else {
            "pending"
        };
        for material in orientations(recognizer) {
            let oracle = match oracle_for(&oracles, &material) {
                Ok(oracle) => oracle,
                Err(why) => {
                    println!("{:<10} {status:<8} {material:>9}  {why}", recognizer.name());
                    continue;
                }
            };
            let start = Instant::now();
            let stats = run_verify(recognizer, &material, oracle.as_dyn(), sample)?;
            let seconds = start.elapsed().as_secs_f64();
            print_row(recognizer, status, &material, &stats, seconds);
            for example in &stats.examples {
                eprintln!("{}: incorrect: {example}", recognizer.name());
            }
            any_incorrect |= stats.incorrect > 0;
        }
    }
    Ok(if any_incorrect {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Each registered material in both colour orientations (once when they
/// are the same, as in KPvKP).
fn orientations(recognizer: &Recognizer) -> Vec<Material> {
    let mut all = Vec::new();
    for material in recognizer.materials() {
        for m in [*material, material.flipped()] {
            if !all.contains(&m) {
                all.push(m);
            }
        }
    }
    all
}

fn print_row(recognizer: &Recognizer, status: &str, material: &Material, s: &Stats, secs: f64) {
    println!(
        "{:<10} {status:<8} {:>9} {:>12} {:>10} {:>14} {:>14} {:>14} {:>9.1} {:>12.0}",
        recognizer.name(),
        material.to_string(),
        s.positions,
        s.incorrect,
        s.spotted_draws,
        s.missed_draws,
        s.spotted_wins,
        secs,
        s.positions as f64 / secs.max(1e-9)
    );
}
