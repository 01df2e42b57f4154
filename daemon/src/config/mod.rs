//! `pipeline.yaml`: folders, stages, pool and mail settings.
//!
//! Every struct denies unknown fields, so a typo is an error that names the
//! key and the file instead of a setting silently ignored. Every key but
//! `mail.to` has a default (the values in the repository's pipeline.yaml), so
//! a hand-written file need only hold what it changes; without a `mail:`
//! section no mail is sent. `cookd check-config` prints the configuration
//! with every default filled in.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use solvers::problem::yaml::{too_deep, MAX_FLOW_DEPTH};

mod executor;
use executor::executor_section;
pub use executor::{Executor, ExecutorKind};

pub use solvers::stage::options::{
    CooksOptions, EngineOptions, LegalityOptions, SolveOptions, Stage, TablebaseOptions,
};

/// The configuration built into the binary: the repository's `pipeline.yaml`.
pub const DEFAULT_YAML: &str = include_str!("../../../pipeline.yaml");

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default = "default_inbox")]
    pub inbox: PathBuf,
    #[serde(default = "default_outbox")]
    pub outbox: PathBuf,
    #[serde(default = "default_database")]
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
    #[serde(default = "default_rescan_s", deserialize_with = "at_least_one_second")]
    pub rescan_s: f64,
    #[serde(default)]
    pub log: Log,
    /// `- legality: {}` style entries: one-key maps, not YAML tags.
    #[serde(
        default = "default_stages",
        with = "yaml_serde::with::singleton_map_recursive"
    )]
    pub stages: Vec<Stage>,
    /// Cook reports by mail: none without a `mail:` section.
    #[serde(default, deserialize_with = "mail_section")]
    pub mail: Option<Mail>,
    /// The read-only web view of the journal that `cookd run` starts
    /// beside the daemon: none without a `serve:` section.
    #[serde(default)]
    pub serve: Option<Serve>,
    /// Where long proof-game searches run: here (`kind: local`, the
    /// default) or spread over a Slurm cluster as a job array.
    #[serde(default, deserialize_with = "executor_section")]
    pub executor: Executor,
    /// The folder relative paths are resolved against (the config file's).
    #[serde(skip)]
    pub base: PathBuf,
}

fn default_inbox() -> PathBuf {
    PathBuf::from("inbox")
}

fn default_outbox() -> PathBuf {
    PathBuf::from("outbox")
}

fn default_database() -> PathBuf {
    PathBuf::from("cookd.sqlite")
}

/// All stages, each with its default options (the bundled pipeline.yaml's).
fn default_stages() -> Vec<Stage> {
    vec![
        Stage::Legality(LegalityOptions::default()),
        Stage::Solve(SolveOptions::default()),
        Stage::Cooks(CooksOptions::default()),
        // The bundled file names the engine; a tablebase stage written
        // without `engine:` runs none.
        Stage::Tablebase(TablebaseOptions {
            engine: Some(EngineOptions::default()),
            ..TablebaseOptions::default()
        }),
    ]
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

/// Written back as YAML reads it: the word `auto` or the number.
impl Serialize for Threads {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Threads::Auto => serializer.serialize_str("auto"),
            Threads::Count(n) => serializer.serialize_u32(*n),
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

// Checks of values that parse but make no sense are made inside a serde
// visitor, not after parsing: the YAML library adds the key's path and line
// only to an error raised while it is reading that key's value, so these
// errors carry them like every other.

/// `rescan_s`: a number of seconds, at least 1.
fn at_least_one_second<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    struct Seconds;
    impl<'de> serde::de::Visitor<'de> for Seconds {
        type Value = f64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number of seconds, at least 1")
        }
        fn visit_f64<E: serde::de::Error>(self, seconds: f64) -> Result<f64, E> {
            if seconds.is_finite() && seconds >= 1.0 {
                Ok(seconds)
            } else {
                Err(E::custom(format!(
                    "expected at least 1 (seconds), found {seconds}"
                )))
            }
        }
        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<f64, E> {
            self.visit_f64(n as f64)
        }
        fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<f64, E> {
            self.visit_f64(n as f64)
        }
    }
    d.deserialize_f64(Seconds)
}

/// A `T` read from a YAML map and then checked by `check`, inside the map's
/// visitor (see above).
fn checked_map<'de, D, T>(d: D, check: fn(&T) -> Result<(), String>) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Checked<T>(fn(&T) -> Result<(), String>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Checked<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of settings")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            let value = T::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
            (self.0)(&value).map_err(serde::de::Error::custom)?;
            Ok(value)
        }
    }
    d.deserialize_map(Checked(check))
}

