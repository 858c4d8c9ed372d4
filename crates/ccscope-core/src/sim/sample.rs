//! Periodic samplers: queue lengths and link counters of the recorded ports, and each flow's
//! window, alpha and delivered bytes (or a rate-based source's rate).

use super::Simulation;
use crate::cc::{CcProbe, CongestionControl};
use crate::engine::Event;
use crate::units::SimTime;

impl Simulation {
    pub(crate) fn sample_queues(&mut self) {
        let now = self.now;
        for i in 0..self.rec.ports.len() {
            let pid = self.rec.ports[i];
            let p = &mut self.ports[pid.idx()];
            p.advance(now);
            let (qp, qb) = p.queue();
            let tx = p.stats.tx_bytes;
            if self.rec.want_queue && !self.rec.queue_every_change {
                let q = &mut self.rec.queue;
                q.time_ps.push(now.0);
                q.port.push(pid.0);
                q.pkts.push(qp);
                q.bytes.push(qb);
            }
            if self.rec.want_link {
                let l = &mut self.rec.link;
                l.time_ps.push(now.0);
                l.port.push(pid.0);
                l.tx_bytes.push(tx);
            }
        }
        self.queue_samples += 1;
        let next = SimTime(self.queue_samples * self.queue_interval.0);
        if next <= self.end {
            self.events.schedule(next, Event::SampleQueues);
        }
    }

    pub(crate) fn sample_flows(&mut self) {
        let now = self.now;
        let mss = self.mss as f64;
        let mut probe = CcProbe::default();
        for (i, fl) in self.flows.iter().enumerate() {
            if fl.start > now || fl.completed {
                continue;
            }
            if let Some(r) = &fl.rate {
                if self.rec.want_rate {
                    use crate::rate::RateControl;
                    let mut rp = crate::rate::RateProbe::default();
                    r.rp.probe(&mut rp);
                    let t = &mut self.rec.rates;
                    t.time_ps.push(now.0);
                    t.flow.push(i as u32);
                    t.rate_bps.push(rp.rate_bps);
                    t.target_rate_bps.push(rp.target_rate_bps);
                }
                if self.rec.want_delivered {
                    let t = &mut self.rec.flows;
                    t.time_ps.push(now.0);
                    t.flow.push(i as u32);
                    t.cwnd_pkts.push(f64::NAN);
                    t.ssthresh_pkts.push(f64::NAN);
                    t.in_recovery.push(0);
                    t.alpha.push(f64::NAN);
                    t.delivered_bytes.push(fl.receiver.delivered_bytes());
                    t.received_bytes.push(fl.receiver.unique_bytes_received);
                }
                continue;
            }
            fl.sender.cc.probe(&mut probe);
            let t = &mut self.rec.flows;
            t.time_ps.push(now.0);
            t.flow.push(i as u32);
            t.cwnd_pkts.push(probe.cwnd_bytes / mss);
            t.ssthresh_pkts.push(if probe.ssthresh_bytes.is_finite() {
                probe.ssthresh_bytes / mss
            } else {
                f64::INFINITY
            });
            t.in_recovery.push(fl.sender.in_recovery() as u8);
            t.alpha.push(probe.alpha);
            t.delivered_bytes.push(fl.receiver.delivered_bytes());
            t.received_bytes.push(fl.receiver.unique_bytes_received);
        }
        self.flow_samples += 1;
        let next = SimTime(self.flow_samples * self.flow_interval.0);
        if next <= self.end {
            self.events.schedule(next, Event::SampleFlows);
        }
    }
}
