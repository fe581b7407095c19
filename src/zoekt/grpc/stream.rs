//! `StreamSearch`: Zoekt's answer read chunk by chunk, up to the client's byte bound, so that
//! an answer too big to read whole still gives its start (the engine asks so for windows).
//!
//! Why: `Search` answers in one message, which tonic refuses whole when it is over the bound;
//! the page then had to ask again for fewer files, each time a whole search (`files_with_matches
//! .` on a 94,000-file monorepo: ten searches of 2 to 5 s to find that 8 files fit). Asked with
//! a flush wall time longer than the search's own, Zoekt collects every shard's files, ranks and
//! cuts them as `Search` does, and only then sends them, best first, in chunks of about 1 MiB,
//! the statistics on the first (`search/aggregate.go`, `grpc/chunk` in Zoekt's source). The
//! files read within the bound are therefore Zoekt's answer for that many files.

use std::time::Duration;

use prost::Message as _;
use tonic::codegen::http::uri::PathAndQuery;

use super::{Failed, GrpcClient, proto};
use crate::zoekt::error::ZoektError;

/// The method.
const STREAM_SEARCH: &str = "/zoekt.webserver.v1.WebserverService/StreamSearch";

/// The biggest message of the stream decoded, at least: Zoekt sends files in chunks of up to
/// 1 MiB (one file bigger than that alone), and a bound below a chunk must still read the
/// files of the first one that fit it.
const CHUNK_BYTES: usize = 2 << 20;

/// Room over the bound for a message's own bytes, so that a file within the bound is never
/// refused for the few bytes its message adds around it.
const MESSAGE_SLACK: usize = 64 << 10;

/// How long Zoekt collects and ranks before it would stream files unranked: far past any
/// wall time the pager sends, so that it never does (the search ends first, and its end
/// sends what was collected).
const COLLECT_ALL: Duration = Duration::from_secs(3600);

impl GrpcClient {
    /// `req`'s answer over `StreamSearch`, read up to `--max-answer-bytes` (as protobuf,
    /// scaled as for `Search`). An answer over it is its start, `true` beside it: the files
    /// read whole within the bound, which is Zoekt's answer for that many files. One file
    /// alone over the bound is [`ZoektError::TooBig`], as is a chunk over it. Retried while
    /// Zoekt is unavailable, as `Search` is, never after an answer began.
    pub async fn search_start(
        &self,
        req: &proto::SearchRequest,
    ) -> Result<(proto::SearchResponse, bool), ZoektError> {
        let asked = req.opts.as_ref().map(|o| o.max_doc_display_count);
        let asked = asked.and_then(|n| u32::try_from(n).ok());
        let mut collected = req.clone();
        if let Some(opts) = collected.opts.as_mut() {
            // Past the search's wall time and the client's timeout, whatever they are set to.
            let wall = opts.max_wall_time.map_or(0, |d| d.as_millis());
            let timeout = u64::try_from(self.opts.timeout.as_millis()).unwrap_or(u64::MAX);
            let collect = u64::try_from(COLLECT_ALL.as_millis()).unwrap_or(u64::MAX);
            opts.flush_wall_time = Some(proto::Duration::from_millis(
                collect.max(wall.saturating_add(timeout).saturating_mul(2)),
            ));
        }
        let stream_req = proto::StreamSearchRequest {
            request: Some(collected),
        };
        let timeout = self.opts.timeout;
        let read = self
            .retried(|| async {
                match tokio::time::timeout(timeout, self.read_stream(&stream_req, timeout)).await {
                    Ok(read) => read,
                    Err(_) => Err(Failed::After(tonic::Status::deadline_exceeded(
                        "the client timeout ran out",
                    ))),
                }
            })
            .await;
        let read = match read {
            Ok(read) => read,
            // One file alone over the bound: no start to give.
            Err(status) if too_long(&status) => {
                return Err(ZoektError::TooBig {
                    limit: self.opts.max_answer_bytes,
                    within: Some(0),
                });
            }
            Err(status) => return Err(self.error(status, timeout, asked)),
        };
        let (answer, cut) = read;
        if cut && answer.files.is_empty() {
            return Err(ZoektError::TooBig {
                limit: self.opts.max_answer_bytes,
                within: Some(0),
            });
        }
        let checked = match cut {
            true => u64::try_from(answer.files.len()).unwrap_or(u64::MAX),
            false => asked.map_or(0, u64::from),
        };
        super::check_for(checked, &answer)
            .map_err(|reason| ZoektError::Contradiction { reason })?;
        Ok((answer, cut))
    }

