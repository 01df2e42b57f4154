//! Service glue: logging, the systemd notification protocol, signals.
//!
//! Everything here is harmless outside systemd: notifications go nowhere
//! when `NOTIFY_SOCKET` is unset, and logs go to stderr.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Context, Result};
use sd_notify::NotifyState;
use tokio::signal::unix::{signal, Signal, SignalKind};
use tracing_subscriber::prelude::*;
use tracing_subscriber::EnvFilter;

use crate::config::{Log, LogFormat};

/// Overrides `log.level` from the configuration.
pub const LOG_ENV: &str = "COOKD_LOG";

/// Installs the tracing subscriber for `cookd run`.
pub fn init_logging(log: &Log) -> Result<()> {
    let filter = match std::env::var(LOG_ENV) {
        Ok(level) => EnvFilter::try_new(&level).with_context(|| format!("{LOG_ENV}={level:?}"))?,
        Err(_) => EnvFilter::try_new(&log.level)
            .with_context(|| format!("log.level: invalid filter {:?}", log.level))?,
    };
    let format = match log.format {
        // systemd sets JOURNAL_STREAM when stderr is the journal; logging
        // natively then keeps levels and fields as journal fields.
        LogFormat::Auto if std::env::var_os("JOURNAL_STREAM").is_some() => LogFormat::Journald,
        LogFormat::Auto => LogFormat::Text,
        other => other,
    };
    let registry = tracing_subscriber::registry().with(filter);
    match format {
        LogFormat::Journald => {
            let layer = tracing_journald::layer().context("cannot connect to journald")?;
            registry.with(layer).try_init()
        }
        LogFormat::Json => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_writer(std::io::stderr),
            )
            .try_init(),
        LogFormat::Text | LogFormat::Auto => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .with_ansi(std::io::stderr().is_terminal())
                    .with_writer(std::io::stderr),
            )
            .try_init(),
    }
    .context("cannot install the logger")
}

/// Tells systemd something; failures are logged, never fatal (the daemon
/// works the same without a service manager).
fn notify(states: &[NotifyState<'_>]) {
    if let Err(error) = sd_notify::notify(states) {
        tracing::debug!(%error, "sd_notify failed");
    }
}

pub fn ready(status: &str) {
    notify(&[NotifyState::Ready, NotifyState::Status(status)]);
}

pub fn status(status: &str) {
    notify(&[NotifyState::Status(status)]);
}

pub fn stopping(status: &str) {
    notify(&[NotifyState::Stopping, NotifyState::Status(status)]);
}

/// Announces a reload; systemd 253+ wants the monotonic time with it.
pub fn reloading() {
    match NotifyState::monotonic_usec_now() {
        Ok(now) => notify(&[NotifyState::Reloading, now]),
        Err(_) => notify(&[NotifyState::Reloading]),
    }
}

pub fn watchdog() {
    notify(&[NotifyState::Watchdog]);
}

/// How often to ping the watchdog: half its timeout, if systemd set one.
pub fn watchdog_interval() -> Option<Duration> {
    sd_notify::watchdog_enabled().map(|timeout| timeout / 2)
}

/// The signals the daemon acts on.
#[derive(Debug)]
pub struct Signals {
    term: Signal,
    int: Signal,
    hup: Signal,
}

/// What a signal asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// SIGTERM, SIGINT: finish what is in flight and exit.
    Stop,
    /// SIGHUP: read the configuration again.
    Reload,
}

impl Signals {
    pub fn new() -> Result<Signals> {
        let make = |kind| signal(kind).context("cannot install signal handlers");
        Ok(Signals {
            term: make(SignalKind::terminate())?,
            int: make(SignalKind::interrupt())?,
            hup: make(SignalKind::hangup())?,
        })
    }

    pub async fn next(&mut self) -> Request {
        tokio::select! {
            _ = self.term.recv() => Request::Stop,
            _ = self.int.recv() => Request::Stop,
            _ = self.hup.recv() => Request::Reload,
        }
    }
}
