//! The rating file decoders of `subgraph_mf::formats`: a flag byte (its value mod 6 the format:
//! MovieLens `u.data`, `ratings.dat`, `ratings.csv`, Netflix, LIBMF text or Matrix Market),
//! then the file. Each decoder gives an error of one line naming the input, or what it claims:
//! at least one rating, one user id and one item id a value, every value finite, no more ratings
//! than lines, Matrix Market's ids 1-based; the ratings compact into a dataset. Detecting the
//! format of the same bytes never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_mf::formats::{decode_ratings, Format};
use subgraph_mf::Dataset;

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let Some((&flags, file)) = data.split_first() else { return };
    let format = Format::ALL[usize::from(flags) % Format::ALL.len()];
    let name = Path::new("fuzz");
    let _ = Format::detect(name, file);
    match decode_ratings(file, format, name) {
        Ok(r) => {
            assert!(!r.is_empty() && r.users.len() == r.len() && r.items.len() == r.len());
            assert!(r.values.iter().all(|v| v.is_finite()));
            assert!(r.len() <= file.split(|&c| c == b'\n').count(), "more ratings than lines");
            if format == Format::MatrixMarket {
                assert!(r.users.iter().chain(&r.items).all(|&id| id >= 1), "a 0 index in a Matrix Market file");
            }
            let d = Dataset::compact(&r).expect("decoded ratings compact");
            assert_eq!(d.ratings.len(), r.len());
        }
        Err(e) => {
            let text = e.to_string();
            assert!(!text.contains('\n') && text.starts_with("fuzz: "), "{text}");
        }
    }
});