/// What `cookd run` does with a file once its verdicts are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Processed {
    /// Move it to `outbox/done/` (the record of what was judged).
    #[default]
    Move,
    /// Delete it (the journal still has its hash and verdicts).
    Remove,
}

/// Logging of `cookd run`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
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

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
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

/// The `serve:` section: `cookd serve`'s settings, for `cookd run`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Serve {
    /// Address and port to listen on; loopback by default, since the view
    /// has no login (put a reverse proxy with one in front to share it).
    #[serde(default = "default_listen")]
    pub listen: std::net::SocketAddr,
}

/// `127.0.0.1:8080`.
pub fn default_listen() -> std::net::SocketAddr {
    std::net::SocketAddr::from(([127, 0, 0, 1], 8080))
}

/// The `mail:` section. Only `to` has no default.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Mail {
    #[serde(default)]
    pub transport: Transport,
    /// File transport: the folder of `.eml` files (default: `mail` in the
    /// outbox, filled in by [`Config::from_yaml`]).
    #[serde(default)]
    pub dir: PathBuf,
    /// SMTP transport: the server; required with `transport: smtp` only.
    #[serde(default)]
    pub smtp: Option<Smtp>,
    #[serde(default = "default_from")]
    pub from: String,
    pub to: Vec<String>,
    /// Verdicts that are mailed.
    #[serde(default = "default_on", deserialize_with = "verdict_words")]
    pub on: Vec<String>,
    /// Backoff while the SMTP server is unreachable.
    #[serde(default, deserialize_with = "retry_bounds")]
    pub retry: Retry,
}

/// The words `mail.on` accepts: the verdicts.
pub const VERDICT_WORDS: [&str; 7] = [
    "sound",
    "cooked",
    "no_solution",
    "incomplete",
    "illegal",
    "unsolved",
    "error",
];

fn default_from() -> String {
    "cookd@localhost".into()
}

fn default_on() -> Vec<String> {
    ["cooked", "illegal", "no_solution", "incomplete"]
        .map(String::from)
        .to_vec()
}

/// `mail.on`: words from [`VERDICT_WORDS`].
fn verdict_words<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct Words;
    impl<'de> serde::de::Visitor<'de> for Words {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of verdicts")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut words = Vec::new();
            while let Some(word) = seq.next_element::<String>()? {
                if !VERDICT_WORDS.contains(&word.as_str()) {
                    return Err(serde::de::Error::custom(format!(
                        "unknown verdict {word:?}, expected one of {}",
                        VERDICT_WORDS.join(", ")
                    )));
                }
                words.push(word);
            }
            Ok(words)
        }
    }
    d.deserialize_seq(Words)
}

fn retry_bounds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Retry, D::Error> {
    checked_map(d, |retry: &Retry| {
        if retry.first_s > 0.0 && retry.max_s >= retry.first_s {
            Ok(())
        } else {
            Err("expected 0 < first_s <= max_s (seconds)".to_owned())
        }
    })
}

/// The `mail:` section, absent or null for no mail, with its cross-key rule:
/// `transport: smtp` needs `smtp:`.
fn mail_section<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Mail>, D::Error> {
    struct Section;
    impl<'de> serde::de::Visitor<'de> for Section {
        type Value = Option<Mail>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("the mail settings, or nothing for no mail")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Option<Mail>, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Option<Mail>, E> {
            Ok(None)
        }
        fn visit_some<D2: serde::Deserializer<'de>>(
            self,
            d: D2,
        ) -> Result<Option<Mail>, D2::Error> {
            checked_map(d, |mail: &Mail| match mail {
                Mail {
                    transport: Transport::Smtp,
                    smtp: None,
                    ..
                } => Err(
                    "`transport: smtp` needs an `smtp:` section ({host, port, security})"
                        .to_owned(),
                ),
                _ => Ok(()),
            })
            .map(Some)
        }
    }
    d.deserialize_option(Section)
}

/// Waits between attempts to send one mail: `first_s`, doubling up to `max_s`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
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

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    #[default]
    File,
    Smtp,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Smtp {
    pub host: String,
    pub port: u16,
    pub security: Security,
    /// User on the first line, password on the second.
    pub credentials_file: Option<PathBuf>,
    /// PEM certificates trusted besides the public roots (a relay with a
    /// private or self-signed certificate).
    pub ca_file: Option<PathBuf>,
}

