#!/usr/bin/env python3
"""Wire robustness of mxgw-mock.

Starts the built mxgw-mock on 127.0.0.1 (port 0), then, with a client generated from
proto/*.proto at test time (protoc + grpc_python_plugin; Debian's python3-grpcio and
python3-protobuf), sends what a careless or hostile client sends: Durations outside
google.protobuf.Duration's rules, calls without a session or on a closed one, commands with
no kind, empty strings, negative and extreme handles, hundreds of concurrent sessions,
cancelled streams and calls, absurd mock-control values, and a client name that tries to
forge a log line. It asserts each gRPC status, that the process stays up (and stops
cleanly on SIGTERM), and that the forged name is logged as one escaped line.

Prints one line per check and ends with "N passed, M failed"; exit status 1 on a failure.

  wire_robustness.py --mxgw-mock PATH --proto-dir DIR --out DIR [--protoc P] [--grpc-python-plugin P]
"""

import argparse
import concurrent.futures
import importlib
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

RPC_TIMEOUT_S = 10
MAX_DURATION_S = 315_576_000_000
MAX_COMMAND_TIMEOUT_S = 86_400  # kMaxCommandTimeout (gateway/gateway_types.h)
FORGED_NAME = "x\nstormwatch.gateway: fault: STA wedged for 999999 ms\x1b[31mRED"

results = []  # (ok, name, detail)


def check(name, ok, detail=""):
    results.append((bool(ok), name, detail))
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else ": " + detail), flush=True)
    return ok


def generate_stubs(args):
    protoc = args.protoc or shutil.which("protoc")
    plugin = args.grpc_python_plugin or shutil.which("grpc_python_plugin")
    if not protoc or not plugin:
        sys.exit("wire_robustness: protoc and grpc_python_plugin are needed (Debian: protobuf-compiler, "
                 "protobuf-compiler-grpc; scripts/install-deps.sh installs them)")
    os.makedirs(args.out, exist_ok=True)
    protos = sorted(p for p in os.listdir(args.proto_dir) if p.endswith(".proto"))
    includes = ["-I", "."]
    if os.path.isdir("/usr/include/google/protobuf"):
        includes += ["-I", "/usr/include"]  # the well-known types (duration.proto)
    subprocess.run([protoc, *includes, "--python_out=" + args.out, "--grpc_python_out=" + args.out,
                    "--plugin=protoc-gen-grpc_python=" + plugin, *protos],
                   check=True, cwd=args.proto_dir)
    sys.path.insert(0, args.out)


