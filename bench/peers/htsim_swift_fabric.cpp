// Swift on htsim's fat-tree with per-flow sizes and start times: a driver of our own for htsim
// (csg-htsim), built against a checkout of htsim's public source by bench/peers/htsim_fabric.py
// (--cc swift); nothing of htsim lives in this repository.
//
// It is htsim's sim/datacenter/main_swift.cpp with two changes, so that htsim runs exactly the
// flows of an exported connection matrix:
//   - each connection sends its own `size` (bytes) in ceil(size / MSS) full packets, set through
//     SwiftSrc::set_flowsize as below (main_swift gives every connection the one -flowsize, or
//     none: an endless flow);
//   - each connection starts at its `start` as the matrix gives it (the "start" token of htsim's
//     ConnectionMatrix::load is in picoseconds; main_swift passes it through timeFromUs again).
// Everything else is main_swift's, in the same order (so the same rand()/random() draws):
// srand(13); FatTreeTopology(nodes, linkspeed, q packets, no logger, RANDOM switch queues,
// SWIFT_SCHEDULER host queues, no failed links): 1 us links, no switching latency; one path per
// connection by rand() % paths; SwiftSrc::set_paths (its Fisher-Yates shuffle draws random());
// initial window -cwnd packets; htsim's Swift constants (swift.cpp's SwiftSrc constructor) as they
// are; the retransmission scanner every 10 ms. No log file is written.
//
// Each flow is named swift<id>_<src>_<dst> (id: the matrix's flow id), so htsim's own line
// "Flow <name> finished at <us> total bytes <n>" (SwiftSrc::update_dsn_ack; n = the packets
// times the MSS) names the flow. After the run it prints one line per flow that the
// Swift subflow used: "route <id> links <pipes on the forward path> hop_count <the count that
// SwiftSrc::targetDelay multiplies by h>" (the subflow's route is a Route::clone of the path,
// as SwiftSubflowSrc::connect makes it).
//
// usage: htsim_swift_fabric -tm FILE -nodes N -linkspeed MBPS -q PKTS -mtu BYTES -cwnd PKTS -end US [-seed S]
// (-seed: the srand seed, 13 as in main_swift; the path draws and RandomQueue's early drops depend on it)
// -paths FILE: each flow's data and ACK routes are the candidates of get_paths whose switches the
// file gives ("<id> fwd <switch>... rev <switch>...", bench/peers/htsim_paths.h), instead of
// rand() % paths (still drawn) and set_paths' shuffle (set_paths gets the one chosen route); a
// "path <id> fwd ... rev ..." line per flow then names the switches of the routes connected.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "clock.h"
#include "config.h"
#include "connection_matrix.h"
#include "eventlist.h"
#include "fat_tree_topology.h"
#include "network.h"
#include "pipe.h"
#include "randomqueue.h"
#include "swift.h"

#include "htsim_paths.h"

namespace {

[[noreturn]] void usage_error(const std::string& msg) {
    std::fprintf(stderr, "htsim_swift_fabric: %s\n", msg.c_str());
    std::exit(2);
}

double number_arg(const std::string& name, const char* value, double lo) {
    char* end = nullptr;
    double v = std::strtod(value, &end);
    if (end == value || *end != '\0' || !(v >= lo))
        usage_error(name + " = " + value + ": must be a number >= " + std::to_string(lo));
    return v;
}

uint32_t pipes_on(const Route& r) {
    uint32_t n = 0;
    for (size_t i = 0; i < r.size(); i++)
        if (dynamic_cast<Pipe*>(r.at(i)) != nullptr) n++;
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    EventList eventlist;
    const char* tm_file = nullptr;
    const char* paths_file = nullptr;
    double nodes = 0, linkspeed_mbps = 0, q_pkts = 0, mtu = 0, cwnd = 15, end_us = 0, seed = 13;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage_error(a + ": missing value");
        const char* v = argv[++i];
        if (a == "-tm") tm_file = v;
        else if (a == "-nodes") nodes = number_arg(a, v, 1);
        else if (a == "-linkspeed") linkspeed_mbps = number_arg(a, v, 1e-3);
        else if (a == "-q") q_pkts = number_arg(a, v, 1);
        else if (a == "-mtu") mtu = number_arg(a, v, 64);
        else if (a == "-cwnd") cwnd = number_arg(a, v, 1);
        else if (a == "-end") end_us = number_arg(a, v, 1e-3);
        else if (a == "-seed") seed = number_arg(a, v, 0);
        else if (a == "-paths") paths_file = v;
        else usage_error(a + ": unknown option");
    }
    if (!tm_file || nodes == 0 || linkspeed_mbps == 0 || q_pkts == 0 || mtu == 0 || end_us == 0)
        usage_error("-tm, -nodes, -linkspeed, -q, -mtu and -end are required");

    Clock c(timeFromSec(5 / 100.), eventlist);
    Packet::set_packet_size((uint32_t)mtu);
    eventlist.setEndtime(timeFromUs(end_us));
    mem_b queuesize = (mem_b)q_pkts * Packet::data_packet_size();
    srand((unsigned)seed);  // main_swift: srand(13); another seed draws other paths (a diagnostic)

