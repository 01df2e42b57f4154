//! End-to-end tests of `cookd run`: the built daemon on a temporary spool,
//! driven the way users and the operating system drive it (files written in
//! place, renamed in, dropped by the dozen; kill -9, SIGTERM, SIGHUP), with
//! mail received by a real SMTP server on loopback (tests/support/smtp.rs,
//! built by cargo: real TCP, the real SMTP dialogue, STARTTLS).

#[path = "support/smtp.rs"]
mod smtp;
#[path = "support/spool.rs"]
mod spool;

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::process::Command;
use std::time::Duration;

use smtp::SmtpServer;
use spool::*;

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

    let server = SmtpServer::start(port, None);
    wait_for("the mail", || !server.messages().is_empty());
    let messages = server.messages();
    let m = &messages[0];
    let subject = header(m, "Subject");
    assert!(subject.contains("cooked.0 (#2): cooked"), "{subject}");
    assert!(subject.contains("1.Rf1!"), "{subject}");
    assert!(m.contains("application/json"), "{m}");
    assert!(m.contains("cooked.0.verdict.json"), "{m}");
    // As received over SMTP, the message reads back as the text report and
    // the HTML one with its diagram (the MIME structure itself is tested in
    // daemon/src/mail.rs).
    let parsed = mail_parser::MessageParser::default()
        .parse(m.as_bytes())
        .unwrap();
    assert!(parsed.body_text(0).unwrap().contains("Verdict: cooked"));
    let html = parsed.body_html(0).unwrap();
    assert!(html.contains("<h1"), "{html}");
    assert!(html.contains("Cooked: 3 keys 1.Rf1!"), "{html}");
    assert!(html.contains("src=\"cid:diagram@cookd\""), "{html}");
    let png = parsed
        .parts
        .iter()
        .find(|p| mail_parser::MimeHeaders::content_id(*p) == Some("diagram@cookd"))
        .expect("the diagram part");
    assert!(png.contents().starts_with(b"\x89PNG"));
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
    let server = SmtpServer::start(port, None);
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
    let err = spool.start_refused();
    assert!(
        err.contains("colour") && err.contains("pipeline.yaml"),
        "{err}"
    );
}

/// The web view's port taken: `cookd run` says so and exits 1 before it
/// claims any file (the problem stays in the inbox for the next start).
#[test]
fn a_serve_port_in_use_stops_the_start_and_claims_nothing() {
    let spool = Spool::new(MailTo::Nobody, 1);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let config = fs::read_to_string(spool.path("pipeline.yaml")).unwrap();
    fs::write(
        spool.path("pipeline.yaml"),
        format!("{config}serve: {{listen: 127.0.0.1:{port}}}\n"),
    )
    .unwrap();
    fs::create_dir_all(spool.path("inbox")).unwrap();
    spool.write_in_place("waiting.fen", SOUND);
    let err = spool.start_refused();
    assert!(
        err.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{err}"
    );
    assert_eq!(
        spool.names("inbox"),
        [".failed", ".processing", "waiting.fen"]
    );
    drop(taken);
}

#[test]
fn cook_reports_go_over_starttls_to_a_server_the_daemon_was_told_to_trust() {
    let port = free_port();
    let (tls, pem) = self_signed();
    let (_, other_pem) = self_signed();
    let mut spool = Spool::new(MailTo::StartTls(port, "smtp-ca.pem"), 1);
    // First the daemon trusts another certificate: it must not send.
    fs::write(spool.path("smtp-ca.pem"), other_pem).unwrap();
    let server = SmtpServer::start(port, Some(tls));
    spool.start();
    spool.rename_in("cooked.fen", COOKED);
    assert_eq!(spool.wait_verdict("cooked", 0)["verdict"], "cooked");
    wait_for("a refused handshake", || {
        spool.log().contains("mail not sent")
    });
    assert!(server.messages().is_empty());
    assert_eq!(spool.history(&[])[0]["mail_pending"], 1);

    // Told to trust the server's certificate, it sends over TLS.
    fs::write(spool.path("smtp-ca.pem"), pem).unwrap();
    spool.signal("HUP");
    wait_for("the mail", || !server.messages().is_empty());
    assert_eq!(server.over_tls(), 1);
    let messages = server.messages();
    assert!(header(&messages[0], "Subject").contains("cooked.0 (#2): cooked"));
    wait_for("the journal to record it", || {
        spool.history(&[])[0]["mail_sent"] == 1
    });
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

#[test]
fn without_a_mail_section_verdicts_are_written_and_nothing_is_mailed() {
    let mut spool = Spool::new(MailTo::Nobody, 1);
    spool.start();
    spool.rename_in("illegal.fen", ILLEGAL);
    spool.rename_in("cooked.fen", COOKED);
    assert_eq!(spool.wait_verdict("illegal", 0)["verdict"], "illegal");
    assert_eq!(spool.wait_verdict("cooked", 0)["verdict"], "cooked");
    let rows = spool.history(&[]);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row["mail_pending"], 0, "{row}");
        assert_eq!(row["mail_sent"], 0, "{row}");
    }
    assert!(!spool.path("outbox/mail").exists());
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

