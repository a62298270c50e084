//! litebench's rule about files (internal/own), for a bench database handed
//! to this worker: only a path that does not exist may be created; an
//! existing file is used only if it is a regular file litebench made (a
//! SQLite database with the bench application id holding only the tables
//! the workloads create), not open in another process and without an
//! unfinished transaction. The file is read without SQLite (the header and
//! schema table as last committed, the -wal's committed frames included):
//! nothing is created, locked or changed.

use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::io::ErrorKind;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;

/// The application id of a bench database.
pub const BENCH_APP_ID: i32 = 0x4c42_0002;
const STORE_APP_ID: i32 = 0x4c42_0001;
const BENCH_NAME: &str = "bench database";
const FIX_NEW: &str = "name a new file";
const COMPANIONS: [&str; 3] = ["-wal", "-shm", "-journal"];

fn refusal(path: &str, reason: &str, fix: &str) -> String {
    if fix.is_empty() {
        format!("{path} {reason}")
    } else {
        format!("{path} {reason}; {fix}")
    }
}

fn lstat(path: &str) -> Result<Option<Metadata>, String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{path}: {e}")),
    }
}

fn describe(path: &str, m: &Metadata) -> String {
    let t = m.file_type();
    if t.is_symlink() {
        let to = std::fs::read_link(path)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        if std::fs::metadata(path).is_err() {
            return format!("a dangling symbolic link (to {to})");
        }
        return format!("a symbolic link (to {to})");
    }
    if t.is_dir() {
        "a directory".into()
    } else if t.is_fifo() {
        "a named pipe".into()
    } else if t.is_socket() {
        "a socket".into()
    } else if t.is_char_device() {
        "a character device".into()
    } else if t.is_block_device() {
        "a block device".into()
    } else {
        "not a regular file".into()
    }
}

fn not_regular(path: &str, m: &Metadata, what: &str) -> String {
    let fix = if m.file_type().is_symlink() {
        "name a new file, or the file itself if litebench made it"
    } else {
        FIX_NEW
    };
    refusal(path, &format!("is {}, not {what}", describe(path, m)), fix)
}

/// Opens an existing regular file for reading, never following a symbolic
/// link or blocking.
fn open_regular(path: &str) -> Result<Option<File>, String> {
    let Some(m) = lstat(path)? else {
        return Ok(None);
    };
    if !m.file_type().is_file() {
        return Err(not_regular(path, &m, "a regular file"));
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("{path}: {e}"))?;
    match f.metadata() {
        Ok(m) if m.file_type().is_file() => Ok(Some(f)),
        _ => Err(refusal(
            path,
            "changed while litebench looked at it",
            "try again",
        )),
    }
}

/// The name of the table, index, view or trigger an SQL command creates
/// (after comments; a quoted name up to its first character that is not a
/// letter, digit or underscore), as litebench reads it.
pub fn created_name(q: &str) -> Option<String> {
    let mut rest = q;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, b)| b);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map(|(_, b)| b)?;
        } else {
            break;
        }
    }
    let mut words = rest.split_ascii_whitespace().peekable();
    if !words.next()?.eq_ignore_ascii_case("create") {
        return None;
    }
    while words.peek().is_some_and(|w| {
        ["temp", "temporary", "unique", "virtual"]
            .iter()
            .any(|m| w.eq_ignore_ascii_case(m))
    }) {
        words.next();
    }
    let kind = words.next()?;
    if !["table", "index", "view", "trigger"]
        .iter()
        .any(|k| kind.eq_ignore_ascii_case(k))
    {
        return None;
    }
    let mut name = words.next()?;
    if name.eq_ignore_ascii_case("if") {
        let (n, e) = (words.next()?, words.next()?);
        if !n.eq_ignore_ascii_case("not") || !e.eq_ignore_ascii_case("exists") {
            return None;
        }
        name = words.next()?;
    }
    let name = name.strip_prefix(['"', '`', '[']).unwrap_or(name);
    let end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    let name = &name[..end];
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then(|| name.to_string())
}

