//! `cookd tb generate` and `cookd tb probe`: cookd's DTM tables from the
//! shell. `cookd tb verify` (recognizers) lives beside this.

use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, Result};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

use solvers::tablebase::generate::{memory_bytes, Phase, Progress};
use solvers::tablebase::index::Layout;
use solvers::tablebase::syzygy::SyzygyTables;
use solvers::tablebase::tables::{all_materials, closure, DtmTables};
use solvers::tablebase::{Material, WdlOracle};

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Folder for the table files (created when missing).
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// Materials such as KQvK or KRPvKR, or all3 / all4 / all5. Sub-tables
    /// (after captures and promotions) are generated first when missing.
    #[arg(required = true)]
    materials: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// Folder of cookd's DTM tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// A Syzygy folder, used for WDL (and DTZ) when no DTM table holds the
    /// position.
    #[arg(long)]
    syzygy: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The position, in FEN.
    fen: String,
}

fn materials(words: &[String]) -> Result<Vec<Material>> {
    let mut out = Vec::new();
    for word in words {
        match word.as_str() {
            "all3" => out.extend(all_materials(3)),
            "all4" => out.extend(all_materials(4)),
            "all5" => out.extend(all_materials(5)),
            key => out.push(key.parse::<Material>()?.normalized().0),
        }
    }
    Ok(out)
}

/// Draws generation progress on stderr: a bar on a terminal, a log line
/// per ten plies otherwise.
fn progress_reporter() -> impl Fn(Progress) + Sync {
    let terminal = std::io::stderr().is_terminal();
    let last = Mutex::new((String::new(), Instant::now()));
    move |p: Progress| {
        let (what, fraction) = match p.phase {
            Phase::Init => (
                "counting moves".to_owned(),
                p.done as f64 / p.total.max(1) as f64,
            ),
            Phase::Ply(ply) => (format!("ply {ply}"), p.done as f64 / p.total.max(1) as f64),
            Phase::Finished => return,
        };
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        if terminal {
            if last.1.elapsed().as_millis() < 100 && last.0 == what {
                return;
            }
            let filled = (fraction * 30.0) as usize;
            eprint!(
                "\r{:<8} [{}{}] {:>5.1}% {:<16}",
                p.material.to_string(),
                "#".repeat(filled.min(30)),
                " ".repeat(30 - filled.min(30)),
                100.0 * fraction,
                what
            );
        } else {
            let log = match p.phase {
                Phase::Ply(ply) => ply % 10 == 0 && last.0 != what,
                _ => last.0.is_empty() || last.1.elapsed().as_secs() >= 10,
            };
            if log {
                eprintln!("{}: {what}, {:.1}% resolved", p.material, 100.0 * fraction);
            } else {
                return;
            }
        }
        *last = (what, Instant::now());
    }
}

pub fn generate(args: GenerateArgs) -> Result<ExitCode> {
    let tables = DtmTables::new(&args.dir);
    let wanted = materials(&args.materials)?;
    let mut peak = 0u64;
    for m in &wanted {
        for sub in closure(m) {
            peak = peak.max(memory_bytes(&Layout::new(sub)));
        }
    }
    eprintln!(
        "generating into {} (working memory at most {:.1} MiB per table, plus its sub-tables)",
        args.dir.display(),
        peak as f64 / (1 << 20) as f64
    );
    let progress = progress_reporter();
    let terminal = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut stdout = std::io::stdout().lock();
    for m in &wanted {
        let done = tables
            .ensure(m, &progress)
            .with_context(|| format!("generating {m}"))?;
        for g in done {
            if terminal {
                eprint!("\r{:70}\r", "");
            }
            writeln!(
                stdout,
                "{}\t{} positions\t{} bytes\t{:.2} s\tlongest mate {} plies",
                g.material,
                g.slots,
                g.file_bytes,
                g.elapsed.as_secs_f64(),
                g.longest_win
            )?;
        }
    }
    eprintln!("done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

pub fn probe(args: ProbeArgs) -> Result<ExitCode> {
    let fen: Fen = args
        .fen
        .parse()
        .with_context(|| format!("invalid FEN {:?}", args.fen))?;
    let pos: Chess = fen
        .into_position(CastlingMode::Standard)
        .map_err(|e| anyhow::anyhow!("not a legal position: {e}"))?;
    let material = Material::of(pos.board());
    let tables = DtmTables::new(&args.dir);
    let (wdl, dtm, dtz, source) = match tables.try_probe(&pos) {
        Ok(dtm) => (dtm.wdl(), dtm.plies(), None, "cookd DTM"),
        Err(dtm_error) => {
            let Some(dir) = &args.syzygy else {
                anyhow::bail!("{dtm_error} in {}", args.dir.display());
            };
            let (syzygy, _) = SyzygyTables::open(dir)?;
            let wdl = syzygy
                .wdl(&pos)
                .with_context(|| format!("{dtm_error}; Syzygy neither"))?;
            (wdl, None, syzygy.dtz(&pos).ok().flatten(), "Syzygy")
        }
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            let mut value = serde_json::json!({
                "material": material.to_string(),
                "wdl": wdl,
                "dtm_plies": dtm,
                "source": source,
            });
            if let Some(dtz) = dtz {
                value["dtz"] = dtz.into();
            }
            writeln!(out, "{value}")?;
        }
        Format::Text => {
            let value = match dtm {
                Some(n) => format!("{wdl} in {n} plies"),
                None => wdl.to_string(),
            };
            writeln!(out, "{material}: {value} for the side to move ({source})")?;
            if source == "cookd DTM" {
                let best = tables.best_moves(&pos)?;
                let san: Vec<String> = best
                    .iter()
                    .map(|(m, _)| shakmaty::san::San::from_move(&pos, *m).to_string())
                    .collect();
                if !san.is_empty() {
                    writeln!(out, "best: {}", san.join(" "))?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
