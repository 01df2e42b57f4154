use std::io::{Read, Write};

use super::*;
use crate::journal::{unix_now, Journal, Run, StoredVerdict};

/// A problem whose YAML author, source and id hold markup.
const HOSTILE: &str =
    "---\nid: \"<b>x</b>\"\nauthors: [\"<script>document.title='pwned'</script> & Co\"]\n\
     source: \"<img src=x onerror=alert(2)>\"\nstipulation: \"#2\"\n\
     fen: \"nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1\"\n";

fn judge(name: &str, content: &str) -> Vec<solvers::verdict::Verdict> {
    crate::pipeline::judge_file(name, content.as_bytes(), &Config::builtin().stages)
}

fn stored(v: &solvers::verdict::Verdict) -> StoredVerdict {
    StoredVerdict {
        index: v.index,
        problem_id: v.id.clone(),
        verdict: v.verdict.as_str().to_owned(),
        json: serde_json::to_string(v).unwrap(),
        report: crate::report::text(v),
        timings: v
            .timings_ms
            .iter()
            .map(|(s, ms)| (s.clone(), *ms))
            .collect(),
    }
}

/// Records `content` judged as `name` in the journal; returns the run id.
fn record(journal: &Journal, name: &str, content: &str) -> i64 {
    let verdicts: Vec<_> = judge(name, content).iter().map(stored).collect();
    let job = format!("job-{name}");
    journal
        .record(
            &Run {
                job: &job,
                config: "cfg",
                file: name,
                status: "judged",
                started_at: unix_now(),
                error: None,
                verdicts: &verdicts,
                text: Some(content),
            },
            &[],
        )
        .unwrap()
}

#[test]
fn hostile_problem_text_shows_as_text_on_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.sqlite");
    let journal = Journal::open(&db).unwrap();
    let run = record(&journal, "<evil>.yaml", HOSTILE);
    let conn = journal::open_read_only(&db).unwrap();

    let p = query::problem(&conn, run, 0).unwrap().unwrap();
    assert_eq!(p.verdict, "cooked");
    assert_eq!(p.submitted.as_deref(), Some(HOSTILE));
    let html = page::problem(&p);
    for raw in ["<script", "<img src=x", "<b>x", "<evil>"] {
        assert!(!html.contains(raw), "{raw} in {html}");
    }
    // The author in the heading, in the report and in the submitted text.
    let escaped = "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt; &amp; Co";
    assert!(html.matches(escaped).count() >= 3, "{html}");
    assert!(
        html.contains("&lt;img src=x onerror=alert(2)&gt;"),
        "{html}"
    );
    assert!(
        html.contains("<title>&lt;b&gt;x&lt;/b&gt;: cooked</title>"),
        "{html}"
    );
    assert!(
        html.contains(
            ">Keys (cooked)</th><td>1.Rf1! (2 moves), 1.Rg1! (2 moves), 1.Rxh6! (2 moves)</td>"
        ),
        "{html}"
    );
    assert!(
        html.contains(">Legality</th><td>no flaw found</td>"),
        "{html}"
    );
    assert!(html.contains("<img src=\"/diagram/1/0\""), "{html}");

    let params = Params::default();
    let page = query::page(&conn, &Filter::default(), 1).unwrap();
    assert_eq!(page.total, 1);
    let html = page::table(&params, &Filter::default(), &page);
    for raw in ["<script", "<img src=x", "<b>x", "<evil>"] {
        assert!(!html.contains(raw), "{raw} in {html}");
    }
    // The file name as text, and percent-encoded in its filter link.
    assert!(html.contains(">&lt;evil&gt;.yaml</a>"), "{html}");
    assert!(html.contains("href=\"/?file=%3Cevil%3E.yaml\""), "{html}");
    assert!(html.contains(">&lt;b&gt;x&lt;/b&gt;</a>"), "{html}");
}

/// The cooks stage's findings show on the problem page: a sound #2's
/// quality score with its features, a cooked #2's repairs (escaped like
/// everything else).
#[test]
fn quality_and_repairs_show_on_the_problem_page() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.sqlite");
    let journal = Journal::open(&db).unwrap();
    let sound = record(&journal, "s.fen", "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n");
    let cooked = record(&journal, "c.yaml", HOSTILE);
    let conn = journal::open_read_only(&db).unwrap();

    let p = query::problem(&conn, sound, 0).unwrap().unwrap();
    let score = p.json["quality"]["score"].as_f64().unwrap();
    let html = page::problem(&p);
    assert!(
        html.contains(&format!(">Quality</th><td>{score:.1} (")),
        "{html}"
    );
    assert!(!html.contains(">Repairs</th>"), "{html}");

    let p = query::problem(&conn, cooked, 0).unwrap().unwrap();
    let repairs = p.json["repairs"].as_array().unwrap();
    assert!(!repairs.is_empty(), "{}", p.json);
    let html = page::problem(&p);
    let first = &repairs[0];
    let key = format!("key 1.{}", first["key"].as_str().unwrap());
    assert!(html.contains(">Repairs</th><td>"), "{html}");
    assert!(html.contains(&key), "{key} in {html}");
}

