//! An incremental Server-Sent Events parser: bytes in (split anywhere, even inside a UTF-8
//! character or a CRLF), whole events out.

use thiserror::Error;

/// The longest line we buffer; a server sending more without a newline is broken or hostile.
pub(crate) const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, `message` when absent.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The stream broke the format beyond recovery.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SseError {
    #[error("an event line is longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong,
}

/// Parser state between chunks.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    after_cr: bool,
    event: Option<String>,
    data: Option<String>,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        SseParser::default()
    }

    /// Feeds a chunk and returns the events it completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut events = Vec::new();
        for &b in bytes {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.take_line(&line) {
                        events.push(event);
                    }
                }
                _ => {
                    self.after_cr = false;
                    if self.line.len() >= MAX_LINE_BYTES {
                        return Err(SseError::LineTooLong);
                    }
                    self.line.push(b);
                }
            }
        }
        Ok(events)
    }

    /// Ends the stream: an event not yet closed by a blank line is dispatched, as a server that
    /// closes right after its last `data:` line means it.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.line);
        let from_line = if line.is_empty() { None } else { self.take_line(&line) };
        from_line.or_else(|| self.dispatch())
    }

    fn take_line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line[0] == b':' {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.find(':') {
            Some(i) => (&text[..i], text[i + 1..].strip_prefix(' ').unwrap_or(&text[i + 1..])),
            None => (&text[..], ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        let data = self.data.take()?;
        Some(SseEvent { event: event.filter(|e| !e.is_empty()).unwrap_or_else(|| "message".to_owned()), data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_pieces(input: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for chunk in input.chunks(piece) {
            out.extend(p.feed(chunk).unwrap());
        }
        out.extend(p.finish());
        out
    }

    #[test]
    fn events_survive_any_split_and_any_line_ending() {
        let text =
            "event: a\ndata: {\"x\":\"é😀\"}\n\n: comment\nevent: b\r\ndata: 1\r\ndata: 2\r\n\r\nevent: c\rdata: z\r\r";
        let expected = vec![
            SseEvent { event: "a".into(), data: "{\"x\":\"é😀\"}".into() },
            SseEvent { event: "b".into(), data: "1\n2".into() },
            SseEvent { event: "c".into(), data: "z".into() },
        ];
        for piece in 1..text.len() {
            assert_eq!(parse_in_pieces(text.as_bytes(), piece), expected, "piece {piece}");
        }
    }

    #[test]
    fn event_without_data_is_not_dispatched_and_default_name_is_message() {
        assert_eq!(
            parse_in_pieces(b"event: ping\n\ndata:x\n\n", 100),
            vec![SseEvent { event: "message".into(), data: "x".into() }]
        );
    }

    #[test]
    fn unterminated_last_event_is_dispatched_at_finish() {
        assert_eq!(
            parse_in_pieces(b"event: e\ndata: last", 3),
            vec![SseEvent { event: "e".into(), data: "last".into() }]
        );
    }

    #[test]
    fn endless_line_is_refused() {
        let mut p = SseParser::new();
        let big = vec![b'a'; MAX_LINE_BYTES];
        assert!(p.feed(&big).is_ok());
        assert_eq!(p.feed(b"a"), Err(SseError::LineTooLong));
    }
}
