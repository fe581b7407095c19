//! What changed between a scenario's goldens and a live run of it, in the reader's terms:
//! per page, the items added, removed or moved, and the facts (totals, warnings, an error)
//! that changed. Cursors are left out: they embed positions, so they differ whenever
//! anything before them does, and the items say what moved.
//!
//! Items are compared over a whole step (a walk), not page by page: one item inserted early
//! shifts every later one across page boundaries, which is one change, not one per page. The
//! items both sides hold are paired in order; the longest run of pairs in the same order on
//! both sides stays put, and any other pair "moved". An item whose fields changed (its line
//! of text, its context) is a different item: removed, and the new one added.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use serde_json::Value;

use super::diff::walk;
use super::items::{facts, items, one_line};
use super::recording::Outcome;

/// One change on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// An item the live page has and the golden did not.
    Added(String),
    /// An item the golden had and the live walk does not.
    Removed(String),
    /// An item both have, out of its old order: its position in the walk, then and now
    /// (1-based, as a page's footer counts items).
    Moved(String, usize, usize),
    /// A fact of the page (`total`, `warnings`, an error, ...): its path, then and now.
    Fact(String, String, String),
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Added(item) => write!(f, "+ {item}"),
            Change::Removed(item) => write!(f, "- {item}"),
            Change::Moved(item, from, to) => {
                write!(f, "~ moved {item} from position {from} to {to}")
            }
            Change::Fact(field, before, after) => write!(f, "{field} {before} -> {after}"),
        }
    }
}

/// The changes of one page of one step (`page` none: of the step as a whole, such as its
/// number of pages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageChanges {
    /// The scenario.
    pub scenario: String,
    /// The step, by its index.
    pub step: usize,
    /// The page inside the step's walk (0 for a single call).
    pub page: Option<usize>,
    /// The tool the step calls.
    pub tool: String,
    /// What changed, items in the order of their positions, then the facts.
    pub changes: Vec<Change>,
}

impl fmt::Display for PageChanges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.page {
            Some(p) => write!(
                f,
                "scenario {}, step {} page {p} ({}):",
                self.scenario, self.step, self.tool
            )?,
            None => write!(
                f,
                "scenario {}, step {} ({}):",
                self.scenario, self.step, self.tool
            )?,
        }
        for c in &self.changes {
            write!(f, "\n  {c}")?;
        }
        Ok(())
    }
}

/// Every page of `scenario` whose items or facts changed from `golden` to `live`.
pub fn changes(scenario: &str, golden: &[Outcome], live: &[Outcome]) -> Vec<PageChanges> {
    let steps: std::collections::BTreeSet<usize> =
        golden.iter().chain(live).map(|o| o.step).collect();
    let mut out = Vec::new();
    for step in steps {
        let g: Vec<&Outcome> = golden.iter().filter(|o| o.step == step).collect();
        let l: Vec<&Outcome> = live.iter().filter(|o| o.step == step).collect();
        let tool = g
            .first()
            .or(l.first())
            .map_or(String::new(), |o| o.tool.clone());
        // Keyed by page (`None` first: the step's own changes).
        let mut pages: BTreeMap<Option<usize>, Vec<(usize, Change)>> = BTreeMap::new();
        if g.len() != l.len() {
            let fact = Change::Fact("pages".into(), g.len().to_string(), l.len().to_string());
            pages.entry(None).or_default().push((0, fact));
        }
        for (page, change) in item_changes(&g, &l) {
            pages
                .entry(Some(page.0))
                .or_default()
                .push((page.1, change));
        }
        for (p, (go, lo)) in g.iter().zip(&l).enumerate() {
            let mut facts_changed = Vec::new();
            if is_error(&go.result) != is_error(&lo.result) {
                // An answer that became an error (or the reverse) is one change, not one per
                // field it lost.
                let fact = Change::Fact("result".into(), gist(&go.result), gist(&lo.result));
                facts_changed.push((usize::MAX, fact));
            } else {
                let (gf, lf) = (
                    Value::Object(facts(&go.result)),
                    Value::Object(facts(&lo.result)),
                );
                walk(&gf, &lf, String::new(), &mut |field: String, e, a| {
                    let field = field.trim_start_matches('.').to_string();
                    facts_changed.push((usize::MAX, Change::Fact(field, e, a)));
                });
            }
            if !facts_changed.is_empty() {
                pages.entry(Some(p)).or_default().extend(facts_changed);
            }
        }
        for (page, mut changes) in pages {
            changes.sort_by_key(|(position, _)| *position);
            out.push(PageChanges {
                scenario: scenario.to_string(),
                step,
                page,
                tool: tool.clone(),
                changes: changes.into_iter().map(|(_, c)| c).collect(),
            });
        }
    }
    out
}

