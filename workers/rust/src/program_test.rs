//! The program runner against the Go reference: every case of
//! internal/spec/testdata/program-runs.json (every deterministic workload
//! file and built-in as a program) set up and run as a job writes the rows
//! the Go reference writes (content digests after set-up and after the
//! run), runs the count asked and counts every operation once.

use crate::ctx::Ctx;
use crate::proto::Out;
use crate::worker;
use serde_json::{json, Value};

#[test]
fn program_runs() {
    let cases = crate::vectors_test::load("internal/spec/testdata/program-runs.json");
    let cases = cases.as_array().unwrap();
    assert!(cases.len() >= 10);
    let dir = std::env::temp_dir().join(format!("litebench-rust-program-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for c in cases {
        let id = c["id"].as_str().unwrap();
        let db = dir.join(format!("{id}.db"));
        let job = json!({
            "workload": c["name"],
            "program": c["program"],
            "settings": c["settings"],
            "path": db.to_str().unwrap(),
            "digest": true,
        });
        let ctx = Ctx::root();
        let (mut p, done) =
            worker::setup(&ctx, &job).unwrap_or_else(|e| panic!("{id}: setup: {e}"));
        assert_eq!(
            done["digest"], c["setup_digest"],
            "{id}: digest after set-up"
        );
        let fin = p.run(&ctx, &Out::new());
        p.close();
        assert_eq!(fin["status"], "ok", "{id}: {}", fin["error"]);
        assert_eq!(
            fin["digest"], c["final_digest"],
            "{id}: digest after the run"
        );
        let prog = &c["program"];
        let want = match prog.get("insert").filter(|i| !i.is_null()) {
            Some(ins) => ins["rows"].as_i64().unwrap(),
            None => prog["load"]["count"].as_i64().unwrap(),
        };
        assert_eq!(fin["done"].as_i64().unwrap(), want, "{id}: done");
        if prog.get("insert").is_some_and(|i| !i.is_null()) {
            continue;
        }
        let ntx = prog["transactions"].as_array().unwrap().len();
        let txns: Vec<&str> = prog["ops"].as_array().unwrap()[..ntx]
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        let mut counted = 0;
        for o in fin["final_ops"].as_array().unwrap() {
            let name = o["name"].as_str().unwrap();
            let k = prog["ops"]
                .as_array()
                .unwrap()
                .iter()
                .position(|n| n == name)
                .unwrap();
            let of = prog["of"].get(k).and_then(Value::as_str).unwrap_or("");
            assert_eq!(
                o.get("of").and_then(Value::as_str).unwrap_or(""),
                of,
                "{id}: {name}"
            );
            if txns.contains(&name) && of.is_empty() {
                counted += o["count"].as_i64().unwrap();
            }
        }
        assert_eq!(counted, want, "{id}: transactions counted");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
