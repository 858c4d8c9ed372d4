// Dumbbell driver for htsim (csg-htsim), built by bench/peers/htsim.py against a checkout of
// htsim's public source; nothing of htsim lives in this repository.
//
// The same network as ccscope's `dumbbell` template (`ccscope scenario expand` of
// python/ccscope/bench.py's runs):
//   sender s_i --[NIC queue, rate, buffer]--[pipe rtt/2]--> switch
//   switch --[bottleneck queue sw->r0, rate, buffer (+ marking at K for DCTCP)]--> receiver r0
//   r0 --[NIC queue r0->sw, shared by every ACK]--> switch --[queue sw->s_i]--[pipe rtt/2]--> s_i
// The bottleneck link and r0's link have no propagation delay (ccscope's bottleneck_delay_s = 0),
// so no pipe sits there (a pipe of 0 s would only add events). Every queue holds `buffer`
// packets of 1500 B. DCTCP runs use htsim's DCTCPSrc and ECNQueue (marks on dequeue when the
// queue, the departing packet included, exceeds K); NewReno runs use htsim's TcpSrc and Queue
// (drop-tail). Each flow starts at a uniform random time in [0, 1 ms) (ccscope's
// start_jitter_s = 1e-3) with an initial window of 2 segments and no initial ssthresh (ccscope's
// iw_pkts = 2; htsim's defaults are 10 segments and 100). Timeouts: htsim's periodic RTO
// scanner, every 10 ms.
//
// The bottleneck queue is wrapped to count what it sends and to integrate its length over time
// (packets waiting behind the one in transmission, as ccscope's ports table counts them); the
// wrapper adds a few instructions per packet, as ccscope's own queue integral does.
//
// usage: htsim_dumbbell --cc dctcp|newreno --flows N --rate-gbps G --rtt-us R --buffer-pkts B
//                       [--k-pkts K] [--until-s S] [--seed SEED]
// Prints one JSON line (the last line of stdout; htsim may print progress lines before it).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "dctcp.h"
#include "ecnqueue.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"

namespace {

template <class Base>
class MeasuredQueue : public Base {
  public:
    template <class... A>
    explicit MeasuredQueue(A&&... a) : Base(std::forward<A>(a)...) {}

    void receivePacket(Packet& pkt) override {
        integrate();
        Base::receivePacket(pkt);
    }

    // Packets sent, bytes sent and the integral of the waiting packets (pkt x ps).
    uint64_t tx_pkts = 0;
    uint64_t tx_bytes = 0;
    long double integral_pkt_ps = 0;

    void integrate() {
        simtime_picosec now = EventList::now();
        int n = this->_enqueued.size();
        if (n > 1) integral_pkt_ps += (long double)(n - 1) * (long double)(now - last_);
        last_ = now;
    }

  protected:
    void completeService() override {
        integrate();
        mem_b before = this->_queuesize;
        Base::completeService();
        tx_pkts++;
        tx_bytes += (uint64_t)(before - this->_queuesize);
    }

  private:
    simtime_picosec last_ = 0;
};

[[noreturn]] void usage_error(const std::string& msg) {
    std::fprintf(stderr, "htsim_dumbbell: %s\n", msg.c_str());
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
    std::string cc;
    double flows = 0, rate_gbps = 0, rtt_us = 0, buffer_pkts = 0, k_pkts = -1, until_s = 1.1, seed = 1;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage_error(a + ": missing value");
        const char* v = argv[++i];
        if (a == "--cc") cc = v;
        else if (a == "--flows") flows = number_arg("--flows", v, 1);
        else if (a == "--rate-gbps") rate_gbps = number_arg("--rate-gbps", v, 1e-6);
        else if (a == "--rtt-us") rtt_us = number_arg("--rtt-us", v, 1e-3);
        else if (a == "--buffer-pkts") buffer_pkts = number_arg("--buffer-pkts", v, 1);
        else if (a == "--k-pkts") k_pkts = number_arg("--k-pkts", v, 0);
        else if (a == "--until-s") until_s = number_arg("--until-s", v, 1e-6);
        else if (a == "--seed") seed = number_arg("--seed", v, 0);
        else usage_error(a + ": unknown option");
    }
    if (cc != "dctcp" && cc != "newreno") usage_error("--cc = " + cc + ": must be dctcp or newreno");
    if (flows == 0 || rate_gbps == 0 || rtt_us == 0 || buffer_pkts == 0)
        usage_error("--flows, --rate-gbps, --rtt-us and --buffer-pkts are required");
    if (cc == "dctcp" && k_pkts < 0) usage_error("--k-pkts is required with --cc dctcp");

