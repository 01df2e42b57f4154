//! Cook reports by mail.
//!
//! A report is composed when its verdict is recorded and queued in the
//! journal's mail outbox in the same transaction, one message per problem and
//! recipient; [`deliver`] sends what is queued and retries with backoff while
//! the server is unreachable. The Message-ID is derived from the job key, the
//! problem and the recipient, so even a message sent twice (the daemon killed
//! between the server's acceptance and the journal update) is recognisably
//! the same message.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use lettre::address::{Address, Envelope};
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport as _};
use sha2::{Digest, Sha256};
use tokio::sync::{watch, Notify};

use solvers::verdict::{Kind, Verdict};

use crate::config::{self, Config, Security};
use crate::journal::{self, unix_now, Journal};
use crate::{diagram, html, report};

/// Environment variables with SMTP credentials (the YAML never holds them).
pub const USER_ENV: &str = "COOKD_SMTP_USER";
pub const PASSWORD_ENV: &str = "COOKD_SMTP_PASSWORD";
/// The Content-ID of the diagram in the HTML part.
const DIAGRAM_CID: &str = "diagram@cookd";

/// The mail diagram's pixels per SVG unit. At 2 (sharper on high-density
/// screens) the 3 MB pixmaps, drawn on the many threads that compose mail,
/// stayed in their allocator arenas: the 10,000-problem drop peaked at
/// 138 MiB against its 128 MiB bound (79 MiB at 1).
const MAIL_SCALE: f32 = 1.0;

/// The messages a verdict calls for: none unless its word is in `mail.on`,
/// else one per recipient.
pub fn compose(
    config: &config::Mail,
    job: &str,
    verdict: &Verdict,
    json: &str,
) -> Result<Vec<journal::Mail>> {
    if !config.on.iter().any(|w| w == verdict.verdict.as_str()) {
        return Ok(Vec::new());
    }
    let from: Mailbox = config
        .from
        .parse()
        .with_context(|| format!("mail.from: invalid address {:?}", config.from))?;
    let domain = from.email.domain().to_owned();
    let subject = subject(verdict);
    let body = body(verdict, job);
    // The diagram as PNG (many clients block SVG). Should drawing fail,
    // the report still goes out, without it.
    let diagram =
        diagram::of_verdict(verdict).and_then(|svg| match diagram::png(&svg, MAIL_SCALE) {
            Ok(png) => Some(png),
            Err(error) => {
                tracing::warn!("{}: cook report without its diagram: {error:#}", verdict.id);
                None
            }
        });
    let html = html::report(
        verdict,
        diagram
            .as_ref()
            .map(|_| format!("cid:{DIAGRAM_CID}"))
            .as_deref(),
        job,
    );
    let mut mails = Vec::with_capacity(config.to.len());
    for recipient in &config.to {
        let to: Mailbox = recipient
            .parse()
            .with_context(|| format!("mail.to: invalid address {recipient:?}"))?;
        let message_id = message_id(job, verdict.index, &to.email, &domain);
        let attachment = Attachment::new(format!("{}.verdict.json", verdict.id)).body(
            json.to_owned(),
            ContentType::parse("application/json").expect("a valid content type"),
        );
        let message = Message::builder()
            .from(from.clone())
            .to(to.clone())
            .subject(&subject)
            .message_id(Some(message_id.clone()))
            .user_agent(format!("cookd {}", env!("CARGO_PKG_VERSION")))
            .multipart(
                MultiPart::mixed()
                    .multipart(alternative(&body, &html, diagram.as_deref()))
                    .singlepart(attachment),
            )
            .context("composing a cook report")?;
        mails.push(journal::Mail {
            job: job.to_owned(),
            index: verdict.index,
            recipient: to.email.to_string(),
            sender: from.email.to_string(),
            message_id,
            subject: subject.clone(),
            message: message.formatted(),
        });
    }
    Ok(mails)
}

