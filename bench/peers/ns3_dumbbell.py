"""Peer run: a TCP dumbbell in ns-3 (the `ns3` pip package, 3.44), written to CSV for comparison with ccscope.

usage: NS3_PYTHON bench/peers/ns3_dumbbell.py --out DIR [--flows 2] [--tcp cubic|new_reno]
       [--qdisc pfifo|codel|fq_codel|pie] [--bottleneck-bps 100e6] [--access-bps 1e9]
       [--rtt-s 0.02] [--bottleneck-delay-s 0.001] [--buffer-pkts 167] [--packet-bytes 1500]
       [--iw-pkts 10] [--min-rto-s 0.2] [--until-s 60] [--start-s 0,0.1] [--sample-s 0.01]
       [--rtt-per-sender-s 0.01,0.02] [--sparse-interval-s 0.1 --sparse-start-s 5] [--codel-min-bytes 0]

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
  packets.csv    time_s,flow,sojourn_s,fq_queue         (each packet dequeued at the bottleneck: its
                 sender index, its sojourn in the queue disc, and under FqCoDel the flow queue
                 its 5-tuple hashes to, Hash(Perturbation) % Flows; -1 otherwise)
  srtt.csv       time_s,flow,srtt_s                     (each TCP sender's smoothed RTT at every change)
  sparse.csv     time_s,seq,owd_s                       (with --sparse-interval-s: each datagram of the
                 sparse flow at the receiver, its one-way delay from UdpClient's time stamp)
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
#: bytes ns-3 adds to a UDP payload on a point-to-point link: IPv4 20, UDP 8, PPP 2
UDP_HEADER_BYTES = 30

SCENARIO = r"""
#include <fstream>
#include <sstream>
#include <vector>
namespace ccscope_peer {
using namespace ns3;

static std::ofstream g_cwnd, g_delivered, g_queue, g_sojourn, g_packets, g_srtt, g_sparse;
static std::vector<uint32_t> g_lastCwnd, g_lastSsth, g_lastState;
static uint32_t g_seg = 1;
static uint32_t g_fqFlows = 0, g_fqPerturbation = 0;  // FqCoDel's queue count and hash salt (0: not FqCoDel)

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
static void SrttTrace(uint32_t flow, Time, Time v) {
    g_srtt << Simulator::Now().GetSeconds() << "," << flow << "," << v.GetSeconds() << "\n";
}
// every packet leaving the bottleneck queue disc: its sender (10.1.(k+1).1 -> k), its sojourn in
// the queue disc, and (FqCoDel) the flow queue its 5-tuple hashes to, as FqCoDelQueueDisc::DoEnqueue
static void DequeueTrace(Ptr<const QueueDiscItem> item) {
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip) return;
    uint32_t flow = ((ip->GetHeader().GetSource().Get() >> 8) & 0xff) - 1;
    g_packets << Simulator::Now().GetSeconds() << "," << flow << ","
              << (Simulator::Now() - item->GetTimeStamp()).GetSeconds() << ","
              << (g_fqFlows ? int64_t(item->Hash(g_fqPerturbation) % g_fqFlows) : int64_t(-1)) << "\n";
}
// the sparse flow's datagrams at the receiver: one-way delay from UdpClient's send time stamp
static void SparseRx(Ptr<const Packet> p) {
    Ptr<Packet> c = p->Copy();
    SeqTsHeader h;
    c->RemoveHeader(h);
    g_sparse << Simulator::Now().GetSeconds() << "," << h.GetSeq() << ","
             << (Simulator::Now() - h.GetTs()).GetSeconds() << "\n";
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
    Config::ConnectWithoutContext(p.str() + "RTT", MakeBoundCallback(&SrttTrace, flow));
}

