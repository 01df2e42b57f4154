//! End-to-end tests of `cookd run`: the built daemon on a temporary spool,
//! driven the way users and the operating system drive it (files written in
//! place, renamed in, dropped by the dozen; kill -9, SIGTERM, SIGHUP), with
//! mail received by a real SMTP server on loopback (aiosmtpd, a Python
//! package: `pip install aiosmtpd`; the tests fail, never skip, without it).

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A sound #2 solved in milliseconds (../shared/corpus/mate.csv dm001).
const SOUND: &str = "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n";
/// Two white kings: illegal, so a cook report is mailed.
const ILLEGAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 ; #2\n";
/// A cooked #2 with three keys (mate.csv dm012-minus-bPg7).
const COOKED: &str = "nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1 ; #2\n";
/// A cooked h#3 that takes seconds to solve (mate.csv hm095): in flight
/// long enough to send signals at.
const SLOW: &str = "8/1r3p2/1p6/B1pBpk2/2q5/3b1N2/5p2/K1b5 b - - 0 1 ; h#3\n";

const TIMEOUT: Duration = Duration::from_secs(60);

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < TIMEOUT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Mail settings of a test spool.
enum MailTo {
    /// The file transport, into `outbox/mail`.
    Files,
    /// SMTP on loopback at this port, no TLS.
    Smtp(u16),
}

/// A temporary spool with a configuration, and the daemon running on it.
struct Spool {
    dir: tempfile::TempDir,
    daemon: Option<Child>,
    /// Daemon starts so far, for the log file names.
    starts: u32,
}

