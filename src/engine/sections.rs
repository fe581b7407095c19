//! Collecting a sectioned result ([`Source::Sections`]): the items of several ranked searches
//! numbered one section after the other (`find_references`: every definition, then every
//! usage), so that no item's number depends on the page asked for.
//!
//! A page that starts in the first section asks every search at once (a count whose last
//! search holds the earlier ones' items asks that one first: see [`Pager::sections`]; a first
//! page whose census carries the first search reads that search from it, `collect.rs`). The
//! items of a section come after the earlier ones only when those are known: the backend
//! returned them all, or the page does not reach past them (a list cut at `--max-window`
//! counts as known: what lies beyond the cap is unreachable, and the page says so). A page
//! resumed in a later section asks nothing of the earlier ones: how many items they held, and
//! whether that list was cut, came with its cursor ([`Position::section_start`],
//! [`Position::earlier_cut`]).
//!
//! [`Source::Sections`]: super::tool::Source::Sections
//! [`Position::section_start`]: super::order::Position::section_start
//! [`Position::earlier_cut`]: super::order::Position::earlier_cut

use futures_util::future::join_all;

use super::Pager;
use super::answer::clamp_u32;
use super::backend::Backend;
use super::error::Error;
use super::tool::{Collected, Search, Tool, Total, Want};
use super::warning::Warning;
use super::window::Cut;

