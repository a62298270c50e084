//! The generators against the Go reference: internal/gen/testdata/
//! vectors.json (every generator, two seeds) and internal/workload/
//! testdata/rows.json (the built-in schemas' pinned rows).

use crate::gen::*;
use crate::schema;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A JSON file of the repository's test data, by its path from the root.
pub fn load(rel: &str) -> Value {
    let path = format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn u64s(v: &Value) -> u64 {
    v.as_str()
        .expect("a decimal string")
        .parse()
        .expect("a u64")
}

fn bits(v: &Value) -> f64 {
    f64::from_bits(u64::from_str_radix(v.as_str().expect("hex bits"), 16).expect("hex"))
}

fn value_string(buf: &RowBuf, v: Val) -> String {
    match v {
        Val::Int(x) => x.to_string(),
        t => buf.str_of(t).to_string(),
    }
}

#[test]
fn vectors() {
    let v = load("internal/gen/testdata/vectors.json");
    assert_eq!(v["version"], 1);
    for m in v["math"].as_array().unwrap() {
        let f = m["fn"].as_str().unwrap();
        for io in m["in_out"].as_array().unwrap() {
            let ins: Vec<f64> = io[0]
                .as_str()
                .unwrap()
                .split(' ')
                .map(|h| f64::from_bits(u64::from_str_radix(h, 16).unwrap()))
                .collect();
            let got = match f {
                "exp" => exp(ins[0]),
                "log" => log(ins[0]),
                "log1p" => log1p(ins[0]),
                "pow" => pow(ins[0], ins[1]),
                _ => panic!("unknown function {f}"),
            };
            assert_eq!(got.to_bits(), bits(&io[1]).to_bits(), "{f}({:?})", ins);
        }
    }
    for z in v["zipf"].as_array().unwrap() {
        let zz = Zipf::new(z["n"].as_i64().unwrap(), z["theta"].as_f64().unwrap());
        for (k, got) in [
            ("zetan", zz.zetan),
            ("half", zz.half),
            ("alpha", zz.alpha),
            ("eta", zz.eta),
        ] {
            assert_eq!(got.to_bits(), bits(&z[k]).to_bits(), "zipf {z}: {k}");
        }
    }
    let table = decode_table(v["columns"].as_array().unwrap()).unwrap();
    for s in v["seeds"].as_array().unwrap() {
        let seed = u64s(&s["seed"]);
        for (k, d) in s["draw"].as_array().unwrap().iter().enumerate() {
            assert_eq!(draw(seed, 0, k as u64), u64s(d), "seed {seed} draw {k}");
        }
        let mut sm = SplitMix { state: seed };
        for (k, d) in s["splitmix"].as_array().unwrap().iter().enumerate() {
            assert_eq!(sm.next_u64(), u64s(d), "seed {seed} splitmix {k}");
        }
        let cols = &s["columns"];
        let mut buf = RowBuf::default();
        for i in 0..100i64 {
            buf.clear();
            table.row(seed, i, &mut buf);
            for (k, name) in table.names.iter().enumerate() {
                let want = cols[name][i as usize].as_str().unwrap();
                assert_eq!(
                    value_string(&buf, buf.vals[k]),
                    want,
                    "seed {seed} column {name} row {i}"
                );
                // Each column alone gives the same value.
                let alone = if table.is_text(k) {
                    let mut t = String::new();
                    table.append_text(k, &mut t, seed, i, None);
                    t
                } else {
                    table.int(k, seed, i).to_string()
                };
                assert_eq!(alone, want, "seed {seed} column {name} row {i} alone");
            }
        }
        for kv in s["keys"].as_array().unwrap() {
            let n = kv["n"].as_i64().unwrap();
            let kind = KeyKind::parse(kv["dist"].as_str().unwrap()).unwrap();
            let zipf = kv.get("theta").map(|t| Zipf::new(n, t.as_f64().unwrap()));
            let mut g = KeyGen::new(
                kind,
                zipf.as_ref(),
                seed,
                kv["worker"].as_u64().unwrap() as usize,
            );
            let got: Vec<i64> = (0..kv["keys"].as_array().unwrap().len())
                .map(|_| g.next_key(n))
                .collect();
            let want: Vec<i64> = kv["keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            assert_eq!(got, want, "seed {seed} keys {kv:?}", kv = kv["dist"]);
        }
        for o in s["ops"].as_array().unwrap() {
            let p = o["write_percent"].as_f64().unwrap();
            let got: String = (0..1000u64)
                .map(|q| if write_op(seed, q, p) { 'w' } else { 'r' })
                .collect();
            assert_eq!(got, o["ops"].as_str().unwrap(), "seed {seed} ops {p}");
        }
        for a in s["arrivals"].as_array().unwrap() {
            let rate = a["rate"].as_f64().unwrap();
            let mut prev = 0;
            for (q, d) in a["due_ns"].as_array().unwrap().iter().enumerate() {
                let due = schedule(
                    Arrivals::Poisson,
                    rate,
                    q as i64,
                    prev,
                    arrival_u(seed, q as i64),
                );
                assert_eq!(
                    due,
                    d.as_i64().unwrap(),
                    "seed {seed} rate {rate} arrival {q}"
                );
                prev = due;
            }
        }
    }
}

fn canonical(buf: &RowBuf, v: Val) -> String {
    match v {
        Val::Int(x) => format!("i:{x}"),
        t => {
            let s = buf.str_of(t);
            if s.len() > 256 {
                let sum = Sha256::digest(s.as_bytes());
                let hex: String = sum.iter().map(|c| format!("{c:02x}")).collect();
                format!("t#{}:{hex}", s.len())
            } else {
                format!("t:{s}")
            }
        }
    }
}

#[test]
fn pinned_rows() {
    let v = load("internal/workload/testdata/rows.json");
    let rows = [0i64, 1, 2, 3, 4, 1000, 123456, (1 << 32) + 7];
    let mut checked = 0;
    for sc in schema::all() {
        for (seed, want) in v[sc.name].as_object().unwrap() {
            let seed: u64 = seed.parse().unwrap();
            for (k, &i) in rows.iter().enumerate() {
                let mut buf = RowBuf::default();
                sc.gen.row(seed, i, &mut buf);
                let got: Vec<String> = buf.vals.iter().map(|v| canonical(&buf, *v)).collect();
                let w: Vec<String> = want[k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_string())
                    .collect();
                assert_eq!(got, w, "{} seed {seed} row {i}", sc.name);
                let mut key = RowBuf::default();
                sc.key(seed, i, &mut key);
                assert_eq!(
                    canonical(&key, key.vals[0]),
                    w[0],
                    "{} key of row {i}",
                    sc.name
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 5 * 2 * rows.len());
}
