//! Levels of many entries cut into runs by name: every entry in a way, no run holding an
//! entry named alone.

use super::*;

/// A census of repositories: `big` (name, files) and four small ones of one file for each
/// letter from a to z; with every repository's name.
fn repositories(big: &[(&str, u32)]) -> (Arc<CensusPart>, Vec<String>) {
    let mut table = String::new();
    let mut names = Vec::new();
    for (name, files) in big {
        table.push_str(&format!("{name} src/a#.go Go *{files}; "));
        names.push(name.to_string());
    }
    for letter in 'a'..='z' {
        for i in 0..4 {
            table.push_str(&format!("{letter}{i} b.go Go; "));
            names.push(format!("{letter}{i}"));
        }
    }
    (census(table.trim_end(), CountUnit::Files), names)
}

/// The repositories of `names` no way selects, by its name or in a run.
fn unnamed<'n>(n: &Narrowing, names: &'n [String]) -> Vec<&'n String> {
    names
        .iter()
        .filter(|name| {
            !n.ways.iter().any(|w| match &w.by {
                NarrowBy::Repo(r) => r == *name,
                NarrowBy::Group(run) => {
                    run.dir.is_none() && group::in_run(name, &run.start, run.initial)
                }
                _ => false,
            })
        })
        .collect()
}

/// A level of a hundred small repositories and one or two of a tenth (`go-toolchain` and
/// `c-include` for `search_symbols parse`; `x-sys` among other `x` repositories for
/// `files_with_matches "func main"`): its runs name every repository. Entries of a tenth
/// named alone (c1aca16, reverted) had the runs around them cut again into more than the
/// level's places, and the smallest, left out of the list, took their results with them.
#[test]
fn a_level_of_one_or_two_big_entries_among_many_small_ones_names_every_entry() {
    for big in [&[("go", 12), ("c-inc", 11)][..], &[("x-sys", 10)][..]] {
        let (c, names) = repositories(big);
        let n = narrowing(&c, &[]).expect("ways");
        let said = ways(&n);
        assert_eq!(unnamed(&n, &names), Vec::<&String>::new(), "{said}");
        assert!(n.ways.len() <= MAX_WAYS, "{said}");
    }
}

#[test]
fn a_run_never_holds_a_big_entry_named_beside_it() {
    // /usr/include: linux/ and llvm-14/ hold most; dozens of small headers and folders
    // beside them, some starting with `l` too.
    let mut table = String::from("m inc/linux/a#.h C *40; m inc/llvm-14/b#.h C *30;");
    let mut paths = Vec::new();
    for name in [
        "limits", "locale", "libgen", "link", "assert", "ctype", "errno", "fcntl", "math", "stdio",
        "stdlib", "string", "time", "unistd", "wchar", "zlib",
    ] {
        table.push_str(&format!(" m inc/{name}.h C; m inc/{name}x/c#.h C *2;"));
        paths.push(format!("inc/{name}.h"));
        paths.push(format!("inc/{name}x/c0.h"));
    }
    let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
    let said = ways(&n);
    // Cut around both, the parts beside them still hold every header and folder.
    assert_eq!(unreached(&n, &paths), Vec::<&String>::new(), "{said}");
    for big in ["linux/", "llvm-14/"] {
        assert!(said.contains(&format!("directory inc/{big}")), "{said}");
        for w in &n.ways {
            if let NarrowBy::Group(run) = &w.by {
                assert!(
                    !group::in_run(big, &run.start, run.initial),
                    "{big} in {said}"
                );
            }
        }
    }
}

