//! Reports of benchmark runs: statistics per query class ([`summarize`]), the pairing of two
//! runs and their geometric-mean ratio, the Markdown summary and the SVG plot of sorted
//! per-query times.

use super::results::{csv_field, median, natural_cmp, QueryResult, Status};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Statistics of one class's elapsed times. Timed-out queries count at their elapsed time (about
/// the timeout), so the statistics are lower bounds when any query timed out.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSummary {
    pub class: String,
    pub queries: usize,
    pub solved: usize,
    pub timed_out: usize,
    pub median_ms: f64,
    pub mean_ms: f64,
    pub p95_ms: f64,
    pub total_ms: f64,
    pub peak_rss_bytes: u64,
    /// The largest (peak RSS − the resident bytes before the graph was loaded) / (2 × graph
    /// bytes + space bytes) over the class's queries, given the [`Memory`]: the engine's memory
    /// bound (issue 2) holds when it is at most 1.
    pub memory_ratio: Option<f64>,
}

/// What the memory ratio is measured against: the data graph's bytes in memory, and the
/// process's resident bytes before the graph was loaded (the program, its libraries and
/// threads), which the peaks include and the bound is not about.
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    pub graph_bytes: u64,
    pub base_rss_bytes: u64,
}

/// The nearest-rank percentile `p` (0 < p <= 100) of `xs`: the smallest value with at least p%
/// of the values at or below it.
pub fn percentile(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// One summary per class, classes in natural order, then an `all` line. `memory` gives each
/// class its memory ratio.
pub fn summarize(results: &[QueryResult], memory: Option<Memory>) -> Vec<ClassSummary> {
    let mut classes: Vec<&str> = results.iter().map(|r| r.class.as_str()).collect();
    classes.sort_by(|a, b| natural_cmp(a, b));
    classes.dedup();
    let one = |class: &str, rs: Vec<&QueryResult>| {
        let mut t: Vec<f64> = rs.iter().map(|r| r.elapsed_ms).collect();
        let total: f64 = t.iter().sum();
        ClassSummary {
            class: class.to_string(),
            queries: rs.len(),
            solved: rs.iter().filter(|r| r.status.solved()).count(),
            timed_out: rs.iter().filter(|r| r.status == Status::Timeout).count(),
            p95_ms: percentile(&t, 95.0),
            median_ms: median(&mut t),
            mean_ms: total / rs.len().max(1) as f64,
            total_ms: total,
            peak_rss_bytes: rs.iter().map(|r| r.peak_rss_bytes).max().unwrap_or(0),
            memory_ratio: memory.map(|m| {
                let used = |r: &QueryResult| r.peak_rss_bytes.saturating_sub(m.base_rss_bytes) as f64;
                rs.iter().map(|r| used(r) / (2 * m.graph_bytes + r.space_bytes) as f64).fold(0.0, f64::max)
            }),
        }
    };
    let mut out: Vec<ClassSummary> =
        classes.iter().map(|&c| one(c, results.iter().filter(|r| r.class == c).collect())).collect();
    if classes.len() > 1 {
        out.push(one("all", results.iter().collect()));
    }
    out
}

/// One query present in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub query: String,
    pub class: String,
    pub this_ms: f64,
    pub other_ms: f64,
    pub this_status: Status,
    pub other_status: Status,
}

impl Pair {
    /// other / this elapsed time.
    pub fn ratio(&self) -> f64 {
        self.other_ms / self.this_ms
    }

    pub fn both_solved(&self) -> bool {
        self.this_status.solved() && self.other_status.solved()
    }
}

