//! Property tests of the engine's JSON entry point: whatever text or JSON value arrives,
//! `scenario::parse(text, Format::Json)` returns Ok or a `ScenarioError`, never panics; a
//! scenario it accepts builds with `Simulation::new` (or is refused with an error), runs a short
//! while, and `finish()` balances its packet ledger. Inputs: arbitrary JSON values, arbitrary
//! values at the scenario's top-level fields, damaged JSON text, and every scenario in
//! scenarios/ mutated at random paths (values swapped for other types, extremes, deleted and
//! unknown keys, other `kind`s). The seed is fixed so the run is the same every time.

use ccscope_core::units::SimTime;
use ccscope_core::{parse, Format, Simulation};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::{json, Map, Value};

/// Simulated time of each run: long enough for the first packets, queues and samples.
const RUN_S: f64 = 1e-4;

const SCENARIOS: &[(&str, &str)] = &[
    (
        "asm_dumbbell",
        include_str!("../../../scenarios/asm_dumbbell.toml"),
    ),
    (
        "coexistence_choke",
        include_str!("../../../scenarios/coexistence_choke.toml"),
    ),
    (
        "dctcp_dumbbell",
        include_str!("../../../scenarios/dctcp_dumbbell.toml"),
    ),
    (
        "dx_many_to_one",
        include_str!("../../../scenarios/dx_many_to_one.toml"),
    ),
    (
        "incast_dctcp",
        include_str!("../../../scenarios/incast_dctcp.toml"),
    ),
    (
        "leaf_spine_websearch",
        include_str!("../../../scenarios/leaf_spine_websearch.toml"),
    ),
    (
        "newreno_droptail",
        include_str!("../../../scenarios/newreno_droptail.toml"),
    ),
    (
        "parking_lot_asm",
        include_str!("../../../scenarios/parking_lot_asm.toml"),
    ),
    (
        "periodic_fixed_rtt",
        include_str!("../../../scenarios/periodic_fixed_rtt.toml"),
    ),
    (
        "periodic_red_minfix",
        include_str!("../../../scenarios/periodic_red_minfix.toml"),
    ),
    (
        "periodic_variable_rtt",
        include_str!("../../../scenarios/periodic_variable_rtt.toml"),
    ),
    (
        "poisson_short_flows",
        include_str!("../../../scenarios/poisson_short_flows.toml"),
    ),
    (
        "qcn_dumbbell",
        include_str!("../../../scenarios/qcn_dumbbell.toml"),
    ),
];

const TOP_FIELDS: &[&str] = &[
    "topology",
    "name",
    "seed",
    "until_s",
    "packet_bytes",
    "ack_bytes",
    "aqm",
    "tcp",
    "dctcp",
    "dx",
    "qcn_rp",
    "asm_rp",
    "feedback_bytes",
    "flows",
    "flow",
    "workload",
    "record",
];

const KINDS: &[&str] = &[
    "dumbbell",
    "graph",
    "leaf_spine",
    "fat_tree",
    "drop_tail",
    "threshold",
    "red",
    "choke",
    "qcn",
    "asm",
    "fixed",
    "uniform",
    "cdf",
    "incast",
    "poisson",
    "",
    "bogus",
];

/// A scenario file as JSON. A CDF given by file name (read by the Python layer) becomes a
/// uniform size here, and the leaf-spine fabric is cut to 16 hosts so each case stays quick.
fn base(i: usize) -> Value {
    static BASES: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    BASES.get_or_init(|| (0..SCENARIOS.len()).map(read_base).collect())[i % SCENARIOS.len()].clone()
}

fn read_base(i: usize) -> Value {
    let (name, text) = SCENARIOS[i];
    let mut v: Value = toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    if let Some(ws) = v.get_mut("workload").and_then(Value::as_array_mut) {
        for w in ws {
            if w.pointer("/size/file").is_some() {
                w["size"] = json!({"kind": "uniform", "min_bytes": 1000, "max_bytes": 100000});
            }
        }
    }
    if name == "leaf_spine_websearch" {
        v["topology"]["hosts_per_leaf"] = json!(2);
        let hosts: Vec<Value> = (0..16).map(|h| json!(format!("h{h}"))).collect();
        v["workload"][0]["src"] = Value::Array(hosts.clone());
        v["workload"][0]["dst"] = Value::Array(hosts);
    }
    v
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(|i| json!(i)),
        prop_oneof![
            Just(0i64),
            Just(-1),
            Just(i64::MAX),
            Just(i64::MIN),
            Just(1 << 53),
            Just(1 << 32)
        ]
        .prop_map(|i| json!(i)),
        Just(json!(u64::MAX)),
        prop_oneof![
            Just(0.0f64),
            Just(-0.0),
            Just(0.5),
            Just(1e-12),
            Just(5e-324),
            Just(1e308),
            Just(-1e308),
            Just(1e9),
            Just(-3.5),
            Just(f64::MAX)
        ]
        .prop_map(|f| json!(f)),
        "[a-z_]{0,8}".prop_map(Value::String),
        prop::sample::select(vec![
            "h0", "s0", "r0", "sw0", "sw0->sw1", "dctcp", "new_reno", "reno", "asm", "qcn", "dx",
            "queue", "link", "ñ✓", "", " ", "\u{0}",
        ])
        .prop_map(|s| Value::String(s.into())),
        prop::sample::select(KINDS.to_vec()).prop_map(|k| json!({ "kind": k })),
    ]
}