    /// One stream, read to its end or to the bound.
    async fn read_stream(
        &self,
        req: &proto::StreamSearchRequest,
        timeout: Duration,
    ) -> Result<(proto::SearchResponse, bool), Failed> {
        let limit = self.decode_limit();
        let mut grpc = tonic::client::Grpc::new(self.channel.clone())
            .max_decoding_message_size(limit.saturating_add(MESSAGE_SLACK).max(CHUNK_BYTES));
        grpc.ready()
            .await
            .map_err(|e| Failed::Before(tonic::Status::unavailable(e.to_string())))?;
        let started = std::time::Instant::now();
        let mut request = tonic::Request::new(req.clone());
        request.set_timeout(timeout);
        for (key, value) in &self.headers {
            request.metadata_mut().append(key.clone(), value.clone());
        }
        let codec = tonic_prost::ProstCodec::<
            proto::StreamSearchRequest,
            proto::StreamSearchResponse,
        >::default();
        let mut stream = grpc
            .server_streaming(request, PathAndQuery::from_static(STREAM_SEARCH), codec)
            .await
            .map_err(Failed::Before)?
            .into_inner();
        let mut answer = proto::SearchResponse::default();
        let mut bytes = 0;
        // Zoekt's stream sends no duration (only its `Search` measures one), and out of time
        // is read from it (`engine/window.rs`, `Cut`): Zoekt sends nothing before its search
        // ends (the files collected, or the statistics alone), so the first message's arrival
        // is when it ended, give or take one chunk's transfer.
        let mut searched = None;
        let cut = loop {
            let message = match stream.message().await {
                Ok(Some(message)) => message,
                Ok(None) => break false,
                // A chunk bigger than any decoded (one file alone over the bound): the files
                // before it are the start, if there are any.
                Err(status) if too_long(&status) && !answer.files.is_empty() => break true,
                Err(status) => return Err(Failed::After(status)),
            };
            searched.get_or_insert_with(|| started.elapsed());
            let Some(chunk) = message.response_chunk else {
                continue;
            };
            if let Some(stats) = chunk.stats {
                add_stats(&mut answer.stats, stats);
            }
            let mut over = false;
            for raw in chunk.files {
                // Its bytes on the wire, as tonic measures a `Search` answer against the same
                // bound; decoded only once it is kept.
                bytes += raw.len();
                if bytes > limit {
                    over = true;
                    break;
                }
                let file = proto::FileMatch::decode(raw.as_slice())
                    .map_err(|e| Failed::After(tonic::Status::internal(format!("decode: {e}"))))?;
                answer.files.push(file);
            }
            if over {
                // Dropping the stream cancels the call, and Zoekt's search with it.
                break true;
            }
        };
        let searched = searched.unwrap_or_else(|| started.elapsed());
        let stats = answer.stats.get_or_insert_with(proto::Stats::default);
        let said = stats.duration.map_or(0, |d| d.as_millis());
        // Less the time it queued for Zoekt's scheduler, as `Search` measures it.
        let waited = stats.wait.map_or(0, |d| d.as_millis());
        let measured = u64::try_from(searched.as_millis())
            .unwrap_or(u64::MAX)
            .saturating_sub(waited);
        stats.duration = Some(proto::Duration::from_millis(said.max(measured)));
        Ok((answer, cut))
    }
}

/// Whether tonic refused a message as over its decoding limit.
fn too_long(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::OutOfRange | tonic::Code::ResourceExhausted
    ) && status.message().contains("message length")
}

/// Adds one chunk's statistics to the answer's, as Zoekt's own client does: the first chunk
/// of files carries the search's, and statistics gathered after it come on their own (Zoekt
/// sends no duration on a stream today; one that did would be the search's so far).
fn add_stats(into: &mut Option<proto::Stats>, more: proto::Stats) {
    let Some(sum) = into else {
        *into = Some(more);
        return;
    };
    sum.crashes += more.crashes;
    sum.file_count += more.file_count;
    sum.files_skipped += more.files_skipped;
    sum.shards_skipped += more.shards_skipped;
    sum.match_count += more.match_count;
    // Durations overlap (a chunk's is the whole search's so far): the longest, not the sum.
    let millis = |d: Option<proto::Duration>| d.map_or(0, |d| d.as_millis());
    sum.duration = Some(proto::Duration::from_millis(
        millis(sum.duration).max(millis(more.duration)),
    ));
    // Zoekt adds waits up; only the search's own wait, at its start, is ever sent.
    sum.wait = Some(proto::Duration::from_millis(
        millis(sum.wait).saturating_add(millis(more.wait)),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_chunks_add_up() {
        let one = proto::Stats {
            crashes: 1,
            duration: Some(proto::Duration::from_millis(40)),
            file_count: 10,
            files_skipped: 2,
            shards_skipped: 0,
            match_count: 30,
            wait: None,
        };
        let mut sum = None;
        add_stats(&mut sum, one.clone());
        assert_eq!(sum, Some(one.clone()));
        add_stats(&mut sum, one);
        let sum = sum.unwrap();
        assert_eq!(
            (
                sum.crashes,
                sum.file_count,
                sum.files_skipped,
                sum.match_count
            ),
            (2, 20, 4, 60)
        );
        assert_eq!(sum.duration.map(|d| d.as_millis()), Some(40));
    }
}
