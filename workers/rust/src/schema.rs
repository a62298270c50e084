//! The built-in schemas (internal/workload/data.go) and the SQL the
//! workloads issue, rendered as the Go dialect renders it for SQLite.

use crate::gen::{days_from_civil, Gen, RowBuf, Table, TimeFormat};
use std::sync::OnceLock;

/// SQLITE_MAX_VARIABLE_NUMBER's default since 3.32: the bound-parameter
/// limit rows per statement are checked against.
pub const MAX_PARAMS: usize = 32766;

/// The default body size of the pages schema.
pub const PAGE_BODY_SIZE: usize = 5400;

/// A table the workloads use, with its deterministic rows.
pub struct Schema {
    pub name: &'static str,
    /// CREATE TABLE and CREATE INDEX statements.
    pub ddl: Vec<String>,
    /// Index names, for the ownership check.
    pub indexes: Vec<&'static str>,
    pub gen: Table,
    /// Columns an update rewrites.
    pub update_cols: Vec<&'static str>,
}

impl Schema {
    pub fn columns(&self) -> &[String] {
        &self.gen.names
    }

    pub fn key_col(&self) -> &str {
        &self.gen.names[0]
    }

    /// Positions of the update columns in a row.
    pub fn update_idx(&self) -> Vec<usize> {
        self.update_cols
            .iter()
            .filter_map(|c| self.gen.names.iter().position(|n| n == c))
            .collect()
    }

    /// Row i's primary key into buf (one value).
    pub fn key(&self, seed: u64, i: i64, buf: &mut RowBuf) {
        buf.clear();
        if self.gen.is_text(0) {
            self.gen.append_text(0, &mut buf.text, seed, i, None);
            buf.vals
                .push(crate::gen::Val::Text(0, buf.text.len() as u32));
        } else {
            buf.vals
                .push(crate::gen::Val::Int(self.gen.int(0, seed, i)));
        }
    }

    pub fn insert_sql(&self, rows: usize) -> String {
        insert_sql(self.name, self.columns(), rows)
    }

    pub fn update_sql(&self) -> String {
        let set: Vec<String> = self
            .update_cols
            .iter()
            .map(|c| format!("{c} = ?"))
            .collect();
        format!(
            "UPDATE {} SET {} WHERE {} = ?",
            self.name,
            set.join(", "),
            self.key_col()
        )
    }

    pub fn upsert_sql(&self) -> String {
        let set: Vec<String> = self
            .update_cols
            .iter()
            .map(|c| format!("{c} = excluded.{c}"))
            .collect();
        format!(
            "{} ON CONFLICT({}) DO UPDATE SET {}",
            self.insert_sql(1),
            self.key_col(),
            set.join(", ")
        )
    }

    pub fn select_sql(&self) -> String {
        format!(
            "SELECT {} FROM {} WHERE {} = ?",
            self.columns().join(","),
            self.name,
            self.key_col()
        )
    }
}

/// A multi-row INSERT with one placeholder per value.
pub fn insert_sql(table: &str, cols: &[String], rows: usize) -> String {
    let one = format!("({})", vec!["?"; cols.len()].join(","));
    format!(
        "INSERT INTO {}({}) VALUES {}",
        table,
        cols.join(","),
        vec![one.as_str(); rows].join(",")
    )
}

/// SQLite's string literal of s.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// An identifier quoted for SQLite.
pub fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

const NAMES: [&str; 16] = [
    "Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "John", "Ken",
    "Leslie", "Margaret", "Niklaus", "Radia", "Tony", "Barbara",
];

/// 2024-01-01T00:00:00Z in Unix nanoseconds.
fn t0() -> i64 {
    days_from_civil(2024, 1, 1) * 86_400 * 1_000_000_000
}

