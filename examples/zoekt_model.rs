//! Serves the test-only Zoekt MODEL (tests/support/zoekt_model.rs) on a loopback port, for
//! trying zoekt-pager where no real Zoekt can be installed. It is NOT Zoekt: it implements
//! only the query subset the pager sends. Usage:
//!   cargo run --example zoekt_model -- [CORPUS_DIR] [PORT]
//! (defaults: fixtures/corpus, 6070).

#[allow(dead_code)]
#[path = "../tests/support/zoekt_model.rs"]
mod zoekt_model;

use std::sync::Arc;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = args.next().unwrap_or_else(|| "fixtures/corpus".into());
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(6070);
    let corpus = Arc::new(zoekt_model::Corpus::load(std::path::Path::new(&corpus)));
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("bind the port");
    let server = zoekt_model::ModelServer::start_on(corpus, listener).await;
    eprintln!("Zoekt MODEL (not a real Zoekt) serving on {}", server.url());
    println!("{}", server.url());
    tokio::signal::ctrl_c().await.ok();
}