fn is_error(result: &Value) -> bool {
    result.get("isError") == Some(&Value::Bool(true))
}

/// A result in a few words: `error CODE: message`, or its structured content, cut short.
fn gist(result: &Value) -> String {
    let text = match result["_meta"].get(crate::mcp::ERROR_META_KEY) {
        Some(e) if is_error(result) => format!(
            "error {}: {}",
            e["code"].as_str().unwrap_or("?"),
            e["message"].as_str().unwrap_or("")
        ),
        _ => result
            .get("structuredContent")
            .map_or_else(|| "(no page)".into(), Value::to_string),
    };
    crate::engine::text::clipped(&text, 301)
}

/// One item of a walk: its page, its position (1-based in the walk) and itself on a line.
struct Placed {
    page: usize,
    position: usize,
    item: String,
}

fn placed(outcomes: &[&Outcome]) -> Vec<Placed> {
    let mut out = Vec::new();
    for (page, o) in outcomes.iter().enumerate() {
        let offset = o
            .result
            .pointer("/structuredContent/offset")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        for (i, item) in items(&o.result).iter().enumerate() {
            out.push(Placed {
                page,
                position: offset + i + 1,
                item: one_line(item),
            });
        }
    }
    out
}

/// The item changes of one step, each with the page it belongs on (the live page for an
/// item added or moved, the golden's for one removed) and its position there.
fn item_changes(golden: &[&Outcome], live: &[&Outcome]) -> Vec<((usize, usize), Change)> {
    let (g, l) = (placed(golden), placed(live));
    // Pair equal items in order: the k-th copy on one side with the k-th on the other.
    let mut unpaired: BTreeMap<&str, VecDeque<usize>> = BTreeMap::new();
    for (i, p) in g.iter().enumerate() {
        unpaired.entry(p.item.as_str()).or_default().push_back(i);
    }
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut added = Vec::new();
    for (j, p) in l.iter().enumerate() {
        match unpaired
            .get_mut(p.item.as_str())
            .and_then(VecDeque::pop_front)
        {
            Some(i) => pairs.push((i, j)),
            None => added.push(((p.page, p.position), Change::Added(p.item.clone()))),
        }
    }
    // Removed before added: an item whose text changed then reads `- old`, `+ new`.
    let mut out = Vec::new();
    for i in unpaired.into_values().flatten() {
        let p = &g[i];
        out.push(((p.page, p.position), Change::Removed(p.item.clone())));
    }
    out.extend(added);
    let golden_order: Vec<usize> = pairs.iter().map(|&(i, _)| i).collect();
    let stay = longest_increasing(&golden_order);
    for (k, &(i, j)) in pairs.iter().enumerate() {
        if !stay[k] {
            let (from, to) = (&g[i], &l[j]);
            out.push((
                (to.page, to.position),
                Change::Moved(to.item.clone(), from.position, to.position),
            ));
        }
    }
    out
}

