//! Graph file formats as the commands name them: a format name for clap (`convert`, `gen`),
//! and the format an output path's extension names.

use anyhow::{bail, Result};
use std::path::Path;
use subgraph_core::io::Format;

/// Parses a format name for clap.
pub fn parse_format(s: &str) -> Result<Format, String> {
    Format::from_name(s).ok_or_else(|| format!("unknown format '{s}' (one of {})", Format::NAMES.join(", ")))
}

/// The format an output path's extension names; directed graphs need a format that keeps
/// direction.
pub fn output_format(path: &Path, directed: bool) -> Result<Format> {
    let Some(format) = Format::from_extension(path) else {
        bail!("{}: cannot tell the format from the extension (use .graph, .g, .txt or .sgb)", path.display());
    };
    if directed && format == Format::SunLuo {
        bail!("{}: Sun & Luo .graph files are undirected; write a directed graph as .g, .txt or .sgb", path.display());
    }
    Ok(format)
}