fn article(name: &str) -> String {
    if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {name}")
    } else {
        format!("a {name}")
    }
}

/// Applies the rule to the bench database at path: Ok(false) when it does
/// not exist and may be created, Ok(true) when it exists and is
/// litebench's, an error (one line) otherwise. shared: another litebench
/// process owns it and may have it open (an attached run). extra: the
/// tables and indexes the workload creates besides the built-in schemas'
/// (a workload file's).
pub fn check(path: &str, shared: bool, extra: &[String]) -> Result<bool, String> {
    let what = format!("{} litebench created", article(BENCH_NAME));
    let Some(m) = lstat(path)? else {
        for suf in COMPANIONS {
            let c = format!("{path}{suf}");
            if lstat(&c)?.is_some() {
                return Err(refusal(
                    &c,
                    &format!("exists but {path} does not (a journal of another database?)"),
                    "litebench will not create a database beside it: remove it yourself or name another file",
                ));
            }
        }
        return Ok(false);
    };
    if !m.file_type().is_file() {
        return Err(not_regular(path, &m, &what));
    }
    if m.len() == 0 {
        return Err(refusal(
            path,
            &format!("is an empty file, not {what}"),
            FIX_NEW,
        ));
    }
    for suf in COMPANIONS {
        let c = format!("{path}{suf}");
        if let Some(cm) = lstat(&c)? {
            if !cm.file_type().is_file() {
                return Err(not_regular(&c, &cm, "a SQLite journal"));
            }
        }
    }
    if !shared {
        in_use(path)?;
        hot_journal(path)?;
    }
    let db = read_database(path)?;
    if db.app_id != BENCH_APP_ID {
        let other = match db.app_id {
            STORE_APP_ID => "results store",
            _ => "",
        };
        if !other.is_empty() {
            return Err(refusal(
                path,
                &format!(
                    "is {}, not {}",
                    article(&format!("litebench {other}")),
                    article(BENCH_NAME)
                ),
                FIX_NEW,
            ));
        }
        return Err(refusal(
            path,
            &format!(
                "is a SQLite database litebench did not create (application_id {:#x})",
                db.app_id as u32
            ),
            FIX_NEW,
        ));
    }
    for (typ, name) in &db.objects {
        let sqlite_own =
            name.to_lowercase().starts_with("sqlite_") && (typ == "table" || typ == "index");
        let ours = (typ == "table" || typ == "index")
            && (crate::schema::is_bench_object(name)
                || extra.iter().any(|x| x.eq_ignore_ascii_case(name)));
        if !sqlite_own && !ours {
            return Err(refusal(
                path,
                &format!("holds {typ} {name:?} that litebench did not create"),
                "litebench leaves it alone: name a new file, or remove it yourself",
            ));
        }
    }
    Ok(true)
}

/// Refuses a database whose rollback journal holds a transaction.
fn hot_journal(path: &str) -> Result<(), String> {
    let j = format!("{path}-journal");
    let Some(f) = open_regular(&j)? else {
        return Ok(());
    };
    let mut b = [0u8; 8];
    if f.read_at(&mut b, 0).unwrap_or(0) == 8
        && b == [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]
    {
        return Err(refusal(
            &j,
            &format!("holds an unfinished transaction on {path}"),
            &format!("open {path} once with sqlite3 to roll it back, or remove both yourself"),
        ));
    }
    Ok(())
}

