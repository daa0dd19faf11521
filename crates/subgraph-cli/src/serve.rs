//! `subgraph serve`: the query server (subgraph-server) over the graphs the flags or a
//! `--config` file name, over HTTP or HTTPS, on a tokio runtime, until SIGTERM or Ctrl-C; the
//! flags' parsers are here, the settings' merging and the server there. This process holds
//! the listening socket and supervises the server, which runs in a child process (this
//! program again, with the same arguments) and is handed over to a new one after a GPU fault,
//! a restart or a crash; `--single-process` serves here instead.

use crate::matching::{parse_threads, parse_timeout};
use anyhow::{Context, Result};
use clap::Args;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;
use subgraph_core::io::{Format, IdMode, ReadOptions};
use subgraph_server::graphs::check_name;
use subgraph_server::link::{Link, Release};
use subgraph_server::{serve, serve_tls, App, GraphSpec, Listen, ServerError, Settings};

#[derive(Args)]
#[command(after_help = concat!(
    "Serves until SIGTERM or Ctrl-C; the routes are in the manual's chapter \"The query server\" and in\n",
    "docs/openapi.yaml. Then, for one: curl -s localhost:7878/v1/graphs/hprd/match \\\n",
    "  -d '{\"pattern\": \"MATCH (a:1)--(b:1) RETURN count(*)\"}'\n\n",
    "Examples (from the repository root, on the shipped test data; --check loads and exits):\n",
    "  subgraph serve --check --graph hprd=tests/data/hprd/HPRD.graph\n",
    "  subgraph serve --check --device cpu --graph hprd=tests/data/hprd/HPRD.graph --graph people=tests/data/named/people.nt.gz",
))]
pub struct ServeArgs {
    /// A graph to serve, named for the routes: NAME=PATH, then load options as `match` takes
    /// them, each after a comma: format=FORMAT, directed, labels=FILE (--vertex-labels),
    /// props=FILE.csv (--vertex-props), ids=keep|names (--keep-ids, --string-ids). May be given
    /// several times; a request names the graph, never a path.
    #[arg(long = "graph", value_name = "NAME=PATH[,OPTION]…", required_unless_present = "config", value_parser = parse_graph)]
    graphs: Vec<GraphSpec>,
    /// A TOML file of the settings below (their names with `_` for `-`) and [[graph]] tables
    /// (name, path, format, directed, labels, props, ids); flags given here override it, and a
    /// --graph replaces the file's graph of its name. Relative paths in it are from its folder.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address and port to listen on [default: 127.0.0.1:7878, loopback].
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Option<String>,
    /// Where queries run: auto (the GPU when one is usable, else the CPU), cpu, gpu [default: auto].
    #[arg(long, value_parser = ["auto", "cpu", "gpu"])]
    device: Option<String>,
    /// GPUs each graph is uploaded to, one engine a device: a query takes any free one (under
    /// auto, only a query that goes to the GPU); a device that faults is reopened, in a new
    /// server process, while the others and the CPU serve [default: 1].
    #[arg(long, value_name = "N")]
    gpus: Option<NonZeroUsize>,
    /// Bytes each graph's engine may hold on a device (K, M, G suffixes: powers of 1024), as
    /// `match --gpu-memory`: a graph whose layout takes over 3/4 of it stays in host memory in
    /// segments [default: the device's free memory].
    #[arg(long, value_name = "BYTES", value_parser = crate::matching::parse_bytes)]
    gpu_memory: Option<u64>,
    /// Queries that run at once on the CPU, and that wait for or run on each GPU (for each
    /// graph); more wait in the queue [default: 4].
    #[arg(long, value_name = "N")]
    max_concurrent: Option<NonZeroUsize>,
    /// Queries that may wait for a turn; beyond them a request is answered 503 with Retry-After
    /// [default: 64].
    #[arg(long, value_name = "N")]
    max_queue: Option<usize>,
    /// The longest a query may run, in seconds: a request's timeout is capped by it, and a
    /// request without one gets it [default: 60].
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    query_timeout: Option<f64>,
    /// Bearer tokens, one a line: `NAME TOKEN [GRAPH,GRAPH…] [admin]` (the graphs it may query,
    /// all when absent; admin tokens may reload graphs); `#` starts a comment. Without it, any
    /// client that reaches the server may ask anything.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Largest request body, in bytes (K, M suffixes: powers of 1024); larger is answered 413
    /// [default: 1M].
    #[arg(long, value_name = "BYTES", value_parser = crate::matching::parse_bytes)]
    max_body: Option<u64>,
    /// On SIGTERM or Ctrl-C, seconds running queries may take to finish before they are stopped
    /// [default: 5].
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    shutdown_grace: Option<f64>,
    /// Serve HTTPS with this certificate chain (PEM, the server's certificate first); needs
    /// --tls-key.
    #[arg(long, value_name = "FILE")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS #8, PKCS #1 or SEC1).
    #[arg(long, value_name = "FILE")]
    tls_key: Option<PathBuf>,
    /// Worker threads of the engine (default: all cores; at most 4 per core, or 64).
    #[arg(long, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Load the graphs, the token file and the TLS files, print what would be served, and exit.
    #[arg(long)]
    check: bool,
    /// Serve in this process alone, without a supervisor: a GPU that faults then stays out of
    /// service until the server is restarted, a crash ends the service, and POST /v1/restart
    /// is refused.
    #[arg(long)]
    single_process: bool,
}

