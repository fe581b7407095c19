//! The outputs: the markdown report (`docs/bench/walk.md`), the latency-by-depth SVG plot
//! (`docs/bench/walk.svg`) and the raw numbers as JSON (`target/bench-walk.json`).

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::concurrency::Concurrency;
use crate::measure::{Runs, Walk, max_docs};
use crate::{
    CASES, CONC_PAGES, CONC_TIME, LIMIT, MAX_ITEMS, RAW_RUNS, RTT_CALLS, median, on_off, quantile,
};

fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(|| "?".into(), |k| format!("{:.1}", k as f64 / 1024.0))
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "**no**" }
}

/// The markdown report.
pub(crate) fn report(header: &str, runs: &Runs, conc: &[Concurrency]) -> String {
    let mut o = String::new();
    let walks = &runs.proxied;
    let (rtt_on, rtt_off) = (&runs.on.rtt, &runs.off.rtt);
    let rt_on = median(rtt_on);
    let rt_off = median(rtt_off);
    o.push_str(header);
    let _ = writeln!(o, "\n## Queries\n");
    for c in &CASES {
        let _ = writeln!(o, "- `{}` {}=`{}`: {}", c.tool, c.key, c.query, c.why);
    }
    let _ = writeln!(
        o,
        "\n## No-Zoekt round trip\n\n`search_symbols` with `limit: 0` (refused before Zoekt), \
         median of {RTT_CALLS} calls: **{rt_on:.3} ms** on the cache-on server, {rt_off:.3} ms \
         on the cache-off server (p90 {:.3} / {:.3} ms); {:.3} ms on the cache-on server \
         without the proxy.",
        quantile(rtt_on, 0.9),
        quantile(rtt_off, 0.9),
        median(&runs.direct.rtt)
    );

    let _ = writeln!(
        o,
        "\n## Walks: limit {LIMIT}, up to {MAX_ITEMS} items\n\n\
         Zoekt requests: /api/search requests the proxy saw during the walk, plus (after `+`) \
         background prefetches that finished after its last page. Raw deepest: the walk's \
         biggest /api/search body replayed straight to Zoekt ({RAW_RUNS} runs, median; \
         `find_references`: its two queries' biggest, summed); \"via proxy\": the same through \
         the recording proxy the server talks to.\n"
    );
    let _ = writeln!(
        o,
        "| tool | cache | pages | items | Zoekt requests | biggest MaxDocDisplayCount | walk ms | page 1 ms | page 10 ms | last page ms | raw deepest ms | via proxy ms |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for w in walks {
        let _ = writeln!(
            o,
            "| {} | {} | {}{} | {} | {} + {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            w.tool,
            on_off(w.cache_on),
            w.pages.len(),
            if w.reached_end { " (end)" } else { "" },
            w.items,
            w.bodies.len(),
            w.trailing.len(),
            w.biggest_window(),
            w.walk_ms,
            w.page_ms(1),
            w.page_ms(10),
            w.pages.last().map_or(f64::NAN, |p| p.ms),
            w.raw_ms(),
            w.raw_via_proxy_ms(),
        );
    }
    let _ = writeln!(
        o,
        "\nWindows (MaxDocDisplayCount) the cache-on walks sent, in order, with the page \
         during which each finished:\n"
    );
    for w in walks.iter().filter(|w| w.cache_on) {
        let mut sent = w.bodies.iter();
        let mut parts = Vec::new();
        for (i, p) in w.pages.iter().enumerate() {
            for b in sent.by_ref().take(p.requests) {
                parts.push(format!("{} (page {})", max_docs(b), i + 1));
            }
        }
        let _ = writeln!(o, "- `{}`: {}", w.tool, parts.join(", "));
    }

    let _ = writeln!(
        o,
        "\n## Against the targets (cache on)\n\n\
         Bound: `2 x (raw deepest + pages x round trip)`, round trip {rt_on:.3} ms, where raw \
         deepest is this walk's biggest window. Strict bound: the same with the deepest window \
         of the cache-off walk instead, the window the last page itself needs (smaller when \
         the cache fetched ahead in one big step). Walk ms: \
         through the counting proxy (as in the table above); no proxy: the same walk on a \
         fresh cache-on server talking to Zoekt directly, run after the proxied ones. Cached \
         pages: cache-on pages during which the proxy saw no /api/search request finish; \
         overhead: page latency minus the round trip median.\n"
    );
    let _ = writeln!(
        o,
        "| tool | Zoekt requests | <= 12 | walk ms | no proxy ms | bound ms | within bound (proxy / no proxy) | strict bound ms | within strict bound (no proxy) | cache-off walk ms | speedup | cached pages | cached page overhead ms (median / p90) |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut all_overheads = Vec::new();
    for w in walks.iter().filter(|w| w.cache_on) {
        let off_walk = walks.iter().find(|x| !x.cache_on && x.tool == w.tool);
        let off = off_walk.map_or(f64::NAN, |x| x.walk_ms);
        let strict = off_walk.map_or(f64::NAN, |x| {
            2.0 * (x.raw_ms() + w.pages.len() as f64 * rt_on)
        });
        let direct = runs
            .direct
            .walks
            .iter()
            .find(|x| x.tool == w.tool)
            .map_or(f64::NAN, |x| x.walk_ms);
        let bound = 2.0 * (w.raw_ms() + w.pages.len() as f64 * rt_on);
        let overheads: Vec<f64> = w
            .pages
            .iter()
            .filter(|p| p.requests == 0)
            .map(|p| p.ms - rt_on)
            .collect();
        all_overheads.extend(overheads.iter().copied());
        let _ = writeln!(
            o,
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {} / {} | {:.0} | {} | {:.0} | {:.1}x | {} of {} | {:.3} / {:.3} |",
            w.tool,
            w.requests(),
            yes_no(w.requests() <= 12),
            w.walk_ms,
            direct,
            bound,
            yes_no(w.walk_ms <= bound),
            yes_no(direct <= bound),
            strict,
            yes_no(direct <= strict),
            off,
            off / w.walk_ms,
            overheads.len(),
            w.pages.len(),
            median(&overheads),
            quantile(&overheads, 0.9),
        );
    }
    let _ = writeln!(
        o,
        "\nAll tools: a page served from the cache adds **{:.3} ms** (median over {} pages; \
         p90 {:.3} ms) over the no-Zoekt round trip.",
        median(&all_overheads),
        all_overheads.len(),
        quantile(&all_overheads, 0.9)
    );
    let _ = writeln!(
        o,
        "\nWalk servers' peak RSS (`VmHWM`): cache on {} MiB (window cache holding {} MiB after \
         the five walks), cache off {} MiB.",
        mib(runs.on.peak_rss_kib),
        runs.on
            .cache_bytes
            .map_or_else(|| "?".into(), |b| format!("{:.1}", b as f64 / 1048576.0)),
        mib(runs.off.peak_rss_kib),
    );
    let warned: Vec<&Walk> = walks.iter().filter(|w| !w.warnings.is_empty()).collect();
    if !warned.is_empty() {
        let _ = writeln!(o, "\nPage warnings seen:\n");
        for w in warned {
            for x in &w.warnings {
                let _ = writeln!(o, "- `{}` cache {}: {x}", w.tool, on_off(w.cache_on));
            }
        }
    }

    let _ = writeln!(
        o,
        "\n## Concurrency: `search_symbols` `{}`, limit {LIMIT}, pages 1-{CONC_PAGES} over and over, {} s per setting\n\n\
         Every client is its own MCP session over HTTP, all walking the same query; a fresh \
         server per setting. Peak RSS: the server's `VmHWM` after the run (RSS at start in \
         parentheses).\n",
        CASES[0].query,
        CONC_TIME.as_secs()
    );
    let _ = writeln!(
        o,
        "| cache | clients | pages | pages/s | p50 ms | p99 ms | Zoekt requests | peak RSS MiB | under 128 MiB |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|");
    for c in conc {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {} | {} ({}) | {} |",
            on_off(c.cache_on),
            c.clients,
            c.pages,
            c.pages as f64 / c.secs,
            median(&c.latencies),
            quantile(&c.latencies, 0.99),
            c.requests,
            mib(c.peak_rss_kib),
            mib(c.rss_start_kib),
            c.peak_rss_kib.map_or("?", |k| yes_no(k < 128 * 1024)),
        );
    }
    o
}

