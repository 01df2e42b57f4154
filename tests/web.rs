//! The web view in a real browser: `cookd run` (with a `serve:` section)
//! and `cookd serve` on a temporary spool, problems dropped into its inbox,
//! and Debian's headless `chromium` reading the pages (`--dump-dom` for the
//! DOM after the page ran, `--screenshot` for pixels).
//!
//! Skipped without chromium on PATH; CI installs it and sets
//! `COOKD_REQUIRE_CHROMIUM`, so there a missing browser fails. With
//! `COOKD_SCREENSHOTS=DIR` the screenshots are also saved there as
//! `web-view.png` and `web-problem.png` (the README's pictures:
//! `COOKD_SCREENSHOTS=$PWD/docs cargo test -p cookd --test web`).

#[path = "support/browser.rs"]
mod browser;
#[path = "support/spool.rs"]
mod spool;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use spool::*;

/// No mate in one: bare kings.
const NO_SOLUTION: &str = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 ; #1\n";
/// Not a problem at all.
const BROKEN: &str = "this is not a problem\n";
/// A cooked #2 (the same position as COOKED) whose YAML id, author and
/// source hold markup that would, if it ran, change the title and mark
/// the body.
const HOSTILE: &str = "---\nid: \"<i>hostile</i>\"\n\
     authors: [\"<script>document.title='pwned'</script> & Co\"]\n\
     source: \"<img src=x onerror=\\\"document.body.setAttribute('data-pwned', 1)\\\">\"\n\
     stipulation: \"#2\"\nfen: \"nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1\"\n";

struct Browser {
    program: PathBuf,
    /// A profile of its own, so that runs share no cache.
    profile: tempfile::TempDir,
}

impl Browser {
    fn run(&self, url: &str, extra: &[&str]) -> Vec<u8> {
        browser::headless(&self.program, self.profile.path(), (1000, 820), extra, url)
    }

    /// The DOM after the page's scripts (if any) ran.
    fn dom(&self, url: &str) -> String {
        String::from_utf8(self.run(url, &["--dump-dom"])).unwrap()
    }

    fn screenshot(&self, url: &str, file: &Path) -> resvg::tiny_skia::Pixmap {
        self.run(url, &[&format!("--screenshot={}", file.display())]);
        resvg::tiny_skia::Pixmap::decode_png(&fs::read(file).unwrap()).unwrap()
    }
}

