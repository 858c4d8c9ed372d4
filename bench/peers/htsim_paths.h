// Per-flow paths for our htsim drivers (htsim_hpcc_fabric.cpp, htsim_swift_fabric.cpp -paths):
// read a paths file and pick, among FatTreeTopology's candidate routes between two hosts, the one
// that crosses the given switches. Header-only; built with the drivers against a checkout of
// htsim's public source (bench/peers/htsim_fabric.py), nothing of htsim lives here.
//
// Paths file, one line per flow (bench/peers/htsim_fabric.py writes it from `ccscope scenario
// export-flows --format paths`, with ccscope's switch names mapped to htsim's):
//     <id> fwd <switch>... rev <switch>...
// <id> is the connection matrix's flow id; each switch is htsim's name as FatTreeTopology's pipes
// carry it ("Pipe-<from>-><to>(<bundle>)", fat_tree_topology.cpp): LS<n> (ToR), US<n>
// (aggregation), CS<n> (core); `fwd` is the data packets' order, `rev` the ACKs'.
#ifndef CCSCOPE_HTSIM_PATHS_H
#define CCSCOPE_HTSIM_PATHS_H

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "network.h"
#include "pipe.h"

namespace htsim_paths {

// The driver's name for error lines (C++11: a function's static, not an inline variable).
inline const char*& program() {
    static const char* name = "htsim driver";
    return name;
}

[[noreturn]] inline void fail(const std::string& msg) {
    std::fprintf(stderr, "%s: %s\n", program(), msg.c_str());
    std::exit(2);
}

// The switches a route crosses, from its pipes' names: every <to> but the last pipe's (the
// destination host).
inline std::vector<std::string> switches_of(const Route& r) {
    std::vector<std::string> out;
    for (size_t i = 0; i < r.size(); i++) {
        Pipe* pipe = dynamic_cast<Pipe*>(r.at(i));
        if (pipe == nullptr) continue;
        std::string n = pipe->str();  // the name setName gave (nodename() is "pipe(<delay>)")
        size_t a = n.find("->"), b = n.rfind('(');
        if (a == std::string::npos || b == std::string::npos || b < a + 2) fail("unexpected pipe name in a route: " + n);
        out.push_back(n.substr(a + 2, b - a - 2));
    }
    if (!out.empty()) out.pop_back();
    return out;
}

inline std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
    return s;
}

struct Path {
    std::vector<std::string> fwd, rev;
};

inline std::map<uint32_t, Path> load(const char* file) {
    std::ifstream in(file);
    if (!in) fail(std::string("-paths ") + file + ": cannot be read");
    std::map<uint32_t, Path> out;
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        n++;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        long id = -1;
        std::string tok;
        ss >> id >> tok;
        if (id < 0 || tok != "fwd")
            fail(std::string("-paths ") + file + " line " + std::to_string(n) + ": expected '<id> fwd <switch>... rev <switch>...'");
        Path p;
        bool rev = false;
        while (ss >> tok) {
            if (tok == "rev") rev = true;
            else (rev ? p.rev : p.fwd).push_back(tok);
        }
        if (!rev || p.fwd.empty() || p.rev.empty())
            fail(std::string("-paths ") + file + " line " + std::to_string(n) + ": a fwd and a rev switch list are required");
        out[(uint32_t)id] = p;
    }
    return out;
}

// The flow's line, or an error naming the flow.
inline const Path& of(const std::map<uint32_t, Path>& paths, uint32_t id) {
    auto it = paths.find(id);
    if (it == paths.end()) fail("-paths: no line for flow " + std::to_string(id));
    return it->second;
}

// The index of the candidate whose switches are `want`, or an error naming the flow and the
// candidates.
inline size_t pick(const std::vector<const Route*>& cands, const std::vector<std::string>& want, uint32_t id,
                   const char* dir) {
    for (size_t i = 0; i < cands.size(); i++)
        if (switches_of(*cands[i]) == want) return i;
    std::string have;
    for (const Route* r : cands) have += " [" + joined(switches_of(*r)) + "]";
    fail("-paths: flow " + std::to_string(id) + " " + dir + " [" + joined(want) +
         "] is none of htsim's routes between its hosts:" + have);
}

}  // namespace htsim_paths

#endif
