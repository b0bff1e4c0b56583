//! The checkpoint manifest: the last file written, by an atomic rename, so
//! a checkpoint without its manifest does not exist. A small text file
//! (readable by an operator), ending with a CRC32C of everything before it:
//! ```text
//! nereid-checkpoint 1
//! commit_ts 1234
//! partitions 4
//! vertex_seq 5678
//! edge_next_local 12 0 7 ...
//! file nodes-00000.ckp 40960 1a2b3c4d
//! ...
//! crc 5e6f7a8b
//! ```

use nereid_storage::IdCounters;

pub(crate) const MANIFEST: &str = "MANIFEST";
const FIRST_LINE: &str = "nereid-checkpoint 1";

/// One partition file as the manifest records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileEntry {
    pub(crate) name: String,
    pub(crate) len: u64,
    pub(crate) crc: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub(crate) commit_ts: u64,
    pub(crate) partitions: usize,
    pub(crate) counters: IdCounters,
    pub(crate) files: Vec<FileEntry>,
}

impl Manifest {
    pub(crate) fn encode(&self) -> String {
        let mut s = format!(
            "{FIRST_LINE}\ncommit_ts {}\npartitions {}\nvertex_seq {}\nedge_next_local",
            self.commit_ts, self.partitions, self.counters.vertex_seq
        );
        for n in &self.counters.edge_next_local {
            s.push_str(&format!(" {n}"));
        }
        s.push('\n');
        for f in &self.files {
            s.push_str(&format!("file {} {} {:08x}\n", f.name, f.len, f.crc));
        }
        let crc = crc32c::crc32c(s.as_bytes());
        s.push_str(&format!("crc {crc:08x}\n"));
        s
    }

    pub(crate) fn decode(text: &str) -> Result<Manifest, String> {
        let body_end = text.rfind("crc ").ok_or("no checksum line (truncated?)")?;
        let (body, crc_line) = text.split_at(body_end);
        let crc = u32::from_str_radix(crc_line.trim_start_matches("crc ").trim(), 16)
            .map_err(|_| "malformed checksum line")?;
        if crc32c::crc32c(body.as_bytes()) != crc {
            return Err("checksum mismatch".into());
        }
        let mut lines = body.lines();
        if lines.next() != Some(FIRST_LINE) {
            return Err(format!(
                "unsupported manifest (expected {FIRST_LINE:?} first)"
            ));
        }
        let mut field = |name: &str| -> Result<Vec<String>, String> {
            let line = lines.next().ok_or_else(|| format!("missing {name}"))?;
            let mut words = line.split(' ').map(str::to_string);
            if words.next().as_deref() != Some(name) {
                return Err(format!("expected {name}, found {line:?}"));
            }
            Ok(words.filter(|w| !w.is_empty()).collect())
        };
        let number = |words: Vec<String>, name: &str| -> Result<u64, String> {
            words
                .first()
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| format!("malformed {name}"))
        };
        let commit_ts = number(field("commit_ts")?, "commit_ts")?;
        let partitions = number(field("partitions")?, "partitions")? as usize;
        let vertex_seq = number(field("vertex_seq")?, "vertex_seq")?;
        let edge_next_local = field("edge_next_local")?
            .iter()
            .map(|w| {
                w.parse::<u32>()
                    .map_err(|_| "malformed edge_next_local".to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut files = Vec::new();
        for line in lines {
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["file", name, len, crc] => files.push(FileEntry {
                    name: name.to_string(),
                    len: len.parse().map_err(|_| format!("malformed {line:?}"))?,
                    crc: u32::from_str_radix(crc, 16).map_err(|_| format!("malformed {line:?}"))?,
                }),
                _ => return Err(format!("unexpected line {line:?}")),
            }
        }
        Ok(Manifest {
            commit_ts,
            partitions,
            counters: IdCounters {
                vertex_seq,
                edge_next_local,
            },
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_round_trip_and_damage_is_detected() {
        let m = Manifest {
            commit_ts: 42,
            partitions: 2,
            counters: IdCounters {
                vertex_seq: 9,
                edge_next_local: vec![1, 0, 3, 4],
            },
            files: vec![FileEntry {
                name: "nodes-00000.ckp".into(),
                len: 100,
                crc: 0xdead_beef,
            }],
        };
        let text = m.encode();
        assert_eq!(Manifest::decode(&text), Ok(m));
        let damaged = text.replace("commit_ts 42", "commit_ts 43");
        assert!(Manifest::decode(&damaged).is_err());
        assert!(Manifest::decode(&text[..text.len() - 12]).is_err());
    }
}
