//! Collecting a listing of file names ([`Source::Names`]): every file a query matches under
//! one directory, by name alone, each once, sorted by repository and path. The tool turns
//! the whole listing into its items at once (a directory tree counts files per directory).
//!
//! Why in parts: a listing is a search of names only ([`Shape::NamesOnly`]), which Zoekt
//! answers in about 450 bytes a file over JSON and a third of that over gRPC, and in which
//! each file counts toward the per-shard match cap. The root of a 93,969-file monorepo is
//! 42.9 MB of JSON: past `--max-answer-bytes`, and past the cap of its biggest shards. So
//! one request asks for at most [`PART_FILES`] files, and when its answer comes back cut, the
//! listing splits where the files it did return show subdirectories: the largest few are
//! each asked on their own, and the directory once more without them (its own files, and the
//! subdirectories not split off), until every part comes back whole. A part that cannot split
//! (one directory directly holding more files than a part) stays cut, and counts over it are
//! lower bounds ([`NameList::whole_under`]).
//!
//! A listing is kept in the window cache under its query, and a listing of a directory
//! inside a kept one is read from it: the pages of a tree, the same tree to another depth,
//! and any directory inside it cost no request. The tool's items are kept too, by the
//! request: the next pages of a walk only seek.
//!
//! [`Source::Names`]: super::tool::Source::Names
//! [`Shape::NamesOnly`]: super::backend::Shape::NamesOnly

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use futures_util::future::join_all;

use super::Pager;
use super::backend::{Backend, BackendErrorKind, FileSearch, RankedFile, Shape};
use super::cache::Kept;
use super::census::CENSUS_FILES;
use super::config::Effort;
use super::error::Error;
use super::listed::{ListedFile, NameList, Names, Part};
use super::order::{Position, file_key};
use super::tool::{Collected, Found, Tool, Total, Want};
use super::warning::Warning;
use super::window::Cut;

/// Most files one request of a listing asks for: as many as a census, which fit the default
/// `--max-answer-bytes` for paths of average length.
pub const PART_FILES: u32 = CENSUS_FILES;

/// Fewest files a part is asked for again when its answer was too big to read.
const MIN_PART_FILES: u32 = 1_000;

/// Most requests one listing makes: past them, the parts not yet asked are left cut (their
/// counts lower bounds) rather than a call waiting on an endless split.
pub const MAX_PARTS: usize = 64;

/// Parts of a listing asked at once.
const PARTS_AT_ONCE: usize = 4;

/// `dir` and every directory it is in, innermost first: `a/b/`, `a/`, then the top.
fn enclosing(dir: &str) -> impl Iterator<Item = &str> {
    let cuts = dir
        .char_indices()
        .filter(|&(_, c)| c == '/')
        .map(|(i, _)| i + 1)
        .collect::<Vec<_>>();
    cuts.into_iter()
        .rev()
        .map(|end| &dir[..end])
        .chain(std::iter::once(""))
}

/// Most subdirectories one cut part splits into: the largest its answer shows. The rest stay
/// in the part asked again without them, so a directory of many small subdirectories does
/// not spend the listing's requests ([`MAX_PARTS`]) on one request each.
const SPLIT_INTO: usize = 8;

/// The subdirectories just inside `part.dir` that `files` show, not yet left out: the
/// [`SPLIT_INTO`] that hold most of them.
fn subdirectories(part: &Part, files: &[RankedFile]) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for f in files {
        let Some(rest) = f.path.strip_prefix(part.dir.as_str()) else {
            continue;
        };
        let Some(end) = rest.find('/') else { continue };
        let sub = format!("{}{}", part.dir, &rest[..=end]);
        if !part.except.contains(&sub) {
            *seen.entry(sub).or_default() += 1;
        }
    }
    let mut largest: Vec<(String, usize)> = seen.into_iter().collect();
    largest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    largest
        .into_iter()
        .take(SPLIT_INTO)
        .map(|(sub, _)| sub)
        .collect()
}

/// Shares the strings many files repeat (repository names, languages).
#[derive(Default)]
struct Interner(HashMap<String, Arc<str>>);

impl Interner {
    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(kept) = self.0.get(s) {
            return Arc::clone(kept);
        }
        let kept: Arc<str> = Arc::from(s);
        self.0.insert(s.to_string(), Arc::clone(&kept));
        kept
    }
}

