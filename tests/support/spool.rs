//! The spool the end-to-end tests run `cookd run` on, shared by the test
//! binaries (tests/service.rs, tests/load.rs, tests/resume.rs, ...); each
//! uses a part of it.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// A sound #2 solved in milliseconds (solvers/tests/data/mate.csv dm001).
pub const SOUND: &str = "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n";
/// Two white kings: illegal, so a cook report is mailed.
pub const ILLEGAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 ; #2\n";
/// A cooked #2 with three keys (mate.csv dm012-minus-bPg7).
pub const COOKED: &str = "nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1 ; #2\n";
/// A cooked h#4 that takes seconds to solve (about 1.4 s on one thread):
/// in flight long enough to send signals at. (The corpus h#3 of this
/// diagram, mate.csv hm095, is judged in milliseconds now, before a test
/// sees it claimed.)
pub const SLOW: &str = "8/1r3p2/1p6/B1pBpk2/2q5/3b1N2/5p2/K1b5 b - - 0 1 ; h#4\n";

pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The verdicts of `cookd solve --format json`, timings left out (they
/// differ from run to run).
pub fn verdicts_without_timings(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("timings_ms");
            v
        })
        .collect()
}

pub fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < TIMEOUT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Mail settings of a test spool.
pub enum MailTo {
    /// No `mail:` section at all.
    Nobody,
    /// The file transport, into `outbox/mail`.
    Files,
    /// SMTP on loopback at this port, no TLS.
    Smtp(u16),
    /// SMTP on loopback with STARTTLS required, trusting the certificate in
    /// this PEM file (relative to the spool).
    StartTls(u16, &'static str),
}

/// A temporary spool with a configuration, and the daemon running on it.
pub struct Spool {
    pub dir: tempfile::TempDir,
    pub daemon: Option<Child>,
    /// Daemon starts so far, for the log file names.
    starts: u32,
}

impl Spool {
    pub fn new(mail: MailTo, threads: u32) -> Spool {
        let dir = tempfile::tempdir().unwrap();
        let mail = match mail {
            MailTo::Nobody => String::new(),
            MailTo::Files => "transport: file\n  dir: outbox/mail\n  smtp: {host: localhost, port: 25, security: starttls, credentials_file: null}".to_owned(),
            MailTo::Smtp(port) => format!(
                "transport: smtp\n  dir: outbox/mail\n  smtp: {{host: 127.0.0.1, port: {port}, security: none, credentials_file: null}}"
            ),
            MailTo::StartTls(port, ca) => format!(
                "transport: smtp\n  smtp: {{host: 127.0.0.1, port: {port}, security: starttls, ca_file: {ca}}}"
            ),
        };
        let mail = if mail.is_empty() {
            mail
        } else {
            format!(
                "mail:\n  {mail}\n  from: cookd@test.invalid\n  to: [judge@test.invalid]\n\
                 \x20 on: [cooked, illegal, no_solution, incomplete]\n\
                 \x20 retry: {{first_s: 0.2, max_s: 0.5}}\n"
            )
        };
        let config = format!(
            "inbox: inbox\noutbox: outbox\ndatabase: journal.sqlite\nthreads: {threads}\n\
             stages:\n  - legality: {{}}\n  - solve: {{budget_s: 120, hash_mb: 64}}\n{mail}"
        );
        fs::write(dir.path().join("pipeline.yaml"), config).unwrap();
        Spool {
            dir,
            daemon: None,
            starts: 0,
        }
    }