/// Any JSON value: scalars, extremes, strings and names, nested up to 3 levels.
fn arb_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[derive(Clone, Debug)]
enum Op {
    /// Replace the value at the `n`-th path (mod the number of paths).
    Set(usize, Value),
    Delete(usize),
    AddKey(usize, String, Value),
    Kind(usize, String),
    /// A list at the `n`-th path emptied, or its first element repeated `k` times.
    Array(usize, bool, usize),
    /// The `n`-th number scaled (the scenario stays plausible, so the run itself is exercised).
    Scale(usize, f64),
    /// The `n`-th boolean flipped.
    Flip(usize),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<usize>(), arb_json()).prop_map(|(n, v)| Op::Set(n, v)),
        2 => any::<usize>().prop_map(Op::Delete),
        1 => (any::<usize>(), "[a-z_]{1,10}", arb_json()).prop_map(|(n, k, v)| Op::AddKey(n, k, v)),
        1 => (any::<usize>(), prop::sample::select(KINDS.to_vec())).prop_map(|(n, k)| Op::Kind(n, k.into())),
        1 => (any::<usize>(), any::<bool>(), 0usize..300).prop_map(|(n, e, k)| Op::Array(n, e, k)),
        4 => (any::<usize>(), prop::sample::select(vec![0.1, 0.5, 2.0, 3.0, 10.0]))
            .prop_map(|(n, f)| Op::Scale(n, f)),
        2 => any::<usize>().prop_map(Op::Flip),
    ]
}

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                prefix.push(Seg::Key(k.clone()));
                out.push(prefix.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate().take(32) {
                prefix.push(Seg::Index(i));
                out.push(prefix.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        Seg::Key(k) => &mut v[k.as_str()],
        Seg::Index(i) => &mut v[*i],
    })
}

fn peek<'a>(v: &'a Value, path: &[Seg]) -> &'a Value {
    path.iter().fold(v, |v, s| match s {
        Seg::Key(k) => &v[k.as_str()],
        Seg::Index(i) => &v[*i],
    })
}

fn apply(v: &mut Value, op: &Op) {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    if all.is_empty() {
        return;
    }
    let pick = |n: usize| all[n % all.len()].clone();
    match op {
        Op::Set(n, x) => *at(v, &pick(*n)) = x.clone(),
        Op::Delete(n) => {
            let p = pick(*n);
            let (last, parent) = p.split_last().expect("paths are non-empty");
            match (at(v, parent), last) {
                (Value::Object(m), Seg::Key(k)) => {
                    m.remove(k);
                }
                (Value::Array(a), Seg::Index(i)) if *i < a.len() => {
                    a.remove(*i);
                }
                _ => {}
            }
        }
        Op::AddKey(n, k, x) => {
            let tables: Vec<Vec<Seg>> = all
                .iter()
                .filter(|p| peek(v, p).is_object())
                .cloned()
                .collect();
            let target = if tables.is_empty() {
                v
            } else {
                at(v, &tables[n % tables.len()])
            };
            if let Value::Object(m) = target {
                m.insert(k.clone(), x.clone());
            }
        }
        Op::Kind(n, kind) => {
            let tables: Vec<Vec<Seg>> = all
                .iter()
                .filter(|p| peek(v, p).get("kind").is_some())
                .cloned()
                .collect();
            if !tables.is_empty() {
                at(v, &tables[n % tables.len()])["kind"] = json!(kind);
            }
        }
        Op::Array(n, empty, k) => {
            let lists: Vec<Vec<Seg>> = all
                .iter()
                .filter(|p| peek(v, p).is_array())
                .cloned()
                .collect();
            if !lists.is_empty() {
                let a = at(v, &lists[n % lists.len()]);
                let first = a.get(0).cloned().unwrap_or(Value::Null);
                *a = if *empty {
                    json!([])
                } else {
                    Value::Array(vec![first; *k])
                };
            }
        }
        Op::Scale(n, f) => {
            let nums: Vec<Vec<Seg>> = all
                .iter()
                .filter(|p| peek(v, p).is_number())
                .cloned()
                .collect();
            if !nums.is_empty() {
                let x = at(v, &nums[n % nums.len()]);
                *x = match (x.as_u64(), x.as_f64()) {
                    (Some(u), _) => json!(((u as f64) * f).round().max(1.0) as u64),
                    (None, Some(g)) => json!(g * f),
                    _ => x.clone(),
                };
            }
        }
        Op::Flip(n) => {
            let bools: Vec<Vec<Seg>> = all
                .iter()
                .filter(|p| peek(v, p).is_boolean())
                .cloned()
                .collect();
            if !bools.is_empty() {
                let x = at(v, &bools[n % bools.len()]);
                *x = json!(!x.as_bool().unwrap_or(false));
            }
        }
    }
}

