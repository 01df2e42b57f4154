//! `cookd solve`: the pipeline once over files and folders, verdicts to stdout.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use solvers::problem::{Location, ParseError, ParseErrorKind, MAX_FILE_BYTES};
use solvers::verdict::{Kind, Verdict};

use crate::config::Config;
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
    /// Problem files, or folders whose problem files are all judged.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::builtin(),
    };
    // The solver splits each problem over this pool (`threads:`).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads.get(cores))
        .build()
        .context("cannot start the solver pool")?;
    let mut files = Vec::new();
    for path in &args.files {
        collect(path, &mut files);
    }
    let progress = std::io::stderr().is_terminal();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    let tables = pipeline::Tables::default();
    for (n, path) in files.iter().enumerate() {
        let name = path.display().to_string();
        if progress {
            eprint!("\r\x1b[K[{}/{}] {name}", n + 1, files.len());
        }
        let verdicts = pool.install(|| judge_path(path, &config.stages, &tables));
        for verdict in &verdicts {
            failed |= verdict.verdict == Kind::Error;
            out.write_all(report::render(verdict, args.format)?.as_bytes())
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

/// Expands folders into the problem files they hold, sorted, skipping
/// dot-files and partial uploads (`*.part`) as the inbox does.
fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    if !path.is_dir() {
        files.push(path.to_path_buf());
        return;
    }
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
        Ok(dir) => dir.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(_) => {
            files.push(path.to_path_buf());
            return;
        }
    };
    entries.sort();
    for entry in entries {
        let name = entry.file_name().map(|n| n.to_string_lossy().into_owned());
        let hidden = name
            .as_deref()
            .is_none_or(|n| n.starts_with('.') || n.ends_with(".part"));
        let readme = name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case("README.md"));
        if !hidden && !readme {
            collect(&entry, files);
        }
    }
}

/// Judges one path; a file that cannot be read, or is far larger than any
/// problem file, gets an `error` verdict without being read into memory.
fn judge_path(
    path: &Path,
    stages: &[crate::config::Stage],
    tables: &pipeline::Tables,
) -> Vec<Verdict> {
    let name = path.display().to_string();
    let error = |kind| {
        vec![Verdict::for_error(&ParseError {
            file: name.clone(),
            location: Location { line: 1, column: 1 },
            index: 0,
            kind,
        })]
    };
    let cannot_read =
        |e: std::io::Error| error(ParseErrorKind::Syntax(format!("cannot read file: {e}")));
    match std::fs::metadata(path) {
        Err(e) => cannot_read(e),
        Ok(meta) if meta.len() > MAX_FILE_BYTES as u64 => {
            error(ParseErrorKind::TooLarge(meta.len() as usize))
        }
        Ok(_) => match std::fs::read(path) {
            Ok(content) => pipeline::judge_file_with(&name, &content, stages, tables),
            Err(e) => cannot_read(e),
        },
    }
}
