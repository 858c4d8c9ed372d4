// HPCC on htsim's fat-tree with each flow on a given path: a driver of our own for htsim
// (csg-htsim), built against a checkout of htsim's public source by bench/peers/htsim_fabric.py
// (--cc hpcc --paths shared); nothing of htsim lives in this repository.
//
// It is htsim's sim/datacenter/main_hpcc.cpp as bench/peers/htsim_fabric.py runs it (-strat
// ecmp_host -paths 1, LOSSLESS_INPUT switch queues, FAIR_PRIO host queues, -hop_latency,
// -pfc_thresholds), with one change: each connection is source-routed on the path the paths file
// gives it, instead of being hashed by htsim's ECMP switches. main_hpcc's ECMP_FIB branch hashes
// each flow onto a path inside FatTreeSwitch with HPCCSrc's _pathid, which HPCCSrc's constructor
// draws after srand(time(NULL)) (hpcc.cpp): the paths change with the wall clock. Here the data
// route is the candidate of FatTreeTopology::get_bidir_paths(src, dst) whose switches are the
// file's `fwd` list, the ACK route the candidate of get_bidir_paths(dst, src) whose switches are
// its `rev` list; both routes hold the same queues, pipes and LosslessInputQueues that the ECMP
// switches forward through (fat_tree_switch.cpp builds its next hops from the same
// queues_*/pipes_* arrays), so PFC and the INT that the LosslessOutputQueues stamp are unchanged.
// HPCC itself is htsim's as published: HPCCSrc and HPCCSink untouched, their constants as
// hpcc.cpp sets them; flow size as main_hpcc sets it (set_flowsize(size)); HPCCSrc::connect
// starts every flow at once (its scheduling call is commented out in hpcc.cpp), whatever start
// the matrix gives, as in main_hpcc. No log file or idmap is written.
//
// Paths file: "<id> fwd <switch>... rev <switch>..." per flow, htsim's switch names (LS<n> ToR,
// US<n> aggregation, CS<n> core; bench/peers/htsim_paths.h).
//
// Each flow is named hpcc<id>_<src>_<dst>, so htsim's own line "Flow <name> finished at <us>
// total bytes <n>" (HPCCSrc::processAck) names it. After the run it prints, per flow, the
// switches of the two routes it was connected with, read from their pipes' names:
// "path <id> fwd <switch>... rev <switch>...".
//
// usage: htsim_hpcc_fabric -tm FILE -paths FILE -nodes N -linkspeed MBPS -hop_latency US -q PKTS
//                          -mtu BYTES -pfc_thresholds LOW HIGH -end US [-seed S]

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "clock.h"
#include "config.h"
#include "connection_matrix.h"
#include "eventlist.h"
#include "fat_tree_topology.h"
#include "hpcc.h"
#include "network.h"
#include "pipe.h"
#include "queue_lossless_input.h"

#include "htsim_paths.h"

namespace {

[[noreturn]] void usage_error(const std::string& msg) {
    std::fprintf(stderr, "htsim_hpcc_fabric: %s\n", msg.c_str());
    std::exit(2);
}

double number_arg(const std::string& name, const char* value, double lo) {
    char* end = nullptr;
    double v = std::strtod(value, &end);
    if (end == value || *end != '\0' || !(v >= lo))
        usage_error(name + " = " + value + ": must be a number >= " + std::to_string(lo));
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    htsim_paths::program() = "htsim_hpcc_fabric";
    EventList eventlist;
    const char *tm_file = nullptr, *paths_file = nullptr;
    double nodes = 0, linkspeed_mbps = 0, hop_us = 1, q_pkts = 0, mtu = 0, end_us = 0, seed = 13;
    double low_pfc = 12, high_pfc = 15;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage_error(a + ": missing value");
        const char* v = argv[++i];
        if (a == "-tm") tm_file = v;
        else if (a == "-paths") paths_file = v;
        else if (a == "-nodes") nodes = number_arg(a, v, 1);
        else if (a == "-linkspeed") linkspeed_mbps = number_arg(a, v, 1e-3);
        else if (a == "-hop_latency") hop_us = number_arg(a, v, 0);
        else if (a == "-q") q_pkts = number_arg(a, v, 1);
        else if (a == "-mtu") mtu = number_arg(a, v, 64);
        else if (a == "-end") end_us = number_arg(a, v, 1e-3);
        else if (a == "-seed") seed = number_arg(a, v, 0);
        else if (a == "-pfc_thresholds") {
            if (i + 1 >= argc) usage_error(a + ": needs LOW and HIGH");
            low_pfc = number_arg(a, v, 1);
            high_pfc = number_arg(a, argv[++i], 1);
        } else usage_error(a + ": unknown option");
    }
    if (!tm_file || !paths_file || nodes == 0 || linkspeed_mbps == 0 || q_pkts == 0 || mtu == 0 || end_us == 0)
        usage_error("-tm, -paths, -nodes, -linkspeed, -q, -mtu and -end are required");
    if (low_pfc > high_pfc) usage_error("-pfc_thresholds: LOW must not exceed HIGH");