/// The text and the HTML report as alternatives; the HTML with its
/// diagram (`Content-ID: <diagram@cookd>`) in a `multipart/related`.
fn alternative(text: &str, html: &str, diagram: Option<&[u8]>) -> MultiPart {
    let alternative = MultiPart::alternative().singlepart(SinglePart::plain(text.to_owned()));
    match diagram {
        Some(png) => alternative.multipart(
            MultiPart::related()
                .singlepart(SinglePart::html(html.to_owned()))
                .singlepart(Attachment::new_inline(DIAGRAM_CID.to_owned()).body(
                    png.to_vec(),
                    ContentType::parse("image/png").expect("a valid content type"),
                )),
        ),
        None => alternative.singlepart(SinglePart::html(html.to_owned())),
    }
}

/// `<job prefix>.<problem>.<recipient hash>@<sender's domain>`: stable across
/// restarts and retries, different per problem and recipient.
fn message_id(job: &str, index: usize, recipient: &Address, domain: &str) -> String {
    let rcpt = format!("{:x}", Sha256::digest(recipient.to_string().as_bytes()));
    let job = &job[..job.len().min(32)];
    format!("<cookd.{job}.{index}.{}@{domain}>", &rcpt[..12])
}

/// Names the problem and the flaw, e.g.
/// `[cookd] schoepfer.0 (#2): cooked, 1.Qf2! 1.Rh3!`.
pub fn subject(v: &Verdict) -> String {
    let problem = match &v.stipulation {
        Some(stip) => format!("{} ({stip})", v.id),
        None => v.id.clone(),
    };
    let flaw = match v.verdict {
        Kind::Cooked => match (&v.keys, &v.solutions) {
            (Some(keys), _) => {
                let keys: Vec<_> = keys.iter().map(|k| format!("1.{}!", k.san)).collect();
                format!("cooked, {}", keys.join(" "))
            }
            (None, Some(lines)) => format!("cooked, {} solutions", lines.len()),
            _ => "cooked".to_owned(),
        },
        Kind::Illegal => {
            let codes: Vec<_> = v
                .legality
                .iter()
                .flat_map(|l| &l.reasons)
                .map(|r| r.flaw.to_string())
                .collect();
            if codes.is_empty() {
                "illegal".to_owned()
            } else {
                format!("illegal, {}", codes.join(", "))
            }
        }
        Kind::NoSolution => "no solution".to_owned(),
        Kind::Incomplete => match v.n_solutions {
            Some(n) => format!("incomplete, only {n} solution(s)"),
            None => "incomplete".to_owned(),
        },
        other => other.as_str().to_owned(),
    };
    // A cook in one twin is a cook of the whole twinned entry.
    let entry = match (&v.twin, v.verdict) {
        (Some(twin), Kind::Cooked) => format!(" (twin {}), so the entry is cooked", twin.label),
        _ => String::new(),
    };
    format!("[cookd] {problem}: {flaw}{entry}")
}

fn body(v: &Verdict, job: &str) -> String {
    format!(
        "cookd judged problem {} of {}: {}.\n\n{}--\nJob {job} (sha256 of the file). \
         The verdict is attached as JSON.\n",
        v.index + 1,
        v.file,
        v.verdict,
        report::text(v)
    )
}

/// Where mail goes.
#[derive(Debug)]
pub enum Transport {
    /// One `.eml` per message in a folder.
    File(PathBuf),
    Smtp(Box<SmtpTransport>),
}

/// A failed attempt: a permanent one (the server refused the message or the
/// recipient) is not retried.
#[derive(Debug)]
pub struct SendError {
    pub permanent: bool,
    pub message: String,
}

impl Transport {
    pub fn new(config: &Config) -> Result<Transport> {
        let mail = config
            .mail
            .as_ref()
            .context("no `mail:` section in the configuration")?;
        Ok(match mail.transport {
            config::Transport::File => Transport::File(config.path(&mail.dir)),
            config::Transport::Smtp => {
                // The configuration refuses `transport: smtp` without it.
                let smtp = mail
                    .smtp
                    .as_ref()
                    .context("mail: `transport: smtp` without an `smtp:` section")?;
                let builder = SmtpTransport::builder_dangerous(&smtp.host);
                let builder = match smtp.security {
                    Security::None => builder,
                    Security::Starttls => builder.tls(Tls::Required(tls(config, smtp)?)),
                    Security::Tls => builder.tls(Tls::Wrapper(tls(config, smtp)?)),
                };
                let mut builder = builder
                    .port(smtp.port)
                    .timeout(Some(Duration::from_secs(30)));
                if let Some(credentials) = credentials(config)? {
                    builder = builder.credentials(credentials);
                }
                Transport::Smtp(Box::new(builder.build()))
            }
        })
    }