/// Latency by page depth, one line per tool, a panel per cache setting, log-scale y.
pub(crate) fn svg(walks: &[Walk]) -> String {
    const COLORS: [&str; 5] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];
    let (w, h) = (1000.0, 470.0);
    let (pw, ph) = (400.0, 330.0);
    let top = 60.0;
    let lefts = [80.0, 560.0];
    let max_page = walks
        .iter()
        .map(|w| w.pages.len())
        .max()
        .unwrap_or(1)
        .max(2) as f64;
    let all: Vec<f64> = walks
        .iter()
        .flat_map(|w| w.pages.iter().map(|p| p.ms))
        .filter(|v| *v > 0.0)
        .collect();
    let lo = all
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .log10()
        .floor();
    let hi = all
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .log10()
        .ceil()
        .max(lo + 1.0);
    let x = |left: f64, page: f64| left + (page - 1.0) / (max_page - 1.0) * pw;
    let y = |v: f64| top + ph - (v.max(1e-9).log10() - lo) / (hi - lo) * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="15">zoekt-pager page latency by depth (limit {LIMIT}, real Zoekt, 12,000-file corpus)</text>"#,
        w / 2.0
    );
    for (panel, cache_on) in [true, false].into_iter().enumerate() {
        let left = lefts[panel];
        let title = if cache_on {
            "window cache on (defaults)"
        } else {
            "window cache off (--cache-bytes 0)"
        };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-size="13">{title}</text>"#,
            left + pw / 2.0,
            top - 10.0
        );
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##
        );
        let mut e = lo as i32;
        while e <= hi as i32 {
            let v = 10f64.powi(e);
            let yy = y(v);
            let label = if e < 0 {
                format!("{v:.*}", (-e) as usize)
            } else {
                format!("{v:.0}")
            };
            let _ = writeln!(
                s,
                r##"<line x1="{left}" y1="{yy:.1}" x2="{}" y2="{yy:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
                left + pw,
                left - 6.0,
                yy + 4.0
            );
            e += 1;
        }
        let mut tick = 0usize;
        while tick as f64 <= max_page {
            let page = (tick.max(1)) as f64;
            let xx = x(left, page);
            let _ = writeln!(
                s,
                r##"<line x1="{xx:.1}" y1="{}" x2="{xx:.1}" y2="{}" stroke="#444"/><text x="{xx:.1}" y="{}" text-anchor="middle">{}</text>"##,
                top + ph,
                top + ph + 5.0,
                top + ph + 18.0,
                page as usize
            );
            tick += 20;
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">page number</text>"#,
            left + pw / 2.0,
            top + ph + 36.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">latency ms (log)</text>"#,
            left - 50.0,
            top + ph / 2.0,
            left - 50.0,
            top + ph / 2.0
        );
        for (i, wk) in walks.iter().filter(|w| w.cache_on == cache_on).enumerate() {
            let pts: Vec<String> = wk
                .pages
                .iter()
                .enumerate()
                .map(|(n, p)| format!("{:.1},{:.1}", x(left, n as f64 + 1.0), y(p.ms)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
                COLORS[i % COLORS.len()],
                pts.join(" ")
            );
        }
    }
    for (i, c) in CASES.iter().enumerate() {
        let lx = 80.0 + i as f64 * 180.0;
        let ly = h - 22.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            lx + 24.0,
            COLORS[i % COLORS.len()],
            lx + 30.0,
            ly + 4.0,
            c.tool
        );
    }
    s.push_str("</svg>\n");
    s
}

