//! The rest of a result beside the part of it that holds most: a way of its own when the
//! many small parts beside that part fall off the list, so that a model following the ways
//! still reaches them, one call away.

use super::tree::{self, Key, Tree};
use super::way::NarrowBy;
use super::{BESIDE_SHARE, Candidate, GATEWAY};

/// The rest of the result beside the first part of the `chain` that cuts it (the parts
/// holding more than half, from the root down), as a way of its own, when the kept ways
/// leave at least [`BESIDE_SHARE`] of the result in that rest unnamed: a part that large
/// keeps its place when it is one, and here it may be many. The big part's children, each
/// bigger than the many small parts beside it, take the places, and a model following the
/// ways could reach none of those (`func main` in python-3.12: `test/` holds 62% of 587
/// files; `asyncio/`, `email/` and 20 more directories, 1 to 10 files each, fell off the
/// list). Called, the rest is a result of its own, whose parts the list then names. Only
/// kept ways count as naming: the form cuts the others from the end of the list to fit it
/// in its characters, and the small parts beside rank last. `ways` are the other ways, in any
/// order; `paths` the result's files' paths.
pub(super) fn beside<'a>(
    tree: &Tree<'a>,
    chain: &[Key<'a>],
    ways: &[Candidate],
    whole: f64,
    paths: impl Iterator<Item = &'a str>,
) -> Option<Candidate> {
    let cut = *chain
        .iter()
        .skip(1)
        .find(|k| tree.tally(**k).items < whole)?;
    // Only a part that one filter selects: a repository (of several), a directory (of the
    // only repository), or a run of either. A directory's own files are two filters, and
    // their negation is no filter of one part.
    let one_filter = matches!(
        cut,
        Key::Repo(_)
            | Key::Directory(None, _)
            | Key::Group(tree::Level::Repos | tree::Level::Dir(None, _), ..)
    );
    if !one_filter {
        return None;
    }
    let rest = tree.tally(Key::Root).without(tree.tally(cut));
    let named: f64 = ways
        .iter()
        .filter(|c| c.kept() && !matches!(c.by, NarrowBy::Language(_)))
        .filter(|c| !tree.is_inside(Key::of(&c.by), cut))
        .map(|c| c.tally.items)
        .sum();
    if rest.items - named < whole * BESIDE_SHARE {
        return None;
    }
    // A directory named without capitals is matched in either case by the backend (as
    // its filter is written): left out, it would take with it the files of a twin in
    // another case, which the rest counts. Looked for last, over every path, only where a
    // rest would be offered.
    if let Key::Directory(None, dir) = cut
        && !dir.chars().any(char::is_uppercase)
        && paths
            .into_iter()
            .any(|p| !p.starts_with(dir) && p.to_lowercase().starts_with(dir))
    {
        return None;
    }
    Some(Candidate {
        by: NarrowBy::Rest(vec![cut.owned()?]),
        tally: rest,
        group: GATEWAY,
        beside: false,
        inside_deepest: false,
    })
}
