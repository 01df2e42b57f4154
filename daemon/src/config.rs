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
#[expect(
    dead_code,
    reason = "folders, pool and mail are read by the daemon (`cookd run`)"
)]
pub struct Config {
    pub inbox: PathBuf,
    pub outbox: PathBuf,
    pub database: PathBuf,
    #[serde(default)]
    pub threads: Threads,
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
    #[serde(default = "yes")]
    pub tries: bool,
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
    #[serde(default = "default_tables")]
    pub dir: PathBuf,
    #[serde(default)]
    pub syzygy: Option<PathBuf>,
}

fn default_max_pieces() -> u32 {
    5
}

fn default_tables() -> PathBuf {
    PathBuf::from("tables")
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
    /// Parses a configuration text; `origin` names it in errors.
    pub fn from_yaml(text: &str, origin: &str, base: &Path) -> Result<Config> {
        let mut config: Config = yaml_serde::from_str(text)
            .with_context(|| format!("invalid configuration {origin}"))?;
        config.base = base.to_path_buf();
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
        let base = path.parent().unwrap_or(Path::new("."));
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
}
