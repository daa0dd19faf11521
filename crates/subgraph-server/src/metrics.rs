//! `GET /metrics` in Prometheus' text format: requests by route and status, their latency
//! (a histogram by route, to the response's head), errors by code, the queries queued and
//! running now, and by GPU its faults and its engines reopened, with those out of service now.

use crate::pool::{lock, DeviceCounts};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

/// Upper bounds of the latency histogram's buckets, in seconds.
const BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0];

/// One route's latencies: counts per bucket (not cumulative), the sum and the count.
#[derive(Default, Clone)]
struct Histogram {
    buckets: [u64; BUCKETS.len()],
    sum: f64,
    count: u64,
}

#[derive(Default)]
struct Counts {
    requests: BTreeMap<(String, u16), u64>,
    latency: BTreeMap<String, Histogram>,
    errors: BTreeMap<&'static str, u64>,
}

/// The server's counters.
#[derive(Default)]
pub struct Metrics {
    counts: Mutex<Counts>,
}

/// What the gauges read now.
pub struct Gauges {
    pub queued: usize,
    pub running: usize,
    pub graphs: usize,
    /// By GPU ordinal: faults, and graphs' engines reopened after them.
    pub devices: BTreeMap<usize, DeviceCounts>,
    /// Graphs' GPU engines out of service now (being reopened).
    pub degraded: usize,
    /// This process's generation under the supervisor (0 where it has none).
    pub generation: u64,
}

impl Metrics {
    /// Counts a request to `route` answered with `status` after `secs`, with the error `code`
    /// where it failed.
    pub fn record(&self, route: &str, status: u16, secs: f64, code: Option<&'static str>) {
        let mut c = lock(&self.counts);
        *c.requests.entry((route.to_string(), status)).or_default() += 1;
        let h = c.latency.entry(route.to_string()).or_default();
        if let Some(i) = BUCKETS.iter().position(|&b| secs <= b) {
            h.buckets[i] += 1;
        }
        h.sum += secs;
        h.count += 1;
        if let Some(code) = code {
            *c.errors.entry(code).or_default() += 1;
        }
    }

    /// The text `GET /metrics` answers.
    pub fn render(&self, gauges: &Gauges) -> String {
        let c = lock(&self.counts);
        let mut out = String::new();
        let _ = writeln!(out, "# HELP subgraph_requests_total Requests answered, by route and status.");
        let _ = writeln!(out, "# TYPE subgraph_requests_total counter");
        for ((route, status), n) in &c.requests {
            let _ = writeln!(out, "subgraph_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}");
        }
        let _ = writeln!(out, "# HELP subgraph_request_duration_seconds Time to the response's head, by route.");
        let _ = writeln!(out, "# TYPE subgraph_request_duration_seconds histogram");
        for (route, h) in &c.latency {
            let mut cumulative = 0;
            for (bound, n) in BUCKETS.iter().zip(h.buckets) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "subgraph_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ =
                writeln!(out, "subgraph_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}", h.count);
            let _ = writeln!(out, "subgraph_request_duration_seconds_sum{{route=\"{route}\"}} {}", h.sum);
            let _ = writeln!(out, "subgraph_request_duration_seconds_count{{route=\"{route}\"}} {}", h.count);
        }
        let _ = writeln!(out, "# HELP subgraph_errors_total Error responses, by code.");
        let _ = writeln!(out, "# TYPE subgraph_errors_total counter");
        for (code, n) in &c.errors {
            let _ = writeln!(out, "subgraph_errors_total{{code=\"{code}\"}} {n}");
        }
        for (name, help, value) in [
            ("subgraph_queue_length", "Queries waiting for a turn.", gauges.queued as u64),
            ("subgraph_queries_in_flight", "Queries running.", gauges.running as u64),
            ("subgraph_graphs", "Graphs served.", gauges.graphs as u64),
            (
                "subgraph_devices_degraded",
                "Graphs' GPU engines out of service, being reopened after a fault.",
                gauges.degraded as u64,
            ),
            (
                "subgraph_server_generation",
                "The serving process's generation: new processes taken over since the server started.",
                gauges.generation,
            ),
        ] {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} gauge");
            let _ = writeln!(out, "{name} {value}");
        }
        for (name, help, count) in [
            (
                "subgraph_device_faults_total",
                "Faults that poisoned a GPU's context, by device.",
                (|c: &DeviceCounts| c.faults) as fn(&DeviceCounts) -> u64,
            ),
            (
                "subgraph_device_reopens_total",
                "Reopenings after a fault (graphs' engines here, or the device by a new process), by device.",
                |c| c.reopened,
            ),
        ] {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} counter");
            for (device, c) in &gauges.devices {
                let _ = writeln!(out, "{name}{{device=\"{device}\"}} {}", count(c));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_a_cumulative_histogram() {
        let m = Metrics::default();
        m.record("/v1/health", 200, 0.0005, None);
        m.record("/v1/health", 200, 0.2, None);
        m.record("/v1/graphs/{name}/match", 404, 0.002, Some("unknown_graph"));
        let devices = BTreeMap::from([(0, DeviceCounts { faults: 2, reopened: 1 }), (1, DeviceCounts::default())]);
        let text = m.render(&Gauges { queued: 2, running: 1, graphs: 3, devices, degraded: 1, generation: 2 });
        for line in [
            "subgraph_requests_total{route=\"/v1/health\",status=\"200\"} 2",
            "subgraph_requests_total{route=\"/v1/graphs/{name}/match\",status=\"404\"} 1",
            "subgraph_request_duration_seconds_bucket{route=\"/v1/health\",le=\"0.001\"} 1",
            "subgraph_request_duration_seconds_bucket{route=\"/v1/health\",le=\"0.25\"} 2",
            "subgraph_request_duration_seconds_bucket{route=\"/v1/health\",le=\"+Inf\"} 2",
            "subgraph_request_duration_seconds_count{route=\"/v1/health\"} 2",
            "subgraph_errors_total{code=\"unknown_graph\"} 1",
            "subgraph_queue_length 2",
            "subgraph_queries_in_flight 1",
            "subgraph_graphs 3",
            "subgraph_devices_degraded 1",
            "subgraph_server_generation 2",
            "subgraph_device_faults_total{device=\"0\"} 2",
            "subgraph_device_reopens_total{device=\"0\"} 1",
            "subgraph_device_faults_total{device=\"1\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line} in\n{text}");
        }
    }
}
