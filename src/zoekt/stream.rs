//! A search answer decoded as it arrives: each file of `Result.Files` is read the moment its
//! last byte comes in, and its bytes are let go; only the rest of the answer (the statistics
//! and the small maps beside the files) is held until the end.
//!
//! Why: read whole, a 32 MiB answer was held as its chunks, then as one copy of them, then
//! beside everything serde built from it: about six times its bytes at the peak
//! (docs/bench/memory.md). Read file by file, the peak is what the files decode to plus one
//! file's bytes, and the decoding of the first files overlaps the sending of the last.
//!
//! How: a scanner follows the answer's nesting (strings, escapes, brackets) byte by byte,
//! which is cheap next to decoding (string contents are skipped with `memchr`). The `[` that
//! is the value of `Files` inside `Result` starts the file list: each `{...}` in it is
//! decoded on its own ([`FileMatch`]'s reader, the same as for a whole answer), and the list
//! is left as `[]` in the answer's skeleton, which is decoded at the end as before. So every
//! check a whole answer passes still applies: to the skeleton (keys, types, duplicates,
//! trailing bytes, the end of the answer) and to each file. The list's own commas are checked
//! here, as they are no longer in the skeleton.

use memchr::memchr2;

use super::wire::{FileMatch, SearchResponse};

/// What the scanner is reading outside strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The answer outside the file list: copied into the skeleton.
    Skeleton,
    /// Inside the file list, between files: what may come next.
    List(Next),
    /// Inside one file, `depth` brackets deep (1 at its own `{`).
    File { depth: u32 },
}

/// What the file list accepts next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Right after `[`: a file or `]`.
    FileOrEnd,
    /// After a file: `,` or `]`.
    CommaOrEnd,
    /// After a comma: a file.
    File,
}

/// Keys as long as this are remembered (enough for `Result` and `Files`).
const KEY_BYTES: usize = 8;

/// An answer of `/api/search` being decoded chunk by chunk: [`SearchStream::feed`] each chunk
/// in order, then [`SearchStream::finish`].
#[derive(Debug)]
pub struct SearchStream {
    place: Place,
    /// Brackets open in the skeleton (1 inside the top object).
    depth: u32,
    in_string: bool,
    /// The byte after a backslash inside a string is not a quote.
    escaped: bool,
    /// The string being read, when it may be a key of interest (at depth 1 or 2 and short).
    string: Option<Vec<u8>>,
    /// The last string closed at depth 1 and at depth 2.
    last_string: [Option<Vec<u8>>; 2],
    /// The key whose value is being read at depth 1 and at depth 2.
    key: [Option<Vec<u8>>; 2],
    /// Everything but the files, in order, with the file list left as `[]`.
    skeleton: Vec<u8>,
    /// The bytes of a file that started in an earlier chunk.
    file_bytes: Vec<u8>,
    /// The files, decoded.
    files: Vec<FileMatch>,
    /// Bytes fed so far.
    fed: usize,
    /// Where the file list started: the offset of the byte after its `[`, and the
    /// skeleton's length then (the skeleton up to and including that `[`).
    list_start: Option<(usize, usize)>,
    /// The offset just past each file decoded.
    file_ends: Vec<usize>,
    /// The file list's `]` was read.
    list_closed: bool,
}

impl Default for SearchStream {
    fn default() -> Self {
        SearchStream::new()
    }
}

/// Why an answer could not be read: serde's reason, and the bytes it was reading.
#[derive(Debug)]
pub struct StreamError {
    /// What was wrong.
    pub reason: String,
    /// The start of the part of the answer that was wrong (the skeleton or one file).
    pub excerpt: Vec<u8>,
}

impl SearchStream {
    /// A stream before its first byte.
    pub fn new() -> Self {
        SearchStream {
            place: Place::Skeleton,
            depth: 0,
            in_string: false,
            escaped: false,
            string: None,
            last_string: [None, None],
            key: [None, None],
            skeleton: Vec::new(),
            file_bytes: Vec::new(),
            files: Vec::new(),
            fed: 0,
            list_start: None,
            file_ends: Vec::new(),
            list_closed: false,
        }
    }

    /// Files decoded so far: every file whose last byte came in.
    pub fn files_read(&self) -> usize {
        self.files.len()
    }