    /// Sends one queued message (blocking).
    pub fn send(&self, mail: &journal::Mail) -> Result<(), SendError> {
        match self {
            Transport::File(dir) => write_eml(dir, mail).map_err(|e| SendError {
                permanent: false,
                message: format!("{e:#}"),
            }),
            Transport::Smtp(smtp) => {
                let envelope = envelope(mail).map_err(|e| SendError {
                    permanent: true,
                    message: format!("{e:#}"),
                })?;
                smtp.send_raw(&envelope, &mail.message)
                    .map(|_| ())
                    .map_err(|e| SendError {
                        permanent: e.is_permanent(),
                        message: e.to_string(),
                    })
            }
        }
    }
}

/// TLS towards `smtp.host`: the public roots, and the certificates of
/// `smtp.ca_file` when there is one.
fn tls(config: &Config, smtp: &config::Smtp) -> Result<TlsParameters> {
    let mut builder = TlsParameters::builder(smtp.host.clone());
    if let Some(file) = &smtp.ca_file {
        let path = config.path(file);
        let pem = std::fs::read(&path)
            .with_context(|| format!("cannot read smtp.ca_file {}", path.display()))?;
        let certificate = Certificate::from_pem(&pem)
            .with_context(|| format!("smtp.ca_file {}: no PEM certificate", path.display()))?;
        builder = builder.add_root_certificate(certificate);
    }
    builder.build().context("TLS settings for SMTP")
}

fn envelope(mail: &journal::Mail) -> Result<Envelope> {
    let from: Address = mail.sender.parse().context("sender address")?;
    let to: Address = mail.recipient.parse().context("recipient address")?;
    Ok(Envelope::new(Some(from), vec![to])?)
}

/// Writes the message named after its Message-ID. lettre's own file
/// transport names files by a random UUID, so a message written again after
/// a crash would appear twice; this name makes the rewrite a no-op.
fn write_eml(dir: &Path, mail: &journal::Mail) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name: String = mail
        .message_id
        .trim_matches(['<', '>'])
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-@".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let target = dir.join(format!("{name}.eml"));
    let temp = dir.join(format!(".{name}.eml.tmp"));
    crate::outbox::write_atomic(&temp, &target, &mail.message)
        .with_context(|| format!("cannot write {}", target.display()))
}

/// SMTP credentials: `credentials_file` (user on the first line, password on
/// the second), else `COOKD_SMTP_USER`/`COOKD_SMTP_PASSWORD`, else a systemd
/// credential named `smtp` (`LoadCredential=smtp:...`, same format).
fn credentials(config: &Config) -> Result<Option<Credentials>> {
    let from_file = |path: &Path| -> Result<Credentials> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read SMTP credentials {}", path.display()))?;
        let mut lines = text.lines();
        match (lines.next(), lines.next()) {
            (Some(user), Some(password)) if !user.is_empty() => {
                Ok(Credentials::new(user.to_owned(), password.to_owned()))
            }
            _ => anyhow::bail!(
                "SMTP credentials {}: expected the user on the first line and the password on the second",
                path.display()
            ),
        }
    };
    let file = config
        .mail
        .as_ref()
        .and_then(|m| m.smtp.as_ref())
        .and_then(|s| s.credentials_file.as_ref());
    if let Some(file) = file {
        return from_file(&config.path(file)).map(Some);
    }
    if let (Ok(user), Ok(password)) = (std::env::var(USER_ENV), std::env::var(PASSWORD_ENV)) {
        return Ok(Some(Credentials::new(user, password)));
    }
    if let Some(dir) = std::env::var_os("CREDENTIALS_DIRECTORY") {
        let path = Path::new(&dir).join("smtp");
        if path.exists() {
            return from_file(&path).map(Some);
        }
    }
    Ok(None)
}

