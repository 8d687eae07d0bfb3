//! What a file's bytes say it is: the image types and PDFs the Messages API takes, told by their
//! signatures (never by the name, which a damaged or renamed file gets wrong), with an image's
//! pixel size and a PDF's page count where the file says them.

/// What the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sniffed {
    /// An image of one of the API's types, with its size in pixels when the header gives it.
    Image { media_type: &'static str, size: Option<(u32, u32)> },
    /// A PDF, with the pages counted in it (`None` when none could be counted: compressed
    /// object streams hide them).
    Pdf { pages: Option<u32> },
    /// Something else.
    Unknown,
}

/// Reads the signature and, for images, the pixel size.
pub(crate) fn sniff(bytes: &[u8]) -> Sniffed {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Sniffed::Image { media_type: "image/png", size: png_size(bytes) };
    }
    if bytes.starts_with(b"\xff\xd8\xff") {
        return Sniffed::Image { media_type: "image/jpeg", size: jpeg_size(bytes) };
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        let size = (bytes.len() >= 10).then(|| (le16(&bytes[6..8]), le16(&bytes[8..10])));
        return Sniffed::Image { media_type: "image/gif", size };
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Sniffed::Image { media_type: "image/webp", size: webp_size(bytes) };
    }
    if bytes.starts_with(b"%PDF-") {
        return Sniffed::Pdf { pages: pdf_pages(bytes) };
    }
    Sniffed::Unknown
}

/// Whether an image or PDF is whole: a file cut short (a sync or a download that stopped) keeps
/// its header, so the signature alone passes it, and the server then refuses the request.
/// Where a format has an end marker, it must be there: PNG's chunks must run, each within the
/// file, to `IEND`; JPEG's last scan must end with EOI; GIF ends with its trailer; WebP's RIFF
/// size must fit in the file; a PDF ends with `%%EOF` (within its last kilobyte: some writers
/// add a line or two after it).
pub(crate) fn is_whole(bytes: &[u8], sniffed: Sniffed) -> bool {
    match sniffed {
        Sniffed::Image { media_type: "image/png", .. } => png_is_whole(bytes),
        Sniffed::Image { media_type: "image/jpeg", .. } => jpeg_is_whole(bytes),
        Sniffed::Image { media_type: "image/gif", .. } => bytes.last() == Some(&0x3b),
        Sniffed::Image { media_type: "image/webp", .. } => {
            bytes.get(4..8).is_some_and(|s| (le16(&s[..2]) | le16(&s[2..]) << 16) as usize + 8 <= bytes.len())
        }
        Sniffed::Image { .. } | Sniffed::Unknown => true,
        Sniffed::Pdf { .. } => find(&bytes[bytes.len().saturating_sub(1024)..], b"%%EOF").is_some(),
    }
}

/// The chunks, each of them inside the file, up to `IEND`.
fn png_is_whole(b: &[u8]) -> bool {
    let mut at = 8;
    while at + 8 <= b.len() {
        let len = be32(&b[at..at + 4]) as usize;
        let kind = &b[at + 4..at + 8];
        let Some(end) = at.checked_add(12).and_then(|e| e.checked_add(len)) else { return false };
        if end > b.len() {
            return false;
        }
        if kind == b"IEND" {
            return true;
        }
        at = end;
    }
    false
}

/// The segments walked to the start of the scan, then an end-of-image marker after it (inside
/// the scan's data a 0xFF is always followed by 0x00 or a restart marker, never 0xD9).
fn jpeg_is_whole(b: &[u8]) -> bool {
    let mut at = 2;
    while at + 4 <= b.len() {
        if b[at] != 0xff {
            return false;
        }
        match b[at + 1] {
            0xff => at += 1,
            0x01 | 0xd0..=0xd8 => at += 2,
            0xd9 => return true,
            0xda => return b[at..].windows(2).any(|w| w == [0xff, 0xd9]),
            _ => at += 2 + be16(&b[at + 2..at + 4]) as usize,
        }
    }
    false
}

fn le16(b: &[u8]) -> u32 {
    u32::from(b[0]) | u32::from(b[1]) << 8
}

fn be16(b: &[u8]) -> u32 {
    u32::from(b[0]) << 8 | u32::from(b[1])
}

fn be32(b: &[u8]) -> u32 {
    be16(&b[..2]) << 16 | be16(&b[2..4])
}

/// The IHDR chunk, which must come first.
fn png_size(b: &[u8]) -> Option<(u32, u32)> {
    (b.len() >= 24 && &b[12..16] == b"IHDR").then(|| (be32(&b[16..20]), be32(&b[20..24])))
}

/// The first start-of-frame marker's size, walking the segments from the start.
fn jpeg_size(b: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    while at + 4 <= b.len() {
        if b[at] != 0xff {
            return None;
        }
        let marker = b[at + 1];
        // Fill bytes, and markers without a length.
        if marker == 0xff {
            at += 1;
            continue;
        }
        if marker == 0x01 || (0xd0..=0xd9).contains(&marker) {
            at += 2;
            continue;
        }
        let len = be16(&b[at + 2..at + 4]) as usize;
        let is_frame = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
        if is_frame {
            return (at + 9 <= b.len()).then(|| (be16(&b[at + 7..at + 9]), be16(&b[at + 5..at + 7])));
        }
        if len < 2 {
            return None;
        }
        at += 2 + len;
    }
    None
}

