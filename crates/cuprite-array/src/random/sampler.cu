// The sampler kernel's body (the CUDA twin of `random::dists`): one thread per element of a
// grid-stride loop, each drawing from its own Philox stream (key, element index) the numbers
// its sampler kind needs. `kind` selects the sampler (see `Kind::words`), `a` and `b` are its
// scalar parameters, and the per-element parameter is `xs[i]`, or `x0` when `xs` is null; the
// Philox key is `key ^ word[0]` where `word` (a compiled program's call key word) is not null.
//
// Built after the Philox helpers, with SP_TAG (the stream tag) and SP_TRIES (the rejection
// samplers' attempt limit) defined from the Rust constants the CPU twin uses.

struct sp_words { u64t key; unsigned lo, hi, block; unsigned buf[4]; int pending; };
__device__ __forceinline__ u64t sp_next(sp_words &s) {
  if (s.pending) { s.pending = 0; return ((u64t)s.buf[2] << 32) | s.buf[3]; }
  cu_philox4x32_10(s.key, s.lo, s.hi, s.block, SP_TAG, s.buf);
  s.block += 1u; s.pending = 1;
  return ((u64t)s.buf[0] << 32) | s.buf[1];
}
__device__ __forceinline__ double sp_u01(sp_words &s) {
  return (double)(sp_next(s) >> 11) * (1.0 / 9007199254740992.0);
}
__device__ double sp_logfact(double k) {
  const double t[10] = {0.0, 0.0, 0.6931471805599453, 1.791759469228055, 3.1780538303479458,
    4.787491742782046, 6.579251212010101, 8.525161361065415, 10.60460290274525, 12.801827480081469};
  if (k < 10.0) return t[(int)k];
  const double x = k + 1.0;
  const double z = 1.0 / (x * x);
  const double corr = (1.0 / 12.0 - z * (1.0 / 360.0 - z * (1.0 / 1260.0 - z * (1.0 / 1680.0)))) / x;
  return (x - 0.5) * log(x) - x + 0.9189385332046727 + corr;
}
__device__ double sp_poisson(double lam, sp_words &w) {
  if (lam <= 0.0) return 0.0;
  if (lam < 10.0) {
    const double enlam = exp(-lam);
    double x = 0.0, prod = 1.0;
    for (unsigned t = 0; t < SP_TRIES; t++) {
      prod *= sp_u01(w);
      if (prod > enlam) x += 1.0; else return x;
    }
    return x;
  }
  const double slam = sqrt(lam), loglam = log(lam);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2.0);
  for (unsigned t = 0; t < SP_TRIES; t++) {
    const double u = sp_u01(w) - 0.5;
    const double v = sp_u01(w);
    const double us = 0.5 - fabs(u);
    const double k = floor((2.0 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - sp_logfact(k)) return k;
  }
  return floor(lam);
}
__device__ double sp_btrs(double n, double p, double q, sp_words &w) {
  const double spq = sqrt(n * p * q);
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = n * p + 0.5;
  const double vr = 0.92 - 4.2 / b;
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double lpq = log(p / q);
  const double m = floor((n + 1.0) * p);
  const double h = sp_logfact(m) + sp_logfact(n - m);
  for (unsigned t = 0; t < SP_TRIES; t++) {
    const double u = sp_u01(w) - 0.5;
    const double v = sp_u01(w);
    const double us = 0.5 - fabs(u);
    const double k = floor((2.0 * a / us + b) * u + c);
    if (k < 0.0 || k > n) continue;
    if (us >= 0.07 && v <= vr) return k;
    const double lv = log(v * alpha / (a / (us * us) + b));
    if (lv <= h - sp_logfact(k) - sp_logfact(n - k) + (k - m) * lpq) return k;
  }
  return m;
}
__device__ double sp_binomial(double n, double p, sp_words &w) {
  if (n <= 0.0 || p <= 0.0) return 0.0;
  if (p >= 1.0) return n;
  const bool flip = p > 0.5;
  const double pp = flip ? 1.0 - p : p;
  const double q = 1.0 - pp;
  const double np = n * pp;
  double x;
  if (np < 10.0) {
    const double qn = exp(n * log1p(-pp));
    const double bound = floor(fmin(n, np + 10.0 * sqrt(np * q + 1.0)));
    x = 0.0;
    double px = qn, u = sp_u01(w);
    while (u > px && x < bound) {
      u -= px;
      x += 1.0;
      px = px * ((n - x + 1.0) * pp) / (x * q);
    }
  } else {
    x = sp_btrs(n, pp, q, w);
  }
  return flip ? n - x : x;
}
__device__ double sp_log_choose(double a, double b) {
  return sp_logfact(a) - sp_logfact(b) - sp_logfact(a - b);
}
__device__ double sp_hypergeometric(double good, double bad, double n, sp_words &w) {
  const double total = good + bad;
  const double lo = fmax(n - bad, 0.0);
  const double hi = fmin(n, good);
  if (lo >= hi) return lo;
  const double mode = fmin(fmax(floor((n + 1.0) * (good + 1.0) / (total + 2.0)), lo), hi);
  const double pm = exp(sp_log_choose(good, mode) + sp_log_choose(bad, n - mode) - sp_log_choose(total, n));
  double u = sp_u01(w);
  if (u < pm) return mode;
  u -= pm;
  double ku = mode, pu = pm, kd = mode, pd = pm;
  while (ku < hi || kd > lo) {
    if (ku < hi) {
      pu = pu * ((good - ku) * (n - ku)) / ((ku + 1.0) * (bad - n + ku + 1.0));
      ku += 1.0;
      if (u < pu) return ku;
      u -= pu;
    }
    if (kd > lo) {
      pd = pd * (kd * (bad - n + kd)) / ((good - kd + 1.0) * (n - kd + 1.0));
      kd -= 1.0;
      if (u < pd) return kd;
      u -= pd;
    }
  }
  return mode;
}
__device__ double sp_logseries(double p, sp_words &w) {
  const double r = log1p(-p);
  for (unsigned t = 0; t < SP_TRIES; t++) {
    const double v = sp_u01(w);
    if (v >= p) return 1.0;
    const double u = sp_u01(w);
    const double q = -expm1(r * u);
    if (v <= q * q) {
      const double k = floor(1.0 + log(v) / log(q));
      if (k < 1.0 || v == 0.0) continue;
      return k;
    }
    if (v >= q) return 1.0;
    return 2.0;
  }
  return 1.0;
}
__device__ double sp_zipf(double a, sp_words &w) {
  const double am1 = a - 1.0;
  const double b = pow(2.0, am1);
  for (unsigned t = 0; t < SP_TRIES; t++) {
    const double u = 1.0 - sp_u01(w);
    const double v = sp_u01(w);
    const double x = floor(pow(u, -1.0 / am1));
    if (!(x >= 1.0 && x <= 9.223372036854775807e18)) continue;
    const double tt = pow(1.0 + 1.0 / x, am1);
    if (v * x * (tt - 1.0) / (b - 1.0) <= tt / b) return x;
  }
  return 1.0;
}
__device__ double sp_normal(sp_words &w) {
  const double u1 = 1.0 - sp_u01(w);
  const double u2 = sp_u01(w);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
}
__device__ double sp_vonmises(double mu, double kappa, sp_words &w) {
  const double pi = 3.14159265358979323846;
  if (kappa < 1e-8) return pi * (2.0 * sp_u01(w) - 1.0);
  double res;
  if (kappa > 1e6) {
    res = mu + sqrt(1.0 / kappa) * sp_normal(w);
  } else {
    double s;
    if (kappa < 1e-5) {
      s = 1.0 / kappa + kappa;
    } else {
      const double r = 1.0 + sqrt(1.0 + 4.0 * kappa * kappa);
      const double rho = (r - sqrt(2.0 * r)) / (2.0 * kappa);
      s = (1.0 + rho * rho) / (2.0 * rho);
    }
    res = mu;
    for (unsigned t = 0; t < SP_TRIES; t++) {
      const double u = sp_u01(w);
      const double z = cos(pi * u);
      const double ww = (1.0 + s * z) / (s + z);
      const double y = kappa * (s - ww);
      const double v = sp_u01(w);
      if (y * (2.0 - y) - v >= 0.0 || log(y / v) + 1.0 - y >= 0.0) {
        const double a = acos(ww);
        res = sp_u01(w) < 0.5 ? mu - a : mu + a;
        break;
      }
    }
  }
  const double m = fmod(fabs(res) + pi, 2.0 * pi) - pi;
  return res < 0.0 ? -m : m;
}
__device__ double sp_gamma(double alpha, sp_words &w, int lg) {
  if (alpha <= 0.0) return lg ? -__longlong_as_double(0x7ff0000000000000LL) : 0.0;
  const bool boost = alpha < 1.0;
  const double a = boost ? alpha + 1.0 : alpha;
  const double d = a - 1.0 / 3.0;
  const double c = 1.0 / sqrt(9.0 * d);
  for (unsigned t = 0; t < SP_TRIES; t++) {
    const double x = sp_normal(w);
    double v = 1.0 + c * x;
    const double u = sp_u01(w);
    if (v <= 0.0) continue;
    v = v * v * v;
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * (x2 * x2) || log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) {
      const double g = d * v;
      if (lg) {
        const double lb = boost ? log(1.0 - sp_u01(w)) / alpha : 0.0;
        return log(g) + lb;
      }
      if (boost) return g * pow(1.0 - sp_u01(w), 1.0 / alpha);
      return g;
    }
  }
  return __longlong_as_double(0x7ff8000000000000LL);
}
__device__ __forceinline__ void sampler_f64(double *__restrict__ out, i64t n, u64t key, i64t kind,
                                            double a, double b, double x0,
                                            const double *__restrict__ xs,
                                            const u64t *__restrict__ word) {
  const i64t step = (i64t)gridDim.x * blockDim.x;
  const u64t k = word ? key ^ word[0] : key;
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    sp_words w;
    w.key = k;
    w.lo = (unsigned)(u64t)i;
    w.hi = (unsigned)((u64t)i >> 32);
    w.block = 0u;
    w.pending = 0;
    const double x = xs ? xs[i] : x0;
    double r;
    switch ((int)kind) {
      case 0: r = sp_poisson(x, w); break;
      case 1: r = sp_binomial(x, a, w); break;
      case 2: r = sp_hypergeometric(a, b, x, w); break;
      case 3: r = sp_logseries(x, w); break;
      case 4: r = sp_zipf(x, w); break;
      case 5: r = sp_vonmises(a, x, w); break;
      case 6: r = sp_gamma(x, w, 0); break;
      default: r = sp_gamma(x, w, 1); break;
    }
    out[i] = r;
  }
}
