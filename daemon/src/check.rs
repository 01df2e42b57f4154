//! `cookd check-config`: validate a configuration and print it whole.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::config::{Config, Stage};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Configuration file (default: the built-in pipeline.yaml).
    #[arg(long)]
    config: Option<PathBuf>,
}

/// Prints the effective configuration (every default filled in) as YAML
/// that `--config` accepts back; an invalid file is an error naming the
/// file, the key, its line and what it allows, and exit status 1.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut config = Config::load_or_builtin(args.config.as_deref())?;
    // Loading resolved the table folders against the file's folder; printed
    // as written, so that the output read from the same folder means the
    // same folders.
    for stage in &mut config.stages {
        if let Stage::Tablebase(tb) = stage {
            for dir in tb.dir.iter_mut().chain(tb.syzygy.as_mut()) {
                if let Ok(relative) = dir.strip_prefix(&config.base) {
                    *dir = relative.to_path_buf();
                }
            }
        }
    }
    let origin = match &args.config {
        Some(path) => path.display().to_string(),
        None => "the built-in pipeline.yaml".to_owned(),
    };
    let yaml = yaml_serde::to_string(&config).context("cannot print the configuration")?;
    println!(
        "# {origin}: valid. The effective configuration, defaults filled in;\n\
         # relative folders are relative to {}.",
        config.base.display()
    );
    if config.mail.is_none() {
        println!("# No `mail:` section: no cook reports are mailed.");
    }
    if config.serve.is_none() {
        println!(
            "# No `serve:` section: `cookd run` starts no web view \
             (`serve: {{}}` listens on {}).",
            crate::config::default_listen()
        );
    }
    print!("{yaml}");
    Ok(ExitCode::SUCCESS)
}
