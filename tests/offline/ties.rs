//! Ties Zoekt cannot be made to show on demand: an in-process adversary
//! (`support::adversary`) reshuffles equal scores on every call and boosts a file from beyond
//! the cut, and every walk at every limit must still give the same items without a
//! duplicate. Real ties on the real Zoekt are `tests/live/ties.rs`.

use crate::support;

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use support::{ToolCalls, keys};
use zoekt_pager::{Page, PageArgs, Pager, PagerConfig, ToolError};

use support::adversary::{self, Adversary};
use support::walk;

/// Walks with every limit sequence in `limits` and checks each walk against `expected`:
/// consecutive offsets, no duplicate, the same items in the same order.
async fn check_walks<T, K, F>(
    what: &str,
    limits: &[&[u32]],
    expected: &[K],
    key: impl Fn(&T) -> K,
    mut fetch: F,
) where
    T: Clone,
    K: Eq + Hash + Debug + Clone,
    F: AsyncFnMut(&PageArgs) -> Result<Page<T>, ToolError>,
{
    for limits in limits {
        let pages = walk(limits, async |a| fetch(a).await).await;
        let mut keys = Vec::new();
        let mut page_of = Vec::new();
        for (n, p) in pages.iter().enumerate() {
            assert_eq!(
                p.offset,
                keys.len() as u64,
                "{what}, limits {limits:?}: page {}",
                n + 1
            );
            keys.extend(p.items.iter().map(&key));
            page_of.extend(std::iter::repeat_n(n + 1, p.count));
        }
        let mut seen = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            if let Some(first) = seen.insert(k.clone(), i) {
                panic!(
                    "{what}, limits {limits:?}: {k:?} is item {first} (page {}) and again item \
                     {i} (page {})",
                    page_of[first], page_of[i]
                );
            }
        }
        if let Some(i) =
            (0..keys.len().max(expected.len())).find(|&i| keys.get(i) != expected.get(i))
        {
            panic!(
                "{what}, limits {limits:?}: {} items, {} expected; item {i} (page {}) is {:?}, \
                 expected {:?}",
                keys.len(),
                expected.len(),
                page_of.get(i).map_or("-".into(), |p| p.to_string()),
                keys.get(i),
                expected.get(i)
            );
        }
    }
}

/// The adversary: every tie group reshuffled on every call and a novel file boosted from
/// beyond the cut; walks at several limits, over 20 seeds, all give the fixture's order.
#[tokio::test]
async fn adversarial_ties_and_boosts_page_identically() {
    let files = adversary::fixture();
    let expected = adversary::expected_order(&files);
    assert_eq!(expected.len(), 54);
    let mut boosted = 0;
    for seed in 1..=20 {
        let p = Pager::new(Adversary::new(files.clone(), seed), PagerConfig::default());
        check_walks(
            &format!("adversary seed {seed}"),
            &[&[1], &[2], &[3], &[7]],
            &expected,
            keys::line,
            async |a| p.lines("advProbe", 0, a).await,
        )
        .await;
        boosted += p
            .backend()
            .boosts_from_beyond_cut
            .load(std::sync::atomic::Ordering::Relaxed);
    }
    assert!(
        boosted > 0,
        "the adversary never boosted from beyond the cut"
    );
}
