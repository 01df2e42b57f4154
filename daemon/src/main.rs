//! `cookd`: the chess-problem judging service. See README.md for the
//! commands; this file only parses arguments and hands over.

mod config;
mod pipeline;
mod report;
mod solve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A chess-problem judging service: legality, solving, cooks, tablebases.
#[derive(Debug, Parser)]
#[command(name = "cookd", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Judge problem files once and print one verdict per problem to stdout.
    ///
    /// Exit status: 0 when every problem got a verdict (cooked and illegal
    /// are verdicts), 1 when some input could not be read or parsed.
    Solve(solve::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("cookd: {error:#}");
            ExitCode::from(1)
        }
    }
}
