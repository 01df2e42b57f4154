//! `pipeline.yaml`: folders, stages, pool and mail settings.
//!
//! Every struct denies unknown fields, so a typo is an error that names the
//! key and the file instead of a setting silently ignored.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

/// The configuration built into the binary: the repository's `pipeline.yaml`.
pub const DEFAULT_YAML: &str = include_str!("../../pipeline.yaml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub inbox: PathBuf,
    pub outbox: PathBuf,
    pub database: PathBuf,
    #[serde(default)]
    pub threads: Threads,
    /// Problem files claimed and not yet finished, at most: the bound of the
    /// daemon's queue (`auto`: four per solver thread, so file I/O of some
    /// jobs overlaps the solving of others).
    #[serde(default)]
    pub in_flight: Threads,
    /// What becomes of a judged file: moved to `outbox/done/`, or removed.
    #[serde(default)]
    pub processed: Processed,
    /// Seconds between full scans of the inbox (a safety net behind the
    /// watcher: missed events, files that were still being written).
    #[serde(default = "default_rescan_s")]
    pub rescan_s: f64,
    #[serde(default)]
    pub log: Log,
    /// `- legality: {}` style entries: one-key maps, not YAML tags.
    #[serde(with = "yaml_serde::with::singleton_map_recursive")]
    pub stages: Vec<Stage>,
    pub mail: Mail,
    /// The folder relative paths are resolved against (the config file's).
    #[serde(skip)]
    pub base: PathBuf,
}

/// Size of the solver pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawThreads")]
pub enum Threads {
    /// `auto`: one thread per core.
    #[default]
    Auto,
    Count(u32),
}

/// What YAML may hold for `threads`: the word `auto` or a number.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawThreads {
    Word(String),
    Count(u32),
}

impl TryFrom<RawThreads> for Threads {
    type Error = String;

    fn try_from(raw: RawThreads) -> Result<Threads, String> {
        match raw {
            RawThreads::Word(w) if w == "auto" => Ok(Threads::Auto),
            RawThreads::Count(n) if n > 0 => Ok(Threads::Count(n)),
            RawThreads::Word(w) => {
                Err(format!("threads: expected `auto` or a number, found {w:?}"))
            }
            RawThreads::Count(_) => {
                Err("threads: expected `auto` or a number of at least 1".into())
            }
        }
    }
}

impl Threads {
    /// The number this setting stands for, `auto` being `auto_value`.
    pub fn get(self, auto_value: usize) -> usize {
        match self {
            Threads::Auto => auto_value.max(1),
            Threads::Count(n) => n as usize,
        }
    }
}

fn default_rescan_s() -> f64 {
    60.0
}

/// What `cookd run` does with a file once its verdicts are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Processed {
    /// Move it to `outbox/done/` (the record of what was judged).
    #[default]
    Move,
    /// Delete it (the journal still has its hash and verdicts).
    Remove,
}

/// Logging of `cookd run`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Log {
    /// A tracing filter: `info`, `debug`, `cookd=debug,warn`, ...
    /// `COOKD_LOG` in the environment overrides it.
    #[serde(default = "default_level")]
    pub level: String,
    #[serde(default)]
    pub format: LogFormat,
}

impl Default for Log {
    fn default() -> Log {
        Log {
            level: default_level(),
            format: LogFormat::Auto,
        }
    }
}

fn default_level() -> String {
    "info".into()
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    /// journald when started by systemd with its output on the journal,
    /// text otherwise.
    #[default]
    Auto,
    Text,
    Json,
    Journald,
}

/// One pipeline stage with its options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegalityOptions {}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
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

fn default_spg_sync_depth() -> u32 {
    solvers::proofgame::DEFAULT_SYNC_DEPTH
}

/// `parallel:` in the solve stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parallel {
    /// First moves (and, near the root, Black's replies) shared out.
    #[default]
    Split,
    /// Lazy SMP: every thread solves it all, sharing the table.
    Lazy,
}

impl Parallel {
    pub fn to_solver(self) -> solvers::mate::Parallelism {
        match self {
            Parallel::Split => solvers::mate::Parallelism::Split,
            Parallel::Lazy => solvers::mate::Parallelism::Lazy,
        }
    }
}

fn default_budget_s() -> f64 {
    600.0
}

fn default_hash_mb() -> u64 {
    1024
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CooksOptions {
    /// Sound direct and self mates: search every other first move for tries.
    #[serde(default = "yes")]
    pub tries: bool,
    /// Sound direct and self mates: list the solution's duals.
    #[serde(default = "yes")]
    pub duals: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
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

fn default_max_pieces() -> u32 {
    5
}

fn default_generate_up_to() -> u32 {
    4
}

/// `engine:` in the tablebase stage.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mail {
    pub transport: Transport,
    pub dir: PathBuf,
    pub smtp: Smtp,
    pub from: String,
    pub to: Vec<String>,
    pub on: Vec<String>,
    /// Backoff while the SMTP server is unreachable.
    #[serde(default)]
    pub retry: Retry,
}

/// Waits between attempts to send one mail: `first_s`, doubling up to `max_s`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retry {
    pub first_s: f64,
    pub max_s: f64,
}

