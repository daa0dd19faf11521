//! `subgraph serve`'s settings as its flags or a TOML file (`--config`) give them: each unset
//! until given, the flags' laid over the file's ([`Settings::over`]), then the defaults
//! ([`Settings::finish`]). A file's mistake is one error naming the file, its line and what is
//! wrong; its relative paths are read from the file's folder.

use crate::app::Config;
use crate::error::ServerError;
use crate::graphs::{check_name, GraphSpec};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;
use subgraph_core::io::{Format, IdMode, ReadOptions};

pub const DEFAULT_LISTEN: &str = "127.0.0.1:7878";
pub const DEFAULT_DEVICE: &str = "auto";
pub const DEFAULT_GPUS: usize = 1;
pub const DEFAULT_MAX_CONCURRENT: usize = 4;
pub const DEFAULT_MAX_QUEUE: usize = 64;
pub const DEFAULT_QUERY_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_MAX_BODY: usize = 1 << 20;
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// What to serve and how, each setting unset until the flags or the file give it. The file's
/// keys are the flags' names with `_` for `-`; its `[[graph]]` tables are `--graph`'s.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// `ADDR:PORT`.
    pub listen: Option<String>,
    /// `auto`, `cpu` or `gpu`.
    #[serde(default, deserialize_with = "device")]
    pub device: Option<String>,
    /// GPUs each graph is uploaded to, one engine a device.
    pub gpus: Option<NonZeroUsize>,
    /// Bytes each graph's engine may hold on a device (`--gpu-memory`, as `match` takes it):
    /// a graph whose layout takes over 3/4 of it stays in host memory in segments (SGSI).
    #[serde(default, deserialize_with = "size")]
    pub gpu_memory: Option<usize>,
    pub max_concurrent: Option<NonZeroUsize>,
    pub max_queue: Option<usize>,
    #[serde(default, deserialize_with = "seconds")]
    pub query_timeout: Option<Duration>,
    pub token_file: Option<PathBuf>,
    /// Bytes: a number, or a text with a unit as the flag takes it (`"1M"`).
    #[serde(default, deserialize_with = "size")]
    pub max_body: Option<usize>,
    #[serde(default, deserialize_with = "seconds")]
    pub shutdown_grace: Option<Duration>,
    /// A PEM file of the server's certificate chain; with `tls_key`, the server speaks HTTPS.
    pub tls_cert: Option<PathBuf>,
    /// A PEM file of the certificate's private key.
    pub tls_key: Option<PathBuf>,
    #[serde(default, rename = "graph", deserialize_with = "graphs")]
    pub graphs: Vec<GraphSpec>,
}

/// Where and how to listen once the settings are complete.
#[derive(Debug, Clone)]
pub struct Listen {
    pub addr: String,
    /// The certificate chain's and the key's PEM files, where the server speaks HTTPS.
    pub tls: Option<(PathBuf, PathBuf)>,
}

impl Settings {
    /// Reads a TOML settings file; relative paths in it are taken from its folder.
    pub fn read(file: &Path) -> Result<Settings, ServerError> {
        let text =
            std::fs::read_to_string(file).map_err(|source| ServerError::Read { file: file.to_path_buf(), source })?;
        let mut settings = Settings::parse(&text).map_err(|(line, message)| ServerError::Config {
            file: file.to_path_buf(),
            line,
            message,
        })?;
        let dir = file.parent().unwrap_or(Path::new(""));
        settings.rebase(dir);
        Ok(settings)
    }

