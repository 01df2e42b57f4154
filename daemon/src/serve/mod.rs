//! `cookd serve`: a read-only web view of the journal.
//!
//! `/` is the tourney table (filters by verdict, file and date; newest
//! first; 50 rows a page), `/problem/{run}/{index}` one problem,
//! `/diagram/{run}/{index}` its diagram (SVG), and `/api/problems`,
//! `/api/problem/{run}/{index}` the same as JSON. Only GET is routed (other
//! methods get 405) and the journal is opened read-only, one connection per
//! request on tokio's blocking pool: the view can change nothing.
//!
//! Every response forbids scripts (Content-Security-Policy) and content
//! sniffing; the pages hold no script of their own, and everything from the
//! problem files is escaped (page.rs) — the policy is a second wall, not
//! the first.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use rusqlite::Connection;
use serde::Deserialize;

use crate::config::{self, Config};
use crate::journal;
use crate::service::{Request, Signals};
use query::Filter;

mod page;
mod query;
#[cfg(test)]
mod tests;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Configuration whose `database` to show (default: the built-in one).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Address to listen on (default: `serve.listen` of the configuration,
    /// else 127.0.0.1:8080).
    #[arg(long)]
    listen: Option<SocketAddr>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let config = Config::load_or_builtin(args.config.as_deref())?;
    crate::service::init_logging(&config.log)?;
    let listen = args
        .listen
        .or(config.serve.as_ref().map(|s| s.listen))
        .unwrap_or_else(config::default_listen);
    let db = config.path(&config.database);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("cookd-serve")
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = bind(listen, &db).await?;
        let mut signals = Signals::new()?;
        let stop = async move {
            // SIGHUP has nothing to reload here.
            while signals.next().await != Request::Stop {}
        };
        serve(listener, db, stop).await
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Checks the journal and binds `listen`: the errors a start should report
/// at once (a wrong path, an old schema, a port in use).
pub async fn bind(listen: SocketAddr, db: &Path) -> Result<tokio::net::TcpListener> {
    let conn = journal::open_read_only(db)?;
    let version = query::schema_version(&conn)?;
    if version < journal::SCHEMA_VERSION {
        anyhow::bail!(
            "journal {} is at schema version {version}, the web view needs {}: \
             start `cookd run` on it once to migrate it",
            db.display(),
            journal::SCHEMA_VERSION
        );
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    if !listen.ip().is_loopback() {
        tracing::warn!("the web view has no login and listens on {listen}, beyond loopback");
    }
    tracing::info!(journal = %db.display(), "web view on http://{listen}/");
    Ok(listener)
}

/// Serves the web view of the journal at `db` until `stop` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    db: PathBuf,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    axum::serve(listener, router(db))
        .with_graceful_shutdown(stop)
        .await
        .context("the web view stopped")
}

fn router(db: PathBuf) -> Router {
    Router::new()
        .route("/", get(table))
        .route("/problem/{run}/{index}", get(problem))
        .route("/diagram/{run}/{index}", get(diagram))
        .route("/api/problems", get(api_table))
        .route("/api/problem/{run}/{index}", get(api_problem))
        .layer(axum::middleware::map_response(secure))
        .with_state(Arc::new(db))
}

/// Headers on every response: no script runs, no type is guessed.
async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; \
             form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// The table's query string. Empty fields (as a form sends them) are
/// absent.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Params {
    pub verdict: Option<String>,
    pub file: Option<String>,
    /// A date, `2026-11-22` (UTC): runs from its start.
    pub since: Option<String>,
    /// A date: runs up to its end.
    pub until: Option<String>,
    pub page: Option<u32>,
}

impl Params {
    fn cleaned(self) -> Params {
        let keep = |v: Option<String>| v.filter(|v| !v.trim().is_empty());
        Params {
            verdict: keep(self.verdict),
            file: keep(self.file),
            since: keep(self.since),
            until: keep(self.until),
            page: self.page,
        }
    }

