//! `cookd solve`: the pipeline once over files and folders, verdicts to stdout.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use solvers::stage::Resources;
use solvers::verdict::Kind;

use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::estimate;
use crate::executor::{FileVerdicts, Slurm};
use crate::intake;
use crate::journal::Journal;
use crate::ledger::Checkpoints;
use crate::pipeline;
use crate::report::{self, Format};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Configuration file (default: the built-in pipeline.yaml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Output format: a text report, YAML documents, or JSON Lines.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Record the finished work items of long proof games in the journal
    /// (the configuration's `database`) and take those an earlier
    /// `cookd solve --resume` or `cookd run` recorded for the same file and
    /// configuration: a search cut short goes on where it stopped.
    #[arg(long)]
    resume: bool,
    /// Before judging a file, print the estimate of each proof game's
    /// search to stderr (as `cookd estimate` does).
    #[arg(long)]
    estimate: bool,
    /// Problem files, or folders whose problem files are all judged.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Judges `files` on the cluster, one task each: the verdicts of those a
/// task judged, by their place in `files` (the others, and those that
/// cannot be read, are judged here).
fn on_cluster(slurm: &Slurm, files: &[PathBuf]) -> Result<HashMap<usize, FileVerdicts>> {
    let readable: Vec<(usize, String, Vec<u8>)> = files
        .iter()
        .enumerate()
        .filter_map(|(n, path)| Some((n, path.display().to_string(), intake::read(path).ok()?)))
        .collect();
    let batch: Vec<(String, Vec<u8>)> = readable
        .iter()
        .map(|(_, name, content)| (name.clone(), content.clone()))
        .collect();
    let say = |text: &str| eprintln!("cookd: {text}");
    let judged = slurm.judge_files(&batch, &say)?;
    Ok(readable
        .iter()
        .zip(judged)
        .filter_map(|((n, _, _), judged)| Some((*n, judged?)))
        .collect())
}

pub fn run(args: Args) -> Result<ExitCode> {
    let config = Config::load_or_builtin(args.config.as_deref())?;
    let pool = pipeline::oneshot_pool(&config)?;
    let mut files = Vec::new();
    for path in &args.files {
        intake::files_in(path, &mut files);
    }
    let progress = std::io::stderr().is_terminal();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    let resources = Resources::default();
    let journal = match args.resume {
        true => Some(Journal::open(&config.path(&config.database))?),
        false => None,
    };
    let fingerprint = config.fingerprint();
    let slurm = Slurm::from_config(&config, None)?;
    // A tourney's entries at once: one task per file on the cluster.
    let mut remote = match &slurm {
        Some(slurm) if slurm.options.whole_files && files.len() > 1 => on_cluster(slurm, &files)?,
        _ => HashMap::new(),
    };
    for (n, path) in files.iter().enumerate() {
        let name = path.display().to_string();
        if progress {
            eprint!("\r\x1b[K[{}/{}] {name}", n + 1, files.len());
        }
        if let Some(judged) = remote.remove(&n) {
            for v in &judged.verdicts {
                failed |= v.verdict == Kind::Error.as_str();
                let text = match args.format {
                    Format::Text => &v.text,
                    Format::Yaml => &v.yaml,
                    Format::Json => &v.json,
                };
                out.write_all(text.as_bytes())
                    .context("writing to stdout")?;
            }
            if args.format == Format::Text {
                out.write_all(judged.entries.as_bytes())
                    .context("writing to stdout")?;
            }
            out.flush().context("writing to stdout")?;
            if !progress {
                eprintln!(
                    "cookd: {name}: {} problem(s) judged on the cluster",
                    judged.verdicts.len()
                );
            }
            continue;
        }
        let verdicts = match intake::read(path) {
            Ok(content) => {
                if args.estimate {
                    let estimates = pool.install(|| {
                        estimate::file(
                            &name,
                            &content,
                            &config.stages,
                            &resources,
                            estimate::COUNT_NODES,
                        )
                    });
                    for e in &estimates {
                        eprint!("cookd: estimate: {}", estimate::describe(e));
                    }
                }
                let job = format!("{:x}", Sha256::digest(&content));
                let checkpoints = journal.as_ref().map(|journal| Checkpoints {
                    journal,
                    job: &job,
                    config: &fingerprint,
                    file: &name,
                });
                let verdicts = pool.install(|| {
                    pipeline::judge_file_with(
                        &name,
                        &content,
                        &config.stages,
                        &resources,
                        checkpoints,
                        slurm.as_ref(),
                    )
                });
                // A search that ran out of budget keeps its items for the
                // next try; finished ones need them no more.
                if let Some(c) =
                    checkpoints.filter(|_| verdicts.iter().all(|v| v.verdict != Kind::Unsolved))
                {
                    c.journal.forget_work_items(&c.prefix())?;
                }
                verdicts
            }
            Err(kind) => vec![intake::file_error(&name, kind)],
        };
        for verdict in &verdicts {
            failed |= verdict.verdict == Kind::Error;
            out.write_all(report::render(verdict, args.format)?.as_bytes())
                .context("writing to stdout")?;
        }
        // A cook in any twin is a cook of the whole entry: one line each.
        if args.format == report::Format::Text {
            out.write_all(report::entries(&verdicts).as_bytes())
                .context("writing to stdout")?;
        }
        out.flush().context("writing to stdout")?;
        if !progress {
            eprintln!("cookd: {name}: {} problem(s) judged", verdicts.len());
        }
    }
    if progress {
        eprintln!("\r\x1b[K{} file(s) judged", files.len());
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