impl<B: Backend> Pager<B> {
    /// The items of `searches`, section after section, from position 0 (or the cursor's
    /// section) up to `want.needed`.
    pub(crate) async fn sections<T: Tool>(
        &self,
        plan: &T::Plan,
        want: &Want<'_>,
        searches: &[Search<'_>],
    ) -> Result<Collected<T::Item>, Error> {
        // Resumed in a later section: the sections before it lie before the page.
        let (mut first, mut start, mut earlier_cut) = match want.after.filter(|a| a.section > 0) {
            Some(after) => (
                usize::from(after.section),
                after.section_start,
                after.earlier_cut,
            ),
            None => (0, 0, false),
        };
        let needed = want.needed.saturating_sub(start as usize).max(1);
        // A count whose last search's matches hold the earlier sections' items asks that
        // search first. Estimated, it is the total alone, and the earlier sections, which
        // only a window of every file could add exactly, are not asked (`find_references
        // err`: its definitions' window of all 424 files, 0.6 s after the first round, for
        // a total that was about 213,938 either way). Whole, the earlier ones follow.
        let last_search = searches.len().saturating_sub(1);
        let mut counted_last = None;
        if want.count
            && first == 0
            && last_search > 0
            && searches[last_search].estimate.holds_earlier()
        {
            let w = self
                .window::<T>(plan, want, last_search, &searches[last_search], needed)
                .await?;
            if !w.exhausted() {
                first = last_search;
            }
            counted_last = Some(w);
        }
        // The searches still to ask: all from `first` on, but the last when it was asked.
        let end = searches.len() - usize::from(counted_last.is_some());
        let mut windows = join_all(
            searches[first..end]
                .iter()
                .enumerate()
                .map(|(i, search)| self.window::<T>(plan, want, first + i, search, needed)),
        )
        .await;
        windows.extend(counted_last.map(Ok));
        let mut warnings = Vec::new();
        if earlier_cut {
            warnings.push(Warning::EarlierSectionCut {
                section: first as u8,
            });
        }
        let mut runs = Vec::new();
        let mut cut = Cut::default();
        let mut value = u64::from(start);
        let mut exact = !earlier_cut;
        // The sections so far are known, so this one's items have their numbers.
        let mut placed = true;
        let mut ran_out = false;
        for (i, w) in windows.into_iter().enumerate() {
            let number = first + i;
            let last = number + 1 == searches.len();
            let w = w?.in_section(number as u8, start, earlier_cut);
            warnings.extend(self.warnings(&w));
            if w.capped && !last {
                warnings.push(Warning::SectionBeyondWindow {
                    section: number as u8,
                });
            }
            // A count's window that stopped at the walk's first window knows only Zoekt's
            // statistics for the section, not where its reachable items end.
            let known = !w.counted_by_stats
                && (w.ran_out || (start as usize).saturating_add(w.len()) < want.needed);
            let len = w.len() as u64;
            // A section known before the last counts its own items (what lies beyond a cap
            // is unreachable); otherwise a section is counted whole when the backend returned
            // every file, and estimated from its statistics when not. A count's section that
            // the walk would leave at the cap is estimated as far as the walk reaches: the
            // share of its estimate in the cap's files.
            let estimate = searches[number].estimate.of(w.stats(), value);
            value += if w.exhausted() || (known && !last) {
                len
            } else if w.counted_by_stats && w.capped && !last {
                let files = w.stats().file_count.max(1);
                let reached = u128::from(estimate) * u128::from(w.files_asked) / u128::from(files);
                u64::try_from(reached).unwrap_or(u64::MAX).max(len)
            } else {
                estimate.max(len)
            };
            exact &= w.exhausted() && (last || known);
            cut = cut.merged(w.cut);
            earlier_cut |= w.capped || !w.cut.is_none();
            start = start.saturating_add(clamp_u32(w.len()));
            if placed {
                ran_out = w.ran_out;
                runs.push(w.into_run());
            }
            placed &= known;
        }
        warnings.dedup();
        Ok(Collected {
            runs,
            first: u64::from(
                want.after
                    .filter(|a| a.section > 0)
                    .map_or(0, |a| a.section_start),
            ),
            ranked: true,
            // The page ends where the backend's answer ends only when every section's items
            // are placed; inside a section that is not known, later ones cannot move it.
            ran_out: placed && ran_out,
            cut,
            total: Total {
                value,
                exact,
                at_least: false,
            },
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::Pager;
    use crate::engine::backend::{RankedFile, Shape};
    use crate::engine::config::PagerConfig;
    use crate::engine::testing::{FakeBackend, LineArgs, SectionTool, line};
    use crate::engine::warning::Warning;

    /// `n` files of one line each, scores falling.
    fn files(dir: &str, n: usize) -> Vec<RankedFile> {
        (0..n)
            .map(|i| RankedFile {
                repo: "r".into(),
                path: format!("{dir}/f{i:04}.go"),
                language: "Go".into(),
                score: 10_000.0 - i as f64,
                lines: vec![line(1, "x")],
                ..Default::default()
            })
            .collect()
    }

    #[tokio::test]
    async fn a_count_estimates_a_section_beyond_the_window_from_its_statistics() {
        // The first section holds more files than --max-window, the second fewer: the count
        // asks the first its first window only, and reads off Zoekt's statistics the items
        // of the walk's 1,000 files (not its first window's 32, which made the count 532,
        // nor all 3,000 of the section, which the walk never reaches).
        let b = FakeBackend::new()
            .with("defs", files("a", 3000))
            .with("uses", files("b", 500));
        let cfg = PagerConfig {
            max_window: 1000,
            ..PagerConfig::default()
        };
        let p = Pager::new(b, cfg);
        let args = LineArgs {
            query: "defs then uses".into(),
            limit: Some(30),
            count_only: true,
            ..Default::default()
        };
        let page = p.page::<SectionTool>(&args).await.unwrap();
        assert_eq!(p.backend().files_asked("defs"), [34]);
        assert_eq!(p.backend().files_asked("uses").len(), 2);
        assert_eq!(page.total.value, 1500);
        assert!(!page.total.exact);
        assert!(
            page.warnings
                .contains(&Warning::SectionBeyondWindow { section: 0 }),
            "{:?}",
            page.warnings
        );
    }

    #[tokio::test]
    async fn a_count_asks_earlier_sections_only_when_a_last_that_holds_them_is_whole() {
        let cfg = PagerConfig {
            max_window: 1000,
            ..PagerConfig::default()
        };
        let count = |query: &str| LineArgs {
            query: query.into(),
            limit: Some(30),
            count_only: true,
            ..Default::default()
        };
        // The last search, whose matches hold the definitions' too, is beyond the window:
        // its estimate is the total, and the definitions are never asked.
        let b = FakeBackend::new()
            .with("defs", files("a", 10))
            .with("all uses", files("b", 3000));
        let p = Pager::new(b, cfg.clone());
        let page = p
            .page::<SectionTool>(&count("defs then all uses"))
            .await
            .unwrap();
        assert!(p.backend().files_asked("defs").is_empty());
        assert_eq!(p.backend().files_asked("all uses"), [34]);
        assert_eq!(page.total.value, 3000);
        assert!(!page.total.exact);
        // Whole, it counts its own items only: the definitions are asked, and the total
        // is exact.
        let b = FakeBackend::new()
            .with("defs", files("a", 10))
            .with("all uses", files("b", 500));
        let p = Pager::new(b, cfg);
        let page = p
            .page::<SectionTool>(&count("defs then all uses"))
            .await
            .unwrap();
        // The last search first, then the definitions.
        let asked: Vec<(String, u32)> = p
            .backend()
            .requests()
            .into_iter()
            .filter(|s| s.shape == Shape::Lines)
            .map(|s| (s.query, s.max_files))
            .collect();
        let asked: Vec<(&str, u32)> = asked.iter().map(|(q, n)| (q.as_str(), *n)).collect();
        assert_eq!(asked, [("all uses", 34), ("all uses", 501), ("defs", 34)]);
        assert_eq!(page.total.value, 510);
        assert!(page.total.exact);
    }
}