    /// Parses a settings file's text; a mistake is its line (1-based) and what is wrong.
    pub fn parse(text: &str) -> Result<Settings, (usize, String)> {
        toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            let line = 1 + text.as_bytes()[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count();
            (line, e.message().trim_end().to_string())
        })
    }

    /// Takes relative paths from `dir`.
    fn rebase(&mut self, dir: &Path) {
        let rebase = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = dir.join(&*p);
            }
        };
        for p in [&mut self.token_file, &mut self.tls_cert, &mut self.tls_key].into_iter().flatten() {
            rebase(p);
        }
        for g in &mut self.graphs {
            rebase(&mut g.path);
            for p in [&mut g.read.vertex_labels, &mut g.vertex_props].into_iter().flatten() {
                rebase(p);
            }
        }
    }

    /// `self`'s settings where given, else `base`'s; graphs: `base`'s, each replaced by one
    /// of `self`'s of the same name, then `self`'s others.
    pub fn over(self, base: Settings) -> Settings {
        let mut graphs = base.graphs;
        for g in self.graphs {
            match graphs.iter_mut().find(|b| b.name == g.name) {
                Some(b) => *b = g,
                None => graphs.push(g),
            }
        }
        Settings {
            listen: self.listen.or(base.listen),
            device: self.device.or(base.device),
            gpus: self.gpus.or(base.gpus),
            gpu_memory: self.gpu_memory.or(base.gpu_memory),
            max_concurrent: self.max_concurrent.or(base.max_concurrent),
            max_queue: self.max_queue.or(base.max_queue),
            query_timeout: self.query_timeout.or(base.query_timeout),
            token_file: self.token_file.or(base.token_file),
            max_body: self.max_body.or(base.max_body),
            shutdown_grace: self.shutdown_grace.or(base.shutdown_grace),
            tls_cert: self.tls_cert.or(base.tls_cert),
            tls_key: self.tls_key.or(base.tls_key),
            graphs,
        }
    }

    /// The server's configuration and where to listen, the defaults where a setting is unset:
    /// an error where no graph is named, or only one of the certificate and the key.
    pub fn finish(self) -> Result<(Config, Listen), ServerError> {
        if self.graphs.is_empty() {
            return Err(ServerError::Settings(
                "no graph to serve: give --graph NAME=PATH, or [[graph]] tables in the --config file".into(),
            ));
        }
        let tls = match (self.tls_cert, self.tls_key) {
            (Some(cert), Some(key)) => Some((cert, key)),
            (None, None) => None,
            (Some(_), None) => return Err(ServerError::Settings("a TLS certificate without its key (tls_key)".into())),
            (None, Some(_)) => {
                return Err(ServerError::Settings("a TLS key without its certificate (tls_cert)".into()))
            }
        };
        let config = Config {
            graphs: self.graphs,
            device: self.device.unwrap_or_else(|| DEFAULT_DEVICE.into()),
            gpus: self.gpus.map_or(DEFAULT_GPUS, NonZeroUsize::get),
            gpu_memory: self.gpu_memory.map(|b| b as u64),
            max_concurrent: self.max_concurrent.map_or(DEFAULT_MAX_CONCURRENT, NonZeroUsize::get),
            max_queue: self.max_queue.unwrap_or(DEFAULT_MAX_QUEUE),
            query_timeout: self.query_timeout.unwrap_or(DEFAULT_QUERY_TIMEOUT),
            token_file: self.token_file,
            max_body: self.max_body.unwrap_or(DEFAULT_MAX_BODY),
            grace: self.shutdown_grace.unwrap_or(DEFAULT_GRACE),
        };
        Ok((config, Listen { addr: self.listen.unwrap_or_else(|| DEFAULT_LISTEN.into()), tls }))
    }
}

/// A `[[graph]]` table: `--graph NAME=PATH,OPTION…` as TOML.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphTable {
    #[serde(deserialize_with = "name")]
    name: String,
    path: PathBuf,
    #[serde(default, deserialize_with = "format")]
    format: Option<Format>,
    #[serde(default)]
    directed: bool,
    labels: Option<PathBuf>,
    props: Option<PathBuf>,
    ids: Option<Ids>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Ids {
    Keep,
    Names,
}

impl From<GraphTable> for GraphSpec {
    fn from(t: GraphTable) -> GraphSpec {
        let ids = match t.ids {
            None => IdMode::default(),
            Some(Ids::Keep) => IdMode::Keep,
            Some(Ids::Names) => IdMode::Names,
        };
        let read =
            ReadOptions { format: t.format, directed: t.directed, vertex_labels: t.labels, ids, ..Default::default() };
        GraphSpec { name: t.name, path: t.path, read, vertex_props: t.props }
    }
}

fn graphs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<GraphSpec>, D::Error> {
    Ok(Vec::<GraphTable>::deserialize(d)?.into_iter().map(GraphSpec::from).collect())
}

fn name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let name = String::deserialize(d)?;
    check_name(&name).map_err(<D::Error as de::Error>::custom)?;
    Ok(name)
}

fn format<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Format>, D::Error> {
    let name = String::deserialize(d)?;
    Format::from_name(&name)
        .map(Some)
        .ok_or_else(|| de::Error::custom(format!("unknown format '{name}' (one of {})", Format::NAMES.join(", "))))
}

fn device<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let device = String::deserialize(d)?;
    match device.as_str() {
        "auto" | "cpu" | "gpu" => Ok(Some(device)),
        _ => Err(de::Error::custom(format!("unknown device '{device}' (one of auto, cpu, gpu)"))),
    }
}

/// Seconds, as `--query-timeout` and `--shutdown-grace` take them.
fn seconds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let secs = f64::deserialize(d)?;
    subgraph_core::sink::timeout(secs).map(Some).map_err(de::Error::custom)
}