    /// The filter these parameters ask for; a bad value is the client's
    /// error, said in words.
    fn filter(&self, conn: &Connection) -> Result<Filter, Error> {
        if let Some(verdict) = &self.verdict {
            if !config::VERDICT_WORDS.contains(&verdict.as_str()) {
                return Err(Error::BadRequest(format!(
                    "verdict {verdict:?}: expected one of {}",
                    config::VERDICT_WORDS.join(", ")
                )));
            }
        }
        let date = |text: &Option<String>, days: i64, name: &str| -> Result<Option<f64>, Error> {
            let Some(text) = text else { return Ok(None) };
            match query::date(conn, text, days)? {
                Some(t) => Ok(Some(t)),
                None => Err(Error::BadRequest(format!(
                    "{name} {text:?}: expected a date such as 2026-11-22"
                ))),
            }
        };
        Ok(Filter {
            verdict: self.verdict.clone(),
            file: self.file.clone(),
            since: date(&self.since, 0, "since")?,
            until: date(&self.until, 1, "until")?,
        })
    }
}

/// How a request fails.
#[derive(Debug)]
enum Error {
    BadRequest(String),
    NotFound,
    Internal(anyhow::Error),
}

impl From<anyhow::Error> for Error {
    fn from(error: anyhow::Error) -> Error {
        Error::Internal(error)
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        // Plain text: nothing in an error message is markup.
        match self {
            Error::BadRequest(why) => (StatusCode::BAD_REQUEST, why).into_response(),
            Error::NotFound => {
                (StatusCode::NOT_FOUND, "no such problem in the journal").into_response()
            }
            Error::Internal(error) => {
                tracing::error!("web view: {error:#}");
                (StatusCode::INTERNAL_SERVER_ERROR, format!("{error:#}")).into_response()
            }
        }
    }
}

/// Runs `f` on a fresh read-only connection to the journal, off the
/// async threads.
async fn read<T: Send + 'static>(
    db: &Arc<PathBuf>,
    f: impl FnOnce(&Connection) -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    let db = db.clone();
    tokio::task::spawn_blocking(move || {
        let conn = journal::open_read_only(&db)?;
        f(&conn)
    })
    .await
    .map_err(|e| Error::Internal(anyhow::anyhow!("a journal read failed: {e}")))?
}

async fn table_page(
    db: &Arc<PathBuf>,
    params: Params,
) -> Result<(Params, Filter, query::Page), Error> {
    read(db, move |conn| {
        let params = params.cleaned();
        let filter = params.filter(conn)?;
        let page = query::page(conn, &filter, params.page.unwrap_or(1))?;
        Ok((params, filter, page))
    })
    .await
}

async fn table(
    State(db): State<Arc<PathBuf>>,
    Query(params): Query<Params>,
) -> Result<Html<String>, Error> {
    let (params, filter, page) = table_page(&db, params).await?;
    Ok(Html(page::table(&params, &filter, &page)))
}

async fn api_table(
    State(db): State<Arc<PathBuf>>,
    Query(params): Query<Params>,
) -> Result<Json<query::Page>, Error> {
    let (_, _, page) = table_page(&db, params).await?;
    Ok(Json(page))
}

async fn find(db: &Arc<PathBuf>, run: i64, index: i64) -> Result<query::Problem, Error> {
    read(db, move |conn| {
        query::problem(conn, run, index)?.ok_or(Error::NotFound)
    })
    .await
}

async fn problem(
    State(db): State<Arc<PathBuf>>,
    UrlPath((run, index)): UrlPath<(i64, i64)>,
) -> Result<Html<String>, Error> {
    Ok(Html(page::problem(&find(&db, run, index).await?)))
}

async fn api_problem(
    State(db): State<Arc<PathBuf>>,
    UrlPath((run, index)): UrlPath<(i64, i64)>,
) -> Result<Json<query::Problem>, Error> {
    Ok(Json(find(&db, run, index).await?))
}

async fn diagram(
    State(db): State<Arc<PathBuf>>,
    UrlPath((run, index)): UrlPath<(i64, i64)>,
) -> Result<Response, Error> {
    let json = read(&db, move |conn| {
        query::verdict_json(conn, run, index)?.ok_or(Error::NotFound)
    })
    .await?;
    let svg = serde_json::from_str::<serde_json::Value>(&json)
        .ok()
        .and_then(|v| {
            let fen = v.get("fen")?.as_str()?.parse::<shakmaty::fen::Fen>().ok()?;
            let stipulation = v.get("stipulation").and_then(|s| s.as_str()).unwrap_or("");
            Some(crate::diagram::svg(&fen.into_setup().board, stipulation))
        })
        .ok_or(Error::NotFound)?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            // A journal row never changes; short anyway, in case the
            // journal is replaced and its run numbers start again.
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        svg,
    )
        .into_response())
}
