"""Peer run: a TCP dumbbell in ns-3 (the `ns3` pip package, 3.44), written to CSV for comparison with ccscope.

usage: NS3_PYTHON bench/peers/ns3_dumbbell.py --out DIR [--flows 2] [--tcp cubic|new_reno]
       [--qdisc pfifo|codel|fq_codel|pie] [--bottleneck-bps 100e6] [--access-bps 1e9]
       [--rtt-s 0.02] [--bottleneck-delay-s 0.001] [--buffer-pkts 167] [--packet-bytes 1500]
       [--iw-pkts 10] [--min-rto-s 0.2] [--until-s 60] [--start-s 0,0.1] [--sample-s 0.01]

NS3_PYTHON is the interpreter of a virtual environment with `pip install ns3==3.44.post0`
(ns-3's own Python bindings through cppyy); ccscope is not needed on this side, and nothing of
ns-3 is kept in this repository. The simulation itself is C++ compiled at run time by cppyy
(the `SCENARIO` text below), so that ns-3's trace callbacks run without Python in the loop.

The dumbbell mirrors ccscope's `dumbbell` template (docs/scenario.md): senders s0..s{N-1} ->
router -> receiver r0. Sender links run at --access-bps with one-way delay rtt/2 -
bottleneck_delay; the router -> receiver link is the bottleneck (--bottleneck-bps, one-way
--bottleneck-delay-s); the reverse links have the same rates and delays. The bottleneck's queue
is the queue disc (--qdisc: pfifo = ns3::FifoQueueDisc, drop tail; codel = CoDelQueueDisc;
fq_codel = FqCoDelQueueDisc; pie = PieQueueDisc, each with its ns-3 defaults and a limit of
--buffer-pkts packets), in front of a device queue of one packet, so that the queue disc holds
the queue. Every other device keeps ns-3's defaults (1 Gb/s access links never queue long).

TCP: --tcp cubic = ns3::TcpCubic (HyStart off: ccscope's CUBIC starts with NewReno's slow start)
or new_reno = ns3::TcpNewReno; recovery ns3::TcpClassicRecovery (RFC 6582 NewReno fast
recovery, as ccscope's; ns-3's default is PRR); SACK (unless --sack), timestamps and limited
transmit off; one
ACK per segment (DelAckCount 1); segment payload = packet_bytes - 42 (20 IP + 20 TCP + 2 PPP)
so that a data packet is --packet-bytes on the wire as in ccscope (a pure ACK is then 42 bytes);
initial window --iw-pkts; MinRto --min-rto-s (ClockGranularity stays ns-3's 1 ms); send and
receive buffers 64 MiB (never the limit). Flow k starts a bulk send at start_s[k].

Writes into --out:
  cwnd.csv       time_s,flow,cwnd_pkts,ssthresh_pkts,cong_state
                 (at every change of any; windows in segments; cong_state is ns-3's
                 TcpCongState_t: 0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss)
  delivered.csv  time_s,flow,rx_bytes                   (bytes received by flow k's sink,
                                                         sampled every --sample-s)
  queue.csv      time_s,queue_pkts,queue_bytes          (bottleneck queue disc, every --sample-s)
  sojourn.csv    time_s,sojourn_s                       (each packet dequeued at the bottleneck)
  run.json       the arguments, the ns-3 version, the wall time and each flow's mean throughput
                 over the run (throughput_bps, wire bits/s)
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

QDISCS = {"pfifo": "ns3::FifoQueueDisc", "codel": "ns3::CoDelQueueDisc",
          "fq_codel": "ns3::FqCoDelQueueDisc", "pie": "ns3::PieQueueDisc"}
TCPS = {"cubic": "ns3::TcpCubic", "new_reno": "ns3::TcpNewReno"}
#: bytes ns-3 adds to a TCP payload on a point-to-point link: IPv4 20, TCP 20 (no options), PPP 2
HEADER_BYTES = 42

SCENARIO = r"""
#include <fstream>
#include <sstream>
#include <vector>
namespace ccscope_peer {
using namespace ns3;

static std::ofstream g_cwnd, g_delivered, g_queue, g_sojourn;
static std::vector<uint32_t> g_lastCwnd, g_lastSsth, g_lastState;
static uint32_t g_seg = 1;

static void WriteWindow(uint32_t flow) {
    g_cwnd << Simulator::Now().GetSeconds() << "," << flow << ","
           << double(g_lastCwnd[flow]) / g_seg << "," << double(g_lastSsth[flow]) / g_seg << ","
           << g_lastState[flow] << "\n";
}
static void CwndTrace(uint32_t flow, uint32_t, uint32_t v) { g_lastCwnd[flow] = v; WriteWindow(flow); }
static void SsthTrace(uint32_t flow, uint32_t, uint32_t v) { g_lastSsth[flow] = v; WriteWindow(flow); }
static void StateTrace(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v) {
    g_lastState[flow] = uint32_t(v);
    WriteWindow(flow);
}
static void SojournTrace(Time t) {
    g_sojourn << Simulator::Now().GetSeconds() << "," << t.GetSeconds() << "\n";
}
static void SampleQueue(Ptr<QueueDisc> q, Time every) {
    g_queue << Simulator::Now().GetSeconds() << "," << q->GetNPackets() << "," << q->GetNBytes() << "\n";
    Simulator::Schedule(every, &SampleQueue, q, every);
}
static void SampleDelivered(std::vector<Ptr<PacketSink>> sinks, Time every) {
    for (uint32_t i = 0; i < sinks.size(); i++)
        g_delivered << Simulator::Now().GetSeconds() << "," << i << "," << sinks[i]->GetTotalRx() << "\n";
    Simulator::Schedule(every, &SampleDelivered, sinks, every);
}
static void ConnectFlow(uint32_t flow) {
    std::ostringstream p;
    p << "/NodeList/" << flow << "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(p.str() + "CongestionWindow", MakeBoundCallback(&CwndTrace, flow));
    Config::ConnectWithoutContext(p.str() + "SlowStartThreshold", MakeBoundCallback(&SsthTrace, flow));
    Config::ConnectWithoutContext(p.str() + "CongState", MakeBoundCallback(&StateTrace, flow));
}

int Run(uint32_t n, double bottleneckBps, double accessBps, double accessDelay, double bneckDelay,
        uint32_t bufferPkts, std::string tcp, std::string qdisc, uint32_t seg, uint32_t iw,
        double minRto, double until, std::vector<double> starts, double sampleS, std::string out, bool sack) {
    g_seg = seg;
    g_lastCwnd.assign(n, 0);
    g_lastSsth.assign(n, 0);
    g_lastState.assign(n, 0);
    g_cwnd.open(out + "/cwnd.csv");
    g_delivered.open(out + "/delivered.csv");
    g_queue.open(out + "/queue.csv");
    g_sojourn.open(out + "/sojourn.csv");
    g_cwnd << "time_s,flow,cwnd_pkts,ssthresh_pkts,cong_state\n";
    g_delivered << "time_s,flow,rx_bytes\n";
    g_queue << "time_s,queue_pkts,queue_bytes\n";
    g_sojourn << "time_s,sojourn_s\n";
    g_cwnd.precision(10); g_delivered.precision(10); g_queue.precision(10); g_sojourn.precision(10);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(tcp)));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(seg));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    if (tcp == "ns3::TcpCubic")
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));

    NodeContainer senders, router, receiver;
    senders.Create(n);
    router.Create(1);
    receiver.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(accessBps))));
    access.SetChannelAttribute("Delay", TimeValue(Seconds(accessDelay)));
    PointToPointHelper bneck;
    bneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(bottleneckBps))));
    bneck.SetChannelAttribute("Delay", TimeValue(Seconds(bneckDelay)));
    bneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));

    Ipv4AddressHelper addr;
    std::vector<NetDeviceContainer> accessDevs;
    for (uint32_t i = 0; i < n; i++) {
        NetDeviceContainer d = access.Install(senders.Get(i), router.Get(0));
        std::ostringstream net;
        net << "10.1." << i + 1 << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        addr.Assign(d);
        accessDevs.push_back(d);
    }
    NetDeviceContainer bd = bneck.Install(router.Get(0), receiver.Get(0));
    TrafficControlHelper tch;
    std::ostringstream lim;
    lim << bufferPkts << "p";
    tch.SetRootQueueDisc(qdisc, "MaxSize", QueueSizeValue(QueueSize(lim.str())));
    QueueDiscContainer qdc = tch.Install(bd.Get(0));
    addr.SetBase("10.2.1.0", "255.255.255.0");
    Ipv4InterfaceContainer rif = addr.Assign(bd);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<QueueDisc> q = qdc.Get(0);
    q->TraceConnectWithoutContext("SojournTime", MakeCallback(&SojournTrace));
    Simulator::Schedule(Seconds(0), &SampleQueue, q, Seconds(sampleS));

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < n; i++) {
        uint16_t port = 5000 + i;
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(rif.GetAddress(1), port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(seg));
        ApplicationContainer a = src.Install(senders.Get(i));
        a.Start(Seconds(starts[i]));
        a.Stop(Seconds(until));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receiver.Get(0));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &ConnectFlow, i);
    }
    Simulator::Schedule(Seconds(0), &SampleDelivered, sinks, Seconds(sampleS));
    Simulator::Stop(Seconds(until));
    Simulator::Run();
    Simulator::Destroy();
    g_cwnd.close(); g_delivered.close(); g_queue.close(); g_sojourn.close();
    return 0;
}
}  // namespace ccscope_peer
"""


class UsageError(Exception):
    """Bad command-line input: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(message)