/// The property: parse never panics; an accepted scenario builds or is refused, runs a short
/// while, and finishes with its packets accounted for.
fn check(text: &str) -> Result<(), TestCaseError> {
    let Ok(sc) = parse(text, Format::Json) else {
        return Ok(());
    };
    let Ok(mut sim) = Simulation::new(&sc, Some(RUN_S)) else {
        return Ok(());
    };
    sim.run_until(SimTime::from_secs_f64(RUN_S));
    let out = sim.finish();
    prop_assert!(out.is_ok(), "finish failed: {:?}", out.err());
    Ok(())
}

/// `cases` per property, or `CCSCOPE_PROPTEST_CASES` when set (`make fuzz` runs more).
fn config(cases: u32) -> Config {
    let cases = std::env::var("CCSCOPE_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        rng_seed: RngSeed::Fixed(16),
        max_shrink_iters: 2000,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn arbitrary_json_value_never_panics(v in arb_json()) {
        check(&v.to_string())?;
    }

    #[test]
    fn arbitrary_top_level_fields_never_panic(
        fields in prop::collection::btree_map(prop::sample::select(TOP_FIELDS.to_vec()), arb_json(), 0..8)
    ) {
        let m: Map<String, Value> = fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        check(&Value::Object(m).to_string())?;
    }

    #[test]
    fn damaged_json_text_never_panics(i in 0..SCENARIOS.len(), cut in any::<usize>(), byte in any::<u8>(),
                                      at_ in any::<usize>()) {
        let text = base(i).to_string();
        let mut bytes = text.into_bytes();
        let n = bytes.len();
        bytes[at_ % n] = byte;
        bytes.truncate(n - cut % (n / 4 + 1));
        check(&String::from_utf8_lossy(&bytes))?;
    }
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn mutated_scenarios_never_panic(i in 0..SCENARIOS.len(), ops in prop::collection::vec(arb_op(), 1..4)) {
        let mut v = base(i);
        for op in &ops {
            apply(&mut v, op);
        }
        check(&v.to_string())?;
    }
}

#[test]
fn every_base_scenario_parses_and_runs() {
    for (i, (name, _)) in SCENARIOS.iter().enumerate() {
        let text = base(i).to_string();
        let sc = parse(&text, Format::Json).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut sim = Simulation::new(&sc, Some(RUN_S)).unwrap_or_else(|e| panic!("{name}: {e}"));
        sim.run_until(SimTime::from_secs_f64(RUN_S));
        sim.finish().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The mutated-scenario property is not vacuous: a good share of its inputs parse, build and run.
#[test]
fn mutated_scenarios_reach_the_engine() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::new(config(200));
    let strategy = (0..SCENARIOS.len(), prop::collection::vec(arb_op(), 1..4));
    let (mut parsed, mut built) = (0, 0);
    for _ in 0..200 {
        let (i, ops) = strategy.new_tree(&mut runner).expect("a value").current();
        let mut v = base(i);
        for op in &ops {
            apply(&mut v, op);
        }
        if let Ok(sc) = parse(&v.to_string(), Format::Json) {
            parsed += 1;
            if Simulation::new(&sc, Some(RUN_S)).is_ok() {
                built += 1;
            }
        }
    }
    assert!(
        parsed >= 40 && built >= 30,
        "parsed {parsed}, built {built} of 200"
    );
}
