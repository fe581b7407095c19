//! What an answer of Zoekt must satisfy before the client returns it: the checks that tell
//! Zoekt's answer apart from one that says nothing reliable (contradictory counts, unnamed
//! files, junk nested without limit).

use super::wire::{RepoList, SearchRequest, SearchResult};

/// What a search answer must satisfy to be Zoekt's answer to `req` (`docs/zoekt.md`,
/// "Response"): `FileCount` counts every matching file before the display cut, so it is at
/// least the files returned, and exactly that many when fewer than `MaxDocDisplayCount` came
/// back (Zoekt ran out); never more files than asked; every file named. An answer that breaks
/// one of them says nothing reliable, least of all that nothing matched (`FileCount: 7` with
/// `Files: null` would otherwise read as an exact, empty result).
pub fn check_answer(req: &SearchRequest, result: &SearchResult) -> Result<(), String> {
    let returned = result.files.len() as u64;
    let asked = u64::from(req.opts.max_doc_display_count);
    if asked > 0 && returned > asked {
        return Err(format!("{returned} files returned for {asked} asked"));
    }
    if result.file_count < returned {
        return Err(format!(
            "FileCount {} but {returned} files returned",
            result.file_count
        ));
    }
    if returned < asked && result.file_count > returned {
        return Err(format!(
            "FileCount {} but only {returned} files returned of {asked} asked",
            result.file_count
        ));
    }
    if let Some(f) = result
        .files
        .iter()
        .find(|f| f.file_name.is_empty() || f.repository.is_empty())
    {
        return Err(format!(
            "a file without a {} (FileName {:?}, Repository {:?})",
            if f.file_name.is_empty() {
                "name"
            } else {
                "repository"
            },
            crate::engine::text::clipped(&f.file_name, 80),
            crate::engine::text::clipped(&f.repository, 80)
        ));
    }
    Ok(())
}

/// What a list answer must satisfy: its statistics count the repositories it lists (one
/// entry per repository, however many shards hold it), and each is named. An answer that
/// counts repositories and lists none is not an empty index.
pub fn check_listing(list: &RepoList) -> Result<(), String> {
    if list.repos.is_empty() && list.stats.repos > 0 {
        return Err(format!(
            "Stats.Repos {} but no repository listed",
            list.stats.repos
        ));
    }
    if list.repos.iter().any(|r| r.repository.name.is_empty()) {
        return Err("a repository without a name".into());
    }
    Ok(())
}

/// Where `body` first nests arrays and objects deeper than `max`, if it does. serde_json
/// limits the depth of what it decodes, but skips the values of keys it does not read
/// without any limit: an answer whose counts say "nothing" with junk nested 100,000 deep in
/// another key would read as a clean, empty result.
///
/// It runs over every byte of every answer before the decoder does, so it does not look at
/// a string's bytes one at a time with state to carry ([`string_stop`]): a byte-at-a-time
/// scan was a quarter of the pager's CPU time on a large answer.
pub(crate) fn too_deep(body: &[u8], max: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&b) = body.get(at) {
        match b {
            b'"' => {
                // To the quote that ends the string, over each escape's two bytes. A string
                // cut short ends the scan: nothing nests past it, and the decoder says what
                // is wrong.
                let mut from = at + 1;
                loop {
                    let stop = string_stop(body, from)?;
                    if body[stop] == b'"' {
                        at = stop;
                        break;
                    }
                    from = stop + 2;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(at);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    None
}

/// The first quote or backslash at or after `from`: where a string ends or escapes.
///
/// memchr looks at many bytes a step. Looking at the first few bytes in place before calling
/// it (most strings of an answer are keys of about ten bytes) measured faster on its own and
/// slower inside the pager, so it was left out.
fn string_stop(body: &[u8], from: usize) -> Option<usize> {
    memchr::memchr2(b'"', b'\\', body.get(from..)?).map(|i| from + i)
}
