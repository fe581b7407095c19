//! Raw calls to Zoekt, for the benches that set the pager beside them: `/api/search` with
//! the body read and not decoded, and gRPC `Search` with the answer's bytes received and not
//! decoded. Shared by `#[path]` (benches are separate crates).

use std::collections::HashMap;
use std::time::Instant;

use prost::Message as _;
use prost::bytes::Buf as _;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;
use zoekt_pager::backend::FileSearch;
use zoekt_pager::zoekt::Wire;
use zoekt_pager::zoekt::backend::{grpc_request, search_request};
use zoekt_pager::zoekt::grpc::proto;
use zoekt_pager::zoekt::grpc::query::{self, Parsed};

/// gRPC's raw call: the request encoded by prost, the answer's bytes received and counted,
/// not decoded (as JSON's raw call reads the body and does not decode it).
struct RawCodec;
struct RawEncoder;
struct RawDecoder;

impl Encoder for RawEncoder {
    type Item = proto::SearchRequest;
    type Error = tonic::Status;
    fn encode(&mut self, item: Self::Item, dst: &mut EncodeBuf<'_>) -> Result<(), Self::Error> {
        item.encode(dst)
            .map_err(|e| tonic::Status::internal(e.to_string()))
    }
}

impl Decoder for RawDecoder {
    type Item = usize;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<usize>, Self::Error> {
        let n = src.remaining();
        src.advance(n);
        Ok(Some(n))
    }
}

impl Codec for RawCodec {
    type Encode = proto::SearchRequest;
    type Decode = usize;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

/// One raw gRPC `Search` for `search`: (ms, bytes).
pub async fn raw_grpc(channel: &Channel, search: &FileSearch) -> (f64, usize) {
    let Parsed::Tree(tree) = query::parse(&search.query) else {
        panic!("{}: the gRPC parser is unsure of it", search.query);
    };
    let req = grpc_request(search, tree);
    let started = Instant::now();
    let mut grpc = tonic::client::Grpc::new(channel.clone()).max_decoding_message_size(256 << 20);
    grpc.ready().await.expect("gRPC ready");
    let path = PathAndQuery::from_static("/zoekt.webserver.v1.WebserverService/Search");
    let bytes = grpc
        .unary(tonic::Request::new(req), path, RawCodec)
        .await
        .expect("raw gRPC search")
        .into_inner();
    (started.elapsed().as_secs_f64() * 1e3, bytes)
}

/// One raw `/api/search` for `search`, the body read and not decoded: (ms, bytes).
pub async fn raw_json(http: &reqwest::Client, url: &str, search: &FileSearch) -> (f64, usize) {
    let body = serde_json::to_vec(&search_request(search)).unwrap();
    let started = Instant::now();
    let resp = http
        .post(format!("{url}/api/search"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("raw search");
    assert!(resp.status().is_success(), "raw search: {}", resp.status());
    let bytes = resp.bytes().await.expect("raw body");
    (started.elapsed().as_secs_f64() * 1e3, bytes.len())
}

/// Raw calls over one transport to a set of webservers, each gRPC one on a channel of its own
/// opened once (as the pager's are).
pub struct Raw {
    wire: Wire,
    http: reqwest::Client,
    channels: HashMap<String, Channel>,
}

#[allow(dead_code)]
impl Raw {
    /// Raw calls over `wire` to `urls`.
    pub fn new(wire: Wire, urls: &[String]) -> Raw {
        let channels = urls
            .iter()
            .map(|u| {
                let channel = tonic::transport::Endpoint::from_shared(u.clone())
                    .expect("a URL")
                    .connect_lazy();
                (u.clone(), channel)
            })
            .collect();
        Raw {
            wire,
            http: reqwest::Client::new(),
            channels,
        }
    }

    /// One raw call of `search` to `url`: (ms, bytes).
    pub async fn search(&self, url: &str, search: &FileSearch) -> (f64, usize) {
        match self.wire {
            Wire::Json => raw_json(&self.http, url, search).await,
            Wire::Grpc => raw_grpc(&self.channels[url], search).await,
        }
    }
}
