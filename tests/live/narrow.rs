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

/// The `query` of each way of a page, with its count (the page's items are files: results).
fn ways_with_counts(sc: &Value) -> Vec<(String, u64)> {
    narrow_ways(sc)
        .unwrap_or_else(|| panic!("no narrow in {sc}"))
        .into_iter()
        .map(|w| {
            assert_eq!(w.arg, "query", "a query way: {w:?}");
            assert_eq!(w.kind, "results", "an exact count of results: {w:?}");
            (w.value, w.count)
        })
        .collect()
}

#[tokio::test]
async fn a_level_of_many_directories_is_covered_by_runs_of_names() {
    // One repository of the generated corpus: 36 directories pkg000/ to pkg035/ side by
    // side, more than the list's ways can name one by one.
    let url = support::big_zoekt("a_level_of_many_directories_is_covered_by_runs_of_names");
    // Exact counts are asserted: the census may take as long as a page, not be cut under load.
    let client = spawn_stdio(&url, &[CENSUS_AS_LONG_AS_PAGES]).await;
    let base = "genSym repo:^gen-go-b$";
    let r = call(
        &client,
        "files_with_matches",
        json!({"query": base, "limit": 30}),
    )
    .await;
    let ways = ways_with_counts(&r.structured_content.clone().unwrap());
    let (all, _) = raw_counts_capped(&url, base, false).await;
    // Runs by name: the directories' common start and the digit after it, each counted as
    // raw Zoekt counts the same query narrowed by it.
    let mut sum = 0;
    for (query, count) in &ways {
        let run = query
            .strip_prefix(&format!("{base} file:^pkg0"))
            .unwrap_or_else(|| panic!("{query}: not a run of pkg0*"));
        assert!(
            run.len() == 1 || (run.starts_with('[') && run.ends_with(']')),
            "{query}"
        );
        let (files, _) = raw_counts_capped(&url, query, false).await;
        assert_eq!(*count, files, "{query}: said {count}, raw Zoekt {files}");
        sum += files;
    }
    // Together they hold every file of the result, each once: nothing is out of reach.
    assert_eq!(sum, all, "{ways:?}");
    // Called, a run is a result of its own: its ways lie inside it, and the run's filter is
    // replaced by theirs, not repeated beside them.
    let (first, _) = &ways[0];
    let r = call(
        &client,
        "files_with_matches",
        json!({"query": first, "limit": 30}),
    )
    .await;
    let run_filter = first.strip_prefix(&format!("{base} ")).unwrap();
    let inner = ways_with_counts(&r.structured_content.clone().unwrap());
    assert!(!inner.is_empty());
    for (query, count) in &inner {
        let added = query.strip_prefix(&format!("{base} ")).unwrap();
        assert!(
            added.starts_with(run_filter) && added != run_filter && !added.contains(' '),
            "{query} inside {first}"
        );
        let (files, _) = raw_counts_capped(&url, query, false).await;
        assert_eq!(*count, files, "{query}");
    }
    client.cancel().await.unwrap();
}

/// The repositories of raw Zoekt's `type:file f:. FILTERS` (every file, no cap), with how many
/// files each holds, by name.
async fn repos_of(
    url: &str,
    filters: &str,
    total_cap: u64,
) -> (Value, std::collections::BTreeMap<String, u64>) {
    let body = json!({"Q": format!("type:file f:. {filters}"), "Opts": {
        "MaxDocDisplayCount": 100_000, "ShardMaxMatchCount": 100_000,
        "TotalMaxMatchCount": total_cap}});
    let answer = support::oracle::raw_search(url, &body).await;
    let mut repos = std::collections::BTreeMap::new();
    for f in answer["Result"]["Files"].as_array().into_iter().flatten() {
        let repo = f["Repository"].as_str().expect("a repository").to_string();
        *repos.entry(repo).or_default() += 1;
    }
    (answer, repos)
}

