//! Tests of `zoekt::stream`, kept beside it so the module reads as what it does.

use super::*;

/// An answer as Zoekt writes it: statistics first, files, then the maps beside them.
const ANSWER: &str = r#"{"Result":{"FileCount":3,"MatchCount":4,"Duration":12,
    "Files":[
      {"FileName":"a/b.rs","Repository":"r","Language":"Rust","Score":2.5,
       "LineMatches":[{"Line":"Zm4geygpIHsKfQ==","LineNumber":3,"LineStart":0,"LineEnd":9,
         "Before":null,"After":null,"FileName":false,"Score":1,
         "LineFragments":[{"LineOffset":0,"Offset":0,"MatchLength":2,"SymbolInfo":null}]}]},
      {"FileName":"q\"uote[{.rs","Repository":"r","Language":"Rust","Unread":{"Files":[1,[2]]},
       "LineMatches":null},
      {"FileName":"c.go","Repository":"s","Language":"Go","LineMatches":[]}
    ],
    "RepoURLs":{"r":"x"},"LineFragments":{"r":"y"}}}"#;

/// `text` fed in chunks of `size` bytes.
fn streamed(text: &[u8], size: usize) -> Result<SearchResponse, StreamError> {
    let mut s = SearchStream::new();
    for chunk in text.chunks(size) {
        s.feed(chunk)?;
    }
    s.finish()
}

fn whole(text: &str) -> Result<SearchResponse, serde_json::Error> {
    serde_json::from_str(text)
}

#[test]
fn an_answer_reads_the_same_streamed_in_chunks_of_any_size() {
    let expected = whole(ANSWER).unwrap();
    assert_eq!(expected.result.files.len(), 3);
    for size in 1..=ANSWER.len() {
        let got = streamed(ANSWER.as_bytes(), size).unwrap();
        assert_eq!(got.result, expected.result, "chunks of {size} bytes");
    }
}