pub(crate) fn json_report(header: &Value, runs: &Runs, conc: &[Concurrency]) -> Value {
    let walks: Vec<Value> = runs
        .proxied
        .iter()
        .chain(&runs.direct.walks)
        .map(|w| {
            json!({
                "tool": w.tool,
                "query": w.query,
                "cache": on_off(w.cache_on),
                "via_proxy": w.proxied,
                "items": w.items,
                "reached_end": w.reached_end,
                "walk_ms": w.walk_ms,
                "pages": w.pages.iter().enumerate().map(|(i, p)| json!({
                    "page": i + 1, "ms": p.ms, "items": p.items, "zoekt_requests": p.requests,
                })).collect::<Vec<_>>(),
                "zoekt_requests": w.bodies.len(),
                "zoekt_requests_after_last_page": w.trailing.len(),
                "windows_sent": w.bodies.iter().map(|b| json!({"Q": b["Q"], "MaxDocDisplayCount": max_docs(b)})).collect::<Vec<_>>(),
                "windows_after_last_page": w.trailing.iter().map(|b| json!({"Q": b["Q"], "MaxDocDisplayCount": max_docs(b)})).collect::<Vec<_>>(),
                "raw_deepest": w.raw.iter().map(|r| json!({
                    "Q": r.query, "MaxDocDisplayCount": r.max_docs,
                    "direct_ms": r.direct_ms, "via_proxy_ms": r.via_proxy_ms,
                })).collect::<Vec<_>>(),
                "raw_deepest_ms": w.raw_ms(),
                "cache_counters": w.cache_counters,
                "warnings": w.warnings,
            })
        })
        .collect();
    let conc: Vec<Value> = conc
        .iter()
        .map(|c| {
            json!({
                "cache": on_off(c.cache_on),
                "clients": c.clients,
                "pages": c.pages,
                "secs": c.secs,
                "pages_per_sec": c.pages as f64 / c.secs,
                "p50_ms": median(&c.latencies),
                "p99_ms": quantile(&c.latencies, 0.99),
                "zoekt_requests": c.requests,
                "rss_start_kib": c.rss_start_kib,
                "peak_rss_kib": c.peak_rss_kib,
                "latencies_ms": c.latencies,
            })
        })
        .collect();
    json!({
        "setup": header,
        "round_trip_ms": {"on": runs.on.rtt, "off": runs.off.rtt, "on_no_proxy": runs.direct.rtt},
        "walk_servers": {
            "on": {"peak_rss_kib": runs.on.peak_rss_kib, "cache_bytes": runs.on.cache_bytes},
            "off": {"peak_rss_kib": runs.off.peak_rss_kib},
            "on_no_proxy": {"peak_rss_kib": runs.direct.peak_rss_kib, "cache_bytes": runs.direct.cache_bytes},
        },
        "walks": walks,
        "concurrency": conc,
    })
}