/// A census Zoekt stopped before the repositories after those it counted, as its wall time
/// stops `search the` over 678 real repositories at `prometheus-client`: here its cross-shard
/// cap, met inside the second of six repositories by name, over the generated corpus in 733
/// small shards. The page offers ways into the repositories it did not reach, with no count;
/// together they select every one of them (by raw Zoekt), none selects one it counted, and
/// called, they lead to results.
#[tokio::test]
async fn a_census_cut_before_later_repositories_offers_ways_into_them() {
    let test = "a_census_cut_before_later_repositories_offers_ways_into_them";
    let webserver = support::OwnWebserver::over("ZOEKT_PAGER_LIVE_MANY_SHARDS_INDEX_DIR", test);
    // Two shards at a time: Zoekt stops handing them out well inside the second repository
    // on any machine.
    let _zoekt = webserver.start_searching(2);
    webserver.wait_ready().await;
    let url = webserver.url();
    let (_, whole) = repos_of(&url, "", 0).await;
    let names: Vec<&String> = whole.keys().collect();
    assert!(names.len() >= 4, "{whole:?}");
    // Zoekt stops handing out shards once the files counted pass this: halfway through the
    // second repository (its shards go by name).
    let cap = whole[names[0]] + whole[names[1]] / 2;
    let (capped, counted) = repos_of(&url, "", cap).await;
    // Zoekt counts no shard it stopped handing out as skipped: its match count says the cap
    // was passed, and the files it returned are fewer than the whole.
    let matched = capped["Result"]["MatchCount"]
        .as_u64()
        .expect("a match count");
    assert!(matched > cap, "{matched} matches");
    assert!(
        counted.values().sum::<u64>() < whole.values().sum::<u64>(),
        "{counted:?}"
    );
    assert!(
        counted.len() >= 2 && counted.contains_key(names[0]),
        "{counted:?}"
    );
    let last = counted.keys().max().expect("counted");
    let not_reached: Vec<&String> = names.iter().copied().filter(|n| *n > last).collect();
    assert!(!not_reached.is_empty(), "{counted:?} of {whole:?}");

    let client = spawn_stdio(
        &url,
        &[("ZOEKT_PAGER_TOTAL_MAX_MATCH_COUNT", &cap.to_string())],
    )
    .await;
    let schema = output_schema(&client, "search_files").await;
    let validator = jsonschema::validator_for(&schema).expect("output schema compiles");
    let r = call(&client, "search_files", json!({"query": ".", "limit": 10})).await;
    let sc = r.structured_content.clone().expect("a structured page");
    assert!(validator.is_valid(&sc), "{sc}");
    let added: Vec<String> = (sc["narrow"]["uncounted"].as_array().into_iter().flatten())
        .map(|w| w.as_str().expect("a filter").to_string())
        .collect();
    assert!(!added.is_empty(), "no way into what was not counted: {sc}");
    assert!(text(&r).contains("(not counted)"), "{}", text(&r));
    let mut selected = std::collections::BTreeSet::new();
    for filter in &added {
        let (_, repos) = repos_of(&url, filter, 0).await;
        for name in counted.keys() {
            assert!(!repos.contains_key(name), "{filter} holds {name} (counted)");
        }
        selected.extend(repos.into_keys());
    }
    for name in &not_reached {
        assert!(selected.contains(*name), "{name} is in no way of {added:?}");
    }
    // Called as written, the ways lead to the results raw Zoekt finds there.
    let mut items = 0;
    let mut said = Vec::new();
    for value in uncounted_ways(&sc) {
        let r = call(
            &client,
            "search_files",
            json!({"query": value, "limit": 10}),
        )
        .await;
        assert_ne!(r.is_error, Some(true), "{value}: {}", text(&r));
        let page = r.structured_content.clone().expect("a structured page");
        items += ["total", "total_at_least", "total_estimate"]
            .iter()
            .find_map(|k| page.get(*k).and_then(Value::as_u64))
            .unwrap_or(0);
        said.push(format!("{value}: {page}"));
    }
    assert!(
        items > 0,
        "no way into what was not counted led to results: {said:#?}"
    );
}
