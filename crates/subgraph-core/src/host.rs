//! What the host has: its memory as Linux reports it, for the checks made before a limit is
//! hit (the candidate space's budget, mapping a binary graph instead of reading it), and byte
//! counts as the messages about those limits write them.

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

/// A field of /proc/meminfo, in bytes.
fn meminfo(key: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn available_is_at_most_total_where_both_are_known() {
        if let (Some(a), Some(t)) = (super::available_memory(), super::total_memory()) {
            assert!(a <= t && t > 0, "available {a}, total {t}");
        }
    }
}