#[test]
fn sighup_with_a_broken_file_keeps_the_running_configuration_and_says_why() {
    let mut spool = Spool::new(MailTo::Files, 1);
    spool.start();
    let good = fs::read_to_string(spool.path("pipeline.yaml")).unwrap();
    fs::write(
        spool.path("pipeline.yaml"),
        good.replace("threads: 1", "threads: 1\ncolour: blue"),
    )
    .unwrap();
    spool.signal("HUP");
    wait_for("the refusal", || {
        spool.log().contains("keeping the running configuration")
    });
    let log = spool.log();
    let line = log
        .lines()
        .find(|l| l.contains("keeping the running configuration"))
        .unwrap();
    for part in ["pipeline.yaml", "colour", "line 5"] {
        assert!(line.contains(part), "{part}: {line}");
    }
    assert!(!log.contains("reloaded"), "{log}");
    // Still judging, on the old settings (mail still goes to files).
    spool.rename_in("after.fen", ILLEGAL);
    assert_eq!(spool.wait_verdict("after", 0)["verdict"], "illegal");
    wait_for("the cook report", || spool.names("outbox/mail").len() == 1);
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

fn check_config(path: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cookd"))
        .args(["check-config", "--config"])
        .arg(path)
        .output()
        .unwrap()
}

#[test]
fn check_config_prints_a_hand_written_file_with_its_defaults_and_names_errors() {
    let dir = tempfile::tempdir().unwrap();
    // The hand-written file: file transport, no smtp section.
    let path = dir.path().join("pipeline.yaml");
    fs::write(
        &path,
        "mail: {transport: file, dir: mail, from: judge@club.invalid, to: [me@club.invalid], on: [cooked]}\n",
    )
    .unwrap();
    let out = check_config(&path);
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for part in [
        "inbox: inbox",
        "threads: auto",
        "budget_s: 600",
        "- cooks:",
        "transport: file",
        "dir: mail",
        // The tables' folder: none given, so the per-user cache.
        "dir: null",
        "generate_up_to: 4",
        "smtp: null",
        "first_s: 10",
    ] {
        assert!(printed.contains(part), "{part}:\n{printed}");
    }
    // What it prints is a configuration it accepts, and prints the same.
    let again = dir.path().join("printed.yaml");
    fs::write(&again, &printed).unwrap();
    let out = check_config(&again);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let strip = |text: &str| -> String {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        strip(&String::from_utf8_lossy(&out.stdout)),
        strip(&printed)
    );

    // No mail section at all: valid, and it says there is no mail.
    fs::write(&path, "threads: 2\n").unwrap();
    let out = check_config(&path);
    assert!(out.status.success());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("mail: null"), "{printed}");
    assert!(printed.contains("no cook reports are mailed"), "{printed}");
    // Nor a serve section: no web view, and the default it would have.
    assert!(printed.contains("serve: null"), "{printed}");
    assert!(
        printed.contains("starts no web view (`serve: {}` listens on 127.0.0.1:8080)"),
        "{printed}"
    );
    fs::write(&path, "serve: {}\n").unwrap();
    let out = check_config(&path);
    assert!(out.status.success());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("serve:\n  listen: 127.0.0.1:8080"),
        "{printed}"
    );

    // An error names the file, the key, its line and the allowed words.
    fs::write(
        &path,
        "threads: 2\nmail:\n  transport: smpt\n  to: [me@club.invalid]\n",
    )
    .unwrap();
    let out = check_config(&path);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    for part in [
        "pipeline.yaml",
        "mail.transport",
        "smpt",
        "line 3",
        "`file`",
        "`smtp`",
    ] {
        assert!(err.contains(part), "{part}: {err}");
    }
    assert!(out.stdout.is_empty());
}
