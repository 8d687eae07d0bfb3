//! The SSE parser: whatever the bytes, and wherever the network splits them, the same events
//! come out (or the same error).
#![no_main]
use libfuzzer_sys::fuzz_target;
use smarthole_agent::testing::internals::{SseError, SseEvent, SseParser};

fn parse(chunks: &[&[u8]]) -> Result<(Vec<SseEvent>, Option<SseEvent>), SseError> {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.feed(chunk)?);
    }
    Ok((events, parser.finish()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else { return };
    let at = usize::from(split) * bytes.len() / 256;
    let whole = parse(&[bytes]);
    let split = parse(&[&bytes[..at], &bytes[at..]]);
    let by_byte: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(whole, split, "split at {at}");
    assert_eq!(whole, parse(&by_byte), "byte by byte");
});
