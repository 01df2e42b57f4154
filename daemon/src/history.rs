//! `cookd history`: what the journal says was judged.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::config::Config;
use crate::journal::{self, unix_now, Filter};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The journal (default: `database` of the configuration).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Configuration whose `database` to read (default: the built-in one).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Only runs since then: a date (2026-11-22), a UTC time
    /// (2026-11-22T10:00) or an age (30m, 12h, 7d).
    #[arg(long)]
    since: Option<String>,
    /// Only this verdict (sound, cooked, no_solution, incomplete, illegal,
    /// unsolved, error).
    #[arg(long)]
    verdict: Option<String>,
    /// At most this many rows, newest first.
    #[arg(long)]
    limit: Option<u32>,
    /// A table for people, or one JSON object per verdict per line.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let db = match args.db {
        Some(db) => db,
        None => {
            let config = Config::load_or_builtin(args.config.as_deref())?;
            config.path(&config.database)
        }
    };
    let conn = journal::open_read_only(&db)?;
    let since = args
        .since
        .as_deref()
        .map(|s| journal::parse_since(&conn, s, unix_now()))
        .transpose()?;
    let rows = journal::history(
        &conn,
        &Filter {
            since,
            verdict: args.verdict,
            limit: args.limit,
        },
    )
    .with_context(|| format!("reading {}", db.display()))?;
    let mut out = String::new();
    match args.format {
        Format::Json => {
            for row in &rows {
                out.push_str(&serde_json::to_string(row)?);
                out.push('\n');
            }
        }
        Format::Table => {
            // Long proof games under way (or cut short) first.
            for p in journal::searches(&conn)? {
                let left = p
                    .left_s
                    .map_or(String::new(), |s| format!(", about {s:.0} s left"));
                let _ = writeln!(
                    out,
                    "in progress: {} {}: proof games of {} plies: {} of {} work items{left} (at {})",
                    p.file, p.problem_id, p.plies, p.done, p.items, p.updated
                );
            }
            let _ = writeln!(
                out,
                "{:<20}  {:>6}  {:<8}  {:<24}  {:<12}  {:>9}  mail",
                "time (UTC)", "run", "status", "problem", "verdict", "ms"
            );
            for r in &rows {
                let mail = match (r.mail_sent, r.mail_pending) {
                    (0, 0) => String::new(),
                    (s, 0) => format!("{s} sent"),
                    (s, p) => format!("{s} sent, {p} queued"),
                };
                let _ = writeln!(
                    out,
                    "{:<20}  {:>6}  {:<8}  {:<24}  {:<12}  {:>9.1}  {mail}",
                    r.time,
                    r.run,
                    r.status,
                    r.id.as_deref().unwrap_or(&r.file),
                    r.verdict.as_deref().unwrap_or("-"),
                    r.wall_ms
                );
            }
        }
    }
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .context("writing to stdout")?;
    Ok(ExitCode::SUCCESS)
}
