//! The journal: a SQLite database recording every run of the daemon.
//!
//! One row per run (a problem file judged, or served from an earlier run),
//! one per verdict with its JSON and report, one per stage timing, and the
//! mail outbox. WAL mode lets `cookd history` read while the daemon writes;
//! migrations are versioned with `rusqlite_migration` (the version lives in
//! SQLite's `user_version`).
//!
//! The journal is also what makes the daemon idempotent: a job (the sha256
//! of a file's content) judged under the same stage configuration is found
//! here and never solved again, and mail rows are unique per job, problem
//! and recipient, so a restart cannot send a cook report twice.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use rusqlite_migration::{Migrations, M};
use solvers::proofgame::{ItemKey, ItemResult};

/// Schema versions, oldest first; never edit one that shipped, add another.
const MIGRATIONS: &[M<'static>] = &[
    M::up(
        "CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        job         TEXT NOT NULL,      -- sha256 of the file's content ('' if unreadable)
        config      TEXT NOT NULL,      -- fingerprint of the stages (Config::fingerprint)
        file        TEXT NOT NULL,      -- file name as submitted
        status      TEXT NOT NULL,      -- judged | reused | failed
        started_at  REAL NOT NULL,      -- unix seconds
        finished_at REAL NOT NULL,
        wall_ms     REAL NOT NULL,
        problems    INTEGER NOT NULL,
        error       TEXT                -- why a failed run failed
    );
    CREATE INDEX runs_job ON runs (job, config, status);
    CREATE INDEX runs_started ON runs (started_at);
    CREATE TABLE verdicts (
        run_id      INTEGER NOT NULL REFERENCES runs (id),
        idx         INTEGER NOT NULL,   -- 0-based problem index in the file
        problem_id  TEXT NOT NULL,
        verdict     TEXT NOT NULL,
        json        TEXT NOT NULL,      -- the verdict as written to the outbox
        report      TEXT NOT NULL,      -- the text report as written to the outbox
        PRIMARY KEY (run_id, idx)
    );
    CREATE INDEX verdicts_verdict ON verdicts (verdict);
    CREATE TABLE stages (
        run_id      INTEGER NOT NULL REFERENCES runs (id),
        idx         INTEGER NOT NULL,
        stage       TEXT NOT NULL,
        ms          REAL NOT NULL,
        PRIMARY KEY (run_id, idx, stage)
    );
    CREATE TABLE mail (
        id              INTEGER PRIMARY KEY,
        job             TEXT NOT NULL,
        idx             INTEGER NOT NULL,
        recipient       TEXT NOT NULL,
        sender          TEXT NOT NULL,
        message_id      TEXT NOT NULL,
        subject         TEXT NOT NULL,
        message         BLOB NOT NULL,  -- the complete RFC 5322 message
        created_at      REAL NOT NULL,
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at REAL,           -- NULL once sent or given up
        sent_at         REAL,
        last_error      TEXT,
        UNIQUE (job, idx, recipient)
    );
    CREATE INDEX mail_due ON mail (next_attempt_at);",
    ),
    // 2: the submitted text, once per job (a resubmitted file is the same
    // job), for the web view's problem page; and the index its table needs
    // to filter by file newest first without sorting (serve/query.rs).
    M::up(
        "CREATE TABLE submissions (
        job         TEXT PRIMARY KEY,   -- sha256 of the file's content
        text        TEXT NOT NULL       -- the file as submitted (UTF-8, lossy)
    );
    CREATE INDEX runs_file ON runs (file, started_at);",
    ),
    // 3: the finished work items of long proof-game searches (checkpoints),
    // and where each search stands.
    M::up(
        "CREATE TABLE work_items (
        search      TEXT NOT NULL,      -- job:config:problem index
        goal        INTEGER NOT NULL,
        plies       INTEGER NOT NULL,
        idx         INTEGER NOT NULL,
        items       INTEGER NOT NULL,   -- items of this goal and length
        count       INTEGER NOT NULL,   -- games through the item
        listed      INTEGER NOT NULL,   -- whether its games were listed
        games       TEXT NOT NULL,      -- JSON array of games, UCI moves space-separated
        finished_at REAL NOT NULL,
        PRIMARY KEY (search, goal, plies, idx, items)
    );
    CREATE TABLE progress (
        search      TEXT PRIMARY KEY,   -- as in work_items
        file        TEXT NOT NULL,
        problem_id  TEXT NOT NULL,
        plies       INTEGER NOT NULL,   -- the length being counted
        done        INTEGER NOT NULL,   -- its items done ...
        items       INTEGER NOT NULL,   -- ... of all
        started_at  REAL NOT NULL,
        updated_at  REAL NOT NULL,
        left_s      REAL                -- estimated seconds left (NULL: unknown)
    );",
    ),
];

