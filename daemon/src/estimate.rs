//! `cookd estimate`: how much work each proof game of some files holds,
//! before solving it: its work items by free moves (Stelvio's histogram)
//! and the search's size and time on this machine, counted when small and
//! extrapolated from the moves each side has to spare when large (see
//! [`solvers::proofgame::estimate`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde::Serialize;

use solvers::problem::{self, Problem};
use solvers::stage::{self, Resources, Stage};
use solvers::Stipulation;

use crate::config::{Config, SolveOptions};
use crate::intake;
use crate::pipeline;

/// Nodes of each length counted before the estimate extrapolates (about
/// 8 s of one thread here): the corpus's spg225 (9.3 M nodes) is counted,
/// and no row extrapolates well without moves to spare, as it has none (see
/// solvers/tests/proofgame_estimate.rs).
pub const COUNT_NODES: u64 = 1 << 24;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Configuration file (default: the built-in pipeline.yaml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Output format: a line or two per proof game, or JSON Lines.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Nodes of each length counted before the estimate extrapolates.
    #[arg(long, default_value_t = COUNT_NODES)]
    count_nodes: u64,
    /// Problem files, or folders whose problem files are all estimated.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// One items-by-free-moves row.
#[derive(Debug, Serialize)]
pub struct FreeMoves {
    pub white: i32,
    pub black: i32,
    pub items: u64,
}

/// The estimate of one proof game, as printed.
#[derive(Debug, Serialize)]
pub struct ProblemEstimate {
    pub file: String,
    pub id: String,
    pub plies: u32,
    /// `illegal` or `no_solution` when the static analysis decides alone.
    pub decided: Option<String>,
    pub items: u64,
    /// Whether the nodes are extrapolated (otherwise they were counted).
    pub extrapolated: bool,
    pub histogram: Vec<FreeMoves>,
    pub nodes: f64,
    pub low_nodes: f64,
    pub high_nodes: f64,
    /// Nodes per second of one thread, measured by the sample.
    pub rate: f64,
    pub threads: usize,
    pub seconds: f64,
    pub low_seconds: f64,
    pub high_seconds: f64,
    /// Seconds the estimate took.
    pub took_seconds: f64,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let config = Config::load_or_builtin(args.config.as_deref())?;
    let pool = pipeline::solver_pool(&config)?;
    let resources = Resources::default();
    let mut files = Vec::new();
    for path in &args.files {
        intake::files_in(path, &mut files);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in &files {
        let name = path.display().to_string();
        let content =
            intake::read(path).map_err(|e| anyhow::anyhow!("{name}: cannot read: {e:?}"))?;
        for estimate in pool.install(|| {
            file(
                &name,
                &content,
                &config.stages,
                &resources,
                args.count_nodes,
            )
        }) {
            let text = match args.format {
                Format::Json => serde_json::to_string(&estimate)? + "\n",
                Format::Text => describe(&estimate),
            };
            out.write_all(text.as_bytes())
                .context("writing to stdout")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The estimates of the proof games of one file's content (on the current
/// rayon pool, whose threads the seconds assume).
pub fn file(
    name: &str,
    content: &[u8],
    stages: &[Stage],
    resources: &Resources,
    count_nodes: u64,
) -> Vec<ProblemEstimate> {
    let Some(options) = stages.iter().find_map(|s| match s {
        Stage::Solve(options) => Some(options),
        _ => None,
    }) else {
        return Vec::new();
    };
    problem::parse(name, content)
        .into_iter()
        .flatten()
        .filter_map(|p| match p.stipulation {
            Stipulation::ProofGame { plies } => Some((p, plies)),
            _ => None,
        })
        .filter_map(|(p, plies)| {
            let started = std::time::Instant::now();
            let e = stage::proofgame::estimate(&p, plies, options, resources, count_nodes).ok()?;
            Some(problem_estimate(
                name,
                &p,
                plies,
                &e,
                started.elapsed().as_secs_f64(),
            ))
        })
        .collect()
}

/// The seconds the search of proof game `problem` would take here, on the
/// current rayon pool: `None` when it needs no search.
pub fn seconds(
    problem: &Problem,
    plies: u32,
    options: &SolveOptions,
    resources: &Resources,
) -> Option<f64> {
    let e = stage::proofgame::estimate(problem, plies, options, resources, COUNT_NODES).ok()?;
    let s = &e.sample;
    (e.decided.is_none() && s.rate() > 0.0)
        .then(|| s.nodes / s.rate() / rayon::current_num_threads() as f64)
}

fn problem_estimate(
    file: &str,
    problem: &Problem,
    plies: u32,
    e: &solvers::proofgame::Estimate,
    took: f64,
) -> ProblemEstimate {
    let s = &e.sample;
    let threads = rayon::current_num_threads();
    let (low, high) = (s.low_nodes, s.high_nodes);
    // The items are spread over the threads; a rate of 0 (nothing
    // searched) gives no time.
    let seconds = |nodes: f64| {
        if s.rate() > 0.0 {
            nodes / s.rate() / threads as f64
        } else {
            0.0
        }
    };
    ProblemEstimate {
        file: file.to_owned(),
        id: solvers::verdict::Verdict::for_problem(problem).id,
        plies,
        decided: e
            .decided
            .map(|j| solvers::verdict::Kind::from(j).to_string()),
        items: s.items,
        extrapolated: s.extrapolated,
        histogram: s
            .histogram
            .iter()
            .map(|&([white, black], items)| FreeMoves {
                white,
                black,
                items,
            })
            .collect(),
        nodes: s.nodes.round(),
        low_nodes: low.round(),
        high_nodes: high.round(),
        rate: s.rate().round(),
        threads,
        seconds: seconds(s.nodes),
        low_seconds: seconds(low),
        high_seconds: seconds(high),
        took_seconds: took,
    }
}

/// The text form: one line, and the histogram below it.
pub fn describe(e: &ProblemEstimate) -> String {
    if let Some(decided) = &e.decided {
        return format!(
            "{}: {}: SPG {}: {decided} without a search\n",
            e.file, e.id, e.plies
        );
    }
    let histogram: Vec<String> = e
        .histogram
        .iter()
        .map(|f| format!("{}+{}: {}", f.white, f.black, f.items))
        .collect();
    format!(
        "{}: {}: SPG {}: {} work items: {} {:.3e} nodes ({:.3e} to {:.3e}), \
         {:.1} s ({:.1} to {:.1} s) on {} thread(s) here\n  items by free moves (white+black): {}\n",
        e.file,
        e.id,
        e.plies,
        e.items,
        if e.extrapolated {
            "about"
        } else {
            "counted:"
        },
        e.nodes,
        e.low_nodes,
        e.high_nodes,
        e.seconds,
        e.low_seconds,
        e.high_seconds,
        e.threads,
        histogram.join(", ")
    )
}
