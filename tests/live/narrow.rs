//! Suggested ways to narrow a broad result (docs/narrowing.md): through the
//! real binary over stdio (rmcp's client) against the real Zoekt on the generated corpus
//! (six repositories, three languages, `pkgNNN/` directories).
//!
//! Each suggestion is taken at its word: called as the same tool with the argument it names,
//! it must be accepted and return items, and raw Zoekt (not the code under test) must count
//! fewer results for it than for the original query; the best one at least three times
//! fewer; and its count must be what it says: the results (file listings) or the files
//! holding them (lines, symbols, references) that raw Zoekt finds, exactly, about, or at
//! least. Suggestions never change a walk: pages with them on and off hold the same items
//! and cursors.

use crate::support;

use serde_json::{Value, json};
use support::mcp::*;

mod levels;

/// Raw Zoekt's counts for `q` (files, matches), with the pager's per-shard cap: the truth a
/// narrowed query's total is held against. Every file searched, unless `capped` (a query past
/// the per-shard cap: its matches are what the caps let Zoekt find, as the pager's own are,
/// and its files are counted by a search of names only, which reaches every one of them).
async fn raw_counts_capped(url: &str, q: &str, capped: bool) -> (u64, u64) {
    if capped {
        let (_, matches) = raw_search(url, q, true).await;
        let (files, _) = raw_search(url, &format!("type:file {q}"), false).await;
        return (files, matches);
    }
    raw_search(url, q, false).await
}

/// Raw Zoekt's (FileCount, MatchCount) for `q`; whole unless `capped`.
async fn raw_search(url: &str, q: &str, capped: bool) -> (u64, u64) {
    let body = json!({
        "Q": q,
        "Opts": {"MaxDocDisplayCount": 1, "ShardMaxMatchCount": 10_000,
                 "MaxWallTime": 10_000_000_000u64}
    });
    let r: Value = reqwest::Client::new()
        .post(format!("{url}/api/search"))
        .json(&body)
        .send()
        .await
        .expect("raw Zoekt")
        .json()
        .await
        .expect("raw Zoekt's JSON");
    let r = &r["Result"];
    if capped {
        return (
            r["FileCount"].as_u64().expect("FileCount"),
            r["MatchCount"].as_u64().expect("MatchCount"),
        );
    }
    assert_eq!(r["FilesSkipped"], json!(0), "{q}: raw truth must be whole");
    assert_eq!(r["ShardsSkipped"], json!(0), "{q}");
    (
        r["FileCount"].as_u64().expect("FileCount"),
        r["MatchCount"].as_u64().expect("MatchCount"),
    )
}

/// A broad call of a content tool, and how raw Zoekt writes it with one more filter.
struct Broad {
    tool: &'static str,
    args: Value,
    /// Raw Zoekt's query for the call with `filter` added ("" for none).
    raw: fn(&str) -> String,
    /// The tool's items are files (else matches).
    items_are_files: bool,
    /// Past Zoekt's per-shard match cap: counts are of what the caps let Zoekt find.
    capped: bool,
}

fn broad_calls() -> Vec<Broad> {
    vec![
        Broad {
            tool: "search_symbols",
            args: json!({"query": "genSym"}),
            raw: |f| format!("{f} sym:genSym"),
            items_are_files: false,
            capped: false,
        },
        Broad {
            tool: "search",
            args: json!({"query": "genSym"}),
            raw: |f| format!("genSym {f}"),
            items_are_files: false,
            capped: false,
        },
        Broad {
            tool: "files_with_matches",
            args: json!({"query": "genSym"}),
            raw: |f| format!("genSym {f}"),
            items_are_files: true,
            capped: false,
        },
        Broad {
            tool: "search_files",
            args: json!({"query": "unit_"}),
            raw: |f| format!("{f} file:unit_"),
            items_are_files: true,
            capped: false,
        },
        // `x`: on 407,318 lines, dozens in each file, past every match budget: page 1 comes
        // from one file, as a broad query's does on real code.
        Broad {
            tool: "search",
            args: json!({"query": "x"}),
            raw: |f| format!("x {f}"),
            items_are_files: false,
            capped: true,
        },
        // `int`: every Go function's parameter and result, never defined (no ctags symbol):
        // its items are the lines using it as a whole word, which is what raw Zoekt's match
        // count counts for the usages query.
        Broad {
            tool: "find_references",
            args: json!({"symbol": "int"}),
            raw: |f| format!("case:yes {f} (sym:^int$ or content:\\bint\\b)"),
            items_are_files: false,
            capped: false,
        },
    ]
}