impl Default for Retry {
    fn default() -> Retry {
        Retry {
            first_s: 10.0,
            max_s: 900.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    File,
    Smtp,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Smtp {
    pub host: String,
    pub port: u16,
    pub security: Security,
    pub credentials_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Security {
    None,
    Starttls,
    Tls,
}

impl Config {
    /// A folder or file of the configuration, resolved against its folder.
    pub fn path(&self, relative: &Path) -> PathBuf {
        self.base.join(relative)
    }

    /// What the verdicts depend on besides the problem: the stages with their
    /// options and this build of cookd. A resubmitted file is judged again
    /// only when this changed.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let text = format!("cookd {} {:?}", env!("CARGO_PKG_VERSION"), self.stages);
        format!("{:x}", Sha256::digest(text.as_bytes()))
    }

    /// `--config FILE`, or the built-in defaults without one.
    pub fn load_or_builtin(path: Option<&Path>) -> Result<Config> {
        match path {
            Some(path) => Config::load(path),
            None => Ok(Config::builtin()),
        }
    }

    /// Checks what serde cannot: values that parse but make no sense.
    fn validate(&self, origin: &str) -> Result<()> {
        let on_words = [
            "sound",
            "cooked",
            "no_solution",
            "incomplete",
            "illegal",
            "unsolved",
            "error",
        ];
        if let Some(word) = self
            .mail
            .on
            .iter()
            .find(|w| !on_words.contains(&w.as_str()))
        {
            anyhow::bail!(
                "invalid configuration {origin}: mail.on: unknown verdict {word:?} (expected one of {})",
                on_words.join(", ")
            );
        }
        if !(self.rescan_s.is_finite() && self.rescan_s >= 1.0) {
            anyhow::bail!("invalid configuration {origin}: rescan_s must be at least 1 (seconds)");
        }
        let retry = &self.mail.retry;
        if !(retry.first_s > 0.0 && retry.max_s >= retry.first_s) {
            anyhow::bail!("invalid configuration {origin}: mail.retry needs 0 < first_s <= max_s");
        }
        Ok(())
    }

    /// Parses a configuration text; `origin` names it in errors.
    pub fn from_yaml(text: &str, origin: &str, base: &Path) -> Result<Config> {
        let mut config: Config = yaml_serde::from_str(text)
            .with_context(|| format!("invalid configuration {origin}"))?;
        config.base = base.to_path_buf();
        // Table folders are relative to the configuration's folder.
        for stage in &mut config.stages {
            if let Stage::Tablebase(tb) = stage {
                tb.dir = tb.dir.as_ref().map(|d| base.join(d));
                tb.syzygy = tb.syzygy.as_ref().map(|s| base.join(s));
            }
        }
        config.validate(origin)?;
        Ok(config)
    }

    /// The built-in defaults, with folders relative to the current directory.
    pub fn builtin() -> Config {
        Config::from_yaml(DEFAULT_YAML, "(built-in pipeline.yaml)", Path::new("."))
            .expect("the bundled pipeline.yaml is valid; a test checks it")
    }

    /// Reads a configuration file; relative folders resolve against its folder.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read configuration {}", path.display()))?;
        let base = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Config::from_yaml(&text, &path.display().to_string(), base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_defaults_parse() {
        let config = Config::builtin();
        assert_eq!(config.threads, Threads::Auto);
        let names: Vec<_> = config.stages.iter().map(Stage::name).collect();
        assert_eq!(names, ["legality", "solve", "cooks", "tablebase"]);
        assert_eq!(config.mail.transport, Transport::File);
    }

    #[test]
    fn unknown_keys_are_named() {
        let text = DEFAULT_YAML.replace("threads: auto", "threads: auto\ncolour: blue");
        let err = Config::from_yaml(&text, "my.yaml", Path::new(".")).unwrap_err();
        let message = format!("{err:#}");
        assert!(message.contains("colour"), "{message}");
        assert!(message.contains("my.yaml"), "{message}");
    }

    #[test]
    fn unknown_stage_options_are_named() {
        let text = DEFAULT_YAML.replace("budget_s: 600", "budget: 600");
        let message = format!(
            "{:#}",
            Config::from_yaml(&text, "p.yaml", Path::new(".")).unwrap_err()
        );
        assert!(message.contains("budget"), "{message}");
    }

    #[test]
    fn threads_take_a_number() {
        let text = DEFAULT_YAML.replace("threads: auto", "threads: 3");
        let config = Config::from_yaml(&text, "p.yaml", Path::new(".")).unwrap();
        assert_eq!(config.threads, Threads::Count(3));
    }

    #[test]
    fn mail_on_words_are_checked() {
        let text = DEFAULT_YAML.replace("on: [cooked,", "on: [coked,");
        let message = format!(
            "{:#}",
            Config::from_yaml(&text, "p.yaml", Path::new(".")).unwrap_err()
        );
        assert!(message.contains("coked"), "{message}");
    }

    #[test]
    fn fingerprint_follows_the_stages_only() {
        let a = Config::builtin();
        let mut b = Config::builtin();
        b.mail.to.push("other@example.org".into());
        assert_eq!(a.fingerprint(), b.fingerprint());
        b.stages.pop();
        assert_ne!(a.fingerprint(), b.fingerprint());
    }
}