int Run(uint32_t n, double bottleneckBps, double accessBps, std::vector<double> accessDelays, double bneckDelay,
        uint32_t bufferPkts, std::string tcp, std::string qdisc, uint32_t seg, uint32_t iw,
        double minRto, double until, std::vector<double> starts, double sampleS, std::string out, bool sack,
        double sparseInterval, double sparseStart, uint32_t sparsePayload, int64_t codelMinBytes) {
    // accessDelays: one per sender, then (sparseInterval > 0) one for the sparse sender n
    g_seg = seg;
    g_lastCwnd.assign(n, 0);
    g_lastSsth.assign(n, 0);
    g_lastState.assign(n, 0);
    g_cwnd.open(out + "/cwnd.csv");
    g_delivered.open(out + "/delivered.csv");
    g_queue.open(out + "/queue.csv");
    g_sojourn.open(out + "/sojourn.csv");
    g_packets.open(out + "/packets.csv");
    g_srtt.open(out + "/srtt.csv");
    g_packets << "time_s,flow,sojourn_s,fq_queue\n";
    g_srtt << "time_s,flow,srtt_s\n";
    g_packets.precision(10); g_srtt.precision(10);
    bool sparse = sparseInterval > 0;
    if (sparse) {
        g_sparse.open(out + "/sparse.csv");
        g_sparse << "time_s,seq,owd_s\n";
        g_sparse.precision(10);
    }
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
    if (codelMinBytes >= 0)  // CoDel's "at most one MTU queued" test (every CoDelQueueDisc, FqCoDel's too)
        Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(uint32_t(codelMinBytes)));
    if (tcp == "ns3::TcpCubic")
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));

    NodeContainer senders, router, receiver;
    senders.Create(n + (sparse ? 1 : 0));
    router.Create(1);
    receiver.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(accessBps))));
    PointToPointHelper bneck;
    bneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(bottleneckBps))));
    bneck.SetChannelAttribute("Delay", TimeValue(Seconds(bneckDelay)));
    bneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));

    Ipv4AddressHelper addr;
    std::vector<NetDeviceContainer> accessDevs;
    for (uint32_t i = 0; i < senders.GetN(); i++) {
        access.SetChannelAttribute("Delay", TimeValue(Seconds(accessDelays[i])));
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
    q->TraceConnectWithoutContext("Dequeue", MakeCallback(&DequeueTrace));
    if (qdisc == "ns3::FqCoDelQueueDisc") {
        UintegerValue f, pert;
        q->GetAttribute("Flows", f);
        q->GetAttribute("Perturbation", pert);
        g_fqFlows = f.Get();
        g_fqPerturbation = pert.Get();
    }
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
    if (sparse) {
        UdpServerHelper server(9000);
        ApplicationContainer sv = server.Install(receiver.Get(0));
        sv.Start(Seconds(0));
        sv.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&SparseRx));
        UdpClientHelper client(rif.GetAddress(1), 9000);
        client.SetAttribute("MaxPackets", UintegerValue(1u << 30));
        client.SetAttribute("Interval", TimeValue(Seconds(sparseInterval)));
        client.SetAttribute("PacketSize", UintegerValue(sparsePayload));
        ApplicationContainer cl = client.Install(senders.Get(n));
        cl.Start(Seconds(sparseStart));
        cl.Stop(Seconds(until));
    }
    Simulator::Stop(Seconds(until));
    Simulator::Run();
    Simulator::Destroy();
    g_cwnd.close(); g_delivered.close(); g_queue.close(); g_sojourn.close(); g_packets.close(); g_srtt.close();
    if (sparse) g_sparse.close();
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
    p.add_argument("--rtt-per-sender-s", default=None,
                   help="comma-separated round-trip propagation delay per TCP sender (ccscope's rtt_per_sender_s); "
                        "each sender's access link gets rtt/2 - bottleneck delay")
    p.add_argument("--sparse-interval-s", type=float, default=0.0,
                   help="add a sparse flow: sender s{flows} (RTT --rtt-s) sends one UDP datagram of "
                        "--packet-bytes on the wire every this many seconds (0: none); sparse.csv gets each "
                        "datagram's one-way delay")
    p.add_argument("--sparse-start-s", type=float, default=0.0, help="first datagram of the sparse flow")
    p.add_argument("--codel-min-bytes", type=int, default=-1,
                   help="ns3::CoDelQueueDisc::MinBytes, CoDel's 'one MTU queued' test, per FqCoDel flow queue "
                        "(default: ns-3's 1500; 0 turns the test off)")
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
    if a.codel_min_bytes < -1 or a.codel_min_bytes > 2**32 - 1:
        raise UsageError(f"--codel-min-bytes = {a.codel_min_bytes}: must be an integer in [0, 2^32) (-1: ns-3's default)")
    if a.rtt_per_sender_s is None:
        a.rtts = [a.rtt_s] * a.flows
    else:
        try:
            a.rtts = [float(x) for x in a.rtt_per_sender_s.split(",")]
        except ValueError:
            raise UsageError(f"--rtt-per-sender-s = {_cut(a.rtt_per_sender_s)!r}: give comma-separated numbers") from None
        if len(a.rtts) != a.flows or any(not (2 * a.bottleneck_delay_s <= r < float("inf")) for r in a.rtts):
            raise UsageError(f"--rtt-per-sender-s = {_cut(a.rtt_per_sender_s)!r}: give {a.flows} finite round-trip "
                             f"times >= 2 x bottleneck delay")
    if not (0 <= a.sparse_interval_s < float("inf")):
        raise UsageError(f"--sparse-interval-s = {a.sparse_interval_s}: must be a finite number >= 0 (0: no sparse flow)")
    if a.sparse_interval_s > 0 and not 0 <= a.sparse_start_s < a.until_s:
        raise UsageError(f"--sparse-start-s = {a.sparse_start_s}: must be in [0, until)")
    if a.sparse_interval_s > 0 and a.packet_bytes - UDP_HEADER_BYTES < 12:
        raise UsageError(f"--packet-bytes = {a.packet_bytes}: a sparse flow needs at least {UDP_HEADER_BYTES + 12} "
                         f"(UdpClient's 12-byte sequence and time stamp)")
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
    rtts = a.rtts + ([a.rtt_s] if a.sparse_interval_s > 0 else [])
    delays = cppyy.gbl.std.vector["double"]([r / 2 - a.bottleneck_delay_s for r in rtts])
    t0 = time.perf_counter()
    cppyy.gbl.ccscope_peer.Run(
        a.flows, a.bottleneck_bps, a.access_bps, delays, a.bottleneck_delay_s,
        a.buffer_pkts, TCPS[a.tcp], QDISCS[a.qdisc], a.packet_bytes - HEADER_BYTES, a.iw_pkts,
        a.min_rto_s, a.until_s, starts, a.sample_s, str(a.out), a.sack, a.sparse_interval_s, a.sparse_start_s,
        a.packet_bytes - UDP_HEADER_BYTES, a.codel_min_bytes)
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
