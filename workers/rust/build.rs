//! Records the compiler's version and the rusqlite version of Cargo.lock
//! for the worker's hello.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let ver = out.split_whitespace().nth(1).unwrap_or("unknown");
    println!("cargo:rustc-env=LB_RUSTC_VERSION={ver}");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let mut rusqlite = "unknown";
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "name = \"rusqlite\"" {
            if let Some(v) = lines
                .next()
                .and_then(|v| v.trim().strip_prefix("version = "))
            {
                rusqlite = v.trim_matches('"');
            }
            break;
        }
    }
    println!("cargo:rustc-env=LB_RUSQLITE_VERSION={rusqlite}");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
