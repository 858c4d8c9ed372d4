//! Units as types: simulated time in integer picoseconds and link rates in bits per second.
//!
//! Place in the pipeline: everything below the scenario layer speaks these types; the
//! scenario converts `_s`/`_bps` floats into them once, in `build.rs`.
//!
//! Serialization time rule: the time to put `bytes` on a link of `rate` bits/s is
//! `bytes * 8 * 10^12 / rate` picoseconds. When `rate` divides `bits * 10^12` the result is
//! exact (1500 B at 10 Gb/s = 1.2 us). Otherwise [`Serializer`] floors the quotient and carries
//! the remainder (in bit-picoseconds) to the next packet on the same link, so the sum of `n`
//! serialization times never differs from the exact real value by one picosecond or more and
//! the long-run rate is exact (1000 B at 1.5 Mb/s alternates 5 333 333 333 / ...334 ps).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// A point in simulated time, picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);
    /// Seconds as f64 (for traces and reports only; the model never computes in f64 time).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Rounds a non-negative, finite number of seconds to the nearest picosecond.
    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime(secs_to_ps(s))
    }
    pub fn saturating_sub(self, other: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(other.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub fn from_secs_f64(s: f64) -> SimDuration {
        SimDuration(secs_to_ps(s))
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn from_micros(us: u64) -> SimDuration {
        SimDuration(us * 1_000_000)
    }
}

/// Seconds to picoseconds, saturating: negative times are 0, and times beyond the range (an
/// infinite or NaN time, e.g. the next arrival of a workload whose rate underflowed to 0) are
/// the end of time, never 0.
fn secs_to_ps(s: f64) -> u64 {
    let ps = (s * PS_PER_S as f64).round();
    if ps <= 0.0 {
        0
    } else if ps.is_nan() || ps >= u64::MAX as f64 {
        u64::MAX
    } else {
        ps as u64
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for SimTime {
    type Output = SimDuration;
    fn sub(self, o: SimTime) -> SimDuration {
        SimDuration(self.0 - o.0)
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(o.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}

/// A link rate, bits per second (integer; the scenario rounds to the nearest bit/s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BitsPerSec(pub u64);

impl BitsPerSec {
    /// Exact serialization time when the rate divides `bits * 10^12`; otherwise the floor
    /// (use [`Serializer`] on a link to carry the remainder).
    pub fn tx_time(self, bytes: u32) -> SimDuration {
        let num = bytes as u128 * 8 * PS_PER_S as u128;
        SimDuration((num / self.0 as u128) as u64)
    }
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }
}

/// Per-link serialization clock that carries rounding remainders from packet to packet.
#[derive(Clone, Copy, Debug)]
pub struct Serializer {
    rate: BitsPerSec,
    /// Remainder of the last division, in bit-picoseconds (always < rate).
    carry: u64,
    /// Sizes whose serialization time is exact at this rate, with that time (a link sees
    /// one or two sizes: data and ACKs), so the hot path skips the 128-bit division.
    exact: [(u32, u64); 2],
}

impl Serializer {
    pub fn new(rate: BitsPerSec) -> Self {
        Serializer {
            rate,
            carry: 0,
            exact: [(0, 0); 2],
        }
    }
    pub fn rate(&self) -> BitsPerSec {
        self.rate
    }
    /// Time to transmit `bytes`, floor((bits*10^12 + carry)/rate); the new remainder is kept.
    #[inline]
    pub fn tx_time(&mut self, bytes: u32) -> SimDuration {
        if self.carry == 0 {
            for &(b, ps) in &self.exact {
                if b == bytes && b != 0 {
                    return SimDuration(ps);
                }
            }
        }
        let num = bytes as u128 * 8 * PS_PER_S as u128 + self.carry as u128;
        let r = self.rate.0 as u128;
        let old_carry = self.carry;
        self.carry = (num % r) as u64;
        let d = (num / r) as u64;
        if old_carry == 0 && self.carry == 0 {
            // remember an exact size (replace the older entry)
            if self.exact[0].0 != bytes && self.exact[1].0 != bytes {
                self.exact[1] = self.exact[0];
                self.exact[0] = (bytes, d);
            }
        }
        SimDuration(d)
    }
}

/// "37.2 GiB"
pub fn fmt_bytes(b: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < U.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", U[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_1500_bytes_at_10gbps_is_exactly_1_2_us() {
        assert_eq!(
            BitsPerSec(10_000_000_000).tx_time(1500),
            SimDuration(1_200_000)
        );
        let mut s = Serializer::new(BitsPerSec(10_000_000_000));
        for _ in 0..1000 {
            assert_eq!(s.tx_time(1500), SimDuration(1_200_000));
        }
    }

    #[test]
    fn serializer_carries_remainder_so_long_run_rate_is_exact() {
        // 1000 B at 1.5 Mb/s = 5.333... ms: not representable in ps.
        let mut s = Serializer::new(BitsPerSec(1_500_000));
        let mut total: u128 = 0;
        let n = 3_000u128;
        for _ in 0..n {
            let d = s.tx_time(1000).0;
            assert!(d == 5_333_333_333 || d == 5_333_333_334);
            total += d as u128;
        }
        // n * 8000 bits / 1.5e6 b/s = exactly n * 16/3 ms; 3000 packets = 16 s exactly.
        assert_eq!(total, 16 * PS_PER_S as u128);
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(SimTime::from_secs_f64(1.2e-6), SimTime(1_200_000));
        assert_eq!(SimDuration::from_secs_f64(100e-6).0, 100_000_000);
        assert_eq!(SimTime::from_secs_f64(-1.0), SimTime(0));
    }

    #[test]
    fn infinite_and_nan_times_are_the_end_of_time_not_zero() {
        // a Poisson workload whose arrival rate underflowed to 0 draws an infinite (or, with
        // a uniform draw of 0, NaN) gap: its next arrival must be never, not now
        assert_eq!(SimDuration::from_secs_f64(f64::INFINITY).0, u64::MAX);
        assert_eq!(SimDuration::from_secs_f64(f64::NAN).0, u64::MAX);
        assert_eq!(SimTime::from_secs_f64(1e300), SimTime(u64::MAX));
        assert_eq!(SimTime::from_secs_f64(f64::NEG_INFINITY), SimTime(0));
    }
}