def _cut(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = _Parser(prog="bench/peers/ns3_dumbbell.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, type=Path, help="folder for the CSV files (created)")
    p.add_argument("--flows", type=int, default=2)
    p.add_argument("--tcp", default="cubic", help=f"one of {', '.join(TCPS)}")
    p.add_argument("--qdisc", default="pfifo", help=f"one of {', '.join(QDISCS)}")
    p.add_argument("--bottleneck-bps", type=float, default=100e6)
    p.add_argument("--access-bps", type=float, default=1e9)
    p.add_argument("--rtt-s", type=float, default=0.02, help="round-trip propagation delay, seconds")
    p.add_argument("--bottleneck-delay-s", type=float, default=0.001)
    p.add_argument("--buffer-pkts", type=int, default=167)
    p.add_argument("--packet-bytes", type=int, default=1500, help="data packet size on the wire")
    p.add_argument("--iw-pkts", type=int, default=10)
    p.add_argument("--min-rto-s", type=float, default=0.2)
    p.add_argument("--until-s", type=float, default=60.0)
    p.add_argument("--start-s", default=None, help="comma-separated start time per flow (default 0, 0.1, 0.2, ...)")
    p.add_argument("--sample-s", type=float, default=0.01, help="queue and delivered sampling interval")
    p.add_argument("--sack", action="store_true",
                   help="SACK on (RFC 2018/6675 loss recovery; ccscope has none): ns-3's recovery without SACK "
                        "leaves recovery at a partial ACK and cuts again on the next duplicate ACKs")
    a = p.parse_args(argv)
    if a.tcp not in TCPS:
        raise UsageError(f"--tcp = {_cut(a.tcp)!r}: must be one of {', '.join(TCPS)}")
    if a.qdisc not in QDISCS:
        raise UsageError(f"--qdisc = {_cut(a.qdisc)!r}: must be one of {', '.join(QDISCS)}")
    if a.flows < 1:
        raise UsageError(f"--flows = {a.flows}: must be an integer >= 1")
    for name in ("bottleneck_bps", "access_bps", "rtt_s", "until_s", "sample_s", "min_rto_s"):
        v = getattr(a, name)
        if not (v > 0 and v < float("inf")):
            raise UsageError(f"--{name.replace('_', '-')} = {v}: must be a finite number > 0")
    if not 0 <= a.bottleneck_delay_s <= a.rtt_s / 2:
        raise UsageError(f"--bottleneck-delay-s = {a.bottleneck_delay_s}: must be between 0 and rtt/2")
    if a.buffer_pkts < 1:
        raise UsageError(f"--buffer-pkts = {a.buffer_pkts}: must be an integer >= 1")
    if a.iw_pkts < 1:
        raise UsageError(f"--iw-pkts = {a.iw_pkts}: must be an integer >= 1")
    if not HEADER_BYTES + 1 <= a.packet_bytes <= 65535:
        raise UsageError(f"--packet-bytes = {a.packet_bytes}: must be between {HEADER_BYTES + 1} and 65535")
    if a.start_s is None:
        a.starts = [0.1 * i for i in range(a.flows)]
    else:
        try:
            a.starts = [float(x) for x in a.start_s.split(",")]
        except ValueError:
            raise UsageError(f"--start-s = {_cut(a.start_s)!r}: give comma-separated numbers") from None
        if len(a.starts) != a.flows or any(not 0 <= s < a.until_s for s in a.starts):
            raise UsageError(f"--start-s = {_cut(a.start_s)!r}: give {a.flows} times in [0, until)")
    return a


def run(a: argparse.Namespace) -> dict:
    """Build and run the ns-3 dumbbell; returns what run.json holds."""
    try:
        from ns import ns  # ns-3's cppyy bindings (pip package ns3)
        import cppyy
    except ImportError as e:
        raise UsageError(f"ns-3 is not importable here ({e}); run this with the python of a venv "
                         f"holding `pip install ns3==3.44.post0`") from None
    a.out.mkdir(parents=True, exist_ok=True)
    cppyy.cppdef(SCENARIO)
    starts = cppyy.gbl.std.vector["double"](a.starts)
    t0 = time.perf_counter()
    cppyy.gbl.ccscope_peer.Run(
        a.flows, a.bottleneck_bps, a.access_bps, a.rtt_s / 2 - a.bottleneck_delay_s, a.bottleneck_delay_s,
        a.buffer_pkts, TCPS[a.tcp], QDISCS[a.qdisc], a.packet_bytes - HEADER_BYTES, a.iw_pkts,
        a.min_rto_s, a.until_s, starts, a.sample_s, str(a.out), a.sack)
    info = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(a).items()}
    info.update(ns3_version=_ns3_version(), wall_s=time.perf_counter() - t0,
                throughput_bps=flow_throughput(a.out / "delivered.csv", a),
                segment_payload_bytes=a.packet_bytes - HEADER_BYTES, ack_bytes=HEADER_BYTES,
                ns3_types={"tcp": TCPS[a.tcp], "qdisc": QDISCS[a.qdisc]})
    (a.out / "run.json").write_text(json.dumps(info, indent=1) + "\n")
    del ns
    return info


def flow_throughput(delivered_csv: Path, a: argparse.Namespace) -> list[float]:
    """Each flow's mean throughput from its start to the end of the run, bits/s of wire packets
    (payload bytes received / segment payload x packet_bytes)."""
    last: dict[int, float] = {}
    with open(delivered_csv) as f:
        next(f)
        for line in f:
            _, flow, rx = line.rstrip("\n").split(",")
            last[int(flow)] = float(rx)
    seg = a.packet_bytes - HEADER_BYTES
    return [last.get(k, 0.0) / seg * a.packet_bytes * 8 / (a.until_s - a.starts[k]) for k in range(a.flows)]


def _ns3_version() -> str:
    try:
        from importlib.metadata import version
        return version("ns3")
    except Exception:  # metadata missing: not fatal for the run
        return "unknown"


def main(argv: list[str]) -> int:
    try:
        a = parse_args(argv)
        info = run(a)
    except UsageError as e:
        print(f"bench/peers/ns3_dumbbell.py: error: {e}", file=sys.stderr)
        return 2
    thr = ", ".join(f"{x / 1e6:.4g}" for x in info["throughput_bps"])
    print(f"ns-3 {info['ns3_version']}: {a.flows} x {a.tcp} over {a.qdisc}, {a.until_s:g} s simulated "
          f"in {info['wall_s']:.1f} s wall, throughput per flow {thr} Mb/s -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