/// Pairs this run's queries with the other run's: by the same query path, else by the same file
/// name when it is unique in the other run. Queries of this run absent from the other are left
/// out.
pub fn pair_runs(this: &[QueryResult], other: &[QueryResult]) -> Vec<Pair> {
    let by_path: HashMap<&str, &QueryResult> = other.iter().map(|r| (r.query.as_str(), r)).collect();
    let base = |q: &str| q.rsplit(['/', '\\']).next().unwrap_or(q).to_string();
    let mut by_name: HashMap<String, Option<&QueryResult>> = HashMap::new();
    for r in other {
        by_name.entry(base(&r.query)).and_modify(|e| *e = None).or_insert(Some(r));
    }
    this.iter()
        .filter_map(|r| {
            let o =
                by_path.get(r.query.as_str()).copied().or_else(|| by_name.get(&base(&r.query)).copied().flatten())?;
            Some(Pair {
                query: r.query.clone(),
                class: r.class.clone(),
                this_ms: r.elapsed_ms,
                other_ms: o.elapsed_ms,
                this_status: r.status,
                other_status: o.status,
            })
        })
        .collect()
}

/// The geometric mean of other/this over the pairs solved by both with positive times; None
/// when there is no such pair.
pub fn geomean_ratio<'a>(pairs: impl IntoIterator<Item = &'a Pair>) -> Option<f64> {
    let logs: Vec<f64> = pairs
        .into_iter()
        .filter(|p| p.both_solved() && p.this_ms > 0.0 && p.other_ms > 0.0)
        .map(|p| p.ratio().ln())
        .collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// The pairs as CSV: query, class, both times, other/this, both statuses.
pub fn comparison_csv(pairs: &[Pair], this_label: &str, other_label: &str) -> String {
    let mut s = format!(
        "query,class,{0}_ms,{1}_ms,ratio_{1}_over_{0},{0}_status,{1}_status\n",
        csv_field(this_label),
        csv_field(other_label)
    );
    let status = |st: Status| {
        if st == Status::Complete {
            "complete"
        } else {
            st.stopped_name()
        }
    };
    for p in pairs {
        let _ = writeln!(
            s,
            "{},{},{:.3},{:.3},{:.4},{},{}",
            csv_field(&p.query),
            csv_field(&p.class),
            p.this_ms,
            p.other_ms,
            p.ratio(),
            status(p.this_status),
            status(p.other_status)
        );
    }
    s
}

/// What a summary shows besides the results.
pub struct SummaryInput<'a> {
    pub title: &'a str,
    /// `key: value` lines shown under the title (data graph, options, machine ...).
    pub facts: &'a [(String, String)],
    pub results: &'a [QueryResult],
    /// What the memory-ratio column measures against.
    pub memory: Option<Memory>,
    /// The other run's label and the paired queries, with --compare.
    pub compare: Option<(&'a str, &'a [Pair])>,
}

fn ms(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The Markdown summary: a table per class, the queries that did not finish with their partial
/// counts, and with a comparison the geometric mean of other/this per class.
pub fn render_summary(s: &SummaryInput) -> String {
    let mut md = format!("# {}\n\n", s.title);
    for (k, v) in s.facts {
        let _ = writeln!(md, "- {k}: {v}");
    }
    md.push_str(
        "\nTimes in ms, graph loading excluded. Solved: complete, or stopped at the embedding limit. \
         Timed-out queries count at their elapsed time (about the timeout), so statistics of a class \
         with timeouts are lower bounds. Peak RSS is the process's high-water mark (VmHWM, data graph \
         included), the largest over the class's queries; memory ratio is the largest (peak RSS − the \
         resident size before the data graph was loaded) / (2 × data graph + the query's candidate space), \
         at most 1 when memory stays within that bound. On graphs of a few MiB the allocator's retained \
         pages and the threads' stacks (a few MiB) dominate and it exceeds 1 (1.75 on HPRD's 0.9 MiB; 0.52 on \
         an R-MAT graph of 10^7 edges).\n\n",
    );
    md.push_str(
        "| class | queries | solved | timed out | median | mean | p95 | total | peak RSS MiB | memory ratio |\n",
    );
    md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for c in summarize(s.results, s.memory) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {} |",
            c.class,
            c.queries,
            c.solved,
            c.timed_out,
            ms(c.median_ms),
            ms(c.mean_ms),
            ms(c.p95_ms),
            ms(c.total_ms),
            c.peak_rss_bytes as f64 / (1 << 20) as f64,
            c.memory_ratio.map_or("-".to_string(), |r| format!("{r:.2}"))
        );
    }
    let unfinished: Vec<&QueryResult> = s.results.iter().filter(|r| !r.status.solved()).collect();
    if !unfinished.is_empty() {
        let _ = writeln!(md, "\n## Not finished ({})\n", unfinished.len());
        md.push_str("| query | status | partial embeddings | elapsed |\n|---|---|---:|---:|\n");
        for r in unfinished {
            let _ =
                writeln!(md, "| {} | {} | {} | {} |", r.query, r.status.stopped_name(), r.embeddings, ms(r.elapsed_ms));
        }
    }
    if let Some((other, pairs)) = s.compare {
        let _ = writeln!(
            md,
            "\n## Compared with {other}\n\nRatio = {other} time / this time (above 1: this run is faster); \
             geometric mean over the queries solved by both.\n"
        );
        md.push_str("| class | paired | solved by both | geomean ratio |\n|---|---:|---:|---:|\n");
        let mut classes: Vec<&str> = pairs.iter().map(|p| p.class.as_str()).collect();
        classes.sort_by(|a, b| natural_cmp(a, b));
        classes.dedup();
        let line = |md: &mut String, class: &str, ps: Vec<&Pair>| {
            let both = ps.iter().filter(|p| p.both_solved()).count();
            let g = geomean_ratio(ps.iter().copied()).map_or("-".to_string(), |g| format!("{g:.3}"));
            let _ = writeln!(md, "| {class} | {} | {both} | {g} |", ps.len());
        };
        for &c in &classes {
            line(&mut md, c, pairs.iter().filter(|p| p.class == c).collect());
        }
        line(&mut md, "all", pairs.iter().collect());
    }
    md
}