    /// Runs `cookd run` on this spool's configuration expecting it to
    /// refuse to start (exit status 1); returns what it wrote to stderr.
    pub fn start_refused(&self) -> String {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cookd"))
            .args(["run", "--config"])
            .arg(self.path("pipeline.yaml"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn start(&mut self) {
        self.start_with(&[]);
    }

    /// Starts the daemon through `wrapper`, a command that runs the rest of
    /// its command line in its own process (as `setpriv` does), so that
    /// [`Spool::pid`] is the daemon's.
    pub fn start_with(&mut self, wrapper: &[&str]) {
        assert!(self.daemon.is_none());
        self.starts += 1;
        let log = fs::File::create(self.path(&format!("daemon.{}.log", self.starts))).unwrap();
        let mut command = match wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(env!("CARGO_BIN_EXE_cookd"));
                c
            }
            None => Command::new(env!("CARGO_BIN_EXE_cookd")),
        };
        let child = command
            .args(["run", "--config"])
            .arg(self.path("pipeline.yaml"))
            .env("COOKD_LOG", "cookd=debug,info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("cookd starts");
        self.daemon = Some(child);
        // Ready once the inbox is being watched: its working folders exist
        // before the watch starts, and the journal is open before either.
        wait_for("the daemon to start", || {
            self.path("inbox/.processing").is_dir() && self.log().contains("starting")
        });
    }

    pub fn pid(&self) -> u32 {
        self.daemon.as_ref().unwrap().id()
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    pub fn kill9(&mut self) {
        self.signal("KILL");
        self.daemon.take().unwrap().wait().unwrap();
    }

    pub fn wait_exit(&mut self) -> ExitStatus {
        let mut child = self.daemon.take().unwrap();
        let start = Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "daemon did not exit:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything the daemon logged, all starts.
    pub fn log(&self) -> String {
        (1..=self.starts)
            .map(|n| fs::read_to_string(self.path(&format!("daemon.{n}.log"))).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Writes a file straight into the inbox (one close-write event).
    pub fn write_in_place(&self, name: &str, content: &str) {
        fs::write(self.path("inbox").join(name), content).unwrap();
    }

    /// Writes `name.part`, then renames it in (one moved-in event).
    pub fn rename_in(&self, name: &str, content: &str) {
        let part = self.path("inbox").join(format!("{name}.part"));
        fs::write(&part, content).unwrap();
        fs::rename(&part, self.path("inbox").join(name)).unwrap();
    }

    pub fn verdict(&self, stem: &str, index: usize) -> Option<Value> {
        let text =
            fs::read_to_string(self.path(&format!("outbox/{stem}.{index}.verdict.json"))).ok()?;
        Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad verdict {text:?}: {e}")))
    }

    pub fn wait_verdict(&self, stem: &str, index: usize) -> Value {
        let mut found = None;
        wait_for(&format!("verdict {stem}.{index}"), || {
            found = self.verdict(stem, index);
            found.is_some()
        });
        found.unwrap()
    }

    pub fn names(&self, rel: &str) -> Vec<String> {
        let mut names: Vec<_> = fs::read_dir(self.path(rel))
            .map(|d| {
                d.map(|e| e.unwrap().file_name().into_string().unwrap())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// `cookd history --format json`, one value per verdict row.
    pub fn history(&self, extra: &[&str]) -> Vec<Value> {
        let output = Command::new(env!("CARGO_BIN_EXE_cookd"))
            .args(["history", "--format", "json", "--db"])
            .arg(self.path("journal.sqlite"))
            .args(extra)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// How many times each job was judged (as opposed to reused).
    pub fn judged_per_job(&self) -> BTreeMap<String, usize> {
        let mut runs = HashSet::new();
        let mut per_job = BTreeMap::new();
        for row in self.history(&[]) {
            if row["status"] == "judged" && runs.insert(row["run"].as_i64().unwrap()) {
                *per_job
                    .entry(row["job"].as_str().unwrap().to_owned())
                    .or_insert(0) += 1;
            }
        }
        per_job
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        if let Some(mut child) = self.daemon.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if std::thread::panicking() {
            eprintln!("--- daemon log ---\n{}", self.log());
        }
    }
}

/// A self-signed certificate for 127.0.0.1: the server's TLS settings and
/// the certificate's PEM, for the daemon to trust.
pub fn self_signed() -> (Arc<rustls::ServerConfig>, String) {
    let rcgen::CertifiedKey { cert, key_pair } =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(key_pair.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.der().clone()], key)
    .unwrap();
    (Arc::new(config), cert.pem())
}

pub fn header<'a>(message: &'a str, name: &str) -> &'a str {
    message
        .lines()
        .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(": ")))
        .unwrap_or_else(|| panic!("no {name} header in\n{message}"))
}

pub fn message_ids(messages: &[String]) -> Vec<String> {
    let mut ids: Vec<_> = messages
        .iter()
        .map(|m| header(m, "Message-ID").to_owned())
        .collect();
    ids.sort();
    ids
}

/// A distinct trivial problem file (same position, different comment, so a
/// different job).
pub fn numbered(base: &str, n: usize) -> String {
    format!("% problem {n}\n{base}")
}