/// The web view's legality line says what the reports say
/// (`Legality::summary`), for each of its three forms.
#[test]
fn the_legality_line_matches_the_reports() {
    for (name, content, expected) in [
        // Two white kings.
        (
            "two.fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 ; #2\n",
            "illegal: ",
        ),
        // After 1.e4 e5: SPG 2.
        (
            "spg.fen",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 ; SPG 2\n",
            "legal (proof game of 2 plies)",
        ),
        (
            "s.fen",
            "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n",
            "no flaw found",
        ),
    ] {
        let v = &judge(name, content)[0];
        let summary = v.legality.as_ref().unwrap().summary();
        assert!(summary.starts_with(expected), "{summary}");
        let json = serde_json::to_value(v).unwrap();
        assert_eq!(page::legality(&json).as_deref(), Some(summary.as_str()));
    }
}

/// Ten thousand journal rows: the page query walks an index in the table's
/// order (no sort of the whole journal), for each filter, and pages and
/// filters return the right rows.
#[test]
fn ten_thousand_rows_are_paged_by_index_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.sqlite");
    drop(Journal::open(&db).unwrap());
    let mut conn = Connection::open(&db).unwrap();
    let tx = conn.transaction().unwrap();
    let words = ["sound", "cooked", "illegal", "no_solution"];
    // Run n starts n minutes after 2026-01-01; 10,000 runs span ~7 days.
    let start = 1_767_225_600.0;
    for n in 1..=10_000i64 {
        tx.execute(
            "INSERT INTO runs (id, job, config, file, status, started_at, finished_at, wall_ms,
                               problems)
             VALUES (?1, ?2, 'c', ?3, 'judged', ?4, ?4, 3.0, 1)",
            rusqlite::params![
                n,
                format!("j{n}"),
                format!("f{}.fen", n % 100),
                start + 60.0 * n as f64
            ],
        )
        .unwrap();
        tx.execute(
            "INSERT INTO verdicts (run_id, idx, problem_id, verdict, json, report)
             VALUES (?1, 0, ?2, ?3, '{\"stipulation\": \"#2\"}', '')",
            rusqlite::params![n, format!("p{n}"), words[n as usize % 4]],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    drop(conn);
    let conn = journal::open_read_only(&db).unwrap();

    let plan = |filter: &Filter| {
        let (sql, mut values) = query::page_sql(filter);
        values.extend([
            rusqlite::types::Value::Integer(50),
            rusqlite::types::Value::Integer(0),
        ]);
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt
            .query_map(rusqlite::params_from_iter(&values), |row| {
                row.get::<_, String>(3)
            })
            .unwrap();
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .unwrap()
            .join("\n")
    };
    let by_file = Filter {
        file: Some("f7.fen".into()),
        ..Filter::default()
    };
    let by_date = Filter {
        since: query::date(&conn, "2026-01-03", 0).unwrap(),
        until: query::date(&conn, "2026-01-03", 1).unwrap(),
        ..Filter::default()
    };
    let by_verdict = Filter {
        verdict: Some("cooked".into()),
        ..Filter::default()
    };
    for (filter, index) in [
        (&Filter::default(), "runs_started"),
        (&by_file, "runs_file (file=?)"),
        (&by_date, "runs_started (started_at>? AND started_at<?)"),
        (&by_verdict, "runs_started"),
    ] {
        let plan = plan(filter);
        assert!(!plan.contains("TEMP B-TREE"), "{filter:?}:\n{plan}");
        assert!(
            plan.contains(&format!("INDEX {index}")),
            "{filter:?}:\n{plan}"
        );
    }

    let first = query::page(&conn, &Filter::default(), 1).unwrap();
    assert_eq!(first.total, 10_000);
    let runs: Vec<_> = first.rows.iter().map(|r| r.run).collect();
    assert_eq!(runs, (9951..=10_000).rev().collect::<Vec<_>>());
    let last = query::page(&conn, &Filter::default(), 200).unwrap();
    assert_eq!(last.rows.last().unwrap().run, 1);
    assert!(query::page(&conn, &Filter::default(), 201)
        .unwrap()
        .rows
        .is_empty());

    let file = query::page(&conn, &by_file, 1).unwrap();
    assert_eq!(file.total, 100);
    assert!(file
        .rows
        .iter()
        .all(|r| r.file == "f7.fen" && r.run % 100 == 7));
    assert_eq!(file.rows[0].run, 9907);
    // 2026-01-03 UTC: runs 2880 to 4319 (one a minute from 2026-01-01 00:01).
    let day = query::page(&conn, &by_date, 1).unwrap();
    assert_eq!(day.total, 1440);
    assert_eq!(day.rows[0].run, 4319);
    assert_eq!(day.rows[0].time, "2026-01-03T23:59:00Z");
    let cooked = query::page(&conn, &by_verdict, 2).unwrap();
    assert_eq!(cooked.total, 2500);
    assert!(cooked.rows.iter().all(|r| r.verdict == "cooked"));
    assert_eq!(cooked.rows[0].run, 10_000 - 3 - 4 * 50);
}