    /// Reads the next chunk of the answer: every file it completes is decoded now.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), StreamError> {
        let base = self.fed;
        self.fed += chunk.len();
        // Where the bytes of the current place started in this chunk: the skeleton's run, or
        // the current file's.
        let mut start = 0;
        let mut i = 0;
        while i < chunk.len() {
            if self.in_string {
                i = self.skip_string(chunk, i);
                continue;
            }
            let b = chunk[i];
            match self.place {
                Place::Skeleton => {
                    self.skeleton_byte(b);
                    if self.place != Place::Skeleton {
                        // The file list opened: its `[` is the skeleton's last byte.
                        self.skeleton.extend_from_slice(&chunk[start..=i]);
                        self.list_start = Some((base + i + 1, self.skeleton.len()));
                    }
                }
                Place::List(next) => match (b, next) {
                    (b' ' | b'\t' | b'\n' | b'\r', _) => {}
                    (b'{', Next::FileOrEnd | Next::File) => {
                        self.place = Place::File { depth: 1 };
                        start = i;
                    }
                    (b',', Next::CommaOrEnd) => self.place = Place::List(Next::File),
                    (b']', Next::FileOrEnd | Next::CommaOrEnd) => {
                        self.list_closed = true;
                        self.place = Place::Skeleton;
                        self.depth -= 1;
                        self.key[1] = None;
                        start = i;
                    }
                    _ => {
                        return Err(StreamError {
                            reason: format!(
                                "Zoekt's Files list holds `{}` where a file, a comma or its end belongs",
                                char::from(b).escape_default()
                            ),
                            excerpt: chunk[i..].iter().copied().take(200).collect(),
                        });
                    }
                },
                Place::File { depth } => match b {
                    b'"' => {
                        self.in_string = true;
                        self.string = None;
                    }
                    b'{' | b'[' => self.place = Place::File { depth: depth + 1 },
                    b'}' | b']' if depth == 1 => {
                        self.file_done(&chunk[start..=i])?;
                        self.file_ends.push(base + i + 1);
                        self.place = Place::List(Next::CommaOrEnd);
                    }
                    b'}' | b']' => self.place = Place::File { depth: depth - 1 },
                    _ => {}
                },
            }
            i += 1;
        }
        match self.place {
            Place::Skeleton => self.skeleton.extend_from_slice(&chunk[start..]),
            Place::File { .. } => self.file_bytes.extend_from_slice(&chunk[start..]),
            Place::List(_) => {}
        }
        Ok(())
    }

    /// The whole answer, once its last chunk was fed.
    pub fn finish(self) -> Result<SearchResponse, StreamError> {
        let skeleton = &self.skeleton;
        let mut resp: SearchResponse = decode(skeleton)?;
        if self.place != Place::Skeleton {
            // Unreachable when the skeleton decoded (its file list would be open), kept so a
            // cut answer can never pass.
            return Err(StreamError {
                reason: "the answer ended inside its Files list".into(),
                excerpt: skeleton.iter().copied().take(200).collect(),
            });
        }
        if !self.files.is_empty() {
            // The skeleton's list is `[]`: `Files` given twice is refused by its reader.
            resp.result.files = self.files;
        }
        Ok(resp)
    }

    /// How many of the files decoded end within `list_bytes` bytes of the file list's start.
    /// Counted from the list, not from the answer's first byte, the count does not move with
    /// the statistics before the list (their digits differ from one request to the next) or
    /// with the maps after it: it depends on the files alone.
    pub fn files_within(&self, list_bytes: usize) -> usize {
        let Some((start, _)) = self.list_start else {
            return 0;
        };
        self.file_ends
            .partition_point(|&end| end - start <= list_bytes)
    }

    /// Where the file list starts (the byte after its `[`), once it was reached.
    pub fn list_offset(&self) -> Option<usize> {
        self.list_start.map(|(offset, _)| offset)
    }

    /// The file list's end was read: every file of the answer is decoded.
    pub fn list_closed(&self) -> bool {
        self.list_closed
    }

    /// The first `files` files decoded, with the statistics before the list: Zoekt's answer
    /// for that many files, since it sends its statistics first and its files best first
    /// (what follows the list, the repositories' URLs and the fragments' text, is left out:
    /// nothing reads it). `None` when the list was not reached.
    pub fn start(mut self, files: usize) -> Option<SearchResponse> {
        let (_, skeleton_len) = self.list_start?;
        // The skeleton up to the list's `[`, inside `Result` inside the answer: close all
        // three.
        let mut skeleton = self.skeleton[..skeleton_len].to_vec();
        skeleton.extend_from_slice(b"]}}");
        let mut resp: SearchResponse = decode(&skeleton).ok()?;
        self.files.truncate(files);
        resp.result.files = self.files;
        Some(resp)
    }

    /// Moves past string contents from `i`: to the byte after the closing quote, or to the
    /// chunk's end. Remembers a short string at depth 1 or 2 of the skeleton.
    fn skip_string(&mut self, chunk: &[u8], mut i: usize) -> usize {
        if self.escaped {
            self.escaped = false;
            self.remember(&chunk[i..=i]);
            return i + 1;
        }
        match memchr2(b'"', b'\\', &chunk[i..]) {
            None => {
                self.remember(&chunk[i..]);
                chunk.len()
            }
            Some(k) => {
                self.remember(&chunk[i..i + k]);
                i += k;
                if chunk[i] == b'\\' {
                    self.escaped = true;
                    self.remember(&chunk[i..=i]);
                } else {
                    self.in_string = false;
                    if let Some(s) = self.string.take() {
                        self.last_string[(self.depth - 1) as usize] = Some(s);
                    }
                }
                i + 1
            }
        }
    }

    /// Adds `bytes` to the string being remembered; a string too long to be a key of
    /// interest is forgotten.
    fn remember(&mut self, bytes: &[u8]) {
        if let Some(s) = &mut self.string {
            if s.len() + bytes.len() > KEY_BYTES {
                self.string = None;
                // Not a key of interest; keep `last_string` from matching an older one.
                self.last_string[(self.depth - 1) as usize] = None;
            } else {
                s.extend_from_slice(bytes);
            }
        }
    }

    /// One byte of the skeleton outside strings: follows the nesting and the keys, and opens
    /// the file list at `"Result": {... "Files": [`.
    fn skeleton_byte(&mut self, b: u8) {
        match b {
            b'"' => {
                self.in_string = true;
                self.string = matches!(self.depth, 1 | 2).then(Vec::new);
                if let 1 | 2 = self.depth {
                    self.last_string[(self.depth - 1) as usize] = None;
                }
            }
            b':' if matches!(self.depth, 1 | 2) => {
                let d = (self.depth - 1) as usize;
                self.key[d] = self.last_string[d].take();
            }
            b'{' | b'[' => {
                let opens_files = b == b'['
                    && self.depth == 2
                    && self.key[0].as_deref() == Some(b"Result")
                    && self.key[1].as_deref() == Some(b"Files");
                self.depth = self.depth.saturating_add(1);
                // A new object or list at depth 1 or 2 has no key yet: one read at that depth
                // before (in another object) must not count.
                if let 1 | 2 = self.depth {
                    self.key[(self.depth - 1) as usize] = None;
                    self.last_string[(self.depth - 1) as usize] = None;
                }
                if opens_files {
                    self.place = Place::List(Next::FileOrEnd);
                }
            }
            b'}' | b']' => {
                // Too many closing brackets: the skeleton's reader refuses them.
                self.depth = self.depth.saturating_sub(1);
                // The value of the key at this depth is over.
                if let 1 | 2 = self.depth {
                    self.key[(self.depth - 1) as usize] = None;
                }
            }
            b',' if matches!(self.depth, 1 | 2) => {
                self.key[(self.depth - 1) as usize] = None;
            }
            _ => {}
        }
    }

    /// Decodes the file whose last bytes are `tail` (all of it when it started in this
    /// chunk).
    fn file_done(&mut self, tail: &[u8]) -> Result<(), StreamError> {
        let file = if self.file_bytes.is_empty() {
            decode(tail)?
        } else {
            self.file_bytes.extend_from_slice(tail);
            let file = decode(&self.file_bytes)?;
            self.file_bytes.clear();
            file
        };
        self.files.push(file);
        Ok(())
    }
}