/// The schema version [`Journal::open`] migrates to (SQLite's
/// `user_version`): readers that cannot migrate check it.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// Seconds since the Unix epoch, as the journal stores time.
pub fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The daemon's handle on the journal. One connection behind a mutex:
/// SQLite serialises writers anyway, and every statement here is short.
#[derive(Debug)]
pub struct Journal {
    conn: Mutex<Connection>,
}

/// One verdict of a run, as stored.
#[derive(Debug, Clone)]
pub struct StoredVerdict {
    pub index: usize,
    pub problem_id: String,
    pub verdict: String,
    pub json: String,
    pub report: String,
    /// Stage name and milliseconds.
    pub timings: Vec<(String, f64)>,
}

/// Everything recorded about one run, written in one transaction.
#[derive(Debug)]
pub struct Run<'a> {
    pub job: &'a str,
    pub config: &'a str,
    pub file: &'a str,
    pub status: &'a str,
    pub started_at: f64,
    pub error: Option<&'a str>,
    pub verdicts: &'a [StoredVerdict],
    /// The file's content as submitted, when it could be read.
    pub text: Option<&'a str>,
}

/// A cook report ready to go, as the mail outbox holds it.
#[derive(Debug, Clone)]
pub struct Mail {
    pub job: String,
    pub index: usize,
    pub recipient: String,
    pub sender: String,
    pub message_id: String,
    pub subject: String,
    pub message: Vec<u8>,
}

/// A queued mail as read back for sending.
#[derive(Debug, Clone)]
pub struct QueuedMail {
    pub id: i64,
    pub attempts: u32,
    pub mail: Mail,
}

/// Which search a work item belongs to, for the `progress` table.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    pub file: &'a str,
    pub problem_id: &'a str,
}

/// A proof-game search under way (or cut short), as `cookd history` shows
/// it.
#[derive(Debug, serde::Serialize)]
pub struct SearchProgress {
    pub file: String,
    pub problem_id: String,
    /// The length being counted.
    pub plies: u32,
    pub done: u64,
    pub items: u64,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub updated: String,
    pub left_s: Option<f64>,
}

/// What `cookd history` asks for.
#[derive(Debug, Default)]
pub struct Filter {
    /// Unix seconds.
    pub since: Option<f64>,
    pub verdict: Option<String>,
    pub limit: Option<u32>,
}

/// One verdict of the history, with its run.
#[derive(Debug, serde::Serialize)]
pub struct HistoryRow {
    pub run: i64,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub time: String,
    pub file: String,
    pub job: String,
    pub status: String,
    pub index: Option<i64>,
    pub id: Option<String>,
    pub verdict: Option<String>,
    pub wall_ms: f64,
    pub error: Option<String>,
    /// Mails for this verdict: sent, and queued or given up.
    pub mail_sent: i64,
    pub mail_pending: i64,
}

fn configure(conn: &Connection) -> Result<()> {
    // WAL: readers (cookd history) never block the daemon. synchronous=NORMAL
    // is durable against a crash of the process (kill -9), which is what the
    // spool's recovery relies on; a power cut may lose the last commits, and
    // those files are then judged again from `.processing/`.
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(Duration::from_secs(10))?;
    Ok(())
}