impl Spool {
    fn new(mail: MailTo, threads: u32) -> Spool {
        let dir = tempfile::tempdir().unwrap();
        let mail = match mail {
            MailTo::Files => "transport: file\n  dir: outbox/mail\n  smtp: {host: localhost, port: 25, security: starttls, credentials_file: null}".to_owned(),
            MailTo::Smtp(port) => format!(
                "transport: smtp\n  dir: outbox/mail\n  smtp: {{host: 127.0.0.1, port: {port}, security: none, credentials_file: null}}"
            ),
        };
        let config = format!(
            "inbox: inbox\noutbox: outbox\ndatabase: journal.sqlite\nthreads: {threads}\n\
             stages:\n  - legality: {{}}\n  - solve: {{budget_s: 120, hash_mb: 64}}\n\
             mail:\n  {mail}\n  from: cookd@test.invalid\n  to: [judge@test.invalid]\n\
             \x20 on: [cooked, illegal, no_solution, incomplete]\n\
             \x20 retry: {{first_s: 0.2, max_s: 0.5}}\n"
        );
        fs::write(dir.path().join("pipeline.yaml"), config).unwrap();
        Spool {
            dir,
            daemon: None,
            starts: 0,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn start(&mut self) {
        assert!(self.daemon.is_none());
        self.starts += 1;
        let log = fs::File::create(self.path(&format!("daemon.{}.log", self.starts))).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_cookd"))
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

    fn pid(&self) -> u32 {
        self.daemon.as_ref().unwrap().id()
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn kill9(&mut self) {
        self.signal("KILL");
        self.daemon.take().unwrap().wait().unwrap();
    }

    fn wait_exit(&mut self) -> ExitStatus {
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
    fn log(&self) -> String {
        (1..=self.starts)
            .map(|n| fs::read_to_string(self.path(&format!("daemon.{n}.log"))).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Writes a file straight into the inbox (one close-write event).
    fn write_in_place(&self, name: &str, content: &str) {
        fs::write(self.path("inbox").join(name), content).unwrap();
    }

    /// Writes `name.part`, then renames it in (one moved-in event).
    fn rename_in(&self, name: &str, content: &str) {
        let part = self.path("inbox").join(format!("{name}.part"));
        fs::write(&part, content).unwrap();
        fs::rename(&part, self.path("inbox").join(name)).unwrap();
    }

    fn verdict(&self, stem: &str, index: usize) -> Option<Value> {
        let text =
            fs::read_to_string(self.path(&format!("outbox/{stem}.{index}.verdict.json"))).ok()?;
        Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad verdict {text:?}: {e}")))
    }

    fn wait_verdict(&self, stem: &str, index: usize) -> Value {
        let mut found = None;
        wait_for(&format!("verdict {stem}.{index}"), || {
            found = self.verdict(stem, index);
            found.is_some()
        });
        found.unwrap()
    }

    fn names(&self, rel: &str) -> Vec<String> {
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
    fn history(&self, extra: &[&str]) -> Vec<Value> {
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
    fn judged_per_job(&self) -> BTreeMap<String, usize> {
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

/// aiosmtpd on loopback, storing what it receives in a Maildir.
struct SmtpServer {
    child: Child,
    maildir: PathBuf,
}

impl SmtpServer {
    fn start(port: u16, maildir: &Path) -> SmtpServer {
        let check = Command::new("python3")
            .args(["-c", "import aiosmtpd"])
            .output();
        match check {
            Ok(out) if out.status.success() => {}
            Ok(out) => panic!(
                "the SMTP tests need aiosmtpd: run `pip install aiosmtpd` ({})",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            Err(e) => panic!(
                "the SMTP tests need python3 with aiosmtpd: install python3, then `pip install aiosmtpd` ({e})"
            ),
        }
        let child = Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(maildir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 -m aiosmtpd starts");
        wait_for("the SMTP server to listen", || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        SmtpServer {
            child,
            maildir: maildir.to_path_buf(),
        }
    }

    /// The messages received so far.
    fn messages(&self) -> Vec<String> {
        let mut found = Vec::new();
        for sub in ["new", "cur"] {
            if let Ok(dir) = fs::read_dir(self.maildir.join(sub)) {
                for entry in dir {
                    found.push(fs::read_to_string(entry.unwrap().path()).unwrap());
                }
            }
        }
        found
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn header<'a>(message: &'a str, name: &str) -> &'a str {
    message
        .lines()
        .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(": ")))
        .unwrap_or_else(|| panic!("no {name} header in\n{message}"))
}

fn message_ids(messages: &[String]) -> Vec<String> {
    let mut ids: Vec<_> = messages
        .iter()
        .map(|m| header(m, "Message-ID").to_owned())
        .collect();
    ids.sort();
    ids
}

/// A distinct trivial problem file (same position, different comment, so a
/// different job).
fn numbered(base: &str, n: usize) -> String {
    format!("% problem {n}\n{base}")
}

#[test]
fn files_written_in_place_renamed_in_and_dropped_by_the_dozen_all_get_verdicts() {
    let mut spool = Spool::new(MailTo::Files, 2);
    spool.start();
    spool.write_in_place("inplace.fen", SOUND);
    spool.rename_in("renamed.fen", ILLEGAL);
    // Ignored: a partial upload and a dot-file.
    spool.write_in_place("upload.fen.part", SOUND);
    spool.write_in_place(".hidden.fen", SOUND);
    for n in 0..60 {
        spool.rename_in(&format!("many{n}.fen"), &numbered(SOUND, n));
    }
    let v = spool.wait_verdict("inplace", 0);
    assert_eq!(v["verdict"], "sound", "{v}");
    assert_eq!(v["keys"][0]["uci"], "a7f2", "{v}");
    let v = spool.wait_verdict("renamed", 0);
    assert_eq!(v["verdict"], "illegal", "{v}");
    for n in 0..60 {
        let v = spool.wait_verdict(&format!("many{n}"), 0);
        assert_eq!(v["verdict"], "sound", "{v}");
    }
    let report = fs::read_to_string(spool.path("outbox/renamed.0.report.txt")).unwrap();
    assert!(report.contains("Verdict: illegal"), "{report}");
    wait_for("the inbox to empty", || {
        spool.names("inbox") == [".failed", ".hidden.fen", ".processing", "upload.fen.part"]
    });
    // The verdicts are written just before the file leaves `.processing/`.
    wait_for("every file in done/", || {
        spool.names("outbox/done").len() == 62 && spool.names("inbox/.processing").is_empty()
    });
    // No temporary files are left behind in the outbox.
    assert!(spool.names("outbox").iter().all(|n| !n.starts_with('.')));

    // The journal: one judged run per file, a verdict row each, timings.
    let rows = spool.history(&[]);
    assert_eq!(rows.len(), 62, "{rows:#?}");
    assert!(rows.iter().all(|r| r["status"] == "judged"));
    let illegal = spool.history(&["--verdict", "illegal", "--since", "1h"]);
    assert_eq!(illegal.len(), 1);
    assert_eq!(illegal[0]["file"], "renamed.fen");
    assert!(spool.history(&["--since", "2000-01-01"]).len() == 62);
    let table = Command::new(env!("CARGO_BIN_EXE_cookd"))
        .args(["history", "--db"])
        .arg(spool.path("journal.sqlite"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&table.stdout).contains("renamed.0"));

    // One cook report, as a file named after its Message-ID.
    wait_for("the cook report", || spool.names("outbox/mail").len() == 1);
    let mail = spool.names("outbox/mail");
    assert!(mail[0].ends_with(".eml"), "{mail:?}");
    let eml = fs::read_to_string(spool.path("outbox/mail").join(&mail[0])).unwrap();
    assert!(
        header(&eml, "Subject").contains("renamed.0 (#2): illegal"),
        "{eml}"
    );

    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

#[test]
fn cook_reports_reach_an_smtp_server_once_even_when_it_starts_late() {
    let port = free_port();
    let mut spool = Spool::new(MailTo::Smtp(port), 1);
    spool.start();
    spool.rename_in("cooked.fen", COOKED);
    let v = spool.wait_verdict("cooked", 0);
    assert_eq!(v["verdict"], "cooked", "{v}");
    assert_eq!(v["keys"].as_array().unwrap().len(), 3, "{v}");
    // The server is down: the mail waits in the journal's outbox.
    wait_for("a failed attempt", || spool.log().contains("mail not sent"));
    assert_eq!(spool.history(&[])[0]["mail_pending"], 1);

    let server = SmtpServer::start(port, &spool.path("maildir"));
    wait_for("the mail", || !server.messages().is_empty());
    let messages = server.messages();
    let m = &messages[0];
    let subject = header(m, "Subject");
    assert!(subject.contains("cooked.0 (#2): cooked"), "{subject}");
    assert!(subject.contains("1.Rf1!"), "{subject}");
    assert!(m.contains("application/json"), "{m}");
    assert!(m.contains("cooked.0.verdict.json"), "{m}");
    let job = spool.history(&[])[0]["job"].as_str().unwrap().to_owned();
    assert!(header(m, "Message-ID").contains(&job[..32]), "{m}");

    // Resubmitted: served from the journal, no second mail.
    spool.rename_in("again.fen", COOKED);
    let v = spool.wait_verdict("again", 0);
    assert_eq!(v["verdict"], "cooked");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(server.messages().len(), 1);
    let statuses: Vec<_> = spool
        .history(&[])
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(statuses, ["reused", "judged"]);
    assert_eq!(spool.history(&[])[1]["mail_sent"], 1);
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

#[test]
fn kill_9_and_restart_loses_nothing_solves_nothing_twice_mails_nothing_twice() {
    let port = free_port();
    let mut spool = Spool::new(MailTo::Smtp(port), 1);
    let server = SmtpServer::start(port, &spool.path("maildir"));
    spool.start();
    let files = 80;
    for n in 0..files {
        let base = if n % 2 == 0 { ILLEGAL } else { SOUND };
        spool.rename_in(&format!("p{n}.fen"), &numbered(base, n));
    }
    // Kill it in the middle of the batch.
    wait_for("some verdicts", || spool.names("outbox/done").len() >= 3);
    spool.kill9();
    let done_before = spool.names("outbox/done").len();
    spool.start();
    for n in 0..files {
        let v = spool.wait_verdict(&format!("p{n}"), 0);
        let expected = if n % 2 == 0 { "illegal" } else { "sound" };
        assert_eq!(v["verdict"], expected, "{v}");
    }
    wait_for("all files done", || {
        spool.names("outbox/done").len() == files
    });
    // A kill between the claim's link and unlink leaves a second copy in the
    // inbox; it is claimed after the first copy is done, so `.processing/`
    // drains a moment after the last name lands in done/.
    wait_for("an empty .processing/", || {
        spool.names("inbox/.processing").is_empty()
    });
    assert!(
        done_before < files,
        "the kill came too late to test anything"
    );

    let per_job = spool.judged_per_job();
    assert_eq!(per_job.len(), files, "{per_job:?}");
    assert!(per_job.values().all(|&n| n == 1), "{per_job:?}");

    wait_for("every cook report", || server.messages().len() >= files / 2);
    std::thread::sleep(Duration::from_millis(1000));
    let ids = message_ids(&server.messages());
    let unique: HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), files / 2, "{ids:#?}");
    // Every report once, except that the one message whose SMTP transaction
    // the kill interrupted may arrive a second time: the kernel still
    // delivers what the dead process had written, and no SMTP client can
    // know whether the server stored it. That copy carries the same
    // Message-ID (derived from the job), so mail software drops it as a
    // duplicate. More than one extra copy would be a bug.
    assert!(ids.len() <= files / 2 + 1, "{ids:#?}");
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

#[test]
fn garbage_and_huge_files_are_quarantined_and_the_daemon_lives_on() {
    let mut spool = Spool::new(MailTo::Files, 1);
    spool.start();
    spool.rename_in("garbage.fen", "this is not a chess problem %%%\n");
    spool.rename_in("empty.txt", "");
    fs::write(spool.path("inbox/binary.part"), [0u8, 159, 146, 150, 1, 2]).unwrap();
    fs::rename(
        spool.path("inbox/binary.part"),
        spool.path("inbox/binary.bin"),
    )
    .unwrap();
    {
        // 9 MiB, sparse: far beyond any problem file.
        let part = spool.path("inbox/huge.fen.part");
        let f = fs::File::create(&part).unwrap();
        f.set_len(9 << 20).unwrap();
        drop(f);
        fs::rename(&part, spool.path("inbox/huge.fen")).unwrap();
    }
    let mut f = fs::File::create(spool.path("inbox/after.fen")).unwrap();
    f.write_all(SOUND.as_bytes()).unwrap();
    drop(f);
    assert_eq!(spool.wait_verdict("after", 0)["verdict"], "sound");
    wait_for("four quarantined files", || {
        spool.names("inbox/.failed").len() == 8
    });
    let failed = spool.names("inbox/.failed");
    for name in ["garbage.fen", "empty.txt", "binary.bin", "huge.fen"] {
        assert!(failed.contains(&name.to_owned()), "{failed:?}");
        let why = fs::read_to_string(
            spool
                .path("inbox/.failed")
                .join(format!("{name}.error.txt")),
        )
        .unwrap();
        assert!(why.starts_with(&format!("{name}:1:")), "{why}");
    }
    let huge = fs::read_to_string(spool.path("inbox/.failed/huge.fen.error.txt")).unwrap();
    assert!(huge.contains("bytes"), "{huge}");
    // Each still has its `error` verdict in the outbox and in the journal.
    assert_eq!(spool.wait_verdict("garbage", 0)["verdict"], "error");
    assert_eq!(spool.wait_verdict("huge", 0)["verdict"], "error");
    assert_eq!(spool.history(&["--verdict", "error"]).len(), 4);
    assert!(spool.daemon.as_mut().unwrap().try_wait().unwrap().is_none());
    spool.signal("INT");
    assert!(spool.wait_exit().success());
}

#[test]
fn sigterm_finishes_the_problem_in_flight_and_exits_zero() {
    let mut spool = Spool::new(MailTo::Files, 1);
    spool.start();
    spool.rename_in("slow.fen", SLOW);
    wait_for("the claim", || {
        spool.names("inbox/.processing") == ["slow.fen"]
    });
    std::thread::sleep(Duration::from_millis(300));
    spool.signal("TERM");
    std::thread::sleep(Duration::from_millis(300));
    // Claimed no more while draining.
    spool.rename_in("late.fen", SOUND);
    let status = spool.wait_exit();
    assert!(status.success(), "{status:?}\n{}", spool.log());
    let v = spool
        .verdict("slow", 0)
        .expect("the problem in flight was finished");
    assert_eq!(v["verdict"], "cooked", "{v}");
    assert!(spool.names("inbox/.processing").is_empty());
    assert!(spool.path("inbox/late.fen").exists());
    // The journal is checkpointed: the WAL is empty.
    let wal = fs::metadata(spool.path("journal.sqlite-wal")).map_or(0, |m| m.len());
    assert_eq!(wal, 0);

    // The next start picks up what was left in the inbox.
    spool.start();
    assert_eq!(spool.wait_verdict("late", 0)["verdict"], "sound");
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

#[test]
fn identical_resubmission_is_reused_until_sighup_changes_the_stages() {
    let mut spool = Spool::new(MailTo::Files, 1);
    spool.start();
    spool.rename_in("a.fen", SOUND);
    spool.wait_verdict("a", 0);
    spool.rename_in("b.fen", SOUND);
    spool.wait_verdict("b", 0);
    // A file left in `.processing/` by a crash is judged at start.
    fs::write(spool.path("inbox/.processing/left.fen"), ILLEGAL).unwrap();

    // New stages: the same content is judged again.
    let config = fs::read_to_string(spool.path("pipeline.yaml")).unwrap();
    fs::write(
        spool.path("pipeline.yaml"),
        config.replace("budget_s: 120", "budget_s: 100"),
    )
    .unwrap();
    spool.signal("HUP");
    wait_for("the reload", || spool.log().contains("reloaded"));
    spool.rename_in("c.fen", SOUND);
    spool.wait_verdict("c", 0);
    let statuses: Vec<_> = spool
        .history(&[])
        .iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("c.fen".to_owned(), "judged".to_owned()),
            ("b.fen".to_owned(), "reused".to_owned()),
            ("a.fen".to_owned(), "judged".to_owned())
        ]
    );
    // The leftover is only picked up at the next start.
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
    spool.start();
    assert_eq!(spool.wait_verdict("left", 0)["verdict"], "illegal");
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

#[test]
fn a_bad_configuration_is_refused_with_its_name_and_key() {
    let spool = Spool::new(MailTo::Files, 1);
    let config = fs::read_to_string(spool.path("pipeline.yaml")).unwrap();
    fs::write(
        spool.path("pipeline.yaml"),
        format!("{config}colour: blue\n"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cookd"))
        .args(["run", "--config"])
        .arg(spool.path("pipeline.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("colour") && err.contains("pipeline.yaml"),
        "{err}"
    );
}
