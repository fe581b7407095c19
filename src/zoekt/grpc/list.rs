//! A gRPC `List` answer as the JSON API's [`RepoList`], so that one check
//! (`check::check_listing`) and one translation into the engine's terms serve both APIs.

use super::proto;
use crate::zoekt::wire::RepositoryBranch;
use crate::zoekt::wire::{IndexMetadata, RepoList, RepoListEntry, RepoStats, Repository};

/// `answer` in the JSON API's types.
pub fn repo_list(answer: proto::ListResponse) -> RepoList {
    RepoList {
        repos: answer.repos.into_iter().map(entry).collect(),
        crashes: count(answer.crashes),
        stats: stats(answer.stats.unwrap_or_default()),
    }
}

fn entry(e: proto::RepoListEntry) -> RepoListEntry {
    let repo = e.repository.unwrap_or_default();
    let meta = e.index_metadata.unwrap_or_default();
    RepoListEntry {
        repository: Repository {
            name: repo.name,
            url: repo.url,
            branches: repo
                .branches
                .into_iter()
                .map(|b| RepositoryBranch {
                    name: b.name,
                    version: b.version,
                })
                .collect(),
            has_symbols: repo.has_symbols,
        },
        index_metadata: IndexMetadata {
            index_time: meta.index_time.map(rfc3339).unwrap_or_default(),
            zoekt_version: meta.zoekt_version,
        },
        stats: stats(e.stats.unwrap_or_default()),
    }
}

fn stats(s: proto::RepoStats) -> RepoStats {
    RepoStats {
        repos: count(s.repos),
        shards: count(s.shards),
        documents: count(s.documents),
        index_bytes: count(s.index_bytes),
        content_bytes: count(s.content_bytes),
    }
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// A time as Go's JSON writes it (RFC 3339 with nanoseconds, trailing zeros dropped), in UTC.
/// The JSON API writes the time in the offset it was indexed with; on a UTC machine (as
/// Zoekt's containers run) both read alike, elsewhere they name the same instant.
fn rfc3339(t: proto::Timestamp) -> String {
    let days = t.seconds.div_euclid(86_400);
    let secs = t.seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let mut out = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if t.nanos > 0 {
        let fraction = format!("{:09}", t.nanos);
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, from his public description of the algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64, nanos: i32) -> String {
        rfc3339(proto::Timestamp { seconds, nanos })
    }

    #[test]
    fn times_read_as_go_writes_them_in_utc() {
        // `date -u -d @N +%FT%TZ` for each.
        assert_eq!(at(0, 0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400, 0), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_795_888_240, 0), "2026-11-28T17:50:40Z");
        assert_eq!(at(4_107_542_399, 0), "2100-02-28T23:59:59Z");
        assert_eq!(at(-1, 0), "1969-12-31T23:59:59Z");
        // Go's RFC3339Nano: the fraction without trailing zeros.
        assert_eq!(at(0, 120_000_000), "1970-01-01T00:00:00.12Z");
        assert_eq!(at(0, 1), "1970-01-01T00:00:00.000000001Z");
    }
}
