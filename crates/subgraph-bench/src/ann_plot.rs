//! The recall–throughput plot of vector search, drawn the way the ANN benchmarks draw theirs:
//! recall@k on x, queries per second on a log scale on y, one line per system through its
//! sweep of the exploration bound. Plain SVG, no dependencies.

use std::fmt::Write;

use crate::runner::report::{xml_escape, COLORS};

/// One system's sweep: (recall, queries per second) points.
pub struct Curve {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// The SVG of `curves` under `title`, x labelled `x_label` (e.g. `recall@10`).
pub fn render_recall_svg(title: &str, x_label: &str, curves: &[Curve]) -> String {
    let (w, h) = (800.0, 500.0);
    let (left, right, top, bottom) = (80.0, 20.0, 40.0, 60.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let all = || curves.iter().flat_map(|c| c.points.iter().copied());
    let min_recall = all().map(|(r, _)| r).fold(1.0f64, f64::min).clamp(0.0, 0.99);
    let x_lo = (min_recall * 20.0).floor() / 20.0;
    let (lo, hi) = all().map(|(_, q)| q.max(1e-3)).fold((f64::INFINITY, 0.0f64), |(lo, hi), q| (lo.min(q), hi.max(q)));
    let (lo_exp, hi_exp) = if lo.is_finite() {
        let l = lo.log10().floor() as i32;
        (l, (hi.log10().ceil() as i32).max(l + 1))
    } else {
        (0, 1)
    };
    let x_of = |r: f64| left + pw * (r - x_lo) / (1.0 - x_lo);
    let y_of = |q: f64| top + ph * (1.0 - (q.max(1e-3).log10() - lo_exp as f64) / (hi_exp - lo_exp) as f64);
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
    let steps = ((1.0 - x_lo) / 0.05).round() as usize;
    for i in 0..=steps {
        let r = x_lo + 0.05 * i as f64;
        let x = x_of(r);
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#eee\"/>\
             <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{r:.2}</text>",
            top + ph,
            top + ph + 18.0
        );
    }
    let _ = writeln!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n\
         <text x=\"18\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">queries per second (log scale)</text>",
        left + pw / 2.0,
        h - 16.0,
        xml_escape(x_label),
        top + ph / 2.0,
        top + ph / 2.0
    );
    for (k, curve) in curves.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let mut points = curve.points.clone();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let coords: Vec<String> = points.iter().map(|&(r, q)| format!("{:.1},{:.1}", x_of(r), y_of(q))).collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"/>",
            coords.join(" ")
        );
        for c in &coords {
            let (x, y) = c.split_once(',').expect("x,y");
            let _ = writeln!(s, "<circle cx=\"{x}\" cy=\"{y}\" r=\"2.5\" fill=\"{color}\"/>");
        }
        let ly = top + 16.0 + 18.0 * k as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{ly}\" x2=\"{1}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"3\"/>\
             <text x=\"{2}\" y=\"{3}\">{4}</text>",
            left + 12.0,
            left + 36.0,
            left + 42.0,
            ly + 4.0,
            xml_escape(&curve.name)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_point_is_drawn_inside_the_frame() {
        let curves = [
            Curve { name: "a & b".into(), points: vec![(0.9, 1e5), (0.99, 2e4), (0.999, 5e3)] },
            Curve { name: "c".into(), points: vec![(0.95, 3e4)] },
        ];
        let svg = render_recall_svg("t", "recall@10", &curves);
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("a &amp; b") && svg.ends_with("</svg>\n"));
        for c in svg.lines().filter(|l| l.starts_with("<circle")) {
            let num = |key: &str| -> f64 {
                let at = c.find(key).unwrap() + key.len();
                c[at..].split('"').next().unwrap().parse().unwrap()
            };
            let (x, y) = (num("cx=\""), num("cy=\""));
            assert!((80.0..=780.0).contains(&x) && (40.0..=440.0).contains(&y), "{c}");
        }
    }
}