#[tokio::test]
async fn broad_results_suggest_ways_that_each_narrow_them() {
    let url = support::big_zoekt("broad_results_suggest_ways_that_each_narrow_them");
    let client = spawn_stdio(&url, &[]).await;
    for b in broad_calls() {
        let mut args = b.args.clone();
        args["limit"] = json!(30);
        let r = call(&client, b.tool, args.clone()).await;
        let sc = r.structured_content.clone().expect("structured content");
        let text = text(&r);
        let narrow = narrow_ways(&sc).unwrap_or_else(|| panic!("{}: no narrow in {sc}", b.tool));
        assert!(narrow.len() >= 3, "{}: {narrow:?}", b.tool);
        assert!(
            serde_json::to_string(
                &json!({"narrow": sc["narrow"], "narrow_note": sc["narrow_note"]})
            )
            .unwrap()
            .len()
                <= 600 + 20,
            "{}: suggestions over 600 characters",
            b.tool
        );
        let (files, matches) = raw_counts_capped(&url, &(b.raw)(""), b.capped).await;
        let original = if b.items_are_files { files } else { matches };
        for (rank, way) in narrow.iter().enumerate() {
            let (arg, value) = (&way.arg, way.value.as_str());
            // The text says the same call: what every way adds to, then this way's line.
            let base = match way.base.as_str() {
                "" => format!("; set {arg} to one:"),
                base => format!("; add one to {arg} `{base}`:"),
            };
            let line = format!("\n  {} (", way.added);
            assert!(
                text.contains(&base) && text.contains(&line),
                "{}: {base} or {line} not in the text",
                b.tool
            );
            // The same tool takes it and finds items.
            let mut narrowed = args.clone();
            narrowed[arg] = json!(value);
            let page = call(&client, b.tool, narrowed.clone()).await;
            assert_ne!(page.is_error, Some(true), "{}: {}", b.tool, text_of(&page));
            let page_sc = page.structured_content.clone().unwrap();
            assert!(
                flat_page(&page_sc)["count"].as_u64().unwrap() > 0,
                "{} {narrowed}: empty",
                b.tool
            );
            // Raw Zoekt counts fewer results for it.
            let original_value = match b.args.get(arg.as_str()) {
                Some(v) => v.as_str().unwrap(),
                None => "",
            };
            let filter = value.strip_prefix(original_value).unwrap_or(value).trim();
            let (nf, nm) = raw_counts_capped(&url, &(b.raw)(filter), b.capped).await;
            let holds = if b.items_are_files { nf } else { nm };
            // What the count counts: the tool's results when they are files, else the files
            // holding them.
            let counted_unit = if b.items_are_files {
                "results"
            } else {
                "files"
            };
            assert!(
                way.kind.starts_with(counted_unit),
                "{}: {way:?} counts {counted_unit}",
                b.tool
            );
            assert!(
                holds > 0 && holds < original,
                "{} {filter}: {holds} of {original}",
                b.tool
            );
            if rank == 0 {
                assert!(
                    original >= 3 * holds,
                    "{}: the best way {filter} cuts {original} only to {holds}",
                    b.tool
                );
            }
            // Each count is what it says it is: raw Zoekt's files for the narrowed query.
            let key = |kind: &str| format!("{counted_unit}{kind}");
            let said = |kind: &str| (way.kind == key(kind)).then_some(way.count);
            if let Some(exact) = said("") {
                assert_eq!(
                    exact, nf,
                    "{} {filter}: said {exact}, raw Zoekt {nf}",
                    b.tool
                );
            }
            if let Some(about) = said("_about") {
                assert!(
                    about * 3 >= nf * 2 && about * 2 <= nf * 3,
                    "{} {filter}: said about {about}, raw Zoekt {nf}",
                    b.tool
                );
            }
            if let Some(least) = said("_at_least") {
                assert!(
                    least <= nf,
                    "{} {filter}: said at least {least}, raw Zoekt {nf}",
                    b.tool
                );
            }
        }
    }
    client.cancel().await.unwrap();
}

fn text_of(r: &rmcp::model::CallToolResult) -> String {
    text(r)
}