/// `search_symbols init` in python-2.7 (its `Lib/`, raw Zoekt's `type:file`): test/ and
/// idlelib/ named alone, 18 directories and 130 files beside them. The run that would
/// hold idlelib/ was cut finer around it, into more parts than the level had places, and
/// the smallest (json/, `[j-kJ-K]`) fell off the list: no way held decoder.py.
#[test]
fn a_level_cut_around_its_big_entries_still_names_every_entry() {
    let dirs = "bsddb 7 compiler 9 config 2 ctypes 9 curses 2 distutils 48 email 16 \
                encodings 6 hotshot 3 idlelib 68 json 2 lib-tk 15 lib2to3 17 logging 3 \
                multiprocessing 12 sqlite3 1 test 156 unittest 14 wsgiref 4 xml 12";
    let files = "Bastion ConfigParser Cookie DocXMLRPCServer HTMLParser MimeWriter Queue \
        SimpleXMLRPCServer SocketServer StringIO UserDict UserList UserString __future__ \
        _abcoll _osx_support _pyio _strptime _weakrefset aifc argparse asynchat asyncore \
        audiodev bdb binhex calendar cgi cgitb chunk cmd code codecs codeop collections \
        contextlib cookielib copy csv decimal difflib doctest dumbdbm dummy_thread filecmp \
        fileinput formatter ftplib functools getopt gettext gzip hmac htmllib httplib \
        ihooks imaplib imputil inspect locale mailbox markupbase mhlib mimetools mimetypes \
        mimify modulefinder multifile mutex netrc nntplib optparse os pdb pickle \
        pickletools pipes pkgutil platform plistlib popen2 poplib pprint profile pstats \
        py_compile pyclbr pydoc random re repr rexec rfc822 rlcompleter robotparser runpy \
        sched sets sgmllib shelve site smtpd smtplib socket sre_parse ssl string \
        subprocess sunau symtable sysconfig tabnanny telnetlib tempfile textwrap \
        threading timeit tokenize trace urllib urllib2 uuid warnings wave weakref \
        webbrowser xdrlib xmllib xmlrpclib zipfile";
    let mut table = String::new();
    let mut paths = Vec::new();
    let words: Vec<&str> = dirs.split_whitespace().collect();
    for pair in words.chunks(2) {
        table.push_str(&format!("m {}/d#.py Python *{}; ", pair[0], pair[1]));
        paths.push(format!("{}/d0.py", pair[0]));
    }
    for name in files.split_whitespace() {
        table.push_str(&format!("m {name}.py Python; "));
        paths.push(format!("{name}.py"));
    }
    // Three C files: a language of under 1%, which would take a place of the tree's.
    table.push_str("m ctypes/c#.c C *3");
    let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
    let said = ways(&n);
    assert_eq!(unreached(&n, &paths), Vec::<&String>::new(), "{said}");
    assert!(n.ways.len() <= MAX_WAYS, "{said}");
    assert!(!said.contains("language C"), "{said}");
}

#[test]
fn a_flat_directory_of_many_files_is_cut_into_runs_by_name() {
    // go-toolchain/test/fixedbugs/: 2,047 files, no subdirectory; here bug* and issue*.
    let n = narrowing(
        &census(
            "m test/fixedbugs/bug#.go Go *40; m test/fixedbugs/issue#.go Go *200; \
             m test/a#.go Go *5",
            CountUnit::Files,
        ),
        &[],
    )
    .expect("ways");
    let said = ways(&n);
    assert!(said.contains("run test/fixedbugs/issue"), "{said}");
    // bug* as one run, issue* by the digit after `issue`, a file alone to its end, and
    // test/'s own files.
    assert_eq!(
        said,
        "run test/fixedbugs/[bB]: 40; run test/fixedbugs/issue2: 11; \
         run test/fixedbugs/issue3: 11; run test/fixedbugs/issue4: 11; \
         run test/fixedbugs/issue5: 11; run test/fixedbugs/issue6: 11; \
         run test/fixedbugs/issue7: 11; run test/fixedbugs/issue8: 11; \
         run test/fixedbugs/issue9: 11; the files directly in test/: 5; \
         run test/fixedbugs/issue1: 111; run test/fixedbugs/issue0.go$: 1"
    );
    for f in &census(
        "m test/fixedbugs/bug#.go Go *40; m test/fixedbugs/issue#.go Go *200",
        CountUnit::Files,
    )
    .files
    {
        assert!(
            n.ways.iter().any(|w| holds(&w.by, &f.path)),
            "{}: {said}",
            f.path
        );
    }
}