/// The bytes of a window's file list read within an answer of `limit` bytes: the bound less
/// room for the statistics before the list, so that which files fit depends on the files
/// alone ([`SearchStream::files_within`]).
pub fn list_bytes(limit: usize) -> usize {
    limit - statistics_room(limit)
}

/// The bytes left for what comes before a window's file list: 16 KiB (Zoekt's statistics
/// take about 700), or a quarter of a smaller bound.
fn statistics_room(limit: usize) -> usize {
    (16 << 10).min(limit / 4)
}

/// An answer whose file list starts past the room kept for statistics could keep fewer files cut at
/// the bound than read whole: it is refused rather than bound at a count that would move.
pub fn statistics_fit(stream: &SearchStream, limit: usize) -> Result<(), String> {
    match stream.list_offset() {
        Some(offset) if offset > statistics_room(limit) => Err(format!(
            "{offset} bytes before the file list, more than the {} kept for statistics",
            statistics_room(limit)
        )),
        _ => Ok(()),
    }
}

/// One part of the answer, read as a whole answer is: as text when it is UTF-8 (checked once,
/// which is faster than serde_json checking each string), as bytes otherwise.
fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, StreamError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
    .map_err(|e| StreamError {
        reason: e.to_string(),
        excerpt: bytes.iter().copied().take(400).collect(),
    })
}

#[cfg(test)]
mod tests;
