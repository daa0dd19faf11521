//! What the host has: its memory as Linux reports it, for the checks made before a limit is
//! hit (the candidate space's budget, mapping a binary graph instead of reading it).

/// Memory the system can still give this process (Linux `MemAvailable`), if known.
pub fn available_memory() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// The host's physical memory (Linux `MemTotal`), if known.
pub fn total_memory() -> Option<u64> {
    meminfo("MemTotal:")
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
