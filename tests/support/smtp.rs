//! A real SMTP server on loopback for the end-to-end tests, built by cargo:
//! the `mailin` crate speaks the server's side of the dialogue (command
//! parser, state machine, DATA with dot-unstuffing, the STARTTLS extension)
//! and this file carries it over a `std::net::TcpListener`, upgrading a
//! session to TLS with rustls when the server has a certificate. Unlike an
//! embedded server that runs forever, it stops when dropped, so a test can
//! take the server down and bring it back. Shared by several test binaries,
//! each of which uses a part of it.
#![allow(dead_code)]

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use mailin::{response, Action, Handler, Response, SessionBuilder};

/// The server: what it received, in order of receipt.
pub struct SmtpServer {
    port: u16,
    received: Arc<Received>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct Received {
    messages: Mutex<Vec<String>>,
    /// Messages that arrived over a session upgraded with STARTTLS.
    over_tls: AtomicUsize,
}

/// One session's handler: collects the DATA of each transaction.
struct Store {
    received: Arc<Received>,
    data: Vec<u8>,
    /// Set once the session's STARTTLS handshake is done.
    tls: Arc<AtomicBool>,
}

impl Handler for Store {
    fn data_start(
        &mut self,
        _domain: &str,
        _from: &str,
        _is8bit: bool,
        _to: &[String],
    ) -> Response {
        self.data.clear();
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> io::Result<()> {
        self.data.extend_from_slice(buf);
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        // Stored before the 250 goes out, as a real server commits to disk
        // before acknowledging.
        let message = String::from_utf8_lossy(&std::mem::take(&mut self.data)).into_owned();
        self.received.messages.lock().unwrap().push(message);
        if self.tls.load(Ordering::SeqCst) {
            self.received.over_tls.fetch_add(1, Ordering::SeqCst);
        }
        response::OK
    }
}

impl SmtpServer {
    /// Listens on 127.0.0.1:`port`; with `tls`, offers STARTTLS.
    pub fn start(port: u16, tls: Option<Arc<rustls::ServerConfig>>) -> SmtpServer {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("the SMTP port is free");
        let received = Arc::new(Received::default());
        let stop = Arc::new(AtomicBool::new(false));
        let accept = {
            let (received, stop) = (received.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (received, tls) = (received.clone(), tls.clone());
                    // A session that fails (a client killed mid-dialogue) ends
                    // only itself, as on a real server.
                    std::thread::spawn(move || {
                        let _ = session(stream, received, tls);
                    });
                }
            })
        };
        SmtpServer {
            port,
            received,
            stop,
            accept: Some(accept),
        }
    }

    /// The messages received so far.
    pub fn messages(&self) -> Vec<String> {
        self.received.messages.lock().unwrap().clone()
    }

    /// How many of them came over a STARTTLS session.
    pub fn over_tls(&self) -> usize {
        self.received.over_tls.load(Ordering::SeqCst)
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the blocking accept so that it sees the flag and closes the
        // listening socket.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

enum End {
    Closed,
    StartTls,
}

fn session(
    stream: TcpStream,
    received: Arc<Received>,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> io::Result<()> {
    let peer = stream
        .peer_addr()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |a| a.ip());
    let mut builder = SessionBuilder::new("smtp.test.invalid");
    if tls.is_some() {
        builder.enable_start_tls();
    }
    let upgraded = Arc::new(AtomicBool::new(false));
    let store = Store {
        received,
        data: Vec::new(),
        tls: upgraded.clone(),
    };
    let mut session = builder.build(peer, store);
    stream.set_nodelay(true)?;
    let mut plain = BufReader::new(stream);
    session.greeting().write_to(plain.get_mut())?;
    if let End::StartTls = dialogue(&mut session, &mut plain)? {
        // Anything the client sent after STARTTLS before the handshake
        // would be a protocol violation (and a known injection attack).
        if !plain.buffer().is_empty() {
            return Err(io::Error::other("data pipelined after STARTTLS"));
        }
        let config = tls.expect("STARTTLS is offered only with a certificate");
        let connection = rustls::ServerConnection::new(config).map_err(io::Error::other)?;
        let stream = rustls::StreamOwned::new(connection, plain.into_inner());
        session.tls_active();
        upgraded.store(true, Ordering::SeqCst);
        let mut secure = BufReader::new(stream);
        if let End::StartTls = dialogue(&mut session, &mut secure)? {
            return Err(io::Error::other("STARTTLS twice"));
        }
    }
    Ok(())
}

/// Lines in, responses out, until QUIT, an error or STARTTLS.
fn dialogue<H: Handler, S: Read + Write>(
    session: &mut mailin::Session<H>,
    stream: &mut BufReader<S>,
) -> io::Result<End> {
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        if stream.read_until(b'\n', &mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let reply = session.process(&line);
        match reply.action {
            Action::NoReply => continue,
            Action::Reply | Action::Close | Action::UpgradeTls => {
                // One write per reply: written piecemeal, a reply meets the
                // client's delayed ACK and costs 40 ms a command.
                stream.get_mut().write_all(&reply.buffer()?)?;
                stream.get_mut().flush()?;
            }
        }
        match reply.action {
            Action::Close => return Ok(End::Closed),
            Action::UpgradeTls => return Ok(End::StartTls),
            _ => {}
        }
    }
}