#[test]
fn the_files_are_decoded_as_they_arrive_and_not_kept_as_bytes() {
    let cut = ANSWER.find(r#"{"FileName":"c.go""#).unwrap();
    let mut s = SearchStream::new();
    s.feed(&ANSWER.as_bytes()[..cut]).unwrap();
    assert_eq!(
        s.files.len(),
        2,
        "both files before the cut are read already"
    );
    assert!(s.file_bytes.is_empty());
    assert!(
        s.skeleton.len() < 100,
        "the skeleton holds no file: {}",
        String::from_utf8_lossy(&s.skeleton)
    );
}

/// An answer cut anywhere inside its file list gives the files read whole before the
/// cut, with the statistics: what Zoekt answers for that many files.
#[test]
fn an_answer_cut_inside_its_files_gives_the_files_before_the_cut() {
    let expected = whole(ANSWER).unwrap().result;
    let list = ANSWER.find("\"Files\":[").unwrap() + "\"Files\":[".len();
    let end = ANSWER.find("\n    ],").unwrap();
    let mut seen = Vec::new();
    for cut in list..=end {
        let mut s = SearchStream::new();
        s.feed(&ANSWER.as_bytes()[..cut]).unwrap();
        let read = s.files_read();
        seen.push(read);
        assert_eq!(s.files_within(usize::MAX), read);
        assert!(!s.list_closed());
        let start = s.start(read).expect("the list was reached");
        assert_eq!(start.result.files, expected.files[..read], "cut at {cut}");
        assert_eq!(start.result.file_count, expected.file_count);
        assert_eq!(start.result.match_count, expected.match_count);
    }
    assert!((0..=3).all(|n| seen.contains(&n)), "{seen:?}");
    // Before the list: no start.
    let mut s = SearchStream::new();
    s.feed(&ANSWER.as_bytes()[..list - 3]).unwrap();
    assert!(s.start(0).is_none());
}

/// Which files end within a number of bytes of the list is counted from the list's
/// start: the same however long the statistics before it are, and whatever follows it.
#[test]
fn the_files_within_a_bound_depend_on_the_files_alone() {
    let list = ANSWER.find("\"Files\":[").unwrap() + "\"Files\":[".len();
    // Just past the first file's `}`, and the list's end.
    let first_end = ANSWER.find("]}]},").unwrap() + 4;
    let list_end = ANSWER.find("\n    ]").unwrap();
    // Longer statistics (digits of a duration), and the maps after the list cut short.
    let longer = ANSWER.replacen("\"Duration\":12", "\"Duration\":123456789012", 1);
    for text in [ANSWER.to_string(), longer] {
        let shift = text.len() - ANSWER.len();
        let mut s = SearchStream::new();
        s.feed(&text.as_bytes()[..text.len() - 10]).unwrap();
        assert!(s.list_closed());
        let first = first_end - list;
        assert_eq!(s.files_within(first - 1), 0, "shift {shift}");
        assert_eq!(s.files_within(first), 1, "shift {shift}");
        assert_eq!(s.files_within(list_end - list), 3, "shift {shift}");
        let start = s.start(1).unwrap();
        assert_eq!(start.result.files.len(), 1);
    }
}

#[test]
fn what_a_whole_answer_refuses_a_streamed_one_refuses() {
    let bad = [
        // The list's own punctuation, no longer in the skeleton.
        ANSWER.replacen("]},\n      {\"FileName\":\"q", "]}\n {\"FileName\":\"q", 1),
        ANSWER.replacen("\"LineMatches\":[]}", "\"LineMatches\":[]},", 1),
        ANSWER.replacen("\"Files\":[", "\"Files\":[null,", 1),
        ANSWER.replacen("\"Files\":[", "\"Files\":[1,", 1),
        ANSWER.replacen("\"Files\":[", "\"Files\":[,", 1),
        // A file that is not one, a list that does not close, a duplicate list.
        ANSWER.replacen("{\"FileName\":\"c.go\"", "{\"FileName\":7", 1),
        ANSWER.replacen("\"LineMatches\":[]}", "\"LineMatches\":[]]", 1),
        ANSWER.replacen("\"RepoURLs\"", "\"Files\":[],\"RepoURLs\"", 1),
        // Cut short, and bytes after the end.
        ANSWER[..ANSWER.len() - 40].to_string(),
        format!("{ANSWER}x"),
        format!("{ANSWER}{{}}"),
        ANSWER.replacen("\"FileCount\":3,", "", 1),
    ];
    for text in &bad {
        assert!(whole(text).is_err(), "a whole answer refuses {text}");
        for size in [1, 7, 64, text.len()] {
            assert!(
                streamed(text.as_bytes(), size).is_err(),
                "chunks of {size} accepted {text}"
            );
        }
    }
}

#[test]
fn files_elsewhere_or_under_an_unusual_key_are_read_with_the_skeleton() {
    // Keys written with escapes, and a `Files` that is not Result's: no list is taken
    // out, the skeleton's reader reads them as a whole answer's would.
    let escaped = ANSWER.replacen("\"Files\":[", "\"Fil\\u0065s\":[", 1);
    let nested =
        r#"{"Other":{"Files":[{"x":1}]},"Result":{"FileCount":0,"MatchCount":0,"Files":null}}"#;
    let result_list = r#"{"Result":[{"Files":[]}]}"#;
    for text in [escaped.as_str(), nested, result_list] {
        for size in [1, 5, text.len()] {
            let got = streamed(text.as_bytes(), size).map(|r| r.result);
            let want = whole(text).map(|r| r.result);
            match (got, want) {
                (Ok(g), Ok(w)) => assert_eq!(g, w, "{text}"),
                (Err(_), Err(_)) => {}
                (g, w) => panic!("{text}: streamed {g:?}, whole {w:?}"),
            }
        }
    }
}

#[test]
fn an_empty_or_null_list_reads_as_no_files() {
    for files in ["[]", "[ \n ]", "null"] {
        let text = format!(r#"{{"Result":{{"FileCount":0,"MatchCount":0,"Files":{files}}}}}"#);
        for size in [1, 3, text.len()] {
            assert!(
                streamed(text.as_bytes(), size)
                    .unwrap()
                    .result
                    .files
                    .is_empty()
            );
        }
    }
}
