#!/usr/bin/env python3
"""mxgw-mock serving the published MXAccess Gateway contract, driven by a client generated
only from resources/contracts/*.proto (protoc + grpc_python_plugin; Debian's python3-grpcio
and python3-protobuf): code that is not stormwatch's reads what the mock's codec writes.

Starts the built mxgw-mock with --contract on 127.0.0.1 (port 0), then: OpenSession (the
nine published capabilities and no bulk-subscribe-supervisory, the command timeout echoed,
protocol status OK), Register (kind, server handle, correlation id), SubscribeBulk (per-item
SubscribeResult in input order, an unknown tag refused with the gateway's reason),
StreamEvents (one MxEvent per data change, family ON_DATA_CHANGE, worker_sequence contiguous
from 1, handles of the subscribed items; a second subscriber refused; a resume after a
sequence replays from the next one), AdviseSupervisory, a kind that does not match its
payload, a write (not served) and the old package's path (UNIMPLEMENTED). Then a mock with
--api-keys: no key is UNAUTHENTICATED, a key without invoke:read opens a session but its
Invoke is PERMISSION_DENIED, naming the scope and never the secret.

Prints one line per check and ends with "N passed, M failed"; exit status 1 on a failure.

  published_contract.py --mxgw-mock PATH --contracts DIR --out DIR [--protoc P] [--grpc-python-plugin P]
"""

import argparse
import importlib
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

RPC_TIMEOUT_S = 10
PUBLISHED_CAPABILITIES = {
    "unary-open-session", "unary-close-session", "unary-invoke", "server-stream-events",
    "bulk-subscribe-commands", "bulk-read-commands", "bulk-write-commands",
    "unary-acknowledge-alarm", "server-stream-active-alarms",
}

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else ": " + str(detail)), flush=True)
    return ok


def generate_stubs(args):
    protoc = args.protoc or shutil.which("protoc")
    plugin = args.grpc_python_plugin or shutil.which("grpc_python_plugin")
    if not protoc or not plugin:
        sys.exit("published_contract: protoc and grpc_python_plugin are needed")
    os.makedirs(args.out, exist_ok=True)
    protos = sorted(p for p in os.listdir(args.contracts) if p.endswith(".proto"))
    includes = ["-I", "."]
    if os.path.isdir("/usr/include/google/protobuf"):
        includes += ["-I", "/usr/include"]
    subprocess.run([protoc, *includes, "--python_out=" + args.out, "--grpc_python_out=" + args.out,
                    "--plugin=protoc-gen-grpc_python=" + plugin, *protos], check=True, cwd=args.contracts)
    sys.path.insert(0, args.out)