    auto t0 = std::chrono::steady_clock::now();
    EventList eventlist;
    eventlist.setEndtime(timeFromSec(until_s));

    const linkspeed_bps rate = speedFromGbps(rate_gbps);
    const mem_b buffer = memFromPkt(buffer_pkts);
    const simtime_picosec half_rtt = timeFromUs(rtt_us / 2.0);
    const int n = (int)flows;

    BaseQueue* bottleneck_base;
    MeasuredQueue<ECNQueue>* ecn_q = nullptr;
    MeasuredQueue<Queue>* drop_q = nullptr;
    if (cc == "dctcp") {
        ecn_q = new MeasuredQueue<ECNQueue>(rate, buffer, eventlist, (QueueLogger*)nullptr, memFromPkt(k_pkts));
        bottleneck_base = ecn_q;
    } else {
        drop_q = new MeasuredQueue<Queue>(rate, buffer, eventlist, (QueueLogger*)nullptr);
        bottleneck_base = drop_q;
    }
    Queue receiver_nic(rate, buffer, eventlist, nullptr);

    TcpRtxTimerScanner rtx_scanner(timeFromMs(10), eventlist);
    std::mt19937_64 rng((uint64_t)seed);
    std::uniform_real_distribution<double> jitter(0.0, 1e-3);

    for (int i = 0; i < n; i++) {
        TcpSrc* src = cc == "dctcp" ? new DCTCPSrc(nullptr, nullptr, eventlist)
                                    : new TcpSrc(nullptr, nullptr, eventlist);
        src->set_cwnd(2 * Packet::data_packet_size());
        src->set_ssthresh(0xffffffffu);
        TcpSink* sink = new TcpSink();
        rtx_scanner.registerTcp(*src);

        Route* out = new Route();
        out->push_back(new Queue(rate, buffer, eventlist, nullptr));  // s_i -> sw
        out->push_back(new Pipe(half_rtt, eventlist));
        out->push_back(bottleneck_base);                               // sw -> r0
        out->push_back(sink);

        Route* back = new Route();
        back->push_back(&receiver_nic);                                // r0 -> sw
        back->push_back(new Queue(rate, buffer, eventlist, nullptr));  // sw -> s_i
        back->push_back(new Pipe(half_rtt, eventlist));
        back->push_back(src);

        src->connect(*out, *back, *sink, timeFromSec(jitter(rng)));
    }

    while (eventlist.doNextEvent()) {
    }

    uint64_t tx_pkts, tx_bytes;
    long double integral;
    int drops;
    if (ecn_q) {
        ecn_q->integrate();
        tx_pkts = ecn_q->tx_pkts, tx_bytes = ecn_q->tx_bytes, integral = ecn_q->integral_pkt_ps;
        drops = ecn_q->num_drops();
    } else {
        drop_q->integrate();
        tx_pkts = drop_q->tx_pkts, tx_bytes = drop_q->tx_bytes, integral = drop_q->integral_pkt_ps;
        drops = drop_q->num_drops();
    }
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double t_ps = (double)timeFromSec(until_s);
    std::fflush(stdout);
    std::printf(
        "{\"wall_s\": %.6f, \"bottleneck_pkts\": %llu, \"bottleneck_bytes\": %llu, "
        "\"throughput_bps\": %.1f, \"mean_queue_pkts\": %.4f, \"drops\": %d, \"flows\": %d}\n",
        wall, (unsigned long long)tx_pkts, (unsigned long long)tx_bytes, (double)tx_bytes * 8.0 / until_s,
        (double)(integral / t_ps), drops, n);
    return 0;
}
