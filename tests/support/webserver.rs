//! A zoekt-webserver of a test's own, for the tests that stop and start Zoekt: the shared
//! webservers never see a restart.

use super::live_url;

/// A zoekt-webserver a test starts, kills and starts again itself, on a free port of its own
/// (never one of the shared ones), over an existing index: for restarts, which the shared
/// webservers must never see. `scripts/test.sh` exports the pinned binary and the fixture
/// index (`ZOEKT_PAGER_LIVE_WEBSERVER`, `ZOEKT_PAGER_LIVE_INDEX_DIR`).
pub struct OwnWebserver {
    port: u16,
    bin: String,
    index: String,
}

/// A running [`OwnWebserver`], killed when dropped (also when an assertion fails first).
pub struct RunningWebserver(std::process::Child);

impl Drop for RunningWebserver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl OwnWebserver {
    /// The pinned webserver over the fixture index, for `test`, which fails without them.
    pub fn for_test(test: &str) -> OwnWebserver {
        Self::over("ZOEKT_PAGER_LIVE_INDEX_DIR", test)
    }

    /// The pinned webserver over the index folder `scripts/test.sh` exports as `index_var`
    /// (`ZOEKT_PAGER_LIVE_MANY_SHARDS_INDEX_DIR`: the generated corpus in 733 small shards,
    /// the most loading work at a start that the tests can afford).
    pub fn over(index_var: &str, test: &str) -> OwnWebserver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        OwnWebserver {
            port,
            bin: live_url("ZOEKT_PAGER_LIVE_WEBSERVER", test),
            index: live_url(index_var, test),
        }
    }

    /// The pinned webserver over the index folder `index_var` names, on `port` (a port the
    /// test run set aside for it, never a free one picked at random).
    pub fn at(port: u16, index_var: &str, test: &str) -> OwnWebserver {
        OwnWebserver {
            port,
            bin: live_url("ZOEKT_PAGER_LIVE_WEBSERVER", test),
            index: live_url(index_var, test),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Waits (up to 60 s) until its `/readyz` says 200.
    pub async fn wait_ready(&self) {
        let client = reqwest::Client::new();
        for _ in 0..600 {
            if let Ok(r) = client.get(format!("{}/readyz", self.url())).send().await
                && r.status() == 200
            {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("zoekt-webserver at {} was not ready in 60 s", self.url());
    }

    pub fn start(&self) -> RunningWebserver {
        self.start_with(&["-rpc"])
    }

    /// Started without `-rpc`: no JSON API, only gRPC (and the health endpoints).
    pub fn start_without_rpc(&self) -> RunningWebserver {
        self.start_with(&[])
    }

    /// Started with `-rpc`, searching `procs` shards at a time (`GOMAXPROCS`): where a test
    /// counts on which shards Zoekt searched before it stopped handing them out, however
    /// many CPUs the machine has.
    pub fn start_searching(&self, procs: u32) -> RunningWebserver {
        self.start_env(&["-rpc"], &[("GOMAXPROCS", &procs.to_string())])
    }

    fn start_with(&self, extra: &[&str]) -> RunningWebserver {
        self.start_env(extra, &[])
    }

    fn start_env(&self, extra: &[&str], env: &[(&str, &str)]) -> RunningWebserver {
        let listen = format!("127.0.0.1:{}", self.port);
        let mut args = vec!["-listen", &listen, "-index", &self.index, "-html=false"];
        args.extend_from_slice(extra);
        let child = std::process::Command::new(&self.bin)
            .args(&args)
            .envs(env.iter().copied())
            .env("ZOEKT_WATCHDOG_ERRORS", "0")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start zoekt-webserver");
        RunningWebserver(child)
    }
}