def start_mock(path, contract, unknown_file, extra=()):
    proc = subprocess.Popen([path, "--listen", "127.0.0.1:0", "--data-hz", "20", "--contract", contract,
                             "--unknown-tags", unknown_file, *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True).start()
    try:
        line = lines.get(timeout=20)
    except queue.Empty:
        line = b""
    match = re.fullmatch(rb"listening on 127\.0\.0\.1:(\d+)\n", line)
    if not match:
        proc.kill()
        sys.exit("published_contract: mxgw-mock did not announce its port: %r" % line)
    return proc, int(match.group(1))


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def status_of(call):
    import grpc
    try:
        return grpc.StatusCode.OK, call()
    except grpc.RpcError as e:
        return e.code(), e.details() or ""


def check_api_keys(args, pb, rpc, unknown_file):
    import grpc
    keys = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    keys.write("# key scopes\nmxgw_reader_s3cret session:open,session:close,events:read\n")
    keys.close()
    proc, port = start_mock(args.mxgw_mock, os.path.join(args.contracts, "mxaccess-gateway-v1.proto"), unknown_file,
                            ("--api-keys", keys.name))
    try:
        stub = rpc.MxAccessGatewayStub(grpc.insecure_channel("127.0.0.1:%d" % port))
        code, detail = status_of(lambda: stub.OpenSession(pb.OpenSessionRequest(), timeout=RPC_TIMEOUT_S))
        check("no API key: UNAUTHENTICATED", code == grpc.StatusCode.UNAUTHENTICATED, (code, detail))
        key = (("authorization", "Bearer mxgw_reader_s3cret"),)
        code, opened = status_of(lambda: stub.OpenSession(pb.OpenSessionRequest(), timeout=RPC_TIMEOUT_S, metadata=key))
        check("a key with session:open opens a session", code == grpc.StatusCode.OK, (code, opened))
        if code != grpc.StatusCode.OK:
            return
        request = pb.MxCommandRequest(session_id=opened.session_id, client_correlation_id="py-k",
                                      command=pb.MxCommand(kind=pb.MX_COMMAND_KIND_REGISTER,
                                                           register=pb.RegisterCommand(client_name="python")))
        code, detail = status_of(lambda: stub.Invoke(request, timeout=RPC_TIMEOUT_S, metadata=key))
        check("a key without invoke:read: PERMISSION_DENIED naming the scope, not the secret",
              code == grpc.StatusCode.PERMISSION_DENIED and "invoke:read" in detail and "s3cret" not in detail,
              (code, detail))
    finally:
        stop(proc)
        os.unlink(keys.name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mxgw-mock", required=True)
    parser.add_argument("--contracts", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--protoc")
    parser.add_argument("--grpc-python-plugin")
    args = parser.parse_args()
    for name in ("mxgw_mock", "contracts", "out"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    generate_stubs(args)
    import grpc
    pb = importlib.import_module("mxaccess_gateway_v1_pb2")
    rpc = importlib.import_module("mxaccess_gateway_v1_pb2_grpc")

    unknown = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    unknown.write("Area1.Missing.PV\n")
    unknown.close()
    proc, port = start_mock(args.mxgw_mock, os.path.join(args.contracts, "mxaccess-gateway-v1.proto"), unknown.name)
    try:
        channel = grpc.insecure_channel("127.0.0.1:%d" % port)
        stub = rpc.MxAccessGatewayStub(channel)
        OK = pb.PROTOCOL_STATUS_CODE_OK

        req = pb.OpenSessionRequest(client_session_name="python-client")
        req.command_timeout.seconds = 7
        code, opened = status_of(lambda: stub.OpenSession(req, timeout=RPC_TIMEOUT_S))
        if not check("OpenSession answers", code == grpc.StatusCode.OK, code):
            return
        check("a session id", opened.session_id != "", opened)
        check("the nine published capabilities, no bulk-subscribe-supervisory",
              set(opened.capabilities) == PUBLISHED_CAPABILITIES, list(opened.capabilities))
        check("the command timeout echoed", opened.default_command_timeout.seconds == 7, opened.default_command_timeout)
        check("protocol status OK at OpenSession", opened.protocol_status.code == OK, opened.protocol_status)
        session = opened.session_id

        def invoke(kind, correlation, **payload):
            command = pb.MxCommand(kind=kind, **payload)
            return status_of(lambda: stub.Invoke(pb.MxCommandRequest(session_id=session, client_correlation_id=correlation,
                                                                     command=command), timeout=RPC_TIMEOUT_S))

        code, reg = invoke(pb.MX_COMMAND_KIND_REGISTER, "py-1", register=pb.RegisterCommand(client_name="python"))
        check("Register answers OK", code == grpc.StatusCode.OK and reg.protocol_status.code == OK, (code, reg))
        check("Register gives a server handle", code == grpc.StatusCode.OK and reg.register.server_handle > 0, reg)
        check("the correlation id is echoed", code == grpc.StatusCode.OK and reg.correlation_id == "py-1", reg)
        handle = reg.register.server_handle if code == grpc.StatusCode.OK else 0

        tags = ["Area1.Pump.PV", "Area1.Missing.PV", "Area1.Pump.SP"]
        code, sub = invoke(pb.MX_COMMAND_KIND_SUBSCRIBE_BULK, "py-2",
                           subscribe_bulk=pb.SubscribeBulkCommand(server_handle=handle, tag_addresses=tags))
        ok = code == grpc.StatusCode.OK
        check("SubscribeBulk answers OK", ok and sub.protocol_status.code == OK, (code, sub))
        results_ = list(sub.subscribe_bulk.results) if ok else []
        check("one SubscribeResult per tag, in input order", [r.tag_address for r in results_] == tags, results_)
        check("the unknown tag refused with the gateway's reason",
              len(results_) == 3 and not results_[1].was_successful
              and results_[1].error_message == "item not found: Area1.Missing.PV", results_)
        good = {r.item_handle for r in results_ if r.was_successful}
        check("the known tags succeed with item handles", len(good) == 2 and all(h > 0 for h in good), results_)

        stream = stub.StreamEvents(pb.StreamEventsRequest(session_id=session), timeout=RPC_TIMEOUT_S)
        events = []
        try:
            for event in stream:
                events.append(event)
                if len(events) == 1:
                    second = stub.StreamEvents(pb.StreamEventsRequest(session_id=session), timeout=RPC_TIMEOUT_S)
                    code, detail = status_of(lambda: next(iter(second)))
                    check("a second event subscriber is refused",
                          code == grpc.StatusCode.FAILED_PRECONDITION and "EventSubscriberAlreadyActive" in detail,
                          (code, detail))
                if len(events) >= 12:
                    break
        finally:
            stream.cancel()
        check("events arrive", len(events) >= 12, len(events))
        check("one data change per event", all(e.family == pb.MX_EVENT_FAMILY_ON_DATA_CHANGE for e in events), events[:2])
        sequences = [e.worker_sequence for e in events]
        check("worker_sequence counts from 1 without a gap", sequences == list(range(1, len(events) + 1)), sequences)
        check("each event names a subscribed item", all(e.item_handle in good for e in events),
              [e.item_handle for e in events])
        check("values and qualities are set", all(e.quality == 192 and e.HasField("value") for e in events), events[:1])

        code, adv = invoke(pb.MX_COMMAND_KIND_ADVISE_SUPERVISORY, "py-3",
                           advise_supervisory=pb.AdviseSupervisoryCommand(server_handle=handle, item_handle=min(good)))
        check("AdviseSupervisory answers with a protocol status", code == grpc.StatusCode.OK, (code, adv))

        code, detail = invoke(pb.MX_COMMAND_KIND_REGISTER, "py-4",
                              add_item_bulk=pb.AddItemBulkCommand(server_handle=handle, tag_addresses=["A.B"]))
        check("a kind that does not match its payload is refused", code == grpc.StatusCode.INVALID_ARGUMENT, (code, detail))

        code, detail = invoke(pb.MX_COMMAND_KIND_WRITE, "py-5",
                              write=pb.WriteCommand(server_handle=handle, item_handle=min(good),
                                                    value=pb.MxValue(double_value=1.0)))
        check("a write is not served", code == grpc.StatusCode.INVALID_ARGUMENT and "write" in detail, (code, detail))

        # The cancelled stream leaves the gateway on its own time: a resume sent before that is
        # the second subscriber, refused; asked again, it is taken.
        first = None
        for _ in range(50):
            resume = stub.StreamEvents(pb.StreamEventsRequest(session_id=session, after_worker_sequence=5),
                                       timeout=RPC_TIMEOUT_S)
            code, first = status_of(lambda: next(iter(resume)))
            resume.cancel()
            if code != grpc.StatusCode.FAILED_PRECONDITION:
                break
            time.sleep(0.05)
        check("a resume after 5 replays from worker_sequence 6",
              code == grpc.StatusCode.OK and first.worker_sequence == 6, (code, first))

        old = channel.unary_unary("/mxgateway.v1.MxAccessGateway/OpenSession",
                                  request_serializer=lambda m: m.SerializeToString(),
                                  response_deserializer=pb.OpenSessionReply.FromString)
        code, detail = status_of(lambda: old(pb.OpenSessionRequest(), timeout=RPC_TIMEOUT_S))
        check("stormwatch's own package is not served beside it", code == grpc.StatusCode.UNIMPLEMENTED, code)

        code, _ = status_of(lambda: stub.CloseSession(pb.CloseSessionRequest(session_id=session), timeout=RPC_TIMEOUT_S))
        check("CloseSession answers", code == grpc.StatusCode.OK, code)
        check("the mock is still up", proc.poll() is None)
        check_api_keys(args, pb, rpc, unknown.name)
    finally:
        stop(proc)
        os.unlink(unknown.name)
        passed = sum(results)
        print("%d passed, %d failed" % (passed, len(results) - passed), flush=True)
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