/// Refuses a database another process has open in WAL mode or holds a
/// lock on (the -shm's connection lock, the database's lock bytes).
fn in_use(path: &str) -> Result<(), String> {
    let probe = |file: &str, start: i64, len: i64| -> Option<i32> {
        let f = open_regular(file).ok()??;
        // SAFETY: flock is plain data, zero is a valid value.
        let mut lk: libc::flock = unsafe { std::mem::zeroed() };
        lk.l_type = libc::F_WRLCK as libc::c_short;
        lk.l_whence = libc::SEEK_SET as libc::c_short;
        lk.l_start = start as _;
        lk.l_len = len as _;
        // SAFETY: fd is open for the call; lk is a valid flock.
        let r = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETLK, &mut lk) };
        if r != 0 || lk.l_type == libc::F_UNLCK as libc::c_short {
            return None;
        }
        Some(lk.l_pid)
    };
    let held = probe(&format!("{path}-shm"), 120, 9).or_else(|| probe(path, 0x4000_0000, 512));
    if let Some(pid) = held {
        let who = if pid > 0 {
            format!("another process (pid {pid})")
        } else {
            "another process".into()
        };
        return Err(refusal(
            path,
            &format!("is open in {who}"),
            "name a new file, or wait until that process closes it",
        ));
    }
    Ok(())
}

struct Database {
    app_id: i32,
    objects: Vec<(String, String)>,
}

struct View {
    main: File,
    main_size: u64,
    page_size: usize,
    usable: usize,
    wal: Option<File>,
    wal_page: HashMap<u32, u64>,
    enc: u32,
}

