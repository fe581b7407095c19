//! What can go wrong talking to Zoekt, over either of its APIs.

/// Everything that can go wrong talking to Zoekt, one variant per cause. Zoekt's own message
/// is kept verbatim so a user sees what Zoekt said.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum ZoektError {
    /// Nothing answered at the address (refused, DNS, reset before a response).
    #[error("Zoekt is unreachable at {url}: {reason}")]
    Unreachable {
        /// The URL that was tried.
        url: String,
        /// What went wrong, from the innermost error cause.
        reason: String,
    },
    /// The request took longer than the configured client timeout.
    #[error("Zoekt did not answer within {after_ms} ms")]
    Timeout {
        /// The timeout that ran out, in milliseconds.
        after_ms: u64,
    },
    /// Zoekt rejected the query (HTTP 400), e.g. a regex parse error.
    #[error("Zoekt rejected the query: {message}")]
    Query {
        /// Zoekt's error message, verbatim.
        message: String,
    },
    /// Zoekt failed (5xx or another unexpected status).
    #[error("Zoekt failed with HTTP {status}: {message}")]
    Server {
        /// The HTTP status code Zoekt answered with.
        status: u16,
        /// Zoekt's error message, or an excerpt of the body when it gave none.
        message: String,
    },
    /// The answer was bigger than `--max-answer-bytes`; reading stopped there.
    #[error("Zoekt's answer is larger than {limit} bytes (--max-answer-bytes)")]
    TooBig {
        /// The bound it passed.
        limit: usize,
        /// How many files an answer within the bound would hold, as far as this one tells:
        /// over JSON the files read whole before the bound, over gRPC the files asked scaled
        /// by the bound over the answer's length (unknown when neither was seen). A page
        /// that needs a smaller window asks for that many instead of halving its way down,
        /// one whole search a step.
        within: Option<u32>,
    },
    /// The answer decoded, but says two things that cannot both be true (counts that
    /// contradict its files, more files than asked, a file without a name). A proxy or a
    /// broken Zoekt can send one; none of it may become a page.
    #[error("Zoekt's answer contradicts itself ({reason}), so none of it was used")]
    Contradiction {
        /// What contradicts what.
        reason: String,
    },
    /// The answer was not the JSON we expect.
    #[error("Zoekt sent a malformed response ({reason}); body starts: {excerpt}")]
    Malformed {
        /// Why the body could not be decoded.
        reason: String,
        /// The start of the body, at most 200 characters.
        excerpt: String,
    },
}