    SwiftRtxTimerScanner swiftRtxScanner(timeFromMs(10), eventlist);
    FatTreeTopology* top = new FatTreeTopology((uint32_t)nodes, speedFromMbps(linkspeed_mbps), queuesize, NULL,
                                               &eventlist, NULL, RANDOM, SWIFT_SCHEDULER, 0);
    uint32_t no_of_nodes = top->no_of_nodes();
    if (no_of_nodes != (uint32_t)nodes) usage_error("-nodes: the fat-tree has " + std::to_string(no_of_nodes) + " hosts");

    std::vector<std::vector<std::vector<const Route*>*>> net_paths(
        no_of_nodes, std::vector<std::vector<const Route*>*>(no_of_nodes, nullptr));
    ConnectionMatrix* conns = new ConnectionMatrix(no_of_nodes);
    if (!conns->load(tm_file)) usage_error(std::string("-tm ") + tm_file + ": htsim could not read it");
    if (conns->N != no_of_nodes)
        usage_error("-tm: the matrix has " + std::to_string(conns->N) + " nodes, the fat-tree " +
                    std::to_string(no_of_nodes));

    std::vector<std::string> route_lines;
    htsim_paths::program() = "htsim_swift_fabric";
    std::map<uint32_t, htsim_paths::Path> paths;
    if (paths_file) paths = htsim_paths::load(paths_file);
    std::vector<connection*>* all_conns = conns->getAllConnections();
    for (size_t ci = 0; ci < all_conns->size(); ci++) {
        connection* crt = all_conns->at(ci);
        uint32_t src = crt->src, dest = crt->dst;
        if (crt->size <= 0) usage_error("-tm: connection " + std::to_string(crt->flowid) + " has no size");
        if (crt->start == NO_START) usage_error("-tm: connection " + std::to_string(crt->flowid) + " has no start");
        if (!net_paths[src][dest]) net_paths[src][dest] = top->get_paths(src, dest);
        if (!net_paths[dest][src]) net_paths[dest][src] = top->get_paths(dest, src);

        SwiftSrc* swiftSrc = new SwiftSrc(swiftRtxScanner, NULL, NULL, eventlist);
        swiftSrc->set_cwnd((uint32_t)cwnd * Packet::data_packet_size());
        // htsim's SwiftSrc sends whole MSS packets while _highest_dsn_sent + mss <= size + mss
        // (set_flowsize adds one MSS) and ends when the data ACK reaches size + mss: a size that is
        // not a multiple of the MSS never ends, a multiple sends one packet more. (P - 1) MSS makes
        // it send exactly P = ceil(size / MSS) full packets and end on the P-th one's ACK.
        uint64_t mss = Packet::data_packet_size();
        uint64_t pkts = ((uint64_t)crt->size + mss - 1) / mss;
        swiftSrc->set_flowsize((pkts - 1) * mss);
        SwiftSink* swiftSnk = new SwiftSink();
        std::string tag = std::to_string(crt->flowid) + "_" + std::to_string(src) + "_" + std::to_string(dest);
        swiftSrc->setName("swift" + tag);
        swiftSnk->setName("swift_sink" + tag);

        uint32_t choice = rand() % net_paths[src][dest]->size();
        uint32_t fi = choice, ri = choice;
        if (paths_file) {  // -paths: the given switches, data and ACKs each on their own
            const htsim_paths::Path& p = htsim_paths::of(paths, crt->flowid);
            fi = htsim_paths::pick(*net_paths[src][dest], p.fwd, crt->flowid, "fwd");
            ri = htsim_paths::pick(*net_paths[dest][src], p.rev, crt->flowid, "rev");
        }
        Route* routeout = new Route(*(net_paths[src][dest]->at(fi)));
        Route* routein = new Route(*top->get_paths(dest, src)->at(ri));
        swiftSrc->connect(*routeout, *routein, *swiftSnk, crt->start);
        if (paths_file) {  // the subflow keeps the one chosen route (set_paths reroutes it to _paths[0])
            std::vector<const Route*> one(1, net_paths[src][dest]->at(fi));
            swiftSrc->set_paths(&one);
            route_lines.push_back("path " + std::to_string(crt->flowid) + " fwd " +
                                  htsim_paths::joined(htsim_paths::switches_of(*one[0])) + " rev " +
                                  htsim_paths::joined(htsim_paths::switches_of(*routein)));
        } else
            swiftSrc->set_paths(net_paths[src][dest]);

        // the count SwiftSrc::targetDelay sees: the subflow's route is a clone of a path
        Route* used = routeout->clone();
        route_lines.push_back("route " + std::to_string(crt->flowid) + " links " + std::to_string(pipes_on(*routeout)) +
                              " hop_count " + std::to_string(used->hop_count()) + " copy_hop_count " +
                              std::to_string(routeout->hop_count()));
        delete used;
    }
    std::cout << "Loaded " << all_conns->size() << " connections" << std::endl;

    while (eventlist.doNextEvent()) {
    }
    for (const auto& l : route_lines) std::cout << l << "\n";
    std::cout << "Done" << std::endl;
    return 0;
}
