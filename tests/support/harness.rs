//! The harness's commands run as an operator runs them: the binary alone, in a folder of
//! its own holding the recordings, with an empty environment (no cargo, no source tree, no
//! `ZOEKT_*` setting of the shell that runs the tests).

use std::path::{Path, PathBuf};
use std::process::Output;

/// An empty folder of this process's own under the target's scratch space.
pub fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies every committed recording of the pinned Zoekt into `to`; how many.
pub fn copy_committed_recordings(to: &Path) -> usize {
    std::fs::create_dir_all(to).unwrap();
    let mut n = 0;
    for entry in std::fs::read_dir(super::zoekt_recordings_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            n += 1;
        }
    }
    n
}

/// `zoekt-pager ARGS` in `cwd`, with nothing in its environment but a plain `PATH`.
pub fn zoekt_pager(args: &[&str], cwd: &Path) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"))
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run zoekt-pager")
}

/// Its exit code, stdout and stderr, for assertions and their messages.
pub fn outcome(out: &Output) -> (Option<i32>, String, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
