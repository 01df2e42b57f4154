//! The journal's unit tests.

use super::*;

#[test]
fn migrations_are_valid() {
    Migrations::from_slice(MIGRATIONS).validate().unwrap();
}

fn verdict(index: usize, word: &str) -> StoredVerdict {
    StoredVerdict {
        index,
        problem_id: format!("p.{index}"),
        verdict: word.into(),
        json: "{}".into(),
        report: "r".into(),
        timings: vec![("legality".into(), 0.5)],
    }
}

fn mail(recipient: &str) -> Mail {
    Mail {
        job: "abc".into(),
        index: 0,
        recipient: recipient.into(),
        sender: "cookd@localhost".into(),
        message_id: format!("<abc.0.{recipient}@cookd>"),
        subject: "s".into(),
        message: b"m".to_vec(),
    }
}

#[test]
fn work_items_are_kept_with_their_progress_until_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let key = |index| ItemKey {
        goal: 0,
        plies: 31,
        index,
        of: 4,
    };
    let result = ItemResult {
        count: 3,
        listed: true,
        games: vec!["e2e4 e7e5".into()],
    };
    let progress = Progress {
        file: "a.fen",
        problem_id: "a.0",
    };
    assert_eq!(journal.work_item("job:cfg:0", &key(1)).unwrap(), None);
    for index in [1, 2] {
        journal
            .record_work_item("job:cfg:0", &key(index), &result, &progress, None)
            .unwrap();
    }
    assert_eq!(
        journal.work_item("job:cfg:0", &key(1)).unwrap(),
        Some(result.clone())
    );
    // Another problem, or the same item split another way, is not it.
    assert_eq!(journal.work_item("job:cfg:1", &key(1)).unwrap(), None);
    let other_split = ItemKey { of: 5, ..key(1) };
    assert_eq!(journal.work_item("job:cfg:0", &other_split).unwrap(), None);
    let conn = open_read_only(&dir.path().join("j.sqlite")).unwrap();
    let [p] = searches(&conn).unwrap().try_into().unwrap();
    assert_eq!((p.plies, p.done, p.items), (31, 2, 4));
    assert_eq!(p.problem_id, "a.0");
    // With the count known from the last call: a new item adds one, an
    // item recorded again does not.
    let record = |index, before| {
        journal
            .record_work_item("job:cfg:0", &key(index), &result, &progress, Some(before))
            .unwrap()
            .0
    };
    assert_eq!(record(3, 2), 3);
    assert_eq!(record(3, 3), 3);
    journal.forget_work_items("job:cfg:").unwrap();
    assert_eq!(journal.work_item("job:cfg:0", &key(1)).unwrap(), None);
    assert!(searches(&conn).unwrap().is_empty());
}

#[test]
fn a_job_is_found_and_its_mail_queued_once() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    assert!(journal.find_judged("abc", "cfg").unwrap().is_none());
    let verdicts = [verdict(0, "cooked")];
    let run = Run {
        job: "abc",
        config: "cfg",
        file: "a.fen",
        status: "judged",
        started_at: unix_now(),
        error: None,
        verdicts: &verdicts,
        text: Some("8/8/8/8/8/8/8/K1k5 w - - 0 1 ; #2\n"),
    };
    journal.record(&run, &[mail("j@x")]).unwrap();
    journal.record(&run, &[mail("j@x")]).unwrap();
    assert_eq!(journal.find_judged("abc", "cfg").unwrap().unwrap().len(), 1);
    assert!(journal.find_judged("abc", "other").unwrap().is_none());
    assert_eq!(journal.queued_mail().unwrap(), 1);
    let due = journal.due_mail(unix_now() + 1.0, 10).unwrap();
    assert_eq!(due.len(), 1);
    journal
        .mail_failed(due[0].id, "down", Some(unix_now() + 100.0))
        .unwrap();
    assert!(journal.due_mail(unix_now(), 10).unwrap().is_empty());
    journal.mail_sent(due[0].id).unwrap();
    assert_eq!(journal.queued_mail().unwrap(), 0);

    let conn = open_read_only(&dir.path().join("j.sqlite")).unwrap();
    let rows = history(&conn, &Filter::default()).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].mail_sent, 1);
    let since = parse_since(&conn, "2000-01-01", unix_now()).unwrap();
    assert_eq!(since, 946684800.0);
    assert!(parse_since(&conn, "yesterday", unix_now()).is_err());
    assert_eq!(parse_since(&conn, "2h", 10000.0).unwrap(), 2800.0);
}
