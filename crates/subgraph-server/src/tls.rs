//! HTTPS: the server's certificate chain and key read from PEM files ([`acceptor`]), and a
//! listener whose connections are TLS streams ([`TlsListener`]): each handshake runs on a task
//! of its own, bounded in time, so that a slow or plain-HTTP client holds up no other.

use crate::error::ServerError;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::rustls::pki_types::pem::{self, PemObject};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{crypto, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// The longest a client may take over its handshake.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// Handshaken connections waiting for the server to take them.
const READY: usize = 64;

/// The TLS side of the server: the certificate chain of `cert` (PEM, the server's first) and
/// the private key of `key` (PEM: PKCS #8, PKCS #1 or SEC1), checked to belong together.
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, ServerError> {
    let fail = |file: &Path, message: String| ServerError::Tls { file: file.to_path_buf(), message };
    let certs = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| fail(cert, e.to_string()))?;
    if certs.is_empty() {
        return Err(fail(cert, "no certificate (a PEM block BEGIN CERTIFICATE) in the file".into()));
    }
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| match e {
        pem::Error::NoItemsFound => fail(
            key,
            "no private key (a PEM block BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY) in the file".into(),
        ),
        e => fail(key, e.to_string()),
    })?;
    let provider = Arc::new(crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| fail(cert, e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, private)
        .map_err(|e| fail(key, format!("not a usable key for {}: {e}", cert.display())))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A listener of TLS connections over a TCP listener: connections are accepted and their
/// handshakes made in the background, and [`axum::serve::Listener::accept`] hands over those
/// that completed. A failed handshake (a plain-HTTP request, an untrusting client) is logged
/// and its connection closed.
pub struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    /// Starts accepting on `tcp` (on the current runtime) until the listener is dropped.
    pub fn new(tcp: TcpListener, acceptor: TlsAcceptor) -> io::Result<TlsListener> {
        let local = tcp.local_addr()?;
        let (tx, ready) = mpsc::channel(READY);
        tokio::spawn(async move {
            loop {
                let (stream, peer) = tokio::select! {
                    accepted = tcp.accept() => match accepted {
                        Ok(accepted) => accepted,
                        Err(e) => {
                            accept_failed(e).await;
                            continue;
                        }
                    },
                    () = tx.closed() => return,
                };
                let _ = stream.set_nodelay(true);
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let _ = tx.send((tls, peer)).await;
                        }
                        Ok(Err(e)) => eprintln!("subgraph serve: {peer}: TLS handshake failed: {e}"),
                        Err(_) => eprintln!("subgraph serve: {peer}: TLS handshake not done within {HANDSHAKE:?}"),
                    }
                });
            }
        });
        Ok(TlsListener { ready, local })
    }
}

/// After a failed accept: at once for a connection's own failure, after a pause for the
/// listener's (too many open files), as axum's TCP listener does.
async fn accept_failed(e: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if !matches!(e.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset) {
        eprintln!("subgraph serve: accepting a connection: {e}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(connection) => connection,
            // The accepting task has ended only if the runtime is going: no connection comes.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }
}
