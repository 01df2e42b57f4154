//! `cookd`: the chess-problem judging service. See README.md for the
//! commands; this file only parses arguments and hands over.

// Headless Chromium for the tests, shared with tests/web.rs.
#[cfg(test)]
#[path = "../../tests/support/browser.rs"]
mod browser;
mod check;
mod config;
mod diagram;
mod estimate;
mod executor;
mod history;
mod html;
mod improve;
mod inbox;
mod intake;
mod journal;
mod ledger;
mod mail;
mod outbox;
mod pipeline;
mod report;
mod run;
mod serve;
mod service;
mod solve;
mod tb;
mod tbverify;
mod tune;
mod work;

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
    /// Estimate each proof game's search before solving it: its work items
    /// by free moves, and its nodes and seconds on this machine with a
    /// range (JSON: `{nodes, seconds, low_seconds, high_seconds, ...}`).
    Estimate(estimate::Args),
    /// The daemon: watch the inbox, judge every file that lands there, write
    /// verdicts to the outbox, record runs in the journal, mail cook reports.
    ///
    /// SIGTERM/SIGINT: finish the files in flight and exit 0 (a second
    /// signal exits at once). SIGHUP: read the configuration again.
    Run(run::Args),
    /// Validate a configuration and print it with every default filled in.
    ///
    /// Exit status: 0 when valid, 1 with the file, key, line and allowed
    /// values of the first error otherwise.
    CheckConfig(check::Args),
    /// Read the journal: one row per verdict, newest first.
    History(history::Args),
    /// A read-only web view of the journal: the tourney table, a page per
    /// problem, the same as JSON under /api/. Loopback by default.
    Serve(serve::Args),
    /// Raise the quality score of sound #2/#3 problems: changes of one or
    /// two units that keep each sound (same key) and legal, best first.
    ///
    /// Exit status: 0 when every problem was searched, 1 when some could
    /// not be (unreadable, not a sound #2/#3).
    Improve(improve::Args),
    /// Measure solver thread scaling on a fixed problem set and suggest the
    /// `threads:` setting for pipeline.yaml.
    Tune(tune::Args),
    /// One task of a Slurm job array: search a share of a proof game's
    /// work items from a task folder the daemon (or `cookd solve`) wrote on
    /// the shared spool, and write the result there. Run by `sbatch`, not by
    /// hand (see README, "Beyond one machine: Slurm").
    Work(work::Args),
    /// Endgame tables: generate cookd's DTM tables, probe a position.
    #[command(subcommand)]
    Tb(TbCommand),
}

#[derive(Debug, Subcommand)]
enum TbCommand {
    /// Generate DTM tables (e.g. `KQvK KRvK`, or `all3` / `all4` / `all5`)
    /// with their sub-tables; one line per table to stdout.
    Generate(tb::GenerateArgs),
    /// The value of a position: DTM from cookd's tables, else WDL/DTZ
    /// from Syzygy. JSON: `{material, wdl, dtm_plies}`.
    Probe(tb::ProbeArgs),
    /// Run endgame recognizers over every position of their materials and
    /// compare each answer with a tablebase; exit 1 on any wrong answer.
    Verify(tbverify::VerifyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Run(args) => run::run(args),
        Command::Estimate(args) => estimate::run(args),
        Command::CheckConfig(args) => check::run(args),
        Command::History(args) => history::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Work(args) => work::run(args),
        Command::Improve(args) => improve::run(args),
        Command::Tb(TbCommand::Generate(args)) => tb::generate(args),
        Command::Tb(TbCommand::Probe(args)) => tb::probe(args),
        Command::Tb(TbCommand::Verify(args)) => tbverify::verify(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("cookd: {error:#}");
            ExitCode::from(1)
        }
    }
}
