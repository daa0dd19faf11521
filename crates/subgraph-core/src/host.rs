//! What the host has: its memory as Linux reports it, for the checks made before a limit is
//! hit (the candidate space's budget, mapping a binary graph instead of reading it), byte
//! counts as the messages about those limits write them, sizes as flags give them, and what
//! this process holds (its resident bytes and their high-water mark, for reports).

/// Memory the system can still give this process (Linux `MemAvailable`), if known.
pub fn available_memory() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// The host's physical memory (Linux `MemTotal`), if known.
pub fn total_memory() -> Option<u64> {
    meminfo("MemTotal:")
}

const GIB: f64 = (1u64 << 30) as f64;

/// A byte count for messages: GiB, MiB or bytes.
pub fn bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / GIB),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b => format!("{b} bytes"),
    }
}

/// Parses `123`, `64K`, `1.5G`, `2GiB`, `512MB` (powers of 1024).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        u => return Err(format!("unknown unit '{u}' (use K, M, G or T)")),
    };
    match num.parse::<f64>() {
        Ok(x) if x > 0.0 && (x * scale as f64) < u64::MAX as f64 => Ok((x * scale as f64) as u64),
        _ => Err(format!("expected a positive size such as 512M or 4G, got '{s}'")),
    }
}

/// A field of /proc/meminfo, in bytes.
fn meminfo(key: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The process's resident-memory high-water mark (VmHWM) in bytes; 0 where unknown.
pub fn peak_rss_bytes() -> u64 {
    status_bytes("VmHWM:")
}

/// The process's resident bytes now (VmRSS); 0 where unknown.
pub fn resident_bytes() -> u64 {
    status_bytes("VmRSS:")
}

/// A `kB` field of /proc/self/status in bytes; 0 where unknown.
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Resets VmHWM to the current resident size; false where the kernel does not allow it.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn available_is_at_most_total_where_both_are_known() {
        if let (Some(a), Some(t)) = (super::available_memory(), super::total_memory()) {
            assert!(a <= t && t > 0, "available {a}, total {t}");
        }
    }

    #[test]
    fn sizes_in_powers_of_1024() {
        use super::parse_bytes;
        assert_eq!(parse_bytes("123"), Ok(123));
        assert_eq!(parse_bytes("64K"), Ok(64 << 10));
        assert_eq!(parse_bytes("1.5G"), Ok(3 << 29));
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes(" 512MB "), Ok(512 << 20));
        for bad in ["", "0", "-1", "1X", "M", "1e30T"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }
}
