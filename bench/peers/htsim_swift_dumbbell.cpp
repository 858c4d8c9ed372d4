// Swift dumbbell driver for htsim (csg-htsim), built against a checkout of htsim's public source
// (bench/peers/swift_compare.py compiles it with the library bench/peers/htsim.py builds);
// nothing of htsim lives in this repository.
//
// The network of ccscope's `dumbbell` template, as htsim_dumbbell.cpp maps it:
//   sender s_i --[NIC: FifoScheduler at the line rate]--[pipe rtt/2]--> switch
//   switch --[bottleneck queue sw->r0, rate, buffer]--> receiver r0
//   r0 --[NIC queue r0->sw, shared by every ACK]--> switch --[queue sw->s_i]--[pipe rtt/2]--> s_i
// htsim's Swift needs a scheduler as the first hop of its route (SwiftSrc::connect); the
// FifoScheduler serializes at the line rate as ccscope's sender port does.
//
// Swift's parameters are set on a subclass (htsim keeps them protected): base target delay,
// per-hop scaling h, flow-scaling range (0 turns flow scaling off: fs_alpha = fs_beta = 0),
// ai, beta, max_mdf, the initial window. Every flow starts at 0.
//
// Measured over [--from-s, --until-s]: the bottleneck's mean queue (packets waiting behind the
// one in transmission, time-weighted), its throughput, drops, and each flow's bytes delivered
// (its sink's cumulative ACK).
//
// usage: htsim_swift_dumbbell --flows N --rate-gbps G --rtt-us R --buffer-pkts B --target-us T
//        [--hop-us H] [--fs-range-us F] [--iw-pkts W] [--from-s S0] [--until-s S]
// Prints one JSON line (the last line of stdout; htsim prints progress lines before it).

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "swift.h"
#include "swift_scheduler.h"

namespace {

class MeasuredQueue : public Queue {
  public:
    MeasuredQueue(linkspeed_bps r, mem_b b, EventList& e) : Queue(r, b, e, nullptr) {}
    void receivePacket(Packet& pkt) override {
        integrate();
        Queue::receivePacket(pkt);
    }
    void integrate() {
        simtime_picosec now = EventList::now();
        int n = this->_enqueued.size();
        if (n > 1) integral_pkt_ps += (long double)(n - 1) * (long double)(now - last_);
        last_ = now;
    }
    uint64_t tx_bytes = 0;
    long double integral_pkt_ps = 0;

  protected:
    void completeService() override {
        integrate();
        mem_b before = this->_queuesize;
        Queue::completeService();
        tx_bytes += (uint64_t)(before - this->_queuesize);
    }

  private:
    simtime_picosec last_ = 0;
};

class ConfiguredSwift : public SwiftSrc {
  public:
    ConfiguredSwift(SwiftRtxTimerScanner& s, EventList& e) : SwiftSrc(s, nullptr, nullptr, e) {}
    void configure(double target_us, double hop_us, double fs_range_us) {
        _base_delay = timeFromUs(target_us);
        _h = (double)timeFromUs(hop_us);
        _fs_range = timeFromUs(fs_range_us);
        if (fs_range_us > 0) {
            _fs_alpha = _fs_range / ((1.0 / std::sqrt(_fs_min_cwnd)) - (1.0 / std::sqrt(_fs_max_cwnd)));
            _fs_beta = -_fs_alpha / std::sqrt(_fs_max_cwnd);
        } else {
            _fs_alpha = 0;
            _fs_beta = 0;
        }
    }
};

// Takes the counters at --from-s.
class Snapshot : public EventSource {
  public:
    Snapshot(EventList& e, MeasuredQueue* q, std::vector<SwiftSink*>* sinks)
        : EventSource(e, "snapshot"), q_(q), sinks_(sinks) {}
    void doNextEvent() override {
        q_->integrate();
        q_bytes = q_->tx_bytes;
        q_int = q_->integral_pkt_ps;
        drops = q_->num_drops();
        for (auto* s : *sinks_) acked.push_back(s->cumulative_ack());
    }
    uint64_t q_bytes = 0;
    long double q_int = 0;
    int drops = 0;
    std::vector<uint64_t> acked;

