//! The connection flags read at the edge: the CA file and the headers, loaded into the
//! [`Transport`] every Zoekt client is built with. Header values are secrets: a message here
//! names the flag, the file or the line to fix, never a value (see `zoekt::tls`).

use super::TransportArgs;
use crate::zoekt::Transport;
use crate::zoekt::tls::parse_headers;

impl TransportArgs {
    /// Reads the CA file and the headers; the message names the flag or file to fix, never a
    /// header's value.
    pub fn load(&self) -> Result<Transport, String> {
        let mut transport = Transport::default();
        if let Some(path) = &self.zoekt_ca_file {
            let pem = std::fs::read(path)
                .map_err(|e| format!("cannot read --zoekt-ca-file {}: {e}", path.display()))?;
            transport.roots = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                format!(
                    "--zoekt-ca-file {} holds no PEM certificate: {e}",
                    path.display()
                )
            })?;
            if transport.roots.is_empty() {
                return Err(format!(
                    "--zoekt-ca-file {} holds no PEM certificate",
                    path.display()
                ));
            }
            transport.roots_pem = Some(pem);
        }
        let from_env =
            std::env::var_os("ZOEKT_PAGER_ZOEKT_HEADERS").map(|t| t.to_string_lossy().into_owned());
        let text = match (from_env, &self.zoekt_header_file) {
            (Some(_), Some(_)) => {
                return Err(
                    "set ZOEKT_PAGER_ZOEKT_HEADERS or --zoekt-header-file, not both".into(),
                );
            }
            (Some(t), None) => Some(("ZOEKT_PAGER_ZOEKT_HEADERS".to_string(), t)),
            (None, Some(p)) => Some((
                format!("--zoekt-header-file {}", p.display()),
                std::fs::read_to_string(p)
                    .map_err(|e| format!("cannot read --zoekt-header-file {}: {e}", p.display()))?,
            )),
            (None, None) => None,
        };
        if let Some((source, text)) = text {
            transport.headers = parse_headers(&text).map_err(|e| format!("{source}: {e}"))?;
        }
        Ok(transport)
    }
}