impl Journal {
    /// Opens (creating if needed) and migrates the journal at `path`.
    pub fn open(path: &Path) -> Result<Journal> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let mut conn = Connection::open(path)
            .with_context(|| format!("cannot open journal {}", path.display()))?;
        configure(&conn).with_context(|| format!("cannot configure journal {}", path.display()))?;
        Migrations::from_slice(MIGRATIONS)
            .to_latest(&mut conn)
            .with_context(|| format!("cannot migrate journal {}", path.display()))?;
        Ok(Journal {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite inconsistent (an
        // open transaction rolls back when dropped), so a poisoned lock is
        // still safe to use.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The verdicts of an earlier run that judged `job` under `config`.
    pub fn find_judged(&self, job: &str, config: &str) -> Result<Option<Vec<StoredVerdict>>> {
        let conn = self.conn();
        let run: Option<i64> = conn
            .query_row(
                "SELECT id FROM runs WHERE job = ?1 AND config = ?2 AND status = 'judged'
                 ORDER BY id LIMIT 1",
                params![job, config],
                |row| row.get(0),
            )
            .optional()
            .context("journal: looking up a job")?;
        let Some(run) = run else { return Ok(None) };
        let mut stmt = conn.prepare_cached(
            "SELECT idx, problem_id, verdict, json, report FROM verdicts
             WHERE run_id = ?1 ORDER BY idx",
        )?;
        let verdicts = stmt
            .query_map([run], |row| {
                Ok(StoredVerdict {
                    index: row.get::<_, i64>(0)? as usize,
                    problem_id: row.get(1)?,
                    verdict: row.get(2)?,
                    json: row.get(3)?,
                    report: row.get(4)?,
                    timings: Vec::new(),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
            .context("journal: reading stored verdicts")?;
        Ok(Some(verdicts))
    }

    /// Records a run, its verdicts and stage timings, and queues its mail, in
    /// one transaction: either all of it is in the journal or none.
    /// Mail already queued for the same job, problem and recipient is kept
    /// as it is (that is what makes a mail go out once).
    pub fn record(&self, run: &Run<'_>, mails: &[Mail]) -> Result<i64> {
        let mut conn = self.conn();
        let tx = conn.transaction().context("journal: begin")?;
        let now = unix_now();
        tx.execute(
            "INSERT INTO runs (job, config, file, status, started_at, finished_at, wall_ms,
                               problems, error)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                run.job,
                run.config,
                run.file,
                run.status,
                run.started_at,
                now,
                (now - run.started_at) * 1e3,
                run.verdicts.len() as i64,
                run.error,
            ],
        )
        .context("journal: recording a run")?;
        let run_id = tx.last_insert_rowid();
        if let Some(text) = run.text.filter(|_| !run.job.is_empty()) {
            tx.prepare_cached("INSERT OR IGNORE INTO submissions (job, text) VALUES (?1, ?2)")?
                .execute(params![run.job, text])
                .context("journal: recording the submitted text")?;
        }
        {
            let mut verdict = tx.prepare_cached(
                "INSERT INTO verdicts (run_id, idx, problem_id, verdict, json, report)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            let mut stage = tx.prepare_cached(
                "INSERT INTO stages (run_id, idx, stage, ms) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for v in run.verdicts {
                verdict.execute(params![
                    run_id,
                    v.index as i64,
                    v.problem_id,
                    v.verdict,
                    v.json,
                    v.report
                ])?;
                for (name, ms) in &v.timings {
                    stage.execute(params![run_id, v.index as i64, name, ms])?;
                }
            }
            let mut mail = tx.prepare_cached(
                "INSERT OR IGNORE INTO mail (job, idx, recipient, sender, message_id, subject,
                                             message, created_at, next_attempt_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
            )?;
            for m in mails {
                mail.execute(params![
                    m.job,
                    m.index as i64,
                    m.recipient,
                    m.sender,
                    m.message_id,
                    m.subject,
                    m.message,
                    now
                ])?;
            }
        }
        tx.commit().context("journal: commit")?;
        Ok(run_id)
    }

    /// Mail whose next attempt is due at `now`, oldest first.
    pub fn due_mail(&self, now: f64, limit: u32) -> Result<Vec<QueuedMail>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT id, attempts, job, idx, recipient, sender, message_id, subject, message
             FROM mail WHERE next_attempt_at <= ?1 ORDER BY next_attempt_at, id LIMIT ?2",
        )?;
        let rows = stmt
            .query_map(params![now, limit], |row| {
                Ok(QueuedMail {
                    id: row.get(0)?,
                    attempts: row.get(1)?,
                    mail: Mail {
                        job: row.get(2)?,
                        index: row.get::<_, i64>(3)? as usize,
                        recipient: row.get(4)?,
                        sender: row.get(5)?,
                        message_id: row.get(6)?,
                        subject: row.get(7)?,
                        message: row.get(8)?,
                    },
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
            .context("journal: reading the mail outbox")?;
        Ok(rows)
    }

    /// When the next queued mail is due, if any is queued.
    pub fn next_mail_due(&self) -> Result<Option<f64>> {
        self.conn()
            .query_row(
                "SELECT min(next_attempt_at) FROM mail WHERE next_attempt_at IS NOT NULL",
                [],
                |row| row.get(0),
            )
            .context("journal: reading the mail outbox")
    }

    /// Mail not yet sent and not given up.
    pub fn queued_mail(&self) -> Result<u64> {
        self.conn()
            .query_row(
                "SELECT count(*) FROM mail WHERE next_attempt_at IS NOT NULL",
                [],
                |row| row.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .context("journal: counting the mail outbox")
    }

    pub fn mail_sent(&self, id: i64) -> Result<()> {
        self.conn()
            .execute(
                "UPDATE mail SET sent_at = ?2, next_attempt_at = NULL, attempts = attempts + 1,
                 last_error = NULL WHERE id = ?1",
                params![id, unix_now()],
            )
            .context("journal: marking a mail sent")?;
        Ok(())
    }

    /// Records a failed attempt; `retry_at` None gives the mail up.
    pub fn mail_failed(&self, id: i64, error: &str, retry_at: Option<f64>) -> Result<()> {
        self.conn()
            .execute(
                "UPDATE mail SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3
                 WHERE id = ?1",
                params![id, error, retry_at],
            )
            .context("journal: recording a mail failure")?;
        Ok(())
    }

    /// The recorded result of a proof-game search's work item.
    pub fn work_item(&self, search: &str, item: &ItemKey) -> Result<Option<ItemResult>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT count, listed, games FROM work_items
             WHERE search = ?1 AND goal = ?2 AND plies = ?3 AND idx = ?4 AND items = ?5",
        )?;
        let row = stmt
            .query_row(
                params![
                    search,
                    item.goal as i64,
                    item.plies,
                    item.index as i64,
                    item.of as i64
                ],
                |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, bool>(1)?,
                        row.get::<_, String>(2)?,
                    ))
                },
            )
            .optional()
            .context("journal: reading a work item")?;
        let Some((count, listed, games)) = row else {
            return Ok(None);
        };
        let games: Vec<String> =
            serde_json::from_str(&games).context("journal: a work item's games")?;
        Ok(Some(ItemResult {
            count: count as u64,
            listed,
            games,
        }))
    }

    /// Records a finished work item (and where its search stands, in
    /// `progress`), in one transaction; returns the items of its length
    /// done so far and the estimated seconds left.
    ///
    /// `done_before` is the items of this goal and length the caller knows
    /// were recorded before this one (from its last call); without it they
    /// are counted, a scan of the search's rows: once per length, not once
    /// per item (per item it made a search of 9,000 items quadratic, 70 %
    /// slower than without checkpoints).
    pub fn record_work_item(
        &self,
        search: &str,
        item: &ItemKey,
        result: &ItemResult,
        progress: &Progress<'_>,
        done_before: Option<u64>,
    ) -> Result<(u64, Option<f64>)> {
        let mut conn = self.conn();
        let tx = conn.transaction().context("journal: begin")?;
        let now = unix_now();
        let recorded_before = tx
            .prepare_cached(
                "SELECT 1 FROM work_items
                 WHERE search = ?1 AND goal = ?2 AND plies = ?3 AND idx = ?4 AND items = ?5",
            )?
            .exists(params![
                search,
                item.goal as i64,
                item.plies,
                item.index as i64,
                item.of as i64
            ])?;
        tx.prepare_cached(
            "INSERT OR REPLACE INTO work_items
                 (search, goal, plies, idx, items, count, listed, games, finished_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            search,
            item.goal as i64,
            item.plies,
            item.index as i64,
            item.of as i64,
            result.count as i64,
            result.listed,
            serde_json::to_string(&result.games)?,
            now
        ])
        .context("journal: recording a work item")?;
        let done: i64 = match done_before {
            Some(before) => (before + u64::from(!recorded_before)) as i64,
            None => tx
                .prepare_cached(
                    "SELECT count(*) FROM work_items
                     WHERE search = ?1 AND goal = ?2 AND plies = ?3 AND items = ?4",
                )?
                .query_row(
                    params![search, item.goal as i64, item.plies, item.of as i64],
                    |row| row.get(0),
                )?,
        };
        tx.prepare_cached(
            "INSERT INTO progress (search, file, problem_id, plies, done, items, started_at,
                                   updated_at, left_s)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, NULL)
             ON CONFLICT (search) DO UPDATE SET
                 plies = ?4, done = ?5, items = ?6, updated_at = ?7,
                 left_s = CASE WHEN ?5 > 0 AND ?5 < ?6
                     THEN (?7 - started_at) / ?5 * (?6 - ?5) END",
        )?
        .execute(params![
            search,
            progress.file,
            progress.problem_id,
            item.plies,
            done,
            item.of as i64,
            now
        ])
        .context("journal: recording progress")?;
        let left: Option<f64> = tx
            .query_row(
                "SELECT left_s FROM progress WHERE search = ?1",
                [search],
                |row| row.get(0),
            )
            .context("journal: reading progress")?;
        tx.commit().context("journal: commit")?;
        Ok((done as u64, left))
    }

    /// Drops the work items and progress of the searches whose names
    /// start with `prefix`, once their verdicts are recorded.
    pub fn forget_work_items(&self, prefix: &str) -> Result<()> {
        let conn = self.conn();
        for table in ["work_items", "progress"] {
            conn.execute(
                &format!("DELETE FROM {table} WHERE substr(search, 1, length(?1)) = ?1"),
                [prefix],
            )
            .with_context(|| format!("journal: dropping {table}"))?;
        }
        Ok(())
    }

    /// Moves the WAL into the database file, so a stopped daemon leaves one
    /// self-contained file behind.
    pub fn checkpoint(&self) -> Result<()> {
        self.conn()
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .context("journal: checkpoint")
    }
}

/// Opens the journal for reading only (`cookd history`): never creates or
/// migrates it, so a wrong `--db` is an error rather than a new empty file.
pub fn open_read_only(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("cannot open journal {}", path.display()))?;
    conn.busy_timeout(Duration::from_secs(10))?;
    Ok(conn)
}