/// Bytes: a number, or a text as `--max-body` takes it.
fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    struct Size;
    impl Visitor<'_> for Size {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number of bytes, or a size such as \"1M\"")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            if v == 0 {
                return Err(E::custom("a size must be positive"));
            }
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            self.visit_u64(u64::try_from(v).unwrap_or(0))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            subgraph_core::host::parse_bytes(v).map_err(E::custom)
        }
    }
    let bytes = d.deserialize_any(Size)?;
    usize::try_from(bytes).map(Some).map_err(|_| de::Error::custom("too large a size"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, path: &str) -> GraphSpec {
        GraphSpec { name: name.into(), path: path.into(), read: ReadOptions::default(), vertex_props: None }
    }

    #[test]
    fn a_file_of_every_setting() {
        let text = r#"
listen = "127.0.0.1:9000"
device = "cpu"
gpus = 2
gpu_memory = "8G"
max_concurrent = 2
max_queue = 8
query_timeout = 30
token_file = "tokens.txt"
max_body = "64K"
shutdown_grace = 2.5
tls_cert = "/etc/subgraph/cert.pem"
tls_key = "key.pem"

[[graph]]
name = "hprd"
path = "hprd/HPRD.graph"

[[graph]]
name = "web"
path = "web.txt"
format = "edges"
directed = true
labels = "web.labels"
props = "web.csv"
ids = "names"
"#;
        let mut s = Settings::parse(text).unwrap();
        s.rebase(Path::new("/srv"));
        let (config, listen) = s.finish().unwrap();
        assert_eq!(listen.addr, "127.0.0.1:9000");
        assert_eq!(listen.tls, Some(("/etc/subgraph/cert.pem".into(), "/srv/key.pem".into())));
        assert_eq!((config.device.as_str(), config.max_concurrent, config.max_queue), ("cpu", 2, 8));
        assert_eq!((config.gpus, config.gpu_memory), (2, Some(8 << 30)));
        assert_eq!((config.query_timeout, config.grace), (Duration::from_secs(30), Duration::from_millis(2500)));
        assert_eq!((config.max_body, config.token_file), (64 << 10, Some("/srv/tokens.txt".into())));
        let web = &config.graphs[1];
        assert_eq!((web.name.as_str(), web.path.to_str()), ("web", Some("/srv/web.txt")));
        assert!(web.read.directed && web.read.format == Some(Format::EdgeList) && web.read.ids == IdMode::Names);
        assert_eq!(web.read.vertex_labels.as_deref(), Some(Path::new("/srv/web.labels")));
        assert_eq!(web.vertex_props.as_deref(), Some(Path::new("/srv/web.csv")));
        assert_eq!(config.graphs[0].path, Path::new("/srv/hprd/HPRD.graph"));
    }

    #[test]
    fn a_mistake_names_its_line_and_key() {
        let err = |text: &str| Settings::parse(text).unwrap_err();
        let (line, message) = err("device = \"cpu\"\nmax_querys = 3\n");
        assert_eq!(line, 2);
        assert!(message.contains("unknown field `max_querys`"), "{message}");
        let (line, message) = err("[[graph]]\nname = \"a\"\npath = \"a.graph\"\nfast = true\n");
        assert_eq!(line, 4);
        assert!(message.contains("`fast`"), "{message}");
        for (text, line, what) in [
            ("device = \"tpu\"", 1, "unknown device 'tpu'"),
            ("\nmax_concurrent = 0", 2, "nonzero"),
            ("gpus = 0", 1, "nonzero"),
            ("query_timeout = -1", 1, "positive"),
            ("max_body = \"1X\"", 1, "unknown unit"),
            ("max_body = 0", 1, "positive"),
            ("[[graph]]\nname = \"a b\"\npath = \"x\"", 2, "a graph's name"),
            ("[[graph]]\nname = \"a\"\npath = \"x\"\nformat = \"nope\"", 4, "unknown format 'nope'"),
            ("[[graph]]\nname = \"a\"\npath = \"x\"\nids = \"all\"", 4, "unknown variant `all`"),
            ("[[graph]]\nname = \"a\"", 1, "missing field `path`"),
            ("listen = ", 1, ""),
        ] {
            let (l, message) = err(text);
            assert_eq!(l, line, "{text}: {message}");
            assert!(message.contains(what), "{text}: {message}");
        }
    }

    #[test]
    fn flags_over_the_file() {
        let file = Settings {
            listen: Some("127.0.0.1:1".into()),
            device: Some("gpu".into()),
            max_queue: Some(3),
            graphs: vec![spec("a", "a.graph"), spec("b", "b.graph")],
            ..Default::default()
        };
        let flags = Settings {
            device: Some("cpu".into()),
            graphs: vec![spec("b", "other.graph"), spec("c", "c.graph")],
            ..Default::default()
        };
        let (config, listen) = flags.over(file).finish().unwrap();
        assert_eq!((listen.addr.as_str(), config.device.as_str(), config.max_queue), ("127.0.0.1:1", "cpu", 3));
        let graphs: Vec<_> = config.graphs.iter().map(|g| (g.name.as_str(), g.path.to_str().unwrap())).collect();
        assert_eq!(graphs, [("a", "a.graph"), ("b", "other.graph"), ("c", "c.graph")]);
        assert_eq!((config.max_concurrent, config.gpus), (DEFAULT_MAX_CONCURRENT, DEFAULT_GPUS));
    }

    #[test]
    fn no_graph_or_half_of_tls_is_refused() {
        let one = || Settings { graphs: vec![spec("a", "a.graph")], ..Default::default() };
        assert!(Settings::default().finish().unwrap_err().to_string().contains("no graph"));
        let half = Settings { tls_cert: Some("c.pem".into()), ..one() };
        assert!(half.finish().unwrap_err().to_string().contains("without its key"));
        let half = Settings { tls_key: Some("k.pem".into()), ..one() };
        assert!(half.finish().unwrap_err().to_string().contains("without its certificate"));
        assert_eq!(one().finish().unwrap().1.addr, DEFAULT_LISTEN);
    }
}