/// Parses `--graph NAME=PATH[,OPTION]…`.
fn parse_graph(s: &str) -> Result<GraphSpec, String> {
    let (name, rest) = s.split_once('=').ok_or_else(|| format!("expected NAME=PATH, got '{s}'"))?;
    check_name(name)?;
    let mut parts = rest.split(',');
    let path = PathBuf::from(parts.next().filter(|p| !p.is_empty()).ok_or("no PATH after NAME=")?);
    let mut spec = GraphSpec { name: name.to_string(), path, read: ReadOptions::default(), vertex_props: None };
    for option in parts {
        match option.split_once('=') {
            None if option == "directed" => spec.read.directed = true,
            Some(("format", f)) => {
                let format = Format::from_name(f)
                    .ok_or_else(|| format!("unknown format '{f}' (one of {})", Format::NAMES.join(", ")))?;
                spec.read.format = Some(format);
            }
            Some(("labels", file)) => spec.read.vertex_labels = Some(file.into()),
            Some(("props", file)) => spec.vertex_props = Some(file.into()),
            Some(("ids", "keep")) => spec.read.ids = IdMode::Keep,
            Some(("ids", "names")) => spec.read.ids = IdMode::Names,
            _ => {
                return Err(format!(
                    "unknown option '{option}' (one of format=FORMAT, directed, labels=FILE, props=FILE, \
                     ids=keep|names)"
                ))
            }
        }
    }
    Ok(spec)
}

impl ServeArgs {
    /// The settings the flags give, the `--config` file's under them.
    fn settings(&self) -> Result<Settings> {
        let flags = Settings {
            listen: self.listen.clone(),
            device: self.device.clone(),
            gpus: self.gpus,
            gpu_memory: self.gpu_memory.map(usize::try_from).transpose().context("--gpu-memory")?,
            max_concurrent: self.max_concurrent,
            max_queue: self.max_queue,
            query_timeout: self.query_timeout.map(Duration::from_secs_f64),
            token_file: self.token_file.clone(),
            max_body: self.max_body.map(usize::try_from).transpose().context("--max-body")?,
            shutdown_grace: self.shutdown_grace.map(Duration::from_secs_f64),
            tls_cert: self.tls_cert.clone(),
            tls_key: self.tls_key.clone(),
            graphs: self.graphs.clone(),
        };
        let file = self.config.as_deref().map(Settings::read).transpose()?;
        Ok(flags.over(file.unwrap_or_default()))
    }
}