impl Default for Smtp {
    fn default() -> Smtp {
        Smtp {
            host: "localhost".into(),
            port: 25,
            security: Security::Starttls,
            credentials_file: None,
            ca_file: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
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

    /// Parses a configuration text; `origin` names it in errors.
    pub fn from_yaml(text: &str, origin: &str, base: &Path) -> Result<Config> {
        // libyaml's scanner takes time quadratic in the nesting of flow
        // collections (found by fuzzing this function: 25 kB took 7.6 s),
        // so deep nesting is refused before it reads the text, as in
        // problem files.
        if let Some(at) = too_deep(text) {
            anyhow::bail!(
                "invalid configuration {origin}: flow collections ([ ] or {{ }}) nested more than {MAX_FLOW_DEPTH} deep at line {} column {}",
                at.line,
                at.column
            );
        }
        let mut config: Config = yaml_serde::from_str(text)
            .with_context(|| format!("invalid configuration {origin}"))?;
        config.base = base.to_path_buf();
        if let Some(mail) = &mut config.mail {
            if mail.dir.as_os_str().is_empty() {
                mail.dir = config.outbox.join("mail");
            }
        }
        // Table folders are relative to the configuration's folder.
        for stage in &mut config.stages {
            if let Stage::Tablebase(tb) = stage {
                tb.dir = tb.dir.as_ref().map(|d| base.join(d));
                tb.syzygy = tb.syzygy.as_ref().map(|s| base.join(s));
            }
        }
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

    /// Found by fuzzing (the config target, a hang of 7.6 s): nested flow
    /// collections with anchors and tags, the found input's first line
    /// repeated here. Refused before libyaml reads it.
    #[test]
    fn deeply_nested_flow_collections_are_refused() {
        let unit = "! [ &rep: &pa [ &tZ ! [ccr: &kd\t[ &zo,ni: ! [s: &rem],gv: [ &s: &re [ &q: ! [cas: &xc\t[\n";
        let text = unit.repeat(2_000);
        let error = Config::from_yaml(&text, "deep.yaml", Path::new("/spool")).unwrap_err();
        let message = format!("{error:#}");
        assert!(
            message.starts_with("invalid configuration deep.yaml: flow collections"),
            "{message}"
        );
        assert!(
            message.contains("nested more than 128 deep at line 17"),
            "{message}"
        );
    }

    #[test]
    fn bundled_defaults_parse() {
        let config = Config::builtin();
        assert_eq!(config.threads, Threads::Auto);
        let names: Vec<_> = config.stages.iter().map(Stage::name).collect();
        assert_eq!(names, ["legality", "solve", "cooks", "tablebase"]);
        assert_eq!(config.mail.unwrap().transport, Transport::File);
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
        assert!(message.contains("mail.on"), "{message}");
        let line = 1 + text.lines().position(|l| l.contains("[coked,")).unwrap();
        assert!(message.contains(&format!("line {line}")), "{message}");
        assert!(message.contains("no_solution, incomplete"), "{message}");
    }

    pub(super) fn parse(text: &str) -> Result<Config> {
        Config::from_yaml(text, "hand.yaml", Path::new("/spool"))
    }

    pub(super) fn error(text: &str) -> String {
        format!("{:#}", parse(text).unwrap_err())
    }

    #[test]
    fn a_minimal_file_takes_every_default_and_sends_no_mail() {
        let config = parse("threads: 2\n").unwrap();
        let builtin = Config::builtin();
        assert_eq!(config.threads, Threads::Count(2));
        assert_eq!(config.inbox, builtin.inbox);
        assert_eq!(config.outbox, builtin.outbox);
        assert_eq!(config.database, builtin.database);
        assert_eq!(config.rescan_s, builtin.rescan_s);
        assert_eq!(config.log, builtin.log);
        assert_eq!(config.in_flight, builtin.in_flight);
        assert!(config.mail.is_none());
        assert!(config.serve.is_none());
        // The default stages are the bundled file's, options and all.
        let names: Vec<_> = config.stages.iter().map(Stage::name).collect();
        assert_eq!(names, ["legality", "solve", "cooks", "tablebase"]);
        assert_eq!(config.stages, builtin.stages);
        // An empty stage entry takes the stage's defaults.
        let config = parse("stages:\n  - solve: {budget_s: 5}\n").unwrap();
        let Stage::Solve(solve) = &config.stages[0] else {
            panic!("{:?}", config.stages)
        };
        assert_eq!((solve.budget_s, solve.hash_mb), (5.0, 1024));
    }

    #[test]
    fn the_file_transport_needs_no_smtp_section() {
        let text =
            "mail: {transport: file, dir: mail, from: a@b.org, to: [j@b.org], on: [cooked]}\n";
        let mail = parse(text).unwrap().mail.unwrap();
        assert_eq!(mail.transport, Transport::File);
        assert_eq!(mail.dir, PathBuf::from("mail"));
        assert_eq!(mail.smtp, None);
        assert_eq!(mail.retry, Retry::default());
        // Without `dir`, the outbox's `mail` folder; without `transport`,
        // files; without `on`, the bundled file's verdicts.
        let mail = parse("outbox: out\nmail: {to: [j@b.org]}\n")
            .unwrap()
            .mail
            .unwrap();
        assert_eq!(mail.transport, Transport::File);
        assert_eq!(mail.dir, PathBuf::from("out/mail"));
        assert_eq!(mail.on, ["cooked", "illegal", "no_solution", "incomplete"]);
        assert_eq!(mail.from, "cookd@localhost");
    }

    #[test]
    fn the_smtp_transport_needs_its_section_and_fills_in_the_rest() {
        let message = error("threads: 1\nmail:\n  transport: smtp\n  to: [j@b.org]\n");
        for part in ["hand.yaml", "mail", "line 3", "smtp:"] {
            assert!(message.contains(part), "{part}: {message}");
        }
        let text = "mail:\n  transport: smtp\n  smtp: {host: relay.b.org}\n  to: [j@b.org]\n";
        let smtp = parse(text).unwrap().mail.unwrap().smtp.unwrap();
        assert_eq!(smtp.host, "relay.b.org");
        assert_eq!(smtp.port, 25);
        assert_eq!(smtp.security, Security::Starttls);
        assert_eq!(smtp.credentials_file, None);
    }

    #[test]
    fn errors_name_the_file_line_key_and_allowed_words() {
        let message = error("inbox: in\nmail:\n  transport: smpt\n  to: [j@b.org]\n");
        for part in [
            "hand.yaml",
            "mail.transport",
            "smpt",
            "line 3",
            "`file`",
            "`smtp`",
        ] {
            assert!(message.contains(part), "{part}: {message}");
        }
        let message = error("mail: {transport: file}\n");
        assert!(message.contains("missing field `to`"), "{message}");
        let message = error("log: {level: info, format: xml}\n");
        for part in ["log.format", "xml", "line 1", "`journald`"] {
            assert!(message.contains(part), "{part}: {message}");
        }
        let message = error("inbox: in\nrescan_s: 0\n");
        assert!(
            message.contains("rescan_s") && message.contains("line 2"),
            "{message}"
        );
        let message = error("mail: {to: [a@b.org], retry: {first_s: 5, max_s: 1}}\n");
        assert!(message.contains("mail.retry"), "{message}");
        let message = error("stages:\n  - solve: {}\n  - cook: {}\n");
        for part in ["cook", "line 3", "`cooks`"] {
            assert!(message.contains(part), "{part}: {message}");
        }
    }

    #[test]
    fn the_effective_configuration_reads_back_the_same() {
        for text in [
            DEFAULT_YAML,
            "threads: 3\n",
            "mail: {transport: smtp, smtp: {}, to: [a@b.org]}\n",
            "serve: {listen: 127.0.0.1:9000}\n",
        ] {
            let config = parse(text).unwrap();
            let printed = yaml_serde::to_string(&config).unwrap();
            let again = Config::from_yaml(&printed, "printed", Path::new("")).unwrap();
            // Table folders were resolved against /spool once already.
            assert_eq!(again.stages, config.stages, "{printed}");
            assert_eq!(again.mail, config.mail, "{printed}");
            assert_eq!(again.serve, config.serve, "{printed}");
            assert_eq!(again.threads, config.threads, "{printed}");
            assert_eq!(again.inbox, config.inbox, "{printed}");
            assert_eq!(again.rescan_s, config.rescan_s, "{printed}");
        }
    }

    #[test]
    fn the_serve_section_defaults_to_loopback_and_checks_the_address() {
        let serve = parse("serve: {}\n").unwrap().serve.unwrap();
        assert_eq!(serve.listen.to_string(), "127.0.0.1:8080");
        let serve = parse("serve: {listen: '[::1]:9000'}\n")
            .unwrap()
            .serve
            .unwrap();
        assert_eq!(serve.listen.to_string(), "[::1]:9000");
        let message = error("threads: 1\nserve: {listen: localhost}\n");
        for part in ["hand.yaml", "serve.listen", "line 2"] {
            assert!(message.contains(part), "{part}: {message}");
        }
        let message = error("serve: {port: 80}\n");
        assert!(message.contains("port"), "{message}");
        // The bundled file shows the section commented out: no web view
        // unless asked for.
        assert!(Config::builtin().serve.is_none());
        assert!(DEFAULT_YAML.contains("# serve: {listen: 127.0.0.1:8080}"));
    }

    #[test]
    fn fingerprint_follows_the_stages_only() {
        let a = Config::builtin();
        let mut b = Config::builtin();
        b.mail.as_mut().unwrap().to.push("other@example.org".into());
        assert_eq!(a.fingerprint(), b.fingerprint());
        b.stages.pop();
        assert_ne!(a.fingerprint(), b.fingerprint());
    }
}