  private:
    MeasuredQueue* q_;
    std::vector<SwiftSink*>* sinks_;
};

[[noreturn]] void usage_error(const std::string& msg) {
    std::fprintf(stderr, "htsim_swift_dumbbell: %s\n", msg.c_str());
    std::exit(2);
}

double number_arg(const char* name, const char* value, double lo) {
    char* end = nullptr;
    double v = std::strtod(value, &end);
    if (end == value || *end != '\0' || !(v >= lo))
        usage_error(std::string(name) + " = " + value + ": must be a number >= " + std::to_string(lo));
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    double flows = 0, rate_gbps = 0, rtt_us = 0, buffer_pkts = 0, target_us = 0, hop_us = 0,
           fs_range_us = 0, iw_pkts = 10, from_s = 0.01, until_s = 0.05;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage_error(a + ": missing value");
        const char* v = argv[++i];
        if (a == "--flows") flows = number_arg("--flows", v, 1);
        else if (a == "--rate-gbps") rate_gbps = number_arg("--rate-gbps", v, 1e-6);
        else if (a == "--rtt-us") rtt_us = number_arg("--rtt-us", v, 1e-3);
        else if (a == "--buffer-pkts") buffer_pkts = number_arg("--buffer-pkts", v, 1);
        else if (a == "--target-us") target_us = number_arg("--target-us", v, 1e-3);
        else if (a == "--hop-us") hop_us = number_arg("--hop-us", v, 0);
        else if (a == "--fs-range-us") fs_range_us = number_arg("--fs-range-us", v, 0);
        else if (a == "--iw-pkts") iw_pkts = number_arg("--iw-pkts", v, 1);
        else if (a == "--from-s") from_s = number_arg("--from-s", v, 0);
        else if (a == "--until-s") until_s = number_arg("--until-s", v, 1e-6);
        else usage_error(a + ": unknown option");
    }
    if (flows == 0 || rate_gbps == 0 || rtt_us == 0 || buffer_pkts == 0 || target_us == 0)
        usage_error("--flows, --rate-gbps, --rtt-us, --buffer-pkts and --target-us are required");
    if (!(from_s < until_s)) usage_error("--from-s must be < --until-s");

    Packet::set_packet_size(1500);
    EventList eventlist;
    eventlist.setEndtime(timeFromSec(until_s));
    const linkspeed_bps rate = speedFromGbps(rate_gbps);
    const mem_b buffer = memFromPkt(buffer_pkts);
    const simtime_picosec half_rtt = timeFromUs(rtt_us / 2.0);
    const int n = (int)flows;

    MeasuredQueue bottleneck(rate, buffer, eventlist);
    Queue receiver_nic(rate, buffer, eventlist, nullptr);
    SwiftRtxTimerScanner rtx_scanner(timeFromMs(10), eventlist);
    std::vector<SwiftSink*> sinks;
    Snapshot snap(eventlist, &bottleneck, &sinks);
    eventlist.sourceIsPending(snap, timeFromSec(from_s));

    for (int i = 0; i < n; i++) {
        auto* src = new ConfiguredSwift(rtx_scanner, eventlist);
        src->configure(target_us, hop_us, fs_range_us);
        src->set_cwnd((uint32_t)(iw_pkts * Packet::data_packet_size()));
        auto* sink = new SwiftSink();
        sinks.push_back(sink);

        Route* out = new Route();
        out->push_back(new FifoScheduler(rate, eventlist, nullptr));  // s_i NIC
        out->push_back(new Pipe(half_rtt, eventlist));
        out->push_back(&bottleneck);  // sw -> r0

        Route* back = new Route();
        back->push_back(&receiver_nic);                                // r0 -> sw
        back->push_back(new Queue(rate, buffer, eventlist, nullptr));  // sw -> s_i
        back->push_back(new Pipe(half_rtt, eventlist));

        src->connect(*out, *back, *sink, 0);
    }

    while (eventlist.doNextEvent()) {
    }

    bottleneck.integrate();
    double span_s = until_s - from_s;
    double span_ps = (double)(timeFromSec(until_s) - timeFromSec(from_s));
    std::fflush(stdout);
    std::printf("{\"throughput_bps\": %.1f, \"mean_queue_pkts\": %.4f, \"drops\": %d, \"flow_bps\": [",
                (double)(bottleneck.tx_bytes - snap.q_bytes) * 8.0 / span_s,
                (double)((bottleneck.integral_pkt_ps - snap.q_int) / span_ps),
                bottleneck.num_drops() - snap.drops);
    for (int i = 0; i < n; i++)
        std::printf("%s%.1f", i ? ", " : "",
                    (double)(sinks[i]->cumulative_ack() - snap.acked[i]) * 8.0 / span_s);
    std::printf("]}\n");
    return 0;
}
