//! The web view's reads of the journal: a page of the tourney table and one
//! problem. Every statement is a SELECT on a read-only connection.
//!
//! The table is ordered newest first by `runs.started_at` and filtered by
//! verdict, file and date; each filter is added to the SQL only when given
//! (an `?1 IS NULL OR ...` clause would keep SQLite from using an index).
//! With the indexes `runs_started` and `runs_file`, SQLite walks the runs in
//! the table's order and stops after the page: no sort of the whole journal
//! (a test checks the plan). `CROSS JOIN` is SQLite's way of fixing the
//! join order: runs outside, so that their index gives the order; left to
//! itself (no ANALYZE statistics) SQLite scans the verdicts and sorts them.

use anyhow::{Context, Result};
use rusqlite::types::Value;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

/// Rows per page of the table.
pub const PAGE_ROWS: u32 = 50;

/// What the table shows, as the query string says.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Filter {
    pub verdict: Option<String>,
    /// The file name exactly as submitted.
    pub file: Option<String>,
    /// Unix seconds: runs started at or after.
    pub since: Option<f64>,
    /// Unix seconds: runs started before.
    pub until: Option<f64>,
}

/// One row of the tourney table: one verdict of one run.
#[derive(Debug, Serialize)]
pub struct Row {
    pub run: i64,
    pub index: i64,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`, when the run started.
    pub time: String,
    pub file: String,
    pub id: String,
    pub stipulation: Option<String>,
    pub verdict: String,
    /// The stages' time for this problem, in milliseconds.
    pub ms: Option<f64>,
    /// Whether the verdict has a position (and so a diagram).
    pub diagram: bool,
    /// judged | reused | failed
    pub status: String,
}

/// One page of the table and how many rows the filter matches in all.
#[derive(Debug, Serialize)]
pub struct Page {
    pub total: u64,
    /// 1-based.
    pub page: u32,
    pub per_page: u32,
    pub rows: Vec<Row>,
    /// Long proof-game searches under way (or cut short): their work
    /// items done of all and the time left, from the journal's `progress`.
    pub in_progress: Vec<crate::journal::SearchProgress>,
}

/// Everything the problem page shows.
#[derive(Debug, Serialize)]
pub struct Problem {
    pub run: i64,
    pub index: i64,
    pub time: String,
    pub file: String,
    pub status: String,
    pub id: String,
    pub verdict: String,
    /// The verdict as written to the outbox.
    pub json: serde_json::Value,
    /// The text report as written to the outbox.
    pub report: String,
    /// Stage and milliseconds, in the order the stages ran.
    pub timings: Vec<(String, f64)>,
    /// The whole run (reading, solving and recording the file).
    pub run_ms: f64,
    /// The submitted file; none for files judged before the journal kept
    /// them, and for files that could not be read.
    pub submitted: Option<String>,
}

/// The WHERE clause and its parameters for `filter`; the SQL holds only
/// fixed text, every value is a parameter.
fn where_clause(filter: &Filter) -> (String, Vec<Value>) {
    let mut clauses = Vec::new();
    let mut values = Vec::new();
    if let Some(verdict) = &filter.verdict {
        clauses.push("v.verdict = ?");
        values.push(Value::Text(verdict.clone()));
    }
    if let Some(file) = &filter.file {
        clauses.push("r.file = ?");
        values.push(Value::Text(file.clone()));
    }
    if let Some(since) = filter.since {
        clauses.push("r.started_at >= ?");
        values.push(Value::Real(since));
    }
    if let Some(until) = filter.until {
        clauses.push("r.started_at < ?");
        values.push(Value::Real(until));
    }
    let sql = if clauses.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", clauses.join(" AND "))
    };
    (sql, values)
}

/// The SELECT of one page (with `LIMIT ? OFFSET ?` as its last two
/// parameters), and its parameters before those two.
pub fn page_sql(filter: &Filter) -> (String, Vec<Value>) {
    let (clause, values) = where_clause(filter);
    let sql = format!(
        "SELECT r.id, v.idx, strftime('%Y-%m-%dT%H:%M:%SZ', r.started_at, 'unixepoch'),
                r.file, v.problem_id, json_extract(v.json, '$.stipulation'), v.verdict,
                (SELECT sum(s.ms) FROM stages s WHERE s.run_id = r.id AND s.idx = v.idx),
                json_extract(v.json, '$.fen') IS NOT NULL, r.status
         FROM runs r CROSS JOIN verdicts v ON v.run_id = r.id
         {clause}
         ORDER BY r.started_at DESC, r.id DESC, v.idx
         LIMIT ? OFFSET ?"
    );
    (sql, values)
}

/// Page `page` (1-based) of the table under `filter`.
pub fn page(conn: &Connection, filter: &Filter, page: u32) -> Result<Page> {
    let page = page.max(1);
    let (clause, values) = where_clause(filter);
    let total: i64 = conn
        .query_row(
            &format!("SELECT count(*) FROM runs r JOIN verdicts v ON v.run_id = r.id {clause}"),
            rusqlite::params_from_iter(&values),
            |row| row.get(0),
        )
        .context("counting the journal's verdicts")?;
    let (sql, mut values) = page_sql(filter);
    values.push(Value::Integer(i64::from(PAGE_ROWS)));
    values.push(Value::Integer(i64::from(page - 1) * i64::from(PAGE_ROWS)));
    let mut stmt = conn.prepare(&sql).context("reading the journal")?;
    let rows = stmt
        .query_map(rusqlite::params_from_iter(&values), |row| {
            Ok(Row {
                run: row.get(0)?,
                index: row.get(1)?,
                time: row.get(2)?,
                file: row.get(3)?,
                id: row.get(4)?,
                stipulation: row.get(5)?,
                verdict: row.get(6)?,
                ms: row.get(7)?,
                diagram: row.get(8)?,
                status: row.get(9)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()
        .context("reading the journal")?;
    Ok(Page {
        total: total as u64,
        page,
        per_page: PAGE_ROWS,
        rows,
        in_progress: crate::journal::searches(conn)?,
    })
}

/// Problem `index` of run `run`, if the journal has it.
pub fn problem(conn: &Connection, run: i64, index: i64) -> Result<Option<Problem>> {
    let found = conn
        .query_row(
            "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', r.started_at, 'unixepoch'), r.file,
                    r.status, v.problem_id, v.verdict, v.json, v.report, r.wall_ms,
                    (SELECT s.text FROM submissions s WHERE s.job = r.job)
             FROM runs r JOIN verdicts v ON v.run_id = r.id
             WHERE r.id = ?1 AND v.idx = ?2",
            params![run, index],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, String>(6)?,
                    row.get::<_, f64>(7)?,
                    row.get::<_, Option<String>>(8)?,
                ))
            },
        )
        .optional()
        .context("reading a problem from the journal")?;
    let Some((time, file, status, id, verdict, json, report, run_ms, submitted)) = found else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT stage, ms FROM stages WHERE run_id = ?1 AND idx = ?2 ORDER BY rowid",
    )?;
    let timings = stmt
        .query_map(params![run, index], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()
        .context("reading a problem's timings")?;
    Ok(Some(Problem {
        run,
        index,
        time,
        file,
        status,
        id,
        verdict,
        json: serde_json::from_str(&json).context("a stored verdict is not JSON")?,
        report,
        timings,
        run_ms,
        submitted,
    }))
}

/// The stored verdict JSON of one problem (for its diagram).
pub fn verdict_json(conn: &Connection, run: i64, index: i64) -> Result<Option<String>> {
    conn.query_row(
        "SELECT json FROM verdicts WHERE run_id = ?1 AND idx = ?2",
        params![run, index],
        |row| row.get(0),
    )
    .optional()
    .context("reading a verdict from the journal")
}

/// The journal's schema version (SQLite's `user_version`).
pub fn schema_version(conn: &Connection) -> Result<usize> {
    conn.query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0))
        .map(|v| v as usize)
        .context("reading the journal's schema version")
}

/// Unix seconds of a UTC date (`2026-11-22`), plus `days`; None when the
/// text is no date.
pub fn date(conn: &Connection, text: &str, days: i64) -> Result<Option<f64>> {
    conn.query_row(
        "SELECT unixepoch(?1, printf('%+d days', ?2))",
        params![text.trim(), days],
        |row| row.get(0),
    )
    .context("parsing a date")
}
