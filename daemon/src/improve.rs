//! `cookd improve`: raise the quality score of sound `#2`/`#3` problems by
//! small changes that keep them sound and legal (the library's
//! `stage::cooks::improve`); the best few printed per problem.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::intake;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seconds per problem.
    #[arg(long, default_value_t = 30.0)]
    budget_s: f64,
    /// 1: changes of one unit; 2: pairs of them too.
    #[arg(long, default_value_t = 2)]
    max_changes: u32,
    /// How many improvements to print per problem.
    #[arg(long, default_value_t = 5)]
    top: usize,
    /// A problem file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let name = args.file.display().to_string();
    let content = intake::read(&args.file)
        .map_err(|kind| anyhow::anyhow!("{name}: {kind}"))
        .context("reading the problem file")?;
    let mut failed = false;
    for (i, parsed) in solvers::parse(&name, &content).into_iter().enumerate() {
        let problem = match parsed {
            Ok(problem) => problem,
            Err(e) => {
                println!("{name} problem {}: {e}", i + 1);
                failed = true;
                continue;
            }
        };
        print!("{name} problem {} ({}): ", i + 1, problem.stipulation);
        match solvers::stage::cooks::improve(&problem, args.budget_s, args.max_changes, args.top) {
            Ok(found) => {
                println!(
                    "key 1.{}!, score {:.1}; {} better ({} diagrams checked{})",
                    found.key,
                    found.quality.score,
                    found.better.len(),
                    found.examined,
                    if found.complete {
                        ""
                    } else {
                        ", budget ran out"
                    }
                );
                for r in &found.better {
                    println!(
                        "  {:.1}  {}  1.{}!  {}",
                        r.score,
                        r.changes.join(" "),
                        r.key,
                        r.fen
                    );
                }
            }
            Err(e) => {
                println!("not improved: {e}");
                failed = true;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