/// Which entries of `v` make one longest strictly increasing subsequence (patience
/// sorting: O(n log n), so that walks of thousands of items compare at once).
fn longest_increasing(v: &[usize]) -> Vec<bool> {
    // tails[k]: the index in `v` of the smallest last value of an increasing run of k+1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; v.len()];
    for (i, &x) in v.iter().enumerate() {
        let k = tails.partition_point(|&t| v[t] < x);
        before[i] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut keep = vec![false; v.len()];
    let mut at = tails.last().copied();
    while let Some(i) = at {
        keep[i] = true;
        at = before[i];
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A page of `search_files` holding `paths` (one repository), at `offset`.
    fn page(page: usize, offset: usize, total: u64, paths: &[&str]) -> Outcome {
        let rows: Vec<Value> = paths.iter().map(|p| json!(["r", p])).collect();
        Outcome {
            step: 0,
            page,
            tool: "search_files".into(),
            args: json!({}),
            result: json!({"structuredContent": {
                "fields": ["repo", "path"], "rows": rows, "offset": offset, "total": total,
                "next_cursor": format!("c{page}{total}")
            }}),
        }
    }

    fn report(golden: &[Outcome], live: &[Outcome]) -> Vec<String> {
        changes("s", golden, live)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn the_same_walk_with_other_cursors_has_no_changes() {
        let g = [page(0, 0, 3, &["a", "b"]), page(1, 2, 3, &["c"])];
        let mut l = g.clone();
        l[0].result["structuredContent"]["next_cursor"] = json!("another");
        assert!(changes("s", &g, &l).is_empty());
    }

    #[test]
    fn an_insertion_is_one_item_added_however_far_it_shifts_the_walk() {
        let g = [page(0, 0, 4, &["a", "b"]), page(1, 2, 4, &["c", "d"])];
        let l = [
            page(0, 0, 5, &["a", "new"]),
            page(1, 2, 5, &["b", "c"]),
            page(2, 4, 5, &["d"]),
        ];
        assert_eq!(
            report(&g, &l),
            [
                "scenario s, step 0 (search_files):\n  pages 2 -> 3",
                "scenario s, step 0 page 0 (search_files):\n  + r/new\n  total 4 -> 5",
                "scenario s, step 0 page 1 (search_files):\n  total 4 -> 5",
            ]
        );
    }

    #[test]
    fn removed_moved_and_changed_items_are_named_with_their_positions() {
        let g = [page(0, 0, 4, &["a", "b", "c", "d"])];
        let l = [page(0, 0, 3, &["c", "a", "B"])];
        assert_eq!(
            report(&g, &l),
            ["scenario s, step 0 page 0 (search_files):\n  \
              ~ moved r/c from position 3 to 1\n  \
              - r/b\n  \
              + r/B\n  \
              - r/d\n  \
              total 4 -> 3"]
        );
    }

    #[test]
    fn a_page_that_became_an_error_is_one_change_besides_its_items() {
        let g = [page(0, 0, 1, &["a"])];
        let mut l = g.clone();
        l[0].result = json!({"isError": true, "content": [],
            "_meta": {"zoekt-pager/error": {"code": "BACKEND_ERROR", "message": "gone"}}});
        assert_eq!(
            report(&g, &l),
            ["scenario s, step 0 page 0 (search_files):\n  \
              - r/a\n  \
              result {\"fields\":[\"repo\",\"path\"],\"next_cursor\":\"c01\",\"offset\":0,\"rows\":[[\"r\",\"a\"]],\"total\":1} -> error BACKEND_ERROR: gone"]
        );
    }

    #[test]
    fn longest_increasing_keeps_the_longest_run_in_order() {
        assert_eq!(longest_increasing(&[2, 0, 1, 3]), [false, true, true, true]);
        assert_eq!(longest_increasing(&[]), Vec::<bool>::new());
        assert_eq!(
            longest_increasing(&[1, 0]).iter().filter(|k| **k).count(),
            1
        );
    }
}
