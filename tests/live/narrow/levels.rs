//! The ways follow the result's tree: a level of many directories is covered by runs of
//! their names, and a census cut before later repositories offers ways into them.

use super::*;

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
    let webserver =
        support::webserver::OwnWebserver::over("ZOEKT_PAGER_LIVE_MANY_SHARDS_INDEX_DIR", test);
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