class Mock:
    """mxgw-mock as a child process: its port, and every stderr line it printed."""

    def __init__(self, path):
        self.proc = subprocess.Popen([path, "--listen", "127.0.0.1:0", "--data-hz", "20"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.stderr = []
        self._lock = threading.Lock()
        self._stdout = queue.Queue()
        threading.Thread(target=self._read_err, daemon=True).start()
        threading.Thread(target=self._read_out, daemon=True).start()
        try:
            line = self._stdout.get(timeout=20)
        except queue.Empty:
            line = b""
        match = re.fullmatch(rb"listening on 127\.0\.0\.1:(\d+)\n", line)
        if not match:
            self.proc.kill()
            sys.exit("wire_robustness: mxgw-mock did not announce its port: %r" % line)
        self.port = int(match.group(1))

    def _read_err(self):
        for line in self.proc.stderr:
            with self._lock:
                self.stderr.append(line)

    def _read_out(self):
        for line in self.proc.stdout:
            self._stdout.put(line)

    def err_lines(self):
        with self._lock:
            return list(self.stderr)

    def alive(self):
        return self.proc.poll() is None


def status_of(call):
    """(code, details) of a unary call made by `call`; OK with its reply otherwise."""
    import grpc
    try:
        return grpc.StatusCode.OK, call()
    except grpc.RpcError as e:
        return e.code(), e.details() or ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mxgw-mock", required=True)
    parser.add_argument("--proto-dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--protoc")
    parser.add_argument("--grpc-python-plugin")
    args = parser.parse_args()
    for name in ("mxgw_mock", "proto_dir", "out"):
        setattr(args, name, os.path.abspath(getattr(args, name)))

    try:
        import grpc
    except ImportError:
        sys.exit("wire_robustness: python3-grpcio is missing (scripts/install-deps.sh installs it) "
                 "for " + sys.executable)
    generate_stubs(args)
    pb = importlib.import_module("mxaccess_gateway_pb2")
    pb_grpc = importlib.import_module("mxaccess_gateway_pb2_grpc")
    mock_pb = importlib.import_module("mock_control_pb2")
    mock_grpc = importlib.import_module("mock_control_pb2_grpc")
    OK, INVALID, NOT_FOUND = grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND

    mock = Mock(args.mxgw_mock)
    channel = grpc.insecure_channel("127.0.0.1:%d" % mock.port)
    gw = pb_grpc.MxAccessGatewayStub(channel)
    control = mock_grpc.MockGatewayControlStub(channel)
    t = RPC_TIMEOUT_S

    def open_session(name="wire-test", seconds=None, nanos=None, present=False):
        req = pb.OpenSessionRequest(client_name=name)
        if present:
            req.command_timeout.SetInParent()
        if seconds is not None:
            req.command_timeout.seconds = seconds
        if nanos is not None:
            req.command_timeout.nanos = nanos
        return status_of(lambda: gw.OpenSession(req, timeout=t))

    def invoke(session_id, **command):
        req = pb.MxCommandRequest(session_id=session_id, client_correlation_id="wire",
                                  command=pb.MxCommand(**command))
        return status_of(lambda: gw.Invoke(req, timeout=t))

    def expect(name, result, code, contains=None):
        got, detail = result
        ok = got == code and (contains is None or (isinstance(detail, str) and contains in detail))
        return check(name, ok, "got %s %r, want %s%s" % (got, detail if isinstance(detail, str) else "",
                                                        code, " containing %r" % contains if contains else ""))

    # ---- Durations by their own rules, clamped to the maximum command timeout
    rng = "must be within +-315576000000"
    for label, seconds, nanos, code, contains in [
        ("10^12 s (echoed wrapped, 3,875,820,019 s, before)", 10 ** 12, 0, INVALID, rng),
        ("INT64_MAX s (UBSan overflow before)", 2 ** 63 - 1, 0, INVALID, rng),
        ("INT64_MIN s", -2 ** 63, 0, INVALID, rng),
        ("one second past the Duration range", MAX_DURATION_S + 1, 0, INVALID, rng),
        ("nanos = 10^9", 1, 10 ** 9, INVALID, "must be within +-999999999"),
        ("nanos = INT32_MIN", 0, -2 ** 31, INVALID, "must be within +-999999999"),
        ("positive seconds, negative nanos", 5, -1, INVALID, "nanos must have the sign of seconds"),
        ("negative seconds, positive nanos", -5, 1, INVALID, "nanos must have the sign of seconds"),
        ("negative", -5, 0, INVALID, "must be > 0"),
    ]:
        expect("Duration " + label + ": " + str(code.name), open_session(seconds=seconds, nanos=nanos), code, contains)
    expect("Duration zero (present): INVALID_ARGUMENT", open_session(present=True), INVALID, "must be > 0")
    for label, seconds, nanos, echo in [
        ("315,576,000,000 s (echoed 1,981,350,747 s before)", MAX_DURATION_S, 0, (MAX_COMMAND_TIMEOUT_S, 0)),
        ("the largest valid Duration", MAX_DURATION_S, 999_999_999, (MAX_COMMAND_TIMEOUT_S, 0)),
        ("24 h + 1 ns", MAX_COMMAND_TIMEOUT_S, 1, (MAX_COMMAND_TIMEOUT_S, 0)),
        ("60.5 s", 60, 500_000_000, (60, 500_000_000)),
    ]:
        code, reply = open_session(seconds=seconds, nanos=nanos)
        got = (reply.default_command_timeout.seconds, reply.default_command_timeout.nanos) if code == OK else None
        check("Duration %s: OK, echoed %s" % (label, echo), code == OK and got == echo, "got %s %r" % (code, got))

    # ---- calls without a session, on a closed session, with no command kind
    code, opened = open_session()
    check("OpenSession with defaults: OK", code == OK, str(code))
    sid = opened.session_id if code == OK else "?"
    expect("Invoke with no session id: NOT_FOUND", invoke("", register=pb.RegisterCommand()), NOT_FOUND)
    expect("Invoke with an unknown session id: NOT_FOUND", invoke("session-999999", register=pb.RegisterCommand()),
           NOT_FOUND)
    expect("Invoke with no command kind (unset oneof): INVALID_ARGUMENT", invoke(sid), INVALID, "no kind")
    expect("Invoke with no command at all: INVALID_ARGUMENT",
           status_of(lambda: gw.Invoke(pb.MxCommandRequest(session_id=sid), timeout=t)), INVALID)
    expect("CloseSession with no session id: NOT_FOUND",
           status_of(lambda: gw.CloseSession(pb.CloseSessionRequest(), timeout=t)), NOT_FOUND)

    def first_event(session_id, wait=t):
        stream = gw.StreamEvents(pb.StreamEventsRequest(session_id=session_id), timeout=wait)
        return status_of(lambda: next(stream))

    expect("StreamEvents with no session id: NOT_FOUND", first_event(""), NOT_FOUND)
    code, closing = open_session("to-close")
    closed_id = closing.session_id if code == OK else "?"
    expect("CloseSession: OK", status_of(lambda: gw.CloseSession(pb.CloseSessionRequest(session_id=closed_id),
                                                                 timeout=t)), OK)
    expect("Invoke on a closed session: NOT_FOUND", invoke(closed_id, register=pb.RegisterCommand()), NOT_FOUND)
    expect("CloseSession twice: NOT_FOUND",
           status_of(lambda: gw.CloseSession(pb.CloseSessionRequest(session_id=closed_id), timeout=t)), NOT_FOUND)
    expect("StreamEvents on a closed session: NOT_FOUND", first_event(closed_id), NOT_FOUND)

    # ---- empty strings and negative / extreme handles: answered, the command fails by itself
    code, opened = open_session("")
    check("OpenSession with an empty client name: OK", code == OK, str(code))
    code, reg = invoke(sid, register=pb.RegisterCommand(client_name=""))
    check("Register with an empty client name: OK", code == OK and reg.success and reg.register.server_handle > 0,
          "%s %r" % (code, reg))
    handle = reg.register.server_handle if code == OK else 1
    code, reply = invoke(sid, add_item=pb.AddItemCommand(server_handle=handle, tag_address=""))
    check("AddItem with an empty tag address: OK, success=false",
          code == OK and not reply.success and "empty tag address" in reply.error_message, "%s %r" % (code, reply))
    code, reply = invoke(sid, add_item_bulk=pb.AddItemBulkCommand(server_handle=handle, tag_addresses=["", "Z.A1"]))
    check("AddItemBulk [\"\", tag]: OK, per-item results",
          code == OK and [r.ok for r in reply.add_item_bulk.results] == [False, True], "%s %r" % (code, reply))
    item = reply.add_item_bulk.results[1].item_handle if code == OK else 1
    code, reply = invoke(sid, subscribe_bulk=pb.SubscribeBulkCommand(server_handle=handle, tag_addresses=[]))
    check("SubscribeBulk with no tags: OK", code == OK and reply.success, "%s %r" % (code, reply))
    for server_handle in (-1, 0, -2 ** 31, 2 ** 31 - 1):
        code, reply = invoke(sid, add_item=pb.AddItemCommand(server_handle=server_handle, tag_address="Z.A1"))
        check("AddItem under server handle %d: OK, success=false" % server_handle,
              code == OK and not reply.success and "unknown server handle" in reply.error_message,
              "%s %r" % (code, reply))
    for name, command in [
        ("Advise", dict(advise=pb.AdviseCommand(server_handle=handle, item_handle=-5))),
        ("AdviseSupervisory", dict(advise_supervisory=pb.AdviseSupervisoryCommand(server_handle=handle,
                                                                                   item_handle=-2 ** 31))),
        ("RemoveItem", dict(remove_item=pb.RemoveItemCommand(server_handle=handle, item_handle=-1))),
        ("UnAdvise", dict(un_advise=pb.UnAdviseCommand(server_handle=handle, item_handle=2 ** 31 - 1))),
        ("Write", dict(write=pb.WriteCommand(server_handle=handle, item_handle=-1, user_id=-7))),
    ]:
        code, reply = invoke(sid, **command)
        check(name + " of a negative or unknown item handle: OK, success=false",
              code == OK and not reply.success and "unknown item handle" in reply.error_message,
              "%s %r" % (code, reply))
    code, reply = invoke(sid, advise_item_bulk=pb.AdviseItemBulkCommand(server_handle=handle,
                                                                        item_handles=[-1, -2 ** 31, 2 ** 31 - 1]))
    check("AdviseItemBulk of negative and extreme handles: OK, every item failed",
          code == OK and [r.ok for r in reply.advise_item_bulk.results] == [False] * 3, "%s %r" % (code, reply))

    # ---- a client name forging a log line is logged as one escaped line
    before = len(mock.err_lines())
    expect("OpenSession with a forged-line client name: OK", open_session(FORGED_NAME), OK)
    expect("OpenSession with a 1 MiB client name: OK", open_session("n" * (1 << 20)), OK)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and sum(b"opened by" in l for l in mock.err_lines()[before:]) < 2:
        time.sleep(0.05)  # the process boundary: its stderr arrives when it arrives
    new = mock.err_lines()[before:]
    forged = [l for l in new if b"999999" in l]
    check("the forged name prints exactly one line", len(forged) == 1, repr(new))
    check("that line shows the newline and ESC escaped",
          len(forged) == 1 and b"opened by x\\nstormwatch.gateway: fault: STA wedged for 999999 ms\\x1b[31mRED"
          in forged[0], repr(forged))
    check("no line starts with the forged prefix",
          not any(l.startswith(b"stormwatch.gateway: fault: STA wedged for 999999") for l in new), repr(new))
    huge = [l for l in new if b"nnnnnnnn" in l]
    check("a 1 MiB client name logs one short line", len(huge) == 1 and len(huge[0]) < 1024,
          "%d lines, %s bytes" % (len(huge), [len(l) for l in huge]))

    # ---- many concurrent sessions
    n_sessions = 200
    baseline = next(control.WatchStats(mock_pb.WatchStatsRequest(), timeout=t)).sessions
    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        opened = list(pool.map(lambda i: open_session("concurrent-%d" % i), range(n_sessions)))
        ids = [r.session_id for c, r in opened if c == OK]
        check("%d concurrent OpenSessions: all OK, distinct ids" % n_sessions,
              len(ids) == n_sessions and len(set(ids)) == n_sessions, "%d OK" % len(ids))
        regs = list(pool.map(lambda s: invoke(s, register=pb.RegisterCommand(client_name="c")), ids))
        check("a Register on each, concurrently: all OK", all(c == OK and r.success for c, r in regs),
              str([c for c, _ in regs if c != OK][:3]))
        closes = list(pool.map(lambda s: status_of(lambda: gw.CloseSession(pb.CloseSessionRequest(session_id=s),
                                                                          timeout=t)), ids))
        check("closing them all, concurrently: all OK", all(c == OK for c, _ in closes),
              str([c for c, _ in closes if c != OK][:3]))
    after = next(control.WatchStats(mock_pb.WatchStatsRequest(), timeout=t)).sessions
    check("the gateway's session count is back where it was", after == baseline, "%d -> %d" % (baseline, after))

    # ---- cancelled streams and calls
    code, reply = invoke(sid, subscribe_bulk=pb.SubscribeBulkCommand(server_handle=handle, tag_addresses=["Z.B1"]))
    check("SubscribeBulk of one tag: OK", code == OK and reply.success, "%s %r" % (code, reply))
    cancelled = 0
    for i in range(100):
        stream = gw.StreamEvents(pb.StreamEventsRequest(session_id=sid), timeout=t)
        if i % 2:
            try:
                next(stream)  # some after their first batch, some before any
            except grpc.RpcError:
                pass
        stream.cancel()
        try:
            next(stream)
        except grpc.RpcError as e:
            cancelled += e.code() == grpc.StatusCode.CANCELLED
    check("100 event streams cancelled by the client: CANCELLED", cancelled == 100, "%d/100" % cancelled)
    code, event = first_event(sid)
    check("a new event stream still delivers data", code == OK and event.HasField("data_changes"),
          "%s %r" % (code, event))
    expect("wedge the STA for 3 s", status_of(lambda: control.InjectFault(
        mock_pb.FaultRequest(wedge=mock_pb.WedgeFault(duration_s=3)), timeout=t)), OK)
    pending = [gw.Invoke.future(pb.MxCommandRequest(session_id=sid, command=pb.MxCommand(
        register=pb.RegisterCommand())), timeout=t) for _ in range(20)]
    for f in pending:
        f.cancel()
    check("20 Invokes cancelled while queued on the wedged STA", all(f.cancelled() for f in pending), "")
    expect("unwedge", status_of(lambda: control.InjectFault(
        mock_pb.FaultRequest(wedge=mock_pb.WedgeFault(duration_s=0)), timeout=t)), OK)
    expect("an Invoke after the cancellations: OK", invoke(sid, register=pb.RegisterCommand()), OK)

    # ---- the mock's control service with absurd values
    for label, request in [
        ("default_command_timeout_s = 1e308", mock_pb.SetConfigRequest(default_command_timeout_s=1e308)),
        ("default_command_timeout_s = NaN", mock_pb.SetConfigRequest(default_command_timeout_s=float("nan"))),
        ("default_command_timeout_s = 86401", mock_pb.SetConfigRequest(default_command_timeout_s=86401)),
        ("command_ms = -1", mock_pb.SetConfigRequest(command_ms=-1)),
        ("data_hz = inf", mock_pb.SetConfigRequest(data_hz=float("inf"))),
    ]:
        expect("SetConfig " + label + ": INVALID_ARGUMENT", status_of(lambda: control.SetConfig(request, timeout=t)),
               INVALID)
    for label, fault in [
        ("no fault named (unset oneof)", mock_pb.FaultRequest()),
        ("wedge 1e308 s", mock_pb.FaultRequest(wedge=mock_pb.WedgeFault(duration_s=1e308))),
        ("wedge NaN s", mock_pb.FaultRequest(wedge=mock_pb.WedgeFault(duration_s=float("nan")))),
        ("wedge -1 s", mock_pb.FaultRequest(wedge=mock_pb.WedgeFault(duration_s=-1))),
        ("slow x0", mock_pb.FaultRequest(slow=mock_pb.SlowFault(factor=0, duration_s=1))),
        ("drop replies p = 2", mock_pb.FaultRequest(drop_replies=mock_pb.DropRepliesFault(probability=2,
                                                                                          duration_s=1))),
        ("restart down 1e308 s", mock_pb.FaultRequest(restart=mock_pb.RestartFault(downtime_s=1e308))),
    ]:
        expect("InjectFault " + label + ": INVALID_ARGUMENT",
               status_of(lambda: control.InjectFault(fault, timeout=t)), INVALID)
    for interval in (float("nan"), -1.0, 1e308):
        code, stats = status_of(lambda: next(control.WatchStats(mock_pb.WatchStatsRequest(interval_s=interval),
                                                                timeout=t)))
        check("WatchStats every %r s: a first sample" % interval, code == OK, str(code))

    # ---- still up, still serving, then a clean stop
    check("mxgw-mock is still running", mock.alive(), "exit %r" % mock.proc.poll())
    expect("a final OpenSession: OK", open_session("last"), OK)
    check("nothing on stderr carries a raw ESC", not any(b"\x1b" in l for l in mock.err_lines()), "")
    channel.close()
    mock.proc.send_signal(signal.SIGTERM)
    try:
        code = mock.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        mock.proc.kill()
        code = "hung"
    check("SIGTERM stops it with exit 0", code == 0, "exit %r" % code)

    failed = sum(1 for ok, _, _ in results if not ok)
    print("%d passed, %d failed" % (len(results) - failed, failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
