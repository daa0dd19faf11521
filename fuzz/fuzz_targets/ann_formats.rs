//! The vector file decoders of `subgraph_ann::formats`: a flag byte (its value mod 5 the format:
//! `.fvecs`, `.bvecs`, `.ivecs`, `.npy` or label text; bit 7: read at most bits 3-6 + 1 rows),
//! then the file. Each decoder gives an error of one line, or what it claims: vectors of one
//! dimension, all finite, no more rows than asked for nor values than bytes; whole rows of ids;
//! labels.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use subgraph_ann::formats::{decode_ids, decode_labels, decode_vectors, Format};
use subgraph_ann::AnnError;

const FORMATS: [Format; 5] = [Format::Fvecs, Format::Bvecs, Format::Ivecs, Format::Npy, Format::Text];

fn one_line(e: &AnnError) {
    assert!(!e.to_string().contains('\n'), "{e}");
}

fuzz_target!(init: subgraph_fuzz::init(), |data: &[u8]| {
    let Some((&flags, file)) = data.split_first() else { return };
    let format = FORMATS[usize::from(flags) % FORMATS.len()];
    let max_rows = (flags & 0x80 != 0).then_some(usize::from(flags >> 3 & 0xf) + 1);
    let name = Path::new("fuzz");
    match decode_vectors(file, format, name, max_rows) {
        Ok(v) => {
            assert!(!v.is_empty() && v.as_slice().iter().all(|x| x.is_finite()));
            assert!(max_rows.is_none_or(|m| v.len() <= m));
            let per_value = if format == Format::Fvecs { 4 } else { 1 };
            assert!(v.len() * v.dim() * per_value <= file.len(), "more values than bytes");
        }
        Err(e) => one_line(&e),
    }
    match decode_ids(file, format, name) {
        Ok(ids) => {
            assert!(ids.k > 0 && !ids.is_empty() && ids.ids.len() % ids.k == 0);
            assert!(ids.ids.len() * 4 <= file.len(), "more ids than bytes");
        }
        Err(e) => one_line(&e),
    }
    match decode_labels(file, format, name) {
        Ok(labels) => assert!(!labels.is_empty()),
        Err(e) => one_line(&e),
    }
});
