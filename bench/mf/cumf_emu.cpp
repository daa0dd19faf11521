// A sequential CPU emulation of CuMF_SGD's MDS solver (singleGPU/sgd_k128_kernel_hogwild_warp32.h,
// sgd_k128_kernel_hogwild_warp32_lrate, with the set-up of sgd.cu), to know roughly what test RMSE
// the GPU run should print before trusting it. Not a peer and not timed; g++ >= 12 (_Float16).
//
//   g++ -O3 -march=native -o /tmp/cumf_emu bench/mf/cumf_emu.cpp
//   /tmp/cumf_emu TRAIN TEST LAMBDA ALPHA BETA EPOCHS WORKERS [SEED]
//
// TRAIN, TEST: LIBMF text with compacted ids (ratings.py split). What it reproduces: ratings
// divided by their standard deviation, lambda / std; P and Q stored in binary16, initialised
// uniform(0,1) * sqrt(1/128); learning rate of epoch t = ALPHA / (1 + BETA t^1.5); an epoch is
// WORKERS x ceil(nnz / (WORKERS x 128)) batches of 128 consecutive ratings (in file order, as
// CuMF_SGD keeps it) from a uniformly random start; update p += lr (e q - lambda p),
// q += lr (e p - lambda q) with both from the old values, in float, stored back in half. What it
// does not: the GPU's concurrency (thousands of warps update at once, Hogwild!). Test ratings
// with a user or item unseen in training are predicted as the training mean (as the patched
// CuMF_SGD and LIBMF do).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

struct Node {
  int u, v;
  float r;
};

static std::vector<Node> read_file(const char *path) {
  std::vector<Node> a;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  Node n;
  while (fscanf(f, "%d %d %f", &n.u, &n.v, &n.r) == 3) {
    if (n.u < 0 || n.v < 0) {
      fprintf(stderr, "%s: negative id\n", path);
      exit(1);
    }
    a.push_back(n);
  }
  fclose(f);
  if (a.empty()) {
    fprintf(stderr, "%s: no ratings\n", path);
    exit(1);
  }
  return a;
}

int main(int argc, char **argv) {
  if (argc < 8) {
    fprintf(stderr, "usage: cumf_emu TRAIN TEST LAMBDA ALPHA BETA EPOCHS WORKERS [SEED]\n");
    return 1;
  }
  std::vector<Node> tr = read_file(argv[1]), te = read_file(argv[2]);
  const float lambda = atof(argv[3]), alpha = atof(argv[4]), beta = atof(argv[5]);
  const int epochs = atoi(argv[6]);
  const long long workers = (atoll(argv[7]) + 3) / 4 * 4;
  std::mt19937_64 rng(argc > 8 ? atoll(argv[8]) : 1);
  const int k = 128;

  int m = 0, n = 0;
  double ex = 0, ex2 = 0;
  for (const Node &x : tr) {
    m = std::max(m, x.u + 1);
    n = std::max(n, x.v + 1);
    ex += x.r;
    ex2 += (double)x.r * x.r;
  }
  ex /= tr.size();
  ex2 /= tr.size();
  const float ave = ex, scale = std::max(1e-4f, (float)sqrt(ex2 - ex * ex));
  for (Node &x : tr)
    x.r /= scale;
  const float lam = lambda / scale;

  std::uniform_real_distribution<float> uni(0, 1);
  std::vector<_Float16> P((size_t)m * k), Q((size_t)n * k);
  for (auto &x : P) x = (_Float16)(uni(rng) * sqrtf(1.0f / k));
  for (auto &x : Q) x = (_Float16)(uni(rng) * sqrtf(1.0f / k));
  std::vector<char> seen_u(m), seen_v(n);
  for (const Node &x : tr) seen_u[x.u] = seen_v[x.v] = 1;

  const long long nnz = tr.size(), per_worker = (nnz + workers * 128 - 1) / (workers * 128);
  printf("m %d n %d nnz %lld mean %.4f std %.4f workers %lld updates_per_epoch %lld\n", m, n, nnz,
         ave, scale, workers, workers * 128 * per_worker);
  float pf[k], qf[k];
  for (int it = 0; it < epochs; it++) {
    const float lr = alpha / (1 + beta * pow(it, 1.5));
    for (long long b = 0; b < workers * per_worker; b++) {
      long long start = (long long)(uni(rng) * nnz) % nnz;
      for (int i = 0; i < 128; i++) {
        const Node &x = tr[(start + i) % nnz];
        _Float16 *p = &P[(size_t)x.u * k], *q = &Q[(size_t)x.v * k];
        float pq = 0;
        for (int d = 0; d < k; d++) {
          pf[d] = p[d];
          qf[d] = q[d];
          pq += pf[d] * qf[d];
        }
        const float e = x.r - pq;
        for (int d = 0; d < k; d++) {
          p[d] = (_Float16)(pf[d] + lr * (e * qf[d] - lam * pf[d]));
          q[d] = (_Float16)(qf[d] + lr * (e * pf[d] - lam * qf[d]));
        }
      }
    }
    double sse = 0;
    for (const Node &x : te) {
      float pred = ave / scale;
      if (x.u < m && x.v < n && seen_u[x.u] && seen_v[x.v]) {
        pred = 0;
        for (int d = 0; d < k; d++)
          pred += (float)P[(size_t)x.u * k + d] * (float)Q[(size_t)x.v * k + d];
      }
      const double e = x.r / scale - pred;
      sse += e * e;
    }
    printf("epoch %d lrate %.5f test_rmse %.4f\n", it + 1, lr, sqrt(sse / te.size()) * scale);
    fflush(stdout);
  }
  return 0;
}
