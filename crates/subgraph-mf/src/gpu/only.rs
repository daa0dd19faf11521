//! The GPU alone (thesis §3.2's GPU-only baseline, CuMF_SGD's batch-Hogwild!): every rating on
//! the device, shuffled once, and an epoch is one run of the kernel over all of them.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::error::Result;
use crate::gpu::sgd::{DeviceRatings, GpuSgd};
use crate::model::{Model, Params, Step};
use crate::ratings::Ratings;
use crate::train::{Engine, Epoch};

/// A GPU-only run: the engine, the ratings on the device, the model's shape.
pub struct GpuOnly<'g> {
    sgd: GpuSgd<'g>,
    ratings: DeviceRatings,
    start: Model,
}

impl<'g> GpuOnly<'g> {
    /// A run over `ratings` from LIBMF's start (the same as the CPU's for the same seed).
    pub fn new(mut sgd: GpuSgd<'g>, ratings: &Ratings, params: &Params) -> Result<GpuOnly<'g>> {
        let start = Model::start(ratings, params);
        sgd.put_p(0..start.users, &start.p)?;
        sgd.put_q(0..start.items, &start.q)?;
        let mut shuffled = ratings.entries.clone();
        shuffled.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(params.seed ^ 0x2545_f491_4f6c_dd1d));
        let ratings = sgd.load_ratings(&shuffled)?;
        Ok(GpuOnly { sgd, ratings, start })
    }
}

impl Engine for GpuOnly<'_> {
    fn epoch(&mut self, step: Step) -> Result<Epoch> {
        let n = self.ratings.len();
        self.sgd.run(&self.ratings, 0..n, step)?;
        let loss = self.sgd.take_loss()?;
        Ok(Epoch { loss, updates: n as u64, cpu_updates: 0 })
    }

    fn model(&mut self) -> Result<Model> {
        let mut model = self.start.clone();
        self.sgd.get_p(0..model.users, &mut model.p)?;
        self.sgd.get_q(0..model.items, &mut model.q)?;
        Ok(model)
    }
}