/// The wait before attempt `attempts + 1`: `first_s` doubling up to `max_s`.
pub fn backoff(retry: &config::Retry, attempts: u32) -> f64 {
    (retry.first_s * 2f64.powi(attempts.min(30) as i32)).min(retry.max_s)
}

/// Sends queued mail until `stop` turns true. Sleeps until woken (a verdict
/// queued mail), until the next retry is due, or until the configuration
/// changes; an idle daemon with nothing queued never wakes up here.
pub async fn deliver(
    journal: Arc<Journal>,
    mut config: watch::Receiver<Arc<Config>>,
    wake: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) {
    let mut transport: Option<Arc<Transport>> = None;
    // After a failure the server is given a rest: no attempt before this.
    let mut hold_until = 0.0;
    loop {
        if *stop.borrow() {
            break;
        }
        let settings = config.borrow_and_update().clone();
        let now = unix_now();
        let mut next = None;
        // Without a `mail:` section queued mail (from an earlier
        // configuration) stays queued: sleep until the settings change.
        let Some(mail) = settings.mail.clone() else {
            tokio::select! {
                _ = stop.changed() => {}
                changed = config.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
            }
            continue;
        };
        if now < hold_until {
            next = Some(hold_until);
        } else {
            let j = journal.clone();
            let due = tokio::task::spawn_blocking(move || j.due_mail(now, 32)).await;
            match due {
                Ok(Ok(due)) if !due.is_empty() => {
                    let t = match &transport {
                        Some(t) => t.clone(),
                        None => match Transport::new(&settings) {
                            Ok(t) => transport.insert(Arc::new(t)).clone(),
                            Err(error) => {
                                tracing::error!("mail transport: {error:#}");
                                hold_until = now + mail.retry.max_s;
                                continue;
                            }
                        },
                    };
                    if let Some(until) = send_batch(&journal, &t, due, &mail, &stop).await {
                        hold_until = until;
                    }
                    continue;
                }
                Ok(Ok(_)) => {
                    let j = journal.clone();
                    match tokio::task::spawn_blocking(move || j.next_mail_due()).await {
                        Ok(Ok(n)) => next = n,
                        Ok(Err(error)) => tracing::error!("{error:#}"),
                        Err(error) => tracing::error!("mail: {error}"),
                    }
                }
                Ok(Err(error)) => {
                    tracing::error!("{error:#}");
                    next = Some(now + mail.retry.first_s);
                }
                Err(error) => tracing::error!("mail: {error}"),
            }
        }
        let sleep = next.map(|at| Duration::from_secs_f64((at - unix_now()).max(0.0)));
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(sleep.unwrap_or_default()), if sleep.is_some() => {}
            _ = stop.changed() => {}
            changed = config.changed() => {
                if changed.is_err() {
                    break;
                }
                // New settings: a new transport, and a fresh chance for a
                // server that was down.
                transport = None;
                hold_until = 0.0;
            }
        }
    }
}