    // main_hpcc's setup, in its order
    Clock c(timeFromSec(5 / 100.), eventlist);
    srand((unsigned)seed);
    srandom((unsigned)seed);
    Packet::set_packet_size((int)mtu);
    LosslessInputQueue::_high_threshold = Packet::data_packet_size() * (uint64_t)high_pfc;
    LosslessInputQueue::_low_threshold = Packet::data_packet_size() * (uint64_t)low_pfc;
    eventlist.setEndtime(timeFromUs(end_us));
    mem_b queuesize = memFromPkt((mem_b)q_pkts);
    linkspeed_bps linkspeed = speedFromMbps(linkspeed_mbps);
    FatTreeTopology* top = new FatTreeTopology((uint32_t)nodes, linkspeed, queuesize, NULL, &eventlist, NULL,
                                               LOSSLESS_INPUT, timeFromUs(hop_us), timeFromUs(0.0), FAIR_PRIO);
    uint32_t no_of_nodes = top->no_of_nodes();
    if (no_of_nodes != (uint32_t)nodes) usage_error("-nodes: the fat-tree has " + std::to_string(no_of_nodes) + " hosts");

    ConnectionMatrix* conns = new ConnectionMatrix(no_of_nodes);
    if (!conns->load(tm_file)) usage_error(std::string("-tm ") + tm_file + ": htsim could not read it");
    if (conns->N != no_of_nodes)
        usage_error("-tm: the matrix has " + std::to_string(conns->N) + " nodes, the fat-tree " +
                    std::to_string(no_of_nodes));
    std::map<uint32_t, htsim_paths::Path> paths = htsim_paths::load(paths_file);

    std::vector<std::vector<std::vector<const Route*>*>> cand(
        no_of_nodes, std::vector<std::vector<const Route*>*>(no_of_nodes, nullptr));
    std::vector<std::string> path_lines;
    std::vector<HPCCSrc*> srcs;
    std::vector<connection*>* all_conns = conns->getAllConnections();
    for (size_t ci = 0; ci < all_conns->size(); ci++) {
        connection* crt = all_conns->at(ci);
        uint32_t src = crt->src, dest = crt->dst;
        if (crt->size <= 0) usage_error("-tm: connection " + std::to_string(crt->flowid) + " has no size");
        const htsim_paths::Path& path = htsim_paths::of(paths, crt->flowid);
        if (!cand[src][dest]) cand[src][dest] = top->get_bidir_paths(src, dest, false);
        if (!cand[dest][src]) cand[dest][src] = top->get_bidir_paths(dest, src, false);

        HPCCSrc* hpccSrc = new HPCCSrc(NULL, NULL, eventlist, linkspeed);
        srcs.push_back(hpccSrc);
        hpccSrc->set_dst(dest);
        hpccSrc->set_flowsize(crt->size);
        if (crt->flowid) hpccSrc->set_flowid(crt->flowid);
        HPCCSink* hpccSnk = new HPCCSink();
        std::string tag = std::to_string(crt->flowid) + "_" + std::to_string(src) + "_" + std::to_string(dest);
        hpccSrc->setName("hpcc" + tag);
        hpccSnk->set_src(src);
        hpccSnk->setName("hpcc_sink" + tag);
        ((HostQueue*)top->queues_ns_nlp[src][top->HOST_POD_SWITCH(src)][0])->addHostSender(hpccSrc);

        size_t fi = htsim_paths::pick(*cand[src][dest], path.fwd, crt->flowid, "fwd");
        size_t ri = htsim_paths::pick(*cand[dest][src], path.rev, crt->flowid, "rev");
        Route* routeout = new Route(*cand[src][dest]->at(fi));
        Route* routein = new Route(*cand[dest][src]->at(ri));
        path_lines.push_back("path " + std::to_string(crt->flowid) + " fwd " + htsim_paths::joined(htsim_paths::switches_of(*routeout)) +
                             " rev " + htsim_paths::joined(htsim_paths::switches_of(*routein)));
        // the routes end at the transport (main_hpcc's ECMP_FIB routes reach it through the
        // ToR's host port, FatTreeSwitch::addHostPort)
        routeout->push_back(hpccSnk);
        routein->push_back(hpccSrc);
        hpccSrc->connect(routeout, routein, *hpccSnk, crt->start);
    }
    std::cout << "Loaded " << all_conns->size() << " connections" << std::endl;

    while (eventlist.doNextEvent()) {
    }
    std::cout << std::endl;  // htsim's own prints may leave a line open (a lone ".")
    for (const auto& l : path_lines) std::cout << l << "\n";
    uint64_t new_pkts = 0, rtx_pkts = 0;
    for (HPCCSrc* s : srcs) {
        new_pkts += s->_new_packets_sent;
        rtx_pkts += s->_rtx_packets_sent;
    }
    std::cout << "Done New: " << new_pkts << " Rtx: " << rtx_pkts << std::endl;
    return 0;
}
