//! `subgraph mf` and `subgraph gen ratings` end to end on the shipped ratings
//! (tests/data/ratings: train.txt and test.txt, LIBMF text made by `gen ratings`, 2,000 users ×
//! 500 items of a planted rank-4 model with noise 0.5; u.data, 50 made-up MovieLens lines):
//! train → model file → predict → recommend, the JSON report and the target RMSE, the formats,
//! and one line and a non-zero exit for every bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/ratings").join(rel).display().to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_subgraph")).args(args).output().unwrap()
}

/// `mf train` on the CPU with the settings the shipped ratings train well at.
fn train(extra: &[&str]) -> Output {
    let mut args = vec!["mf", "train", "--device", "cpu", "--threads", "2", "--rank", "8", "--lr", "0.02"];
    args.extend_from_slice(extra);
    run(&args)
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The JSON lines of a successful `--format json` run.
fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    stdout(o).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The one-line error of a failed run.
fn error(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure: {}", String::from_utf8_lossy(&out.stdout));
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("subgraph: error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

fn write(dir: &Path, name: &str, content: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.display().to_string()
}

/// Lines `user item rating` of a LIBMF file.
fn triples(path: &str) -> Vec<(u64, u64, f64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

fn model(dir: &Path) -> PathBuf {
    let path = dir.join("small.sgm");
    let o = train(&[
        &data("train.txt"),
        "--test",
        &data("test.txt"),
        "--epochs",
        "15",
        "--format",
        "json",
        "--output",
        path.to_str().unwrap(),
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 16, "{lines:?}");
    let mut elapsed = 0.0;
    for (i, l) in lines[..15].iter().enumerate() {
        let keys: Vec<&str> = l.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["cpu_share", "elapsed_ms", "epoch", "test_rmse", "train_rmse"], "{l}");
        assert_eq!(l["epoch"], i + 1);
        assert_eq!(l["cpu_share"], 1.0);
        let e = l["elapsed_ms"].as_f64().unwrap();
        assert!(e > elapsed, "{l}");
        elapsed = e;
        assert!(l["train_rmse"].as_f64().unwrap() > 0.0 && l["test_rmse"].as_f64().unwrap() > 0.0, "{l}");
    }
    let run = &lines[15]["run"];
    assert_eq!(run["device"], "cpu");
    assert_eq!(run["threads"], 2);
    assert_eq!(run["gpus"], 0);
    assert_eq!(run["epochs"], 15);
    assert_eq!(run["test_rmse"], lines[14]["test_rmse"]);
    assert_eq!(run["elapsed_ms"], lines[14]["elapsed_ms"]);
    assert!(run["reached_epoch"].is_null() && run["time_to_target_ms"].is_null(), "{run}");
    // The planted model's test RMSE is 0.506; the fit of rank 8 on 22 ratings a user reaches
    // about 0.655 in 15 epochs (0.654 to 0.661 over seeds 1 to 5).
    let test_rmse = run["test_rmse"].as_f64().unwrap();
    assert!((0.5..0.70).contains(&test_rmse), "{run}");
    assert!(path.exists());
    path
}

#[test]
fn train_predict_recommend_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let m = model(dir.path());
    let m = m.to_str().unwrap();
    // predict: a line per pair in the file's order, and the RMSE train reported.
    let test = triples(&data("test.txt"));
    let o = run(&["mf", "predict", m, &data("test.txt")]);
    let out = stdout(&o);
    let predicted: Vec<(u64, u64, f32)> = out
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(predicted.len(), test.len());
    assert!(predicted.iter().zip(&test).all(|(p, t)| (p.0, p.1) == (t.0, t.1)));
    let rmse =
        (predicted.iter().zip(&test).map(|(p, t)| (p.2 as f64 - t.2).powi(2)).sum::<f64>() / test.len() as f64).sqrt();
    let stderr = String::from_utf8_lossy(&o.stderr);
    let reported: f64 = stderr.strip_prefix("RMSE ").and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
    assert!((reported - rmse).abs() < 1e-5, "{stderr} vs {rmse}");
    assert!(stderr.contains(&format!("over {} rated pairs (0 with an unseen user", test.len())), "{stderr}");
    // An unseen user or item is predicted as the training mean.
    let train = triples(&data("train.txt"));
    let mean = train.iter().map(|t| t.2).sum::<f64>() / train.len() as f64;
    let pairs = write(dir.path(), "pairs.txt", "# user item\n7 1000000\n\n99999,3\n");
    let unseen = stdout(&run(&["mf", "predict", m, &pairs, "--output", "-"]));
    for line in unseen.lines() {
        let p: f64 = line.split(' ').nth(2).unwrap().parse().unwrap();
        assert!((p - mean).abs() < 1e-4, "{line} vs the mean {mean}");
    }
    // recommend: the top k by predicted rating, best first, as predict predicts them.
    let rows = stdout(&run(&["mf", "recommend", m, "--user", "7", "-k", "10"]));
    let mut lines = rows.lines();
    assert_eq!(lines.next(), Some("item predicted"));
    let top: Vec<(u64, f32)> = lines
        .map(|l| {
            let (i, s) = l.split_once(' ').unwrap();
            (i.parse().unwrap(), s.parse().unwrap())
        })
        .collect();
    assert_eq!(top.len(), 10);
    assert!(top.windows(2).all(|w| w[0].1 >= w[1].1), "{top:?}");
    let asked: String = top.iter().map(|(i, _)| format!("7 {i}\n")).collect();
    let asked = write(dir.path(), "top.txt", &asked);
    let again = stdout(&run(&["mf", "predict", m, &asked]));
    for (line, (item, score)) in again.lines().zip(&top) {
        assert_eq!(line, format!("7 {item} {score}"));
    }
    // Every item predict rates above the 10th is among the 10.
    let all: String = (0..500).map(|i| format!("7 {i}\n")).collect();
    let all = write(dir.path(), "all.txt", &all);
    let tenth = top[9].1;
    let above = stdout(&run(&["mf", "predict", m, &all]))
        .lines()
        .filter(|l| l.split(' ').nth(2).unwrap().parse::<f32>().unwrap() > tenth)
        .count();
    assert!(above <= 9, "{above} items above the 10th");
    // --exclude leaves out the user's training items.
    let seen: Vec<u64> = train.iter().filter(|t| t.0 == 7).map(|t| t.1).collect();
    assert!(!seen.is_empty());
    let rows = stdout(&run(&["mf", "recommend", m, "--user", "7", "-k", "450", "--exclude", &data("train.txt")]));
    let items: Vec<u64> = rows.lines().skip(1).map(|l| l.split(' ').next().unwrap().parse().unwrap()).collect();
    assert_eq!(items.len(), 450);
    assert!(items.iter().all(|i| !seen.contains(i)), "a training item recommended");
}

#[test]
fn a_target_rmse_stops_the_run_and_reports_the_time_to_it() {
    let lines = json_lines(&train(&[
        &data("train.txt"),
        "--test",
        &data("test.txt"),
        "--epochs",
        "30",
        "--target-rmse",
        "0.9",
        "--format",
        "json",
    ]));
    let run = &lines.last().unwrap()["run"];
    let reached = run["reached_epoch"].as_u64().unwrap() as usize;
    assert_eq!(lines.len(), reached + 1, "the run stops at the epoch that reaches the target");
    assert_eq!(run["epochs"], reached);
    let at = &lines[reached - 1];
    assert!(at["test_rmse"].as_f64().unwrap() <= 0.9, "{at}");
    assert!(lines[..reached - 1].iter().all(|l| l["test_rmse"].as_f64().unwrap() > 0.9));
    assert_eq!(run["time_to_target_ms"], at["elapsed_ms"]);
    assert_eq!(run["target_rmse"], 0.9);
    // Not reached: every epoch runs, and the report says so.
    let lines = json_lines(&train(&[
        &data("train.txt"),
        "--test",
        &data("test.txt"),
        "--epochs",
        "2",
        "--target-rmse",
        "0.1",
        "--format",
        "json",
    ]));
    let run = &lines.last().unwrap()["run"];
    assert_eq!((lines.len(), &run["epochs"]), (3, &serde_json::json!(2)));
    assert!(run["reached_epoch"].is_null() && run["time_to_target_ms"].is_null(), "{run}");
    let table = train(&[&data("train.txt"), "--test", &data("test.txt"), "--epochs", "2", "--target-rmse", "0.1"]);
    let stderr = String::from_utf8_lossy(&table.stderr);
    assert!(stderr.contains("test RMSE 0.1 not reached in 2 epochs"), "{stderr}");
    // The table: a head, a row an epoch; the summary on standard error.
    let out = stdout(&table);
    let head: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(head, ["epoch", "train_rmse", "test_rmse", "elapsed_ms", "cpu_share"]);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(stderr.contains("2000 users × 500 items, 45018 ratings; test 4982 (0 unseen)"), "{stderr}");
    // A target needs a test set.
    let e = error(&train(&[&data("train.txt"), "--target-rmse", "0.9"]));
    assert!(e.contains("a target RMSE needs a test set"), "{e}");
}

#[test]
fn the_adaptive_rate_trains_on_the_cpu_alone() {
    let (train, test) = (data("train.txt"), data("test.txt"));
    let lines = json_lines(&run(&[
        "mf",
        "train",
        &train,
        "--test",
        &test,
        "--threads",
        "2",
        "--rank",
        "8",
        "--epochs",
        "15",
        "--adaptive",
        "--lr",
        "0.1",
        "--format",
        "json",
    ]));
    let report = &lines.last().unwrap()["run"];
    assert_eq!(report["device"], "cpu");
    // About 0.89 after 15 epochs.
    let first = lines[0]["test_rmse"].as_f64().unwrap();
    assert!(report["test_rmse"].as_f64().unwrap() < first.min(1.0), "{report}");
    for device in ["gpu", "hybrid"] {
        let e = error(&run(&["mf", "train", &data("u.data"), "--adaptive", "--device", device, "--rank", "2"]));
        assert!(e.contains("the adaptive learning rate runs on the CPU engine only"), "{e}");
    }
}

#[test]
fn movielens_and_compressed_files_train_with_their_own_ids() {
    let dir = tempfile::tempdir().unwrap();
    let udata = data("u.data");
    let text = std::fs::read(&udata).unwrap();
    let gz = dir.path().join("u.data.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &text).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let zst = dir.path().join("ratings.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
    let mut models = Vec::new();
    for (i, (input, format)) in
        [(udata.as_str(), None), (gz.to_str().unwrap(), None), (zst.to_str().unwrap(), Some("movielens"))]
            .into_iter()
            .enumerate()
    {
        let out = dir.path().join(format!("m{i}.sgm"));
        let mut args = vec!["mf", "train", input, "--device", "cpu", "--threads", "1", "--rank", "4", "--epochs", "5"];
        args.extend(["--format", "json", "--output", out.to_str().unwrap()]);
        if let Some(f) = format {
            args.extend(["--input-format", f]);
        }
        let lines = json_lines(&run(&args));
        assert_eq!(lines.len(), 6);
        assert!(lines[0]["test_rmse"].is_null());
        models.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(models[0], models[1], "gzip reads as the plain file");
    assert_eq!(models[0], models[2], "zstd reads as the plain file");
    // The model keeps the file's ids: users 3..5000, items 11..4181.
    let m = dir.path().join("m0.sgm");
    let rows = stdout(&run(&["mf", "recommend", m.to_str().unwrap(), "--user", "5000", "-k", "12"]));
    let mut items: Vec<u64> = rows.lines().skip(1).map(|l| l.split(' ').next().unwrap().parse().unwrap()).collect();
    items.sort();
    assert_eq!(items, [11, 29, 64, 97, 150, 233, 377, 610, 987, 1597, 2584, 4181]);
    // Read as LIBMF text, a u.data line has one field too many.
    let e = error(&run(&["mf", "train", &udata, "--input-format", "libmf", "--rank", "2"]));
    assert!(e.ends_with("u.data: line 1: expected 3 fields 'user item rating', found more"), "{e}");
}

#[test]
fn bad_inputs_are_one_line_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let train_on = |file: &str| error(&run(&["mf", "train", file, "--device", "cpu", "--rank", "2", "--epochs", "1"]));
    let e = train_on(&write(d, "word.txt", "1 2 3\n1 3 x\n"));
    assert!(e.ends_with("word.txt: line 2: rating 'x' is not a number"), "{e}");
    let e = train_on(&write(d, "nan.txt", "1 2 3\n1 3 NaN\n"));
    assert!(e.ends_with("nan.txt: line 2: rating 'NaN' is not a finite number"), "{e}");
    let e = train_on(&write(d, "neg.txt", "1 2 3\n# a comment\n-4 3 1\n"));
    assert!(e.ends_with("neg.txt: line 3: user id -4 is negative: ids are unsigned integers"), "{e}");
    let e = train_on(&write(d, "empty.txt", ""));
    assert!(e.ends_with("empty.txt: no ratings (read as libmf)"), "{e}");
    let e = train_on(&write(d, "blank.csv", "userId,movieId,rating,timestamp\n\n"));
    assert!(e.ends_with("blank.csv: no ratings (read as ratings.csv)"), "{e}");
    let e = train_on(&d.join("missing.txt").display().to_string());
    assert!(e.contains("missing.txt: No such file or directory"), "{e}");
    // The test file is read as strictly.
    let good = write(d, "good.txt", "1 2 3\n4 5 1\n");
    let bad_test = write(d, "test.txt", "1 5 2\n1 2 inf\n");
    let e = error(&run(&["mf", "train", &good, "--test", &bad_test, "--device", "cpu", "--rank", "2"]));
    assert!(e.ends_with("test.txt: line 2: rating 'inf' is not a finite number"), "{e}");
    // Parameters out of range.
    let e = error(&run(&["mf", "train", &good, "--rank", "0"]));
    assert!(e.ends_with("rank 0: must be 1 to 1024"), "{e}");
    let e = error(&run(&["mf", "train", &good, "--lr=-1", "--rank", "2"]));
    assert!(e.contains("learning rate -1"), "{e}");
    // A GPU asked for where none is usable: one line, not a panic (where one is, it trains).
    for device in ["gpu", "hybrid"] {
        let o = run(&["mf", "train", &good, "--device", device, "--rank", "2", "--epochs", "1", "--format", "json"]);
        if !o.status.success() {
            let e = error(&o);
            assert!(e.starts_with(&format!("subgraph: error: --device {device}: ")) || e.contains("GPU"), "{e}");
        }
        let table = run(&["mf", "train", &good, "--device", device, "--rank", "2", "--epochs", "1"]);
        if !table.status.success() {
            error(&table);
            assert!(table.stdout.is_empty(), "the table's head printed before the error");
        }
    }
    // A model to predict and recommend with.
    let m = d.join("m.sgm").display().to_string();
    stdout(&run(&["mf", "train", &good, "--device", "cpu", "--rank", "2", "--epochs", "1", "--output", &m]));
    let e = error(&run(&["mf", "recommend", &m, "--user", "9"]));
    assert!(e.ends_with("m.sgm: user 9 is not in the model"), "{e}");
    let e = error(&run(&["mf", "recommend", &m, "--user", "1", "-k", "0"]));
    assert!(e.contains("-k must be at least 1"), "{e}");
    let e = error(&run(&["mf", "predict", &m, &write(d, "p1.txt", "1 2\n1 x\n")]));
    assert!(e.ends_with("p1.txt: line 2: item id 'x' is not an unsigned integer"), "{e}");
    let e = error(&run(&["mf", "predict", &m, &write(d, "p2.txt", "1 2\n\n-1 2\n")]));
    assert!(e.ends_with("p2.txt: line 3: user id -1 is negative: ids are unsigned integers"), "{e}");
    let e = error(&run(&["mf", "predict", &m, &write(d, "p3.txt", "1 2 NaN\n")]));
    assert!(e.ends_with("p3.txt: line 1: rating 'NaN' is not a finite number"), "{e}");
    let e = error(&run(&["mf", "predict", &m, &write(d, "p4.txt", "1\n")]));
    assert!(e.contains("p4.txt: line 1: expected `user item [rating]`"), "{e}");
    let e = error(&run(&["mf", "predict", &m, &d.join("none.txt").display().to_string()]));
    assert!(e.contains("none.txt: No such file or directory"), "{e}");
    // A file that is not a model.
    let e = error(&run(&["mf", "predict", &good, &good]));
    assert!(e.ends_with("good.txt: not a subgraph-mf model (no SGMFMODL magic)"), "{e}");
    let mut cut = std::fs::read(&m).unwrap();
    cut.truncate(cut.len() - 3);
    let cut_path = d.join("cut.sgm");
    std::fs::write(&cut_path, cut).unwrap();
    let e = error(&run(&["mf", "recommend", cut_path.to_str().unwrap(), "--user", "1"]));
    assert!(e.contains("cut.sgm: ") && e.contains("the header describes"), "{e}");
}

#[test]
fn gen_ratings_makes_the_shipped_set_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = run(&[
        "gen",
        "ratings",
        "--users",
        "2000",
        "--items",
        "500",
        "--ratings",
        "50000",
        "--rank",
        "4",
        "--noise",
        "0.5",
        "--test-fraction",
        "0.1",
        "--seed",
        "1",
        "--output",
        out,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("45018 train and 4982 test ratings") && stderr.contains("test RMSE is 0.506239"),
        "{stderr}"
    );
    for f in ["train.txt", "test.txt"] {
        assert!(std::fs::read(dir.path().join(f)).unwrap() == std::fs::read(data(f)).unwrap(), "{f} differs");
    }
    let e = error(&run(&["gen", "ratings", "--preset", "imdb", "--output", out]));
    assert!(e.contains("--preset \"imdb\": expected netflix or yahoo"), "{e}");
}
