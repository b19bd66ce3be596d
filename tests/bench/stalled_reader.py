#!/usr/bin/env python3
"""bench: mxgw-mock's resident memory with a stalled reader.

Starts mxgw-mock, opens StreamEvents on a channel of its own and never reads it, subscribes
TAGS items at HZ, and prints the mock's VmRSS while it offers TAGS x HZ updates/s, after the
stream is cancelled, and the GatewayStats backlog counters. Prints figures; not a test.
Needs Debian's python3-grpcio, protoc and grpc_python_plugin (stubs generated from proto/).

  /usr/bin/python3 tests/bench/stalled_reader.py build/app/mxgw-mock [TAGS [HZ [SECONDS]]]
"""
import os, shutil, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
proto = os.path.join(here, '..', '..', 'proto')
out = tempfile.mkdtemp(prefix='stalled_reader_')
subprocess.check_call(['protoc', '-I' + proto, '--python_out=' + out, '--grpc_out=' + out,
                       '--plugin=protoc-gen-grpc=' + shutil.which('grpc_python_plugin'),
                       os.path.join(proto, 'mxaccess_gateway.proto'), os.path.join(proto, 'mock_control.proto')])
sys.path.insert(0, out)
import grpc  # noqa: E402
import mxaccess_gateway_pb2 as pb, mxaccess_gateway_pb2_grpc as pg  # noqa: E402
import mock_control_pb2 as mc, mock_control_pb2_grpc as mg  # noqa: E402
mock = sys.argv[1]
tags = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
hz = sys.argv[3] if len(sys.argv) > 3 else '10'
secs = float(sys.argv[4]) if len(sys.argv) > 4 else 30
p = subprocess.Popen([mock, '--listen', '127.0.0.1:0', '--data-hz', hz, '--command-ms', '1', '--per-item-ms', '0.001'],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = p.stdout.readline().strip().rsplit(':', 1)[1]
def rss():
    for l in open(f'/proc/{p.pid}/status'):
        if l.startswith('VmRSS'): return int(l.split()[1]) / 1024
ch = grpc.insecure_channel('127.0.0.1:' + port)
gw, ctl = pg.MxAccessGatewayStub(ch), mg.MockGatewayControlStub(ch)
sid = gw.OpenSession(pb.OpenSessionRequest(client_name='stall')).session_id
sh = gw.Invoke(pb.MxCommandRequest(session_id=sid, command=pb.MxCommand(register=pb.RegisterCommand(client_name='s')))).register.server_handle
stalled = grpc.insecure_channel('127.0.0.1:' + port, options=[('grpc.http2.bdp_probe', 0)])
stream = pg.MxAccessGatewayStub(stalled).StreamEvents(pb.StreamEventsRequest(session_id=sid))  # never read
time.sleep(0.3)
cmd = pb.MxCommand(subscribe_bulk=pb.SubscribeBulkCommand(server_handle=sh, tag_addresses=[f'T.A{i}' for i in range(tags)], supervisory=True))
gw.Invoke(pb.MxCommandRequest(session_id=sid, command=cmd), timeout=30)
print(f'{tags} items at {hz} Hz, stream never read')
print(f'start rss {rss():.0f} MB')
t0 = time.time()
while time.time() - t0 < secs:
    time.sleep(secs / 6)
    print(f't={time.time()-t0:4.0f}s rss {rss():.0f} MB')
stream.cancel()
time.sleep(2)
print(f'after cancel rss {rss():.0f} MB')
w = ctl.WatchStats(mc.WatchStatsRequest(interval_s=0))
s = next(w); w.cancel()
print('stats: backlog', s.stream_backlog_messages, 'max', s.max_stream_backlog_messages, 'items', s.stream_backlog_items,
      'max items', s.max_stream_backlog_items, 'overflows', s.stream_overflows, 'coalesced', s.stream_updates_coalesced,
      'dropped', s.stream_updates_dropped, 'sent', s.data_changes_sent)
p.terminate()
p.wait()
shutil.rmtree(out, ignore_errors=True)