pub(crate) const COLORS: &[&str] = &["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];

pub(crate) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An SVG plot of each series' per-query times sorted ascending (x: query rank, y: ms on a log
/// scale), one polyline per series, with axis labels and a legend.
pub fn render_svg(title: &str, series: &[(String, Vec<f64>)]) -> String {
    let (w, h) = (800.0, 500.0);
    let (left, right, top, bottom) = (80.0, 20.0, 40.0, 60.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let floor = 1e-3;
    let all = series.iter().flat_map(|(_, v)| v.iter().map(|&x| x.max(floor)));
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (lo_exp, hi_exp) = if lo.is_finite() {
        (lo.log10().floor() as i32, (hi.log10().ceil() as i32).max(lo.log10().floor() as i32 + 1))
    } else {
        (0, 1)
    };
    let max_n = series.iter().map(|(_, v)| v.len()).max().unwrap_or(0).max(2);
    let x_of = |i: usize| left + pw * i as f64 / (max_n - 1) as f64;
    let y_of = |v: f64| top + ph * (1.0 - (v.max(floor).log10() - lo_exp as f64) / (hi_exp - lo_exp) as f64);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
        w / 2.0,
        xml_escape(title)
    );
    for e in lo_exp..=hi_exp {
        let y = y_of(10f64.powi(e));
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">1e{e}</text>",
            left + pw,
            left - 6.0,
            y + 4.0
        );
    }
    for k in 0..=4 {
        let i = (max_n - 1) * k / 4;
        let _ =
            writeln!(s, "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>", x_of(i), top + ph + 18.0, i + 1);
    }
    let _ = writeln!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">queries, sorted by time (rank)</text>\n\
         <text x=\"18\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">elapsed time (ms, log scale)</text>",
        left + pw / 2.0,
        h - 16.0,
        top + ph / 2.0,
        top + ph / 2.0
    );
    for (k, (name, values)) in series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let mut v = values.clone();
        v.sort_by(f64::total_cmp);
        let points: Vec<String> =
            v.iter().enumerate().map(|(i, &t)| format!("{:.1},{:.1}", x_of(i), y_of(t))).collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"/>",
            points.join(" ")
        );
        let ly = top + 16.0 + 18.0 * k as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{ly}\" x2=\"{1}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"3\"/>\
             <text x=\"{2}\" y=\"{3}\">{4} ({5} queries)</text>",
            left + 12.0,
            left + 36.0,
            left + 42.0,
            ly + 4.0,
            xml_escape(name),
            values.len()
        );
    }
    s.push_str("</svg>\n");
    s
}