#[tokio::test]
async fn count_only_suggests_too_and_the_ceiling_warning_names_the_best_way() {
    let url =
        support::big_zoekt("count_only_suggests_too_and_the_ceiling_warning_names_the_best_way");
    let client = spawn_stdio(&url, &[]).await;
    let r = call(
        &client,
        "search_symbols",
        json!({"query": "genSym", "count_only": true}),
    )
    .await;
    let sc = r.structured_content.clone().unwrap();
    let narrow = narrow_ways(&sc).expect("count_only suggests");
    assert!(narrow.len() >= 3, "{narrow:?}");
    // count_only counts with the census: the files holding definitions, said so, and what
    // the counts are worth says so in `count`.
    let note = sc["narrow_note"].as_str().unwrap();
    match narrow[0].kind.as_str() {
        "files" => assert_eq!(
            note,
            "Ways to narrow, with the files holding results in each"
        ),
        "files_at_least" => assert!(note.contains("at least"), "{note}"),
        other => panic!("{other}"),
    }
    assert_eq!(narrow[0].arg, "query");
    let best = narrow[0].value.as_str();
    let best_filter = best.strip_prefix("genSym ").unwrap();
    let ceiling = sc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|w| w.starts_with("paging stops at item"))
        .expect("the ceiling warning");
    // The warning names it in words: `repository gen-go-a`, `language Go`, `directory x/`,
    // `directory x/ of gen-go-a`: every name its atoms hold, unescaped.
    for atom in best_filter.split(' ').filter(|a| !a.starts_with('-')) {
        let named = ["repo:^", "lang:", "file:^"]
            .iter()
            .find_map(|p| atom.strip_prefix(p))
            .unwrap()
            .trim_end_matches('$')
            .replace('\\', "");
        assert!(
            ceiling.contains(&named),
            "{ceiling} does not name {best_filter}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_result_that_fits_on_a_page_or_suggestions_off_has_none() {
    let url = support::big_zoekt("a_result_that_fits_on_a_page_or_suggestions_off_has_none");
    let client = spawn_stdio(&url, &[]).await;
    let one = call(&client, "search_symbols", json!({"query": "genSym9738"})).await;
    let sc = one.structured_content.clone().unwrap();
    assert_eq!(flat_page(&sc)["count"], json!(1), "{sc}");
    assert!(sc.get("narrow").is_none() && !text(&one).contains("Ways to narrow"));
    let off = spawn_stdio(&url, &[("ZOEKT_PAGER_SUGGEST_FILTERS", "off")]).await;
    for args in [
        json!({"query": "genSym"}),
        json!({"query": "genSym", "count_only": true}),
    ] {
        let r = call(&off, "search_symbols", args).await;
        let sc = r.structured_content.clone().unwrap();
        assert!(sc.get("narrow").is_none(), "{sc}");
        assert!(!text(&r).contains("Ways to narrow"));
    }
    client.cancel().await.unwrap();
    off.cancel().await.unwrap();
}

/// Every page of a walk, as sent (`structuredContent`), limits cycling through `limits`.
async fn pages(client: &Client, tool: &str, args: &Value, limits: &[u32]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut a = args.clone();
        a["limit"] = json!(limits[out.len() % limits.len()]);
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let r = call(client, tool, a).await;
        let sc = r.structured_content.clone().expect("structured content");
        cursor = sc["next_cursor"].as_str().map(String::from);
        out.push(sc);
        if cursor.is_none() || out.len() > 200 {
            return out;
        }
    }
}

#[tokio::test]
async fn walks_are_the_same_with_suggestions_on_and_off() {
    let url = support::fixture_zoekt("walks_are_the_same_with_suggestions_on_and_off");
    let on = spawn_stdio(&url, &[]).await;
    let off = spawn_stdio(&url, &[("ZOEKT_PAGER_SUGGEST_FILTERS", "off")]).await;
    let mut suggested = 0;
    for (tool, args) in [
        ("search_symbols", json!({"query": "pagerItem"})),
        ("search", json!({"query": "pagerItem\\d+"})),
        ("files_with_matches", json!({"query": "pagerItem"})),
        ("search_files", json!({"query": "\\."})),
        ("find_references", json!({"symbol": "get"})),
    ] {
        let with = pages(&on, tool, &args, &[7, 30, 3]).await;
        let without = pages(&off, tool, &args, &[7, 30, 3]).await;
        suggested += with.iter().filter(|p| p.get("narrow").is_some()).count();
        // The census may make a total exact that is an estimate without it (it read every
        // file on the first page): never the other way, and never another number.
        for (on, off) in with.iter().zip(&without) {
            if let Some(exact) = off.get("total") {
                assert_eq!(on.get("total"), Some(exact), "{tool} {args}");
            }
            let value = |p: &Value| p.get("total").or(p.get("total_estimate")).cloned();
            assert_eq!(value(on), value(off), "{tool} {args}");
        }
        let strip = |pages: Vec<Value>| -> Vec<Value> {
            pages
                .into_iter()
                .map(|mut p| {
                    let page = p.as_object_mut().unwrap();
                    for key in ["narrow", "narrow_note", "total", "total_estimate", "next"] {
                        page.remove(key);
                    }
                    p
                })
                .collect()
        };
        assert_eq!(strip(with), strip(without), "{tool} {args}");
    }
    assert!(
        suggested >= 4,
        "{suggested} walks had suggestions: the comparison proves little"
    );
    on.cancel().await.unwrap();
    off.cancel().await.unwrap();
}