/// Parses `--since`: a date (`2026-11-22`), a date and time (UTC,
/// `2026-11-22T10:00` or with seconds), or an age (`90s`, `30m`, `12h`, `7d`).
pub fn parse_since(conn: &Connection, text: &str, now: f64) -> Result<f64> {
    let text = text.trim();
    if let Some(unit) = text.chars().last().filter(|c| c.is_ascii_alphabetic()) {
        if let Ok(n) = text[..text.len() - 1].parse::<f64>() {
            let seconds = match unit {
                's' => 1.0,
                'm' => 60.0,
                'h' => 3600.0,
                'd' => 86400.0,
                'w' => 7.0 * 86400.0,
                _ => anyhow::bail!("--since {text:?}: unknown unit {unit:?} (use s, m, h, d or w)"),
            };
            return Ok(now - n * seconds);
        }
    }
    // SQLite's date functions parse ISO 8601 and return NULL otherwise.
    let parsed: Option<f64> = conn
        .query_row("SELECT unixepoch(?1, 'subsec')", [text], |row| row.get(0))
        .context("parsing --since")?;
    parsed.with_context(|| {
        format!("--since {text:?}: expected a date (2026-11-22), a UTC time (2026-11-22T10:00) or an age (30m, 12h, 7d)")
    })
}