impl<B: Backend> Pager<B> {
    /// Tool `T`'s items from the listing `names`: every one, in the tool's order, found again
    /// by [`Tool::listed_key`] when a cursor resumes.
    ///
    /// The items are kept in the cache by the request, beside the listing: the next pages
    /// of a walk read them rather than make them again from every name (94,000 names take a
    /// tree about 100 ms).
    pub(crate) async fn names<T: Tool>(
        &self,
        plan: &T::Plan,
        names: Names<'_>,
        want: &Want<'_>,
    ) -> Result<Collected<T::Item>, Error> {
        let key = Kept::Items(*want.request);
        if let Some(cache) = &self.cache
            && let Some(kept) = cache.kept::<Collected<T::Item>>(&key).await
        {
            return Ok((*kept).clone());
        }
        let collected = self.names_made::<T>(plan, names, want.requests).await?;
        // As for the listing: one the backend cut for a while is made again next time.
        if let Some(cache) = &self.cache
            && !collected.cut.is_transient()
        {
            let bytes = collected.len() * std::mem::size_of::<T::Item>() + 256;
            let bytes = u32::try_from(bytes).unwrap_or(u32::MAX);
            cache.keep(key, Arc::new(collected.clone()), bytes).await;
        }
        Ok(collected)
    }