fn malformed(path: &str, why: &str) -> String {
    refusal(
        path,
        &format!("looks like a SQLite database but cannot be read (malformed: {why})"),
        FIX_NEW,
    )
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Reads the header and schema of the database at path as last committed.
fn read_database(path: &str) -> Result<Database, String> {
    let Some(f) = open_regular(path)? else {
        return Err(format!("{path}: no such file"));
    };
    let size = f.metadata().map_err(|e| format!("{path}: {e}"))?.len();
    let mut hdr = [0u8; 100];
    if f.read_at(&mut hdr, 0).unwrap_or(0) < 100 || &hdr[..16] != b"SQLite format 3\0" {
        return Err(refusal(path, "is not a SQLite database", FIX_NEW));
    }
    let mut ps = u16::from_be_bytes([hdr[16], hdr[17]]) as usize;
    if ps == 1 {
        ps = 65536;
    }
    if !(512..=65536).contains(&ps) || ps & (ps - 1) != 0 || hdr[20] as usize > ps - 480 {
        return Err(malformed(path, &format!("page size {ps}")));
    }
    let mut v = View {
        main: f,
        main_size: size,
        page_size: ps,
        usable: ps - hdr[20] as usize,
        wal: None,
        wal_page: HashMap::new(),
        enc: 1,
    };
    if let Some(w) = open_regular(&format!("{path}-wal"))? {
        v.read_wal(w).map_err(|e| malformed(path, &e))?;
    }
    let p1 = v.page(1).map_err(|e| malformed(path, &e))?;
    v.enc = be32(&p1[56..60]);
    let app_id = be32(&p1[68..72]) as i32;
    let objects = v.schema().map_err(|e| malformed(path, &e))?;
    Ok(Database { app_id, objects })
}

impl View {
    fn page(&self, n: u32) -> Result<Vec<u8>, String> {
        let mut b = vec![0u8; self.page_size];
        if let (Some(off), Some(w)) = (self.wal_page.get(&n), &self.wal) {
            w.read_exact_at(&mut b, *off)
                .map_err(|e| format!("WAL frame of page {n}: {e}"))?;
            return Ok(b);
        }
        let off = (n as u64).wrapping_sub(1) * self.page_size as u64;
        if n == 0 || off + self.page_size as u64 > self.main_size {
            return Err(format!("page {n} is past the end of the file"));
        }
        self.main
            .read_exact_at(&mut b, off)
            .map_err(|e| e.to_string())?;
        Ok(b)
    }

    /// Indexes the committed frames of a WAL file, as SQLite's recovery
    /// does. An invalid header means an empty WAL.
    fn read_wal(&mut self, w: File) -> Result<(), String> {
        let size = w.metadata().map_err(|e| e.to_string())?.len();
        let mut hdr = [0u8; 32];
        if w.read_at(&mut hdr, 0).unwrap_or(0) < 32 {
            return Ok(());
        }
        let magic = be32(&hdr[0..4]);
        if magic & !1 != 0x377f_0682 || be32(&hdr[4..8]) != 3_007_000 {
            return Ok(());
        }
        let big = magic & 1 == 1;
        let (mut s0, mut s1) = wal_checksum(&hdr[..24], 0, 0, big);
        if s0 != be32(&hdr[24..28]) || s1 != be32(&hdr[28..32]) {
            return Ok(());
        }
        if be32(&hdr[8..12]) as usize != self.page_size {
            return Err("the -wal's page size differs from the database's".into());
        }
        let mut pending: HashMap<u32, u64> = HashMap::new();
        let flen = 24 + self.page_size as u64;
        let mut frame = vec![0u8; flen as usize];
        let mut off = 32u64;
        while off + flen <= size {
            if w.read_exact_at(&mut frame, off).is_err() || frame[8..16] != hdr[16..24] {
                break;
            }
            (s0, s1) = wal_checksum(&frame[..8], s0, s1, big);
            (s0, s1) = wal_checksum(&frame[24..], s0, s1, big);
            if s0 != be32(&frame[16..20]) || s1 != be32(&frame[20..24]) {
                break;
            }
            let pg = be32(&frame[0..4]);
            if pg == 0 {
                break;
            }
            pending.insert(pg, off + 24);
            if be32(&frame[4..8]) != 0 {
                self.wal_page.extend(pending.drain());
            }
            off += flen;
        }
        self.wal = Some(w);
        Ok(())
    }

    /// The type and name of every row of the schema table.
    fn schema(&self) -> Result<Vec<(String, String)>, String> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        self.walk(1, 0, &mut seen, &mut out)?;
        Ok(out)
    }

    fn walk(
        &self,
        n: u32,
        depth: usize,
        seen: &mut std::collections::HashSet<u32>,
        out: &mut Vec<(String, String)>,
    ) -> Result<(), String> {
        if !seen.insert(n) || depth > 32 {
            return Err("schema b-tree loops".into());
        }
        let b = self.page(n)?;
        let h = if n == 1 { 100 } else { 0 };
        let cells = u16::from_be_bytes([b[h + 3], b[h + 4]]) as usize;
        match b[h] {
            0x0d => {
                for i in 0..cells {
                    let p = h + 8 + 2 * i;
                    if p + 2 > b.len() {
                        return Err("cell past the page".into());
                    }
                    let off = u16::from_be_bytes([b[p], b[p + 1]]) as usize;
                    out.push(self.leaf_cell(&b, off)?);
                }
                Ok(())
            }
            0x05 => {
                for i in 0..cells {
                    let p = h + 12 + 2 * i;
                    if p + 2 > b.len() {
                        return Err("cell past the page".into());
                    }
                    let off = u16::from_be_bytes([b[p], b[p + 1]]) as usize;
                    if off + 4 > b.len() {
                        return Err("cell past the page".into());
                    }
                    self.walk(be32(&b[off..]), depth + 1, seen, out)?;
                }
                self.walk(be32(&b[h + 8..]), depth + 1, seen, out)
            }
            _ => Err(format!("page {n} is not a table b-tree page")),
        }
    }

    fn leaf_cell(&self, b: &[u8], mut off: usize) -> Result<(String, String), String> {
        if off >= b.len() {
            return Err("cell past the page".into());
        }
        let (size, k) = varint(&b[off..]);
        off += k;
        let (_, k) = varint(b.get(off..).unwrap_or(&[]));
        off += k;
        if size > 1 << 24 {
            return Err(format!("schema row of {size} bytes"));
        }
        let p = size as usize;
        let u = self.usable;
        let mut local = p;
        let x = u - 35;
        if p > x {
            let m = (u - 12) * 32 / 255 - 23;
            local = m + (p - m) % (u - 4);
            if local > x {
                local = m;
            }
        }
        if off + local > b.len() {
            return Err("cell past the page".into());
        }
        let mut payload = b[off..off + local].to_vec();
        if local < p {
            if off + local + 4 > b.len() {
                return Err("cell past the page".into());
            }
            let mut next = be32(&b[off + local..]);
            let mut hops = 0;
            while payload.len() < p {
                if next == 0 || hops > 1 << 16 {
                    return Err("overflow chain".into());
                }
                let ov = self.page(next)?;
                next = be32(&ov[..4]);
                let end = u.min(4 + p - payload.len());
                payload.extend_from_slice(&ov[4..end]);
                hops += 1;
            }
        }
        let cols = record(&payload, 2)?;
        Ok((self.text(&cols[0]), self.text(&cols[1])))
    }

    fn text(&self, b: &[u8]) -> String {
        if self.enc != 2 && self.enc != 3 {
            return String::from_utf8_lossy(b).into_owned();
        }
        let u: Vec<u16> = b
            .chunks_exact(2)
            .map(|c| {
                if self.enc == 2 {
                    u16::from_le_bytes([c[0], c[1]])
                } else {
                    u16::from_be_bytes([c[0], c[1]])
                }
            })
            .collect();
        String::from_utf16_lossy(&u)
    }
}