/// One HTTP/1.1 exchange with the server at `addr`: status line, headers
/// and body as text.
fn http(addr: SocketAddr, method: &str, path: &str) -> String {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn the_server_answers_gets_only_with_scripts_forbidden() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.sqlite");
    let journal = Journal::open(&db).unwrap();
    record(&journal, "evil.yaml", HOSTILE);
    record(&journal, "s.fen", "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(bind("127.0.0.1:0".parse().unwrap(), &db))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = std::thread::spawn(move || {
        runtime.block_on(serve(listener, db, async {
            let _ = stopped.await;
        }))
    });

    let page = http(addr, "GET", "/");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("content-security-policy: default-src 'none';"),
        "{page}"
    );
    assert!(page.contains("x-content-type-options: nosniff"), "{page}");
    assert_eq!(page.matches("<tr class=").count(), 2, "{page}");
    let sound = http(addr, "GET", "/?verdict=sound&file=&since=&until=");
    assert_eq!(sound.matches("<tr class=").count(), 1, "{sound}");
    assert!(sound.contains("data-verdict=\"sound\""), "{sound}");

    let api: serde_json::Value = {
        let r = http(addr, "GET", "/api/problems?verdict=cooked");
        serde_json::from_str(r.split_once("\r\n\r\n").unwrap().1).unwrap()
    };
    assert_eq!(api["total"], 1);
    assert_eq!(api["rows"][0]["file"], "evil.yaml");
    let one: serde_json::Value = {
        let r = http(addr, "GET", "/api/problem/1/0");
        serde_json::from_str(r.split_once("\r\n\r\n").unwrap().1).unwrap()
    };
    assert_eq!(
        one["json"]["authors"][0],
        "<script>document.title='pwned'</script> & Co"
    );
    assert_eq!(one["submitted"], HOSTILE);

    let svg = http(addr, "GET", "/diagram/2/0");
    assert!(svg.contains("content-type: image/svg+xml"), "{svg}");
    assert!(svg.contains("<svg xmlns="), "{svg}");
    assert!(http(addr, "GET", "/problem/9/0").starts_with("HTTP/1.1 404"));
    assert!(http(addr, "GET", "/?verdict=<x>").starts_with("HTTP/1.1 400"));
    assert!(http(addr, "GET", "/?since=yesterday").starts_with("HTTP/1.1 400"));
    for method in ["POST", "PUT", "DELETE"] {
        let r = http(addr, method, "/problem/1/0");
        assert!(r.starts_with("HTTP/1.1 405"), "{method}: {r}");
    }
    stop.send(()).unwrap();
    server.join().unwrap().unwrap();
}

/// A long proof-game search under way shows above the table: its work
/// items done of all and the time left; the JSON has it too. Gone with
/// its checkpoints, once the verdict is recorded.
#[test]
fn a_search_in_progress_shows_its_items_done_and_time_left() {
    use solvers::proofgame::{ItemKey, ItemResult};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.sqlite");
    let journal = Journal::open(&db).unwrap();
    let conn = journal::open_read_only(&db).unwrap();
    let page = query::page(&conn, &Filter::default(), 1).unwrap();
    let html = page::table(&Params::default(), &Filter::default(), &page);
    assert!(!html.contains("In progress"), "{html}");

    let progress = journal::Progress {
        file: "<long>.fen",
        problem_id: "long.1",
    };
    let result = ItemResult {
        count: 0,
        listed: true,
        games: Vec::new(),
    };
    for index in 0..3 {
        let key = ItemKey {
            goal: 0,
            plies: 31,
            index,
            of: 10,
        };
        // Spread in time, so that the rate so far gives a time left.
        std::thread::sleep(std::time::Duration::from_millis(20));
        journal
            .record_work_item("job:cfg:0", &key, &result, &progress, None)
            .unwrap();
    }
    let page = query::page(&conn, &Filter::default(), 1).unwrap();
    let html = page::table(&Params::default(), &Filter::default(), &page);
    assert!(html.contains("<h2>In progress</h2>"), "{html}");
    assert!(
        html.contains("<td>&lt;long&gt;.fen</td><td>long.1</td><td class=\"num\">31 plies</td>"),
        "{html}"
    );
    assert!(
        html.contains("<td class=\"num\">3 of 10 (30 %)</td><td class=\"num\">about "),
        "{html}"
    );
    let json = serde_json::to_value(&page).unwrap();
    let search = &json["in_progress"][0];
    assert_eq!(
        (search["done"].as_u64(), search["items"].as_u64()),
        (Some(3), Some(10))
    );
    assert!(search["left_s"].as_f64().unwrap() > 0.0, "{json}");

    journal.forget_work_items("job:cfg:").unwrap();
    let page = query::page(&conn, &Filter::default(), 1).unwrap();
    assert!(page.in_progress.is_empty());
}