/// The size of a lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`) WebP.
fn webp_size(b: &[u8]) -> Option<(u32, u32)> {
    let chunk = b.get(12..16)?;
    let le24 = |s: &[u8]| u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16;
    match chunk {
        b"VP8X" => {
            let s = b.get(24..30)?;
            Some((le24(&s[..3]) + 1, le24(&s[3..6]) + 1))
        }
        b"VP8 " => {
            let s = b.get(26..30)?;
            Some((le16(&s[..2]) & 0x3fff, le16(&s[2..4]) & 0x3fff))
        }
        b"VP8L" => {
            let s = b.get(21..25)?;
            let bits = u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16 | u32::from(s[3]) << 24;
            Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
        }
        _ => None,
    }
}

/// Page objects (`/Type /Page`, not `/Pages`) written in the clear.
fn pdf_pages(b: &[u8]) -> Option<u32> {
    let mut pages = 0u32;
    let mut at = 0;
    while let Some(found) = find(&b[at..], b"/Type") {
        let mut i = at + found + 5;
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        if b[i.min(b.len())..].starts_with(b"/Page") && !b.get(i + 5).is_some_and(|c| c.is_ascii_alphanumeric()) {
            pages += 1;
        }
        at = i;
    }
    (pages > 0).then_some(pages)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A PNG of the given size: its chunks whole (IHDR, an IDAT, IEND), their data not a real
    /// image (nothing here decodes pixels).
    pub(crate) fn png(width: u32, height: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend(width.to_be_bytes());
        b.extend(height.to_be_bytes());
        b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
        b.extend(b"\0\0\0\x04IDAT\x78\x9c\x03\0\0\0\0\0");
        b.extend(b"\0\0\0\0IEND\xae\x42\x60\x82");
        b
    }

    #[test]
    fn a_file_cut_short_is_not_whole_and_a_whole_one_is() {
        let whole = png(4, 4);
        assert!(is_whole(&whole, sniff(&whole)));
        for cut in [whole.len() - 1, whole.len() - 12, 40, 33] {
            assert!(!is_whole(&whole[..cut], sniff(&whole[..cut])), "PNG cut at {cut}");
        }
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0];
        // A thumbnail inside APP1 ends with its own EOI: not the end of this image.
        jpeg.extend([0xff, 0xe1, 0, 6, 0xff, 0xd9, 0, 0]);
        jpeg.extend([0xff, 0xc0, 0, 5, 8, 0, 1]);
        jpeg.extend([0xff, 0xda, 0, 2, 0x12, 0xff, 0x00, 0x34]);
        assert!(!is_whole(&jpeg, sniff(&jpeg)), "a scan without its end");
        jpeg.extend([0xff, 0xd9]);
        assert!(is_whole(&jpeg, sniff(&jpeg)));
        let gif = b"GIF89a\x01\0\x01\0rest;";
        assert!(is_whole(gif, sniff(gif)) && !is_whole(&gif[..12], sniff(&gif[..12])));
        let mut webp = b"RIFF\x08\0\0\0WEBPVP8X".to_vec();
        assert!(is_whole(&webp, sniff(&webp)));
        webp[4] = 0x40;
        assert!(!is_whole(&webp, sniff(&webp)), "its RIFF size passes the file's end");
        let pdf = b"%PDF-1.7\n1 0 obj << /Type /Page >>\ntrailer\n%%EOF\n";
        assert!(is_whole(pdf, sniff(pdf)));
        assert!(!is_whole(&pdf[..30], sniff(&pdf[..30])));
    }

    #[test]
    fn images_are_told_by_their_bytes_with_their_size() {
        assert_eq!(sniff(&png(640, 480)), Sniffed::Image { media_type: "image/png", size: Some((640, 480)) });
        let gif = b"GIF89a\x20\x03\x58\x02rest";
        assert_eq!(sniff(gif), Sniffed::Image { media_type: "image/gif", size: Some((800, 600)) });
        // SOI, an APP0 segment of 16 bytes, then SOF0 with height 300 and width 400.
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0, 16];
        jpeg.extend([0; 14]);
        jpeg.extend([0xff, 0xc0, 0, 17, 8, 0x01, 0x2c, 0x01, 0x90, 3]);
        assert_eq!(sniff(&jpeg), Sniffed::Image { media_type: "image/jpeg", size: Some((400, 300)) });
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend([0x7f, 0x02, 0x00, 0xdf, 0x01, 0x00]);
        assert_eq!(sniff(&webp), Sniffed::Image { media_type: "image/webp", size: Some((640, 480)) });
    }

    #[test]
    fn a_pdf_counts_its_pages_and_anything_else_is_unknown() {
        let pdf = b"%PDF-1.7\n1 0 obj << /Type /Pages /Count 2 >>\n2 0 obj <</Type/Page>>\n3 0 obj << /Type /Page /Parent 1 0 R >>";
        assert_eq!(sniff(pdf), Sniffed::Pdf { pages: Some(2) });
        assert_eq!(sniff(b"%PDF-1.5 compressed"), Sniffed::Pdf { pages: None });
        assert_eq!(sniff(b"just text"), Sniffed::Unknown);
        assert_eq!(sniff(b""), Sniffed::Unknown);
        // Truncated headers are known by type, with no size rather than a panic.
        assert_eq!(sniff(&png(1, 1)[..14]), Sniffed::Image { media_type: "image/png", size: None });
        assert_eq!(sniff(&[0xff, 0xd8, 0xff, 0xe0, 0, 40]), Sniffed::Image { media_type: "image/jpeg", size: None });
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8X"), Sniffed::Image { media_type: "image/webp", size: None });
    }
}
