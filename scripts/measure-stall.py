#!/usr/bin/env python3
"""How long a serving node keeps small requests waiting while it answers large ones.

Usage: measure-stall.py URL TOKEN_FILE PATH [PATH ...]
       measure-stall.py URL TOKEN_FILE --pages snapshot|changes [PAGE_SIZE]

A probe asks `GET /log?from=0&max_bytes=100` every 10 ms. The large requests (PATHs, sent
at once, e.g. `/snapshot` and `/changes?since=0`) run meanwhile; the script prints each
one's time and size and the probe's median and worst latency before and during them.
With --pages it walks a whole paged answer (`/snapshot?page_changes=N`, or
`/changes?since=V&limit=N`) instead and reports pages, bytes, total and slowest page.
Start the node with `logbook serve DIR --port P --token-file TOKEN_FILE`, release build.
"""
import statistics
import sys
import threading
import time
import urllib.parse
import urllib.request


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    base, token_file = sys.argv[1].rstrip("/"), sys.argv[2]
    token = open(token_file).read().strip()
    headers = {"Authorization": "Bearer " + token}

    def get(path):
        started = time.monotonic()
        with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers)) as r:
            size = len(r.read())
            return time.monotonic() - started, size, r.headers

    latencies, stop = [], threading.Event()

    def probe():
        while not stop.is_set():
            latencies.append(get("/log?from=0&max_bytes=100")[0])
            time.sleep(0.01)

    for _ in range(20):
        get("/log?from=0&max_bytes=100")
    prober = threading.Thread(target=probe)
    prober.start()
    time.sleep(0.5)
    before = list(latencies)
    latencies.clear()
    started = time.monotonic()
    if sys.argv[3] == "--pages":
        kind = sys.argv[4] if len(sys.argv) > 4 else "snapshot"
        size = int(sys.argv[5]) if len(sys.argv) > 5 else 10000
        pages, total, slowest, position = 0, 0, 0.0, None
        while True:
            if kind == "snapshot":
                path = f"/snapshot?page_changes={size}"
                if position is not None:
                    path += "&after=" + position  # already percent-encoded by the node
            else:
                path = f"/changes?since={position or 0}&limit={size}"
            took, length, answer = get(path)
            pages, total, slowest = pages + 1, total + length, max(slowest, took)
            position = answer.get("Logbook-Snapshot-After" if kind == "snapshot" else "Logbook-Next-Since")
            if position is None:
                break
        print(f"{kind} in pages of {size}: {pages} pages, {total} bytes, "
              f"{time.monotonic() - started:.2f} s, slowest page {slowest:.2f} s")
    else:
        results = []

        def run(path):
            took, length, _ = get(path)
            results.append((path, took, length))

        workers = [threading.Thread(target=run, args=(path,)) for path in sys.argv[3:]]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        for path, took, length in results:
            print(f"{path}: {took:.2f} s, {length} bytes")
    stop.set()
    prober.join()
    print(f"probe before: median {statistics.median(before) * 1000:.1f} ms; during: "
          f"{len(latencies)} probes, median {statistics.median(latencies) * 1000:.1f} ms, "
          f"worst {max(latencies) * 1000:.0f} ms")


main()
