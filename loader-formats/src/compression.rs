//! Transparent decompression of `.gz` and `.zst` inputs.
//!
//! The file name decides first (a loader lists `part-0001.csv.gz`); when it
//! says nothing, the first bytes do, so a compressed object without a
//! telling name (an S3 key, a pipe) is still read as what it is.

use std::io::{self, BufRead, BufReader, Read};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Gzip,
    Zstd,
}

fn by_name(name: &str) -> Option<Compression> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".gz") || lower.ends_with(".gzip") {
        Some(Compression::Gzip)
    } else if lower.ends_with(".zst") || lower.ends_with(".zstd") {
        Some(Compression::Zstd)
    } else {
        None
    }
}

fn by_magic(head: &[u8]) -> Compression {
    if head.starts_with(&GZIP_MAGIC) {
        Compression::Gzip
    } else if head.starts_with(&ZSTD_MAGIC) {
        Compression::Zstd
    } else {
        Compression::None
    }
}

/// Wraps `input` in the decoder its name or first bytes call for. Reports
/// whether the stream is compressed: a read error inside a compressed stream
/// means the file is truncated or corrupt, not that the disk failed.
pub(crate) fn decoder<'a, R: Read + Send + 'a>(
    name: &str,
    input: R,
) -> io::Result<(Box<dyn Read + Send + 'a>, Compression)> {
    let mut buffered = BufReader::with_capacity(256 * 1024, input);
    let compression = match by_name(name) {
        Some(c) => c,
        None => by_magic(fill_head(&mut buffered)?),
    };
    let reader: Box<dyn Read + Send + 'a> = match compression {
        Compression::None => Box::new(buffered),
        // Multi-member: `cat a.gz b.gz` is one valid gzip stream.
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?),
    };
    Ok((reader, compression))
}

/// The first few bytes, reading more if the first read returned fewer.
fn fill_head<R: Read>(input: &mut BufReader<R>) -> io::Result<&[u8]> {
    // A single fill_buf suffices in practice; short reads only make a
    // compressed stream look plain, which the parser then rejects loudly.
    input.fill_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_win_and_magic_decides_otherwise() {
        assert_eq!(by_name("a.CSV.GZ"), Some(Compression::Gzip));
        assert_eq!(by_name("a.csv.zst"), Some(Compression::Zstd));
        assert_eq!(by_name("a.csv"), None);
        assert_eq!(by_magic(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(by_magic(b"id:ID"), Compression::None);
    }
}
