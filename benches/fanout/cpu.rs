//! The pager kept off the webservers' CPU for the table that asks for it: the webservers
//! pinned to one CPU and this process to the others, with `taskset`, and put back after.

/// While it lives, the given webservers run on one CPU only and this process (all its
/// threads) on the others it may use: the pager's decoding then never takes CPU time from a
/// webserver. Set with `taskset` (util-linux); dropped, every process gets back the CPUs it
/// had.
pub(crate) struct CpuOfItsOwn {
    /// Each pinned process and the CPUs it had before (`Cpus_allowed_list`).
    before: Vec<(u32, String)>,
}

impl CpuOfItsOwn {
    /// `None` (and why, on stderr) when this process may use fewer than 2 CPUs or a process
    /// could not be pinned (then those already pinned get their CPUs back).
    pub(crate) fn pin(webservers: &[u32]) -> Option<CpuOfItsOwn> {
        let me = std::process::id();
        let ours = cpus_allowed(me)?;
        let cpus = cpu_ids(&ours);
        let [theirs, rest @ ..] = cpus.as_slice() else {
            return None;
        };
        if rest.is_empty() {
            eprintln!("fanout: one CPU, so no table with the pager on a CPU of its own");
            return None;
        }
        let rest = rest
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let mut pinned = CpuOfItsOwn { before: Vec::new() };
        let targets = webservers
            .iter()
            .map(|&pid| (pid, theirs.to_string()))
            .chain([(me, rest)]);
        for (pid, cpus) in targets {
            let before = cpus_allowed(pid)?;
            if !taskset(pid, &cpus) {
                return None;
            }
            pinned.before.push((pid, before));
        }
        Some(pinned)
    }
}

impl Drop for CpuOfItsOwn {
    fn drop(&mut self) {
        for (pid, cpus) in &self.before {
            taskset(*pid, cpus);
        }
    }
}

/// The CPUs process `pid` may run on, as `/proc` lists them (`0-3,6`).
fn cpus_allowed(pid: u32) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| eprintln!("fanout: /proc/{pid}/status: {e}"))
        .ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(|l| l.trim().to_string())
}

/// The CPU numbers of a list such as `0-3,6`.
fn cpu_ids(list: &str) -> Vec<u32> {
    list.split(',')
        .filter_map(|part| match part.split_once('-') {
            Some((a, b)) => Some(a.parse().ok()?..=b.parse().ok()?),
            None => part.parse().ok().map(|c| c..=c),
        })
        .flatten()
        .collect()
}

/// Sets the CPUs of every thread of process `pid`; `false` (and why, on stderr) when it
/// could not.
fn taskset(pid: u32, cpus: &str) -> bool {
    let status = std::process::Command::new("taskset")
        .args(["--all-tasks", "--cpu-list", "--pid", cpus, &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .status();
    match status {
        Ok(s) if s.success() => true,
        other => {
            eprintln!("fanout: taskset {cpus} {pid}: {other:?}");
            false
        }
    }
}