/// The verdicts recorded since a time, newest first.
/// The proof-game searches with work items recorded and no verdict yet,
/// most recently active first.
pub fn searches(conn: &Connection) -> Result<Vec<SearchProgress>> {
    let mut stmt = conn.prepare(
        "SELECT file, problem_id, plies, done, items,
                strftime('%Y-%m-%dT%H:%M:%SZ', updated_at, 'unixepoch'), left_s
         FROM progress ORDER BY updated_at DESC",
    )?;
    let rows = stmt
        .query_map([], |row| {
            Ok(SearchProgress {
                file: row.get(0)?,
                problem_id: row.get(1)?,
                plies: row.get(2)?,
                done: row.get::<_, i64>(3)? as u64,
                items: row.get::<_, i64>(4)? as u64,
                updated: row.get(5)?,
                left_s: row.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()
        .context("journal: reading progress")?;
    Ok(rows)
}

pub fn history(conn: &Connection, filter: &Filter) -> Result<Vec<HistoryRow>> {
    let mut stmt = conn
        .prepare(
            "SELECT r.id, strftime('%Y-%m-%dT%H:%M:%SZ', r.started_at, 'unixepoch'), r.file,
                    r.job, r.status, v.idx, v.problem_id, v.verdict, r.wall_ms, r.error,
                    (SELECT count(*) FROM mail m
                      WHERE m.job = r.job AND m.idx = v.idx AND m.sent_at IS NOT NULL),
                    (SELECT count(*) FROM mail m
                      WHERE m.job = r.job AND m.idx = v.idx AND m.sent_at IS NULL)
             FROM runs r LEFT JOIN verdicts v ON v.run_id = r.id
             WHERE (?1 IS NULL OR r.started_at >= ?1)
               AND (?2 IS NULL OR v.verdict = ?2)
             ORDER BY r.id DESC, v.idx
             LIMIT ?3",
        )
        .context("reading the journal (is this a cookd journal?)")?;
    let limit = filter.limit.map_or(-1, i64::from);
    let rows = stmt
        .query_map(params![filter.since, filter.verdict, limit], |row| {
            Ok(HistoryRow {
                run: row.get(0)?,
                time: row.get(1)?,
                file: row.get(2)?,
                job: row.get(3)?,
                status: row.get(4)?,
                index: row.get(5)?,
                id: row.get(6)?,
                verdict: row.get(7)?,
                wall_ms: row.get(8)?,
                error: row.get(9)?,
                mail_sent: row.get(10)?,
                mail_pending: row.get(11)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()
        .context("reading the journal")?;
    Ok(rows)
}

#[cfg(test)]
mod tests;