/// Sends a batch; on a temporary failure stops and says until when to hold.
async fn send_batch(
    journal: &Arc<Journal>,
    transport: &Arc<Transport>,
    due: Vec<journal::QueuedMail>,
    settings: &config::Mail,
    stop: &watch::Receiver<bool>,
) -> Option<f64> {
    for queued in due {
        if *stop.borrow() {
            return None;
        }
        let (t, j) = (transport.clone(), journal.clone());
        let retry = settings.retry.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let result = t.send(&queued.mail);
            let now = unix_now();
            let recorded = match &result {
                Ok(()) => {
                    tracing::info!(
                        to = %queued.mail.recipient,
                        message_id = %queued.mail.message_id,
                        "mail sent: {}", queued.mail.subject
                    );
                    j.mail_sent(queued.id)
                }
                Err(e) if e.permanent => {
                    tracing::error!(
                        to = %queued.mail.recipient,
                        "mail refused, giving up: {}", e.message
                    );
                    j.mail_failed(queued.id, &e.message, None)
                }
                Err(e) => {
                    let wait = backoff(&retry, queued.attempts);
                    tracing::warn!(
                        to = %queued.mail.recipient,
                        attempt = queued.attempts + 1,
                        "mail not sent, retrying in {wait:.1} s: {}", e.message
                    );
                    j.mail_failed(queued.id, &e.message, Some(now + wait))
                }
            };
            if let Err(error) = recorded {
                tracing::error!("{error:#}");
            }
            match result {
                Err(e) if !e.permanent => Some(now + backoff(&retry, queued.attempts)),
                _ => None,
            }
        })
        .await;
        match outcome {
            Ok(Some(until)) => return Some(until),
            Ok(None) => {}
            Err(error) => tracing::error!("mail: {error}"),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser;
    use mail_parser::MimeHeaders as _;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let retry = config::Retry {
            first_s: 2.0,
            max_s: 10.0,
        };
        let waits: Vec<_> = (0..5).map(|n| backoff(&retry, n)).collect();
        assert_eq!(waits, [2.0, 4.0, 8.0, 10.0, 10.0]);
    }

    #[test]
    fn cook_report_names_problem_and_flaw_and_carries_the_json() {
        let verdicts = crate::pipeline::judge_file(
            "two.fen",
            b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 ; #2\n",
            &Config::builtin().stages,
        );
        let v = &verdicts[0];
        let json = serde_json::to_string(v).unwrap();
        let config = Config::builtin();
        let mail = config.mail.as_ref().unwrap();
        let mails = compose(mail, &"ab".repeat(32), v, &json).unwrap();
        assert_eq!(mails.len(), 1);
        let m = &mails[0];
        assert!(
            m.subject.starts_with("[cookd] two.0 (#2): illegal"),
            "{}",
            m.subject
        );
        let text = String::from_utf8_lossy(&m.message);
        assert!(text.contains("Message-ID: <cookd.abab"), "{text}");
        assert!(text.contains("application/json"), "{text}");
        assert!(text.contains(" 1 | R N B K K B N R |"), "{text}");
        let again = compose(mail, &"ab".repeat(32), v, &json).unwrap();
        assert_eq!(again[0].message_id, m.message_id);
    }

    /// The part of `message` with this content type (depth first).
    fn part<'a>(
        message: &'a mail_parser::Message<'a>,
        ctype: &str,
        subtype: &str,
    ) -> &'a mail_parser::MessagePart<'a> {
        message
            .parts
            .iter()
            .find(|p| {
                p.content_type()
                    .is_some_and(|c| c.ctype() == ctype && c.subtype() == Some(subtype))
            })
            .unwrap_or_else(|| panic!("no {ctype}/{subtype} part"))
    }

    /// A cooked #2 (three keys) whose author and source would be markup
    /// (a script that would retitle the page, an image that would run
    /// code): the report of it, and its verdict JSON.
    fn hostile_report() -> (Vec<u8>, String) {
        let yaml = "---\nauthors: [\"<script>document.title='pwned'</script> & Co\"]\n\
                    source: \"<img src=x onerror=alert(2)>\"\nstipulation: \"#2\"\n\
                    fen: \"nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1\"\n";
        let config = Config::builtin();
        let v = &crate::pipeline::judge_file("evil.yaml", yaml.as_bytes(), &config.stages)[0];
        assert_eq!(v.verdict, Kind::Cooked, "{v:?}");
        let json = serde_json::to_string(v).unwrap();
        let mut mails = compose(config.mail.as_ref().unwrap(), &"cd".repeat(32), v, &json).unwrap();
        (mails.remove(0).message, json)
    }

    #[test]
    fn the_report_is_text_or_html_with_the_diagram_inline_and_escapes_the_problem() {
        let (raw, json) = hostile_report();
        let message = mail_parser::MessageParser::default().parse(&raw).unwrap();

        // multipart/mixed [ multipart/alternative [ text/plain,
        // multipart/related [ text/html, image/png ] ], application/json ]
        let ctype = message.content_type().unwrap();
        assert_eq!(
            (ctype.ctype(), ctype.subtype()),
            ("multipart", Some("mixed"))
        );
        for (t, s) in [("multipart", "alternative"), ("multipart", "related")] {
            part(&message, t, s);
        }
        let text = message.body_text(0).unwrap();
        assert!(text.contains("Legality: no flaw found"), "{text}");
        assert!(
            text.contains("<script>document.title='pwned'</script> & Co"),
            "{text}"
        );
        assert!(!text.contains("checked:"), "{text}");
        let html = message.body_html(0).unwrap();
        assert!(html.contains("Cooked: 3 keys 1."), "{html}");
        assert!(html.contains("no flaw found"), "{html}");

        // Every problem text is escaped: no markup from the file survives.
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(
            html.contains("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt; &amp; Co"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(2)&gt;"),
            "{html}"
        );

        // The one image the HTML refers to is the inline PNG part, by its
        // Content-ID, and it is the diagram of this position.
        let srcs: Vec<_> = html
            .match_indices("src=\"")
            .map(|(i, _)| &html[i + 5..])
            .collect();
        assert_eq!(srcs.len(), 1, "{html}");
        let cid = srcs[0]
            .split('"')
            .next()
            .unwrap()
            .strip_prefix("cid:")
            .unwrap();
        let png = part(&message, "image", "png");
        assert_eq!(png.content_id(), Some(cid));
        assert!(png.content_disposition().unwrap().is_inline());
        let pixmap = resvg::tiny_skia::Pixmap::decode_png(png.contents()).unwrap();
        let (w, h) = diagram::size();
        assert_eq!(
            (pixmap.width(), pixmap.height()),
            ((MAIL_SCALE * w) as u32, (MAIL_SCALE * h) as u32)
        );
        // The white rook on h1 (a light square) has its outline on its
        // square; a1 is an empty dark square.
        let dark = |sq: shakmaty::Square| {
            let (cx, cy) = diagram::square_centre(sq, MAIL_SCALE);
            let half = (20.0 * MAIL_SCALE) as u32;
            let mut n = 0;
            for y in cy - half..cy + half {
                for x in cx - half..cx + half {
                    let p = pixmap.pixel(x, y).unwrap();
                    n += usize::from(p.red() < 0x40 && p.green() < 0x40 && p.blue() < 0x40);
                }
            }
            n
        };
        assert!(dark(shakmaty::Square::H1) as f32 > 50.0 * MAIL_SCALE * MAIL_SCALE);
        assert_eq!(dark(shakmaty::Square::A1), 0);
        let p = pixmap
            .pixel(
                diagram::square_centre(shakmaty::Square::A1, MAIL_SCALE).0,
                diagram::square_centre(shakmaty::Square::A1, MAIL_SCALE).1,
            )
            .unwrap();
        assert_eq!([p.red(), p.green(), p.blue()], diagram::DARK);

        // The verdict stays attached, byte for byte.
        let attached = part(&message, "application", "json");
        assert_eq!(attached.attachment_name(), Some("evil.0.verdict.json"));
        assert_eq!(attached.contents(), json.as_bytes());
    }

    #[test]
    fn the_html_report_in_headless_chromium_shows_the_diagram_and_runs_nothing() {
        let Some(chromium) = browser::chromium() else {
            eprintln!("skipped: no chromium on PATH (Debian's `chromium` package)");
            return;
        };
        let (raw, _) = hostile_report();
        let message = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let html = message.body_html(0).unwrap();
        let png = part(&message, "image", "png");
        // As a mail client does: the cid: reference resolved to the part.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("diagram.png"), png.contents()).unwrap();
        let src = format!("cid:{}", png.content_id().unwrap());
        assert!(html.contains(&src), "{html}");
        let page = dir.path().join("report.html");
        std::fs::write(&page, html.replace(&src, "diagram.png")).unwrap();
        let url = format!("file://{}", page.display());
        let profile = dir.path().join("profile");
        let headless =
            |extra: &[&str]| browser::headless(&chromium, &profile, (900, 1400), extra, &url);

        // The DOM after the page ran: the hostile author is text, its
        // script never ran (the title is still the headline).
        let dom = String::from_utf8(headless(&["--dump-dom"])).unwrap();
        assert!(dom.contains("<title>Cooked: 3 keys"), "{dom}");
        assert!(!dom.contains("pwned</title>"), "{dom}");
        assert!(!dom.contains("<script"), "{dom}");
        assert!(dom.contains("&lt;script&gt;document.title"), "{dom}");

        // The screenshot shows the diagram: find the board's frame, then
        // check known squares.
        let shot = dir.path().join("shot.png");
        headless(&[&format!("--screenshot={}", shot.display())]);
        let pixmap = resvg::tiny_skia::Pixmap::decode_png(&std::fs::read(&shot).unwrap()).unwrap();
        let (fx, fy) = browser::board_frame(&pixmap).expect("a board frame in the screenshot");
        let at = |sq: shakmaty::Square| {
            let (x, y) = diagram::square_centre(sq, 1.0);
            let m = diagram::MARGIN as u32;
            (fx + x - m, fy + y - m)
        };
        for (name, colour) in [
            ("a1", diagram::DARK),
            ("b1", diagram::LIGHT),
            ("d4", diagram::DARK),
        ] {
            let (x, y) = at(name.parse().unwrap());
            let found = browser::rgb(&pixmap, x, y);
            assert!(browser::near(found, colour), "{name}: {found:?}");
        }
        // A black piece on a8 and b7, the white rook on h1: dark pixels
        // around the square's centre.
        for name in ["a8", "b7", "h1"] {
            let dark = browser::black_around(&pixmap, at(name.parse().unwrap()));
            assert!(dark > 60, "{name}: {dark} dark pixels");
        }
    }

    #[test]
    fn a_cooked_twin_cooks_the_entry_and_each_twin_has_its_own_mail() {
        let file = "beginproblem\npieces white kg1 ra1 black kh8 pg7h7\nstipulation #1\n\
                    twin add white rb2\ntwin condition circe\nnext\n\
                    pieces white kg1 ra1 black kh8 pg7h7\nstipulation #1\nendproblem\n";
        let verdicts =
            crate::pipeline::judge_file("tw.pop", file.as_bytes(), &Config::builtin().stages);
        let ids: Vec<_> = verdicts.iter().map(|v| v.id.as_str()).collect();
        assert_eq!(ids, ["tw.0a", "tw.0b", "tw.0c", "tw.1"]);
        // A twin refused alone has its twin's id too.
        assert_eq!(verdicts[2].verdict, Kind::Error);
        assert_eq!(verdicts[0].verdict, Kind::Sound, "{:?}", verdicts[0]);
        assert_eq!(verdicts[1].verdict, Kind::Cooked, "{:?}", verdicts[1]);
        assert_eq!(verdicts[1].twin.as_ref().unwrap().derivation, "+wRb2");
        let config = Config::builtin();
        let mail = config.mail.as_ref().unwrap();
        let json = serde_json::to_string(&verdicts[1]).unwrap();
        let mails = compose(mail, &"ab".repeat(32), &verdicts[1], &json).unwrap();
        let m = &mails[0];
        assert!(
            m.subject.ends_with("(twin b), so the entry is cooked"),
            "{}",
            m.subject
        );
        let text = String::from_utf8_lossy(&m.message);
        assert!(text.contains("Twin: b) +wRb2"), "{text}");
        let report = crate::report::text(&verdicts[1]);
        assert!(report.contains("Entry: cooked"), "{report}");
        // The twins are different problems: different messages.
        let json_a = serde_json::to_string(&verdicts[0]).unwrap();
        let mut sound = verdicts[0].clone();
        sound.verdict = Kind::Cooked;
        let other = compose(mail, &"ab".repeat(32), &sound, &json_a).unwrap();
        assert_ne!(other[0].message_id, m.message_id);
    }
}