fn wal_checksum(b: &[u8], mut s0: u32, mut s1: u32, big: bool) -> (u32, u32) {
    let rd = |c: &[u8]| {
        let a = [c[0], c[1], c[2], c[3]];
        if big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    };
    let mut i = 0;
    while i + 8 <= b.len() {
        s0 = s0.wrapping_add(rd(&b[i..])).wrapping_add(s1);
        s1 = s1.wrapping_add(rd(&b[i + 4..])).wrapping_add(s0);
        i += 8;
    }
    (s0, s1)
}

/// The first n columns of a record as raw bytes (text and blob contents;
/// other types empty).
fn record(p: &[u8], n: usize) -> Result<Vec<Vec<u8>>, String> {
    let (hlen, k) = varint(p);
    if hlen > p.len() as u64 || (hlen as usize) < k {
        return Err("record header".into());
    }
    let mut hdr = &p[k..hlen as usize];
    let mut body = &p[hlen as usize..];
    let mut cols = Vec::new();
    while cols.len() < n {
        if hdr.is_empty() {
            return Err(format!("schema row has {} columns", cols.len()));
        }
        let (t, k) = varint(hdr);
        hdr = &hdr[k.min(hdr.len())..];
        let size = match t {
            t if t >= 12 => ((t - 12) / 2) as usize,
            1..=4 => t as usize,
            5 => 6,
            6 | 7 => 8,
            _ => 0,
        };
        if size > body.len() {
            return Err("record body".into());
        }
        cols.push(if t >= 12 {
            body[..size].to_vec()
        } else {
            Vec::new()
        });
        body = &body[size..];
    }
    Ok(cols)
}

/// SQLite's big-endian variable-length integer and its length.
fn varint(b: &[u8]) -> (u64, usize) {
    let mut v: u64 = 0;
    for i in 0..9 {
        if i >= b.len() {
            return (v, i.max(1));
        }
        if i == 8 {
            return ((v << 8) | b[i] as u64, 9);
        }
        v = (v << 7) | (b[i] & 0x7f) as u64;
        if b[i] < 0x80 {
            return (v, i + 1);
        }
    }
    (v, 9)
}

#[cfg(test)]
mod tests {
    use super::created_name;

    #[test]
    fn created_names() {
        for (q, want) in [
            (
                "CREATE TABLE account(id INTEGER PRIMARY KEY)",
                Some("account"),
            ),
            (
                "-- the log\n/* x */ create unique index if not exists \"ix_a\" ON a(b)",
                Some("ix_a"),
            ),
            ("CREATE TEMP TABLE [t1](x)", Some("t1")),
            ("INSERT INTO t VALUES (1)", None),
            ("CREATE VIEW v AS SELECT 1", Some("v")),
        ] {
            assert_eq!(created_name(q).as_deref(), want, "{q}");
        }
    }
}