fn build() -> Vec<Schema> {
    let ts = |format| Gen::Timestamp {
        start_ns: t0(),
        step_ns: 1_000_000,
        format,
    };
    vec![
        Schema {
            name: "bench",
            ddl: vec!["CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)".into()],
            indexes: vec![],
            gen: Table::new(vec![
                ("ID", Gen::Seq { start: 0 }),
                ("rand", Gen::Hex { bytes: 8, stream: 0 }),
                (
                    "hash",
                    Gen::Sha256Of {
                        src: 1,
                        decode_hex: true,
                    },
                ),
            ]),
            update_cols: vec!["rand", "hash"],
        },
        Schema {
            name: "users",
            ddl: vec![
                "CREATE TABLE users(id BLOB PRIMARY KEY NOT NULL, created_at TEXT NOT NULL, username TEXT NOT NULL)"
                    .into(),
                "CREATE UNIQUE INDEX idx_users_on_id ON users(id)".into(),
            ],
            indexes: vec!["idx_users_on_id"],
            gen: Table::new(vec![
                ("id", Gen::Uuid4 { stream: 0 }),
                ("created_at", ts(TimeFormat::Rfc3339Nano)),
                (
                    "username",
                    Gen::Const {
                        value: "Someone".into(),
                    },
                ),
            ]),
            update_cols: vec!["created_at", "username"],
        },
        Schema {
            name: "account",
            ddl: vec![
                "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT, created_at INTEGER NOT NULL, version INTEGER)".into(),
                "CREATE INDEX account_name ON account(name)".into(),
            ],
            indexes: vec!["account_name"],
            gen: Table::new(vec![
                ("id", Gen::Seq { start: 1 }),
                (
                    "email",
                    Gen::SeqText {
                        prefix: "user".into(),
                        start: 1,
                        suffix: "@example.com".into(),
                    },
                ),
                (
                    "name",
                    Gen::Choice {
                        list: NAMES.iter().map(|s| s.to_string()).collect(),
                        count: 2,
                        sep: " ".into(),
                        stream: 0,
                    },
                ),
                (
                    "description",
                    Gen::Text {
                        min: 64,
                        max: 127,
                        stream: 0,
                    },
                ),
                ("created_at", ts(TimeFormat::UnixMs)),
                ("version", Gen::ConstInt { value: 1 }),
            ]),
            update_cols: vec!["name", "description"],
        },
        Schema {
            name: "foo",
            ddl: vec!["CREATE TABLE foo(id INTEGER PRIMARY KEY NOT NULL, name TEXT)".into()],
            indexes: vec![],
            gen: Table::new(vec![
                ("id", Gen::Seq { start: 1 }),
                ("name", Gen::Letters { len: 30, stream: 0 }),
            ]),
            update_cols: vec!["name"],
        },
        Schema {
            name: "pages",
            ddl: vec!["CREATE TABLE pages(id INTEGER PRIMARY KEY, body TEXT)".into()],
            indexes: vec![],
            gen: Table::new(vec![
                ("id", Gen::Seq { start: 1 }),
                (
                    "body",
                    Gen::Text {
                        min: PAGE_BODY_SIZE,
                        max: PAGE_BODY_SIZE,
                        stream: 0,
                    },
                ),
            ]),
            update_cols: vec!["body"],
        },
    ]
}

/// The built-in schemas.
pub fn all() -> &'static [Schema] {
    static S: OnceLock<Vec<Schema>> = OnceLock::new();
    S.get_or_init(build)
}

/// The schema called name.
pub fn get(name: &str) -> Option<&'static Schema> {
    all().iter().find(|s| s.name == name)
}

/// Whether a bench database may hold a table or index of this name.
pub fn is_bench_object(name: &str) -> bool {
    let l = name.to_lowercase();
    all()
        .iter()
        .any(|s| s.name == l || s.indexes.iter().any(|i| *i == l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql() {
        let b = get("bench").unwrap();
        assert_eq!(
            b.insert_sql(2),
            "INSERT INTO bench(ID,rand,hash) VALUES (?,?,?),(?,?,?)"
        );
        assert_eq!(
            b.update_sql(),
            "UPDATE bench SET rand = ?, hash = ? WHERE ID = ?"
        );
        assert_eq!(
            b.upsert_sql(),
            "INSERT INTO bench(ID,rand,hash) VALUES (?,?,?) ON CONFLICT(ID) DO UPDATE SET rand = excluded.rand, hash = excluded.hash"
        );
        assert_eq!(
            b.select_sql(),
            "SELECT ID,rand,hash FROM bench WHERE ID = ?"
        );
        assert!(is_bench_object("IDX_users_on_id"));
        assert!(!is_bench_object("mine"));
    }
}
