#!/usr/bin/env python3
"""Floods a running navhostd with unfinished messages and reports its memory (docs/robustness.md, "Limits").

Opens COUNT connections to SOCKET and sends on each the start of a call, `{"method":"org.varlink.service.GetInfo"`,
then SIZE bytes of spaces, never the NUL that would end it, round robin in 64 KiB writes, for at most 30 s. Prints the
daemon's resident memory (VmRSS of PID) before and at its highest while the flood runs, how many connections the
daemon closed, how long a `navctl stack` takes right after, and how many connections are still open 3 s later.

Usage: unfinished-message-flood.py SOCKET PID COUNT SIZE     (NAVCTL names the navctl to time; default: on PATH)

Example, against a debug build with the default limit and with the limit out of the way:

    navhostd --socket /tmp/f/nav.sock --state-dir /tmp/f/state --plugins .build/debug/plugins &
    Benchmarks/Profiling/unfinished-message-flood.py /tmp/f/nav.sock $! 1000 1000000
"""
import os
import socket
import subprocess
import sys
import time


def resident_kib(pid, field="VmRSS:"):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, pid, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    print(f"daemon resident before: {resident_kib(pid)} KiB")
    connections = []
    for _ in range(count):
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        connection.setblocking(False)
        connection.send(b'{"method":"org.varlink.service.GetInfo"')
        connections.append(connection)
    sent = [0] * count
    closed = 0
    peak = 0
    chunk = b" " * 65536
    start = time.monotonic()
    while time.monotonic() - start < 30:
        waiting = [i for i, c in enumerate(connections) if c is not None and sent[i] < size]
        if not waiting:
            break
        for i in waiting:
            try:
                sent[i] += connections[i].send(chunk[: min(len(chunk), size - sent[i])])
            except BlockingIOError:
                pass
            except OSError:
                connections[i] = None
                closed += 1
        peak = max(peak, resident_kib(pid))
    print(f"sent {sum(sent)} bytes in {time.monotonic() - start:.2f} s; closed by the daemon meanwhile: {closed}")
    began = time.monotonic()
    stack = subprocess.run([os.environ.get("NAVCTL", "navctl"), "--socket", path, "stack"], capture_output=True)
    print(f"navctl stack right after: exit {stack.returncode} in {time.monotonic() - began:.2f} s")
    print(f"daemon resident at its highest seen: {peak} KiB (VmHWM {resident_kib(pid, 'VmHWM:')} KiB)")
    time.sleep(3)
    still_open = 0
    for connection in connections:
        if connection is None:
            continue
        try:
            if connection.recv(1) == b"":
                continue
        except BlockingIOError:
            still_open += 1
        except OSError:
            continue
    print(f"3 s later: {resident_kib(pid)} KiB resident, {still_open} connections still open")


if __name__ == "__main__":
    main()