    /// [`Pager::names`]'s items, made from the listing.
    async fn names_made<T: Tool>(
        &self,
        plan: &T::Plan,
        names: Names<'_>,
        requests: &AtomicU32,
    ) -> Result<Collected<T::Item>, Error> {
        let list = self.name_list(names, requests).await?;
        if list.files.is_empty()
            && list.is_whole()
            && let Some(e) = T::nothing_found(plan)
        {
            return Err(e);
        }
        let items = T::items(plan, Found::Names(&list));
        let positions = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let key = T::listed_key(item).unwrap_or_else(|| i.to_string());
                Position::listed(file_key("", &key, &[]))
            })
            .collect();
        let mut warnings = self.cut_warnings(&list.missing, list.shared_backends);
        if !list.cut.is_empty() {
            warnings.push(Warning::ListingCut {
                parts: list.cut.len() as u32,
                files: list.files.len() as u64,
            });
        }
        let whole = list.is_whole();
        let total = Total {
            value: items.len() as u64,
            exact: whole,
            at_least: !whole,
        };
        Ok(Collected::listed(
            items,
            positions,
            total,
            list.missing,
            warnings,
        ))
    }

    /// The listing of `names`: kept in the cache (its own, or one of a directory it is in),
    /// or asked for in parts.
    async fn name_list(
        &self,
        names: Names<'_>,
        requests: &AtomicU32,
    ) -> Result<Arc<NameList>, Error> {
        if let Some(cache) = &self.cache {
            for dir in enclosing(names.dir) {
                let query = names.query.under(dir, &[]);
                if let Some(kept) = cache.kept::<NameList>(&Kept::Names(query)).await {
                    if dir == names.dir {
                        return Ok(kept);
                    }
                    return Ok(Arc::new(kept.within(names.dir)));
                }
            }
        }
        let list = Arc::new(self.list_in_parts(names, requests).await?);
        // A listing the backend cut for a while (crashed shards, a backend away) is asked
        // again next time; one cut by its caps would come back the same, and is kept.
        if let Some(cache) = &self.cache
            && !list.missing.is_transient()
        {
            let query = names.query.under(names.dir, &[]);
            cache
                .keep(Kept::Names(query), Arc::clone(&list), list.weight())
                .await;
        }
        Ok(list)
    }

    /// Asks for the listing part by part (see the module's comment), [`PARTS_AT_ONCE`] at a
    /// time, at most [`MAX_PARTS`] requests, each counted in `requests`.
    async fn list_in_parts(
        &self,
        names: Names<'_>,
        requests: &AtomicU32,
    ) -> Result<NameList, Error> {
        // A file counts one match toward the per-shard cap: a cap below a part's files would
        // cut every big directory's part, and a search of names is cheap enough to let one
        // shard collect a whole part.
        let effort = Effort {
            shard_max_match_count: self.cfg.effort.shard_max_match_count.max(PART_FILES),
            ..self.cfg.effort
        };
        let mut list = NameList {
            dir: names.dir.to_string(),
            ..NameList::default()
        };
        let mut strings = Interner::default();
        let mut todo = vec![(
            Part {
                dir: names.dir.to_string(),
                except: Vec::new(),
            },
            PART_FILES,
        )];
        let mut asked = 0;
        while !todo.is_empty() {
            if asked >= MAX_PARTS {
                list.cut.extend(todo.drain(..).map(|(part, _)| part));
                break;
            }
            let take = todo.len().min(PARTS_AT_ONCE).min(MAX_PARTS - asked);
            let batch: Vec<(Part, u32)> = todo.drain(..take).collect();
            asked += batch.len();
            let answers = join_all(batch.iter().map(|(part, files)| {
                requests.fetch_add(1, Ordering::Relaxed);
                let search = FileSearch {
                    query: names.query.under(&part.dir, &part.except),
                    effort,
                    max_files: *files,
                    context_lines: 0,
                    shape: Shape::NamesOnly,
                };
                async move { self.backend.search(&search).await }
            }))
            .await;
            for ((part, files), answer) in batch.into_iter().zip(answers) {
                let ranked = match answer {
                    Ok(ranked) => ranked,
                    // Too big to read: ask for as many as fit, to split by what they show.
                    Err(e) if e.kind == BackendErrorKind::TooBig && files > MIN_PART_FILES => {
                        let fewer = e.files_within.unwrap_or(files / 4);
                        todo.push((part, fewer.clamp(MIN_PART_FILES, files / 2)));
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                };
                let stats = &ranked.stats;
                list.shared_backends |= stats.shared_backends;
                let cut = Cut::of(stats, &effort);
                list.missing = list.missing.merged(Cut {
                    crashes: cut.crashes,
                    missing_backends: cut.missing_backends,
                    ..Cut::default()
                });
                // Capped, or stopped by a cap or the time: smaller parts may come back whole.
                let splits = ranked.files.len() as u64 >= u64::from(files)
                    || cut.files_skipped > 0
                    || cut.out_of_time
                    || cut.total_cap.is_some();
                let subdirectories = if splits {
                    subdirectories(&part, &ranked.files)
                } else {
                    BTreeSet::new()
                };
                if subdirectories.is_empty() {
                    for f in ranked.files.iter().filter(|f| part.holds(&f.path)) {
                        list.files.push(ListedFile {
                            repo: strings.get(&f.repo),
                            path: f.path.as_str().into(),
                            language: strings.get(&f.language),
                        });
                    }
                    if splits {
                        list.cut.push(part);
                    }
                    continue;
                }
                let mut rest = part.clone();
                for sub in subdirectories {
                    rest.except.push(sub.clone());
                    todo.push((
                        Part {
                            dir: sub,
                            except: Vec::new(),
                        },
                        PART_FILES,
                    ));
                }
                rest.except.sort();
                todo.push((rest, PART_FILES));
            }
        }
        list.files
            .sort_unstable_by(|a, b| (&a.repo, &a.path).cmp(&(&b.repo, &b.path)));
        list.files
            .dedup_by(|a, b| (&a.repo, &a.path) == (&b.repo, &b.path));
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_and_those_it_is_in_innermost_first() {
        assert_eq!(enclosing("a/b/").collect::<Vec<_>>(), ["a/b/", "a/", ""]);
        assert_eq!(enclosing("").collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn a_cut_answer_splits_off_its_largest_subdirectories_only() {
        let mut files = Vec::new();
        for (d, n) in (0..12).map(|d| (d, d + 1)) {
            for i in 0..n {
                files.push(RankedFile {
                    path: format!("top/d{d:02}/{i}"),
                    ..RankedFile::default()
                });
            }
        }
        let part = Part {
            dir: "top/".into(),
            except: Vec::new(),
        };
        let split: Vec<String> = subdirectories(&part, &files).into_iter().collect();
        let largest: Vec<String> = (4..12).map(|d| format!("top/d{d:02}/")).collect();
        assert_eq!(split, largest, "the eight holding most files");
    }

    #[test]
    fn a_cut_answer_splits_by_the_subdirectories_it_shows() {
        let file = |path: &str| RankedFile {
            path: path.into(),
            ..RankedFile::default()
        };
        let part = Part {
            dir: "a/".into(),
            except: vec!["a/x/".into()],
        };
        let files = [file("a/x/1"), file("a/y/2"), file("a/y/z/3"), file("a/4")];
        assert_eq!(
            subdirectories(&part, &files)
                .into_iter()
                .collect::<Vec<_>>(),
            ["a/y/"]
        );
    }
}
