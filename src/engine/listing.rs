//! Collecting a listing ([`Source::Repositories`]): the repositories a query selects, each
//! once, by name, turned into items by the tool. A listing is not ranked: a cursor finds its
//! repository again by name, and resumes by count when that repository is gone.
//!
//! [`Source::Repositories`]: super::tool::Source::Repositories

use super::Pager;
use super::backend::Backend;
use super::error::Error;
use super::order::{Position, file_key};
use super::tool::{Collected, Found, Tool, Total};
use super::warning::Warning;
use super::window::Cut;

impl<B: Backend> Pager<B> {
    /// Every repository `query` selects (empty: every one), by name, as tool `T`'s items.
    pub(crate) async fn repositories<T: Tool>(
        &self,
        plan: &T::Plan,
        query: &str,
    ) -> Result<Collected<T::Item>, Error> {
        let mut list = self.listing(query).await?;
        let cut = Cut {
            crashes: list.crashes,
            missing_backends: list.missing_backends,
            ..Cut::default()
        };
        let mut warnings = self.cut_warnings(&cut, 0);
        warnings.extend(self.shared_warnings(&list.shared));
        list.repos.sort_by(|a, b| a.name.cmp(&b.name));
        list.repos.dedup_by(|a, b| a.name == b.name);
        let mut items = Vec::with_capacity(list.repos.len());
        let mut positions = Vec::with_capacity(list.repos.len());
        for repo in &list.repos {
            for item in T::items(plan, Found::Repository(repo)) {
                items.push(item);
                positions.push(Position::listed(file_key(&repo.name, "", &[])));
            }
        }
        let total = Total {
            value: items.len() as u64,
            exact: list.crashes == 0 && list.missing_backends == 0,
            at_least: false,
        };
        Ok(Collected::listed(items, positions, total, cut, warnings))
    }

    /// What a listing says of repositories served by two backends of a fan-out.
    pub fn shared_warnings(&self, shared: &[super::backend::SharedRepo]) -> Vec<Warning> {
        shared
            .iter()
            .map(|s| {
                let mut names = self.backend.backend_names(s.backends).into_iter();
                let first = names.next().unwrap_or_default();
                let second = names.next().unwrap_or_default();
                Warning::SharedRepository {
                    repo: s.repo.clone(),
                    backends: [first, second],
                }
            })
            .collect()
    }
}
