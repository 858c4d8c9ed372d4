//! Per-component random streams derived from one scenario seed.
//!
//! Each component (a flow's start jitter, a RED queue, ...) owns a [`Rng`] created from
//! `(seed, stable key)`, so adding a component never shifts another component's numbers and
//! the same scenario + seed always gives the same run. The generator is xoshiro256++
//! (Blackman & Vigna), seeded through SplitMix64; it is written out here (a few lines) so the
//! streams never change with a dependency upgrade.

/// FNV-1a hash of a component key: stable across platforms and releases.
fn fnv1a(key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A small, fast, deterministic generator (xoshiro256++).
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream of component `key` under scenario seed `seed`.
    pub fn stream(seed: u64, key: &str) -> Rng {
        let mut st = seed ^ fnv1a(key).rotate_left(17);
        let mut s = [0u64; 4];
        for x in s.iter_mut() {
            *x = splitmix64(&mut st);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let r = self.s[0]
            .wrapping_add(self.s[3])
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        r
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n) (n > 0), by Lemire's multiply-shift (bias < 2^-64 n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

/// A xorshift64 generator of draws in `0..n`, for tests that drive a data structure with a
/// long pseudo-random mix of operations (seeded, so a failure replays).
#[cfg(test)]
pub(crate) fn xorshift(mut x: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn streams_are_reproducible_and_independent_of_each_other() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "flow/0");
                move |_| r.next_u64()
            })
            .collect();
        let mut r2 = Rng::stream(7, "flow/0");
        let b: Vec<u64> = (0..4).map(|_| r2.next_u64()).collect();
        assert_eq!(a, b);
        let mut r3 = Rng::stream(7, "flow/1");
        assert_ne!(a[0], r3.next_u64());
        let mut r4 = Rng::stream(8, "flow/0");
        assert_ne!(a[0], r4.next_u64());
    }
    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::stream(1, "x");
        let m: f64 = (0..100_000).map(|_| r.uniform()).sum::<f64>() / 100_000.0;
        assert!((m - 0.5).abs() < 0.01);
    }
}
