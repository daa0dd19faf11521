//! The rating file formats by name, and telling a file's format from its name and first bytes.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::error::MfError;

/// A rating file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// MovieLens 100K's `u.data` (and its `u1.base`… splits): `user item rating timestamp`,
    /// separated by tabs (or any spaces).
    MovieLens,
    /// MovieLens 1M and 10M's `ratings.dat`: `user::item::rating::timestamp`.
    MovieLensDat,
    /// MovieLens 20M, 25M and latest's `ratings.csv`: `user,item,rating,timestamp`, under a
    /// header line (`userId,movieId,rating,timestamp`) when line 1 starts with a letter.
    MovieLensCsv,
    /// The Netflix prize's `training_set` files and `combined_data_*.txt`: a line `MOVIE:`, then
    /// `user,rating,date` lines (the date may be left out) for that movie, then the next movie.
    Netflix,
    /// LIBMF's text, as `mf-train` reads it: `user item rating`, separated by spaces or tabs;
    /// blank lines and `#` comments are allowed.
    Libmf,
    /// Matrix Market coordinate, `real` or `integer`, `general`: a banner, `%` comments, a size
    /// line `rows columns entries`, then 1-based `row column value` lines (row: user,
    /// column: item).
    MatrixMarket,
}

impl Format {
    /// Every format, in the order of [`Format::name`]'s list.
    pub const ALL: [Format; 6] = [
        Format::MovieLens,
        Format::MovieLensDat,
        Format::MovieLensCsv,
        Format::Netflix,
        Format::Libmf,
        Format::MatrixMarket,
    ];

    /// The name [`FromStr`] reads and `Display` shows: `movielens`, `ratings.dat`,
    /// `ratings.csv`, `netflix`, `libmf` or `mm`.
    pub fn name(self) -> &'static str {
        match self {
            Format::MovieLens => "movielens",
            Format::MovieLensDat => "ratings.dat",
            Format::MovieLensCsv => "ratings.csv",
            Format::Netflix => "netflix",
            Format::Libmf => "libmf",
            Format::MatrixMarket => "mm",
        }
    }

    /// The format of a file named `path` (a `.gz` or `.zst` suffix left off first) whose
    /// content starts with `head`: by the name — `u.data` and `*.data` or `*.base` MovieLens,
    /// `*.dat` `ratings.dat`, `*.csv` `ratings.csv`, `*.mtx` and `*.mm` Matrix Market — else by
    /// the first line that is neither blank nor a `#` comment: the Matrix Market banner, a line
    /// ending in `:` (Netflix), fields separated by `::` (`ratings.dat`) or commas
    /// (`ratings.csv`), four fields (`u.data`), else LIBMF text.
    pub fn detect(path: &Path, head: &[u8]) -> Format {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
        let name = name.strip_suffix(".gz").or_else(|| name.strip_suffix(".zst")).unwrap_or(&name);
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        match ext {
            "data" | "base" => Format::MovieLens,
            "dat" => Format::MovieLensDat,
            "csv" => Format::MovieLensCsv,
            "mtx" | "mm" => Format::MatrixMarket,
            _ => Format::sniff(head),
        }
    }

    /// The format that the first meaningful line of `head` shows (see [`Format::detect`]).
    pub fn sniff(head: &[u8]) -> Format {
        let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
        if head.len() >= 14 && head[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
            return Format::MatrixMarket;
        }
        let first = head
            .split(|&c| c == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l).trim_ascii())
            .find(|l| !l.is_empty() && !l.starts_with(b"#"));
        let Some(line) = first else { return Format::Libmf };
        if line.ends_with(b":") {
            Format::Netflix
        } else if line.windows(2).any(|w| w == b"::") {
            Format::MovieLensDat
        } else if line.contains(&b',') {
            Format::MovieLensCsv
        } else if line.split(|c| c.is_ascii_whitespace()).filter(|f| !f.is_empty()).count() == 4 {
            Format::MovieLens
        } else {
            Format::Libmf
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = MfError;

    /// A format's [`Format::name`], or `u.data` (MovieLens) or `mtx` (Matrix Market), in any case.
    fn from_str(s: &str) -> Result<Self, MfError> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.as_str() {
            "u.data" => return Ok(Format::MovieLens),
            "mtx" => return Ok(Format::MatrixMarket),
            _ => {}
        }
        Format::ALL.into_iter().find(|f| f.name() == lower).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            MfError::Parameter(format!("unknown ratings format '{}': one of {}", s.escape_debug(), names.join(", ")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_aliases_are_known() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
            assert_eq!(f.to_string().to_uppercase().parse::<Format>().unwrap(), f);
        }
        assert_eq!("u.data".parse::<Format>().unwrap(), Format::MovieLens);
        assert_eq!("MTX".parse::<Format>().unwrap(), Format::MatrixMarket);
        let e = "parquet".parse::<Format>().unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown ratings format 'parquet': one of movielens, ratings.dat, ratings.csv, netflix, libmf, mm"
        );
    }

    #[test]
    fn detection_goes_by_name_then_by_content() {
        let d = |name: &str, head: &str| Format::detect(Path::new(name), head.as_bytes());
        assert_eq!(d("ml-100k/u.data", ""), Format::MovieLens);
        assert_eq!(d("u1.base.gz", ""), Format::MovieLens);
        assert_eq!(d("ml-1m/ratings.dat.zst", "1,2,3"), Format::MovieLensDat);
        assert_eq!(d("RATINGS.CSV", ""), Format::MovieLensCsv);
        assert_eq!(d("r.mtx", ""), Format::MatrixMarket);
        assert_eq!(d("r.mm.gz", ""), Format::MatrixMarket);
        assert_eq!(d("mv_0000001.txt", "1:\r\n1488844,3,2005-09-06\n"), Format::Netflix);
        assert_eq!(d("x", "%%matrixmarket matrix coordinate real general\n"), Format::MatrixMarket);
        assert_eq!(d("x.txt", "\u{feff}# users items\n\n1 2 3.5\n"), Format::Libmf);
        assert_eq!(d("x", "1::2::5::978300760\n"), Format::MovieLensDat);
        assert_eq!(d("x", "userId,movieId,rating,timestamp\n"), Format::MovieLensCsv);
        assert_eq!(d("x", "196\t242\t3\t881250949\n"), Format::MovieLens);
        assert_eq!(d("x", ""), Format::Libmf);
        assert_eq!(d("x", "1 2 3"), Format::Libmf);
    }
}