pub fn run(a: ServeArgs) -> Result<()> {
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("starting the thread pool")?;
    }
    let (config, listen) = a.settings()?.finish()?;
    let linked = if a.check { None } else { Link::from_env()? };
    if linked.is_none() && !a.check && !a.single_process {
        return supervise(&listen);
    }
    let (link, socket) = linked.unzip();
    let acceptor = listen.tls.as_ref().map(|(cert, key)| subgraph_server::tls::acceptor(cert, key)).transpose()?;
    let open = config.token_file.is_none();
    let app = App::load_with(config, link.clone())?;
    for g in app.graphs.all() {
        let info = g.info();
        let line = format!(
            "graph {}: {} vertices, {} edges{}, loaded in {:.0} ms; {}",
            info.name,
            info.vertices,
            info.edges,
            if info.directed { " (directed)" } else { "" },
            info.load_ms,
            info.engine
        );
        match a.check {
            true => println!("{line}"),
            false => eprintln!("{line}"),
        }
    }
    if a.check {
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let listener = match socket {
            Some(socket) => {
                socket.set_nonblocking(true).context("the listening socket")?;
                tokio::net::TcpListener::from_std(socket).context("the listening socket")?
            }
            None => tokio::net::TcpListener::bind(&listen.addr)
                .await
                .map_err(|source| ServerError::Listen { addr: listen.addr.clone(), source })?,
        };
        let addr = listener.local_addr().context("the listening address")?;
        if open && !addr.ip().is_loopback() {
            eprintln!("note: listening beyond loopback without --token-file: anyone who reaches {addr} may query");
        }
        let scheme = if acceptor.is_some() { "https" } else { "http" };
        eprintln!("subgraph serve: listening on {scheme}://{addr}");
        let released = app.clone();
        let stop = async move {
            match link {
                None => signalled().await,
                Some(link) => {
                    link.ready();
                    tokio::select! {
                        () = signalled() => {}
                        why = link.released() => match why {
                            Release::TakenOver => {
                                released.handing_over.send_replace(true);
                                eprintln!(
                                    "subgraph serve: process {} taken over: it answers the requests it holds and exits",
                                    link.generation
                                );
                            }
                            Release::Stop => eprintln!(
                                "subgraph serve: process {} stopped by the supervisor (new requests refused; running \
                                 queries stopped after the grace period)",
                                link.generation
                            ),
                        },
                    }
                }
            }
        };
        match acceptor {
            None => serve(listener, app, stop).await?,
            Some(acceptor) => serve_tls(listener, acceptor, app, stop).await?,
        }
        eprintln!("subgraph serve: stopped");
        Ok(())
    })
}

/// The supervisor: holds the socket `listen` names and runs the server in child processes
/// (this program with the same arguments) until SIGTERM or Ctrl-C; exits with the code of the
/// first process where it could not start.
fn supervise(listen: &Listen) -> Result<()> {
    let listener = std::net::TcpListener::bind(&listen.addr)
        .map_err(|source| ServerError::Listen { addr: listen.addr.clone(), source })?;
    let program = std::env::current_exe().context("this program's path, to start the server's process")?;
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the async runtime")?;
    let code = runtime.block_on(subgraph_server::supervisor::supervise(
        listener,
        || {
            let mut command = std::process::Command::new(&program);
            command.args(&args);
            command
        },
        signal(),
    ))?;
    if code != 0 {
        std::process::exit(code);
    }
    Ok(())
}

/// Completes on SIGTERM or Ctrl-C (SIGINT), saying so.
async fn signalled() {
    signal().await;
    eprintln!("subgraph serve: shutting down (new requests refused; running queries stopped after the grace period)");
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
async fn signal() {
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(e) => {
                eprintln!("subgraph serve: SIGTERM cannot be caught ({e}); Ctrl-C still stops the server");
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_flags() {
        let g = parse_graph("web=web.txt,format=edges,directed,labels=web.labels,ids=names").unwrap();
        assert_eq!((g.name.as_str(), g.path.to_str().unwrap()), ("web", "web.txt"));
        assert!(g.read.directed && g.read.format == Some(Format::EdgeList) && g.read.ids == IdMode::Names);
        assert_eq!(g.read.vertex_labels.unwrap().to_str().unwrap(), "web.labels");
        for bad in ["web", "=web.txt", "w b=x", "web=", "web=x,format=nope", "web=x,fast"] {
            assert!(parse_graph(bad).is_err(), "{bad}");
        }
    }
}