/// The table's rows in a dumped DOM: (problem id, verdict), in order.
fn rows(dom: &str) -> Vec<(String, String)> {
    dom.split("<tr class=\"v-")
        .skip(1)
        .map(|row| {
            let verdict = row.split('"').next().unwrap().to_owned();
            // Two links lead to the problem page: the thumbnail's, then
            // the id's (daemon/src/serve/page.rs); the id is the latter's
            // text.
            let id = row
                .split("<a href=\"/problem/")
                .nth(2)
                .and_then(|a| a.split_once('>'))
                .map(|(_, rest)| rest.split("</a>").next().unwrap().to_owned())
                .unwrap_or_default();
            (id, verdict)
        })
        .collect()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_web_view_in_headless_chromium_lists_filters_draws_and_runs_nothing() {
    let Some(program) = browser::chromium() else {
        eprintln!("skipped: no chromium on PATH (Debian's `chromium` package)");
        return;
    };
    let browser = Browser {
        program,
        profile: tempfile::tempdir().unwrap(),
    };
    let mut spool = Spool::new(MailTo::Nobody, 2);
    let run_port = free_port();
    fs::OpenOptions::new()
        .append(true)
        .open(spool.path("pipeline.yaml"))
        .unwrap()
        .write_all(format!("serve: {{listen: 127.0.0.1:{run_port}}}\n").as_bytes())
        .unwrap();
    spool.start();
    let problems = [
        ("sound.fen", SOUND),
        ("cooked.fen", COOKED),
        ("illegal.fen", ILLEGAL),
        ("nosol.fen", NO_SOLUTION),
        ("broken.fen", BROKEN),
        ("hostile.yaml", HOSTILE),
    ];
    for (name, content) in problems {
        spool.rename_in(name, content);
    }
    let mut expected: Vec<(String, String)> = Vec::new();
    for (name, _) in problems {
        let stem = name.split('.').next().unwrap();
        let v = spool.wait_verdict(stem, 0);
        expected.push((
            v["id"].as_str().unwrap().to_owned(),
            v["verdict"].as_str().unwrap().to_owned(),
        ));
    }
    let words: Vec<_> = expected.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(
        words,
        [
            "sound",
            "cooked",
            "illegal",
            "no_solution",
            "error",
            "cooked"
        ]
    );
    // The journal has them once the outbox has (journal first).
    wait_for("six journal rows", || spool.history(&[]).len() == 6);

    // `cookd serve` beside the daemon, on the same journal.
    let serve_port = free_port();
    let serve = Server(
        Command::new(env!("CARGO_BIN_EXE_cookd"))
            .args(["serve", "--config"])
            .arg(spool.path("pipeline.yaml"))
            .args(["--listen", &format!("127.0.0.1:{serve_port}")])
            .stdout(Stdio::null())
            .stderr(fs::File::create(spool.path("serve.log")).unwrap())
            .spawn()
            .unwrap(),
    );
    wait_for("cookd serve to listen", || {
        std::net::TcpStream::connect(("127.0.0.1", serve_port)).is_ok()
    });
    wait_for("cookd run's web view to listen", || {
        std::net::TcpStream::connect(("127.0.0.1", run_port)).is_ok()
    });

    // 1. The table, from both servers: one row per verdict, each with the
    // verdict the outbox has, newest first (the files were judged in some
    // order; the set is what is fixed).
    for port in [run_port, serve_port] {
        let dom = browser.dom(&format!("http://127.0.0.1:{port}/"));
        let mut found = rows(&dom);
        assert_eq!(found.len(), 6, "{dom}");
        found.sort();
        let mut want = expected.clone();
        want.iter_mut()
            .for_each(|(id, _)| *id = id.replace('<', "&lt;").replace('>', "&gt;"));
        want.sort();
        assert_eq!(found, want, "{dom}");
        assert!(
            dom.contains("6 verdicts, newest first; page 1 of 1."),
            "{dom}"
        );
    }
    let base = format!("http://127.0.0.1:{serve_port}");

    // 2. Filters: by verdict, by file, by date (the form's GET query).
    let dom = browser.dom(&format!("{base}/?verdict=cooked&file=&since=&until="));
    let found = rows(&dom);
    assert_eq!(found.len(), 2, "{dom}");
    assert!(found.iter().all(|(_, v)| v == "cooked"), "{dom}");
    assert!(
        dom.contains("<option value=\"cooked\" selected=\"\">"),
        "{dom}"
    );
    let dom = browser.dom(&format!("{base}/?file=illegal.fen"));
    assert_eq!(
        rows(&dom),
        [("illegal.0".to_owned(), "illegal".to_owned())],
        "{dom}"
    );
    let today = spool.history(&[])[0]["time"].as_str().unwrap()[..10].to_owned();
    let dom = browser.dom(&format!("{base}/?since={today}&until={today}"));
    assert_eq!(rows(&dom).len(), 6, "{dom}");
    let dom = browser.dom(&format!("{base}/?until=2000-01-01"));
    assert_eq!(rows(&dom).len(), 0, "{dom}");
    assert!(dom.contains("0 verdicts"), "{dom}");

    // 3. The hostile problem's page: its markup is text, and none of it
    // ran (the title is cookd's, the body unmarked, no script element).
    let hostile = spool
        .history(&["--verdict", "cooked"])
        .into_iter()
        .find(|r| r["file"] == "hostile.yaml")
        .unwrap();
    let page = format!("{base}/problem/{}/0", hostile["run"]);
    let dom = browser.dom(&page);
    assert!(
        dom.contains("<title>&lt;i&gt;hostile&lt;/i&gt;: cooked</title>"),
        "{dom}"
    );
    assert!(!dom.contains("pwned</title>"), "{dom}");
    assert!(dom.contains("<body>"), "{dom}");
    assert!(!dom.contains("<script"), "{dom}");
    assert!(!dom.contains("<img src=\"x\""), "{dom}");
    assert!(
        dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt; &amp; Co"),
        "{dom}"
    );
    assert!(dom.contains("&lt;img src=x onerror="), "{dom}");
    // Its submitted text, verdict lines and legality.
    assert!(
        dom.contains("<pre id=\"submitted\">---\nid: \"&lt;i&gt;hostile&lt;/i&gt;\""),
        "{dom}"
    );
    assert!(dom.contains(">Keys (cooked)</th>"), "{dom}");
    assert!(
        dom.contains(">Legality</th><td>no flaw found</td>"),
        "{dom}"
    );
    assert!(dom.contains("<pre id=\"report\">"), "{dom}");
    assert!(dom.contains(">solve</th>"), "{dom}");

    // The detector works: the same markup unescaped, with no policy, in
    // a local file, does run (so its absence above means something).
    let control = spool.path("control.html");
    fs::write(
        &control,
        "<html><head><title>cookd</title></head><body>\
         <script>document.title='pwned'</script>\
         <img src=x onerror=\"document.body.setAttribute('data-pwned', 1)\"></body></html>",
    )
    .unwrap();
    let dom = browser.dom(&format!("file://{}", control.display()));
    assert!(dom.contains("<title>pwned</title>"), "{dom}");
    assert!(dom.contains("<body data-pwned=\"1\">"), "{dom}");

    // 4. The problem page's diagram, in a screenshot: find the board's
    // frame (the first long black line), then check known squares. The
    // geometry is daemon/src/diagram.rs's: squares of 48 px inside a 2 px
    // frame; light #f4f4f4, dark #b4b4b4.
    let shots = tempfile::tempdir().unwrap();
    let pixmap = browser.screenshot(&page, &shots.path().join("problem.png"));
    let (fx, fy) = browser::board_frame(&pixmap).expect("a board frame in the screenshot");
    let at = |square: &str| {
        let file = u32::from(square.as_bytes()[0] - b'a');
        let rank = u32::from(square.as_bytes()[1] - b'1');
        (fx + 2 + 48 * file + 24, fy + 2 + 48 * (7 - rank) + 24)
    };
    for (square, colour) in [
        ("a1", [0xb4; 3]),
        ("b1", [0xf4; 3]),
        ("d4", [0xb4; 3]),
        ("a2", [0xf4; 3]),
        ("h8", [0xb4; 3]),
    ] {
        let found = browser::rgb(&pixmap, at(square).0, at(square).1);
        assert!(browser::near(found, colour), "{square}: {found:?}");
    }
    // nk6/brpp4/...: black pieces on a8 and b7, the white rook on h1 and
    // king on e1: dark outline pixels around their centres; none on the
    // empty e4.
    for square in ["a8", "b7", "h1", "e1"] {
        let dark = browser::black_around(&pixmap, at(square));
        assert!(dark > 60, "{square}: {dark} dark pixels");
    }
    assert_eq!(browser::black_around(&pixmap, at("e4")), 0);

    // 5. The table's screenshot shows the thumbnails: six small boards,
    // each a run of dark-square grey in its row (no pixel check beyond
    // that; the problem page's diagram is the same SVG).
    let table = browser.screenshot(&format!("{base}/"), &shots.path().join("table.png"));
    let grey_rows = (0..table.height())
        .filter(|&y| (0..table.width()).any(|x| browser::rgb(&table, x, y) == [0xb4; 3]))
        .count();
    // Five thumbnails (the broken file has no position) of ~100 px each.
    assert!(grey_rows > 5 * 80, "{grey_rows} rows with dark squares");

    if let Some(dir) = std::env::var_os("COOKD_SCREENSHOTS") {
        let dir = PathBuf::from(dir);
        fs::copy(shots.path().join("table.png"), dir.join("web-view.png")).unwrap();
        fs::copy(
            shots.path().join("problem.png"),
            dir.join("web-problem.png"),
        )
        .unwrap();
    }

    // `cookd run` stops its web view with it.
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
    assert!(std::net::TcpStream::connect(("127.0.0.1", run_port)).is_err());
    drop(serve);
}
