"""The peer side of scripts/compare-peers.sh: msal-extensions' PersistedTokenCache on libsecret.

`raw --count N`: libsecret's own store rate on the default collection (N stores of new items
with distinct attributes, then a clear).
`floor --creates N --shard S`: gnome-keyring's raw CreateItem rate, the floor a keychain write
stands on: N plain `org.freedesktop.Secret.Collection.CreateItem` calls, S to a fresh collection
(SharedKeychain's shard size), with attributes and secrets the size of SharedKeychain's, each
timed; the collections are deleted after. Prints the rate, the p50 of one call and every call's time.
`floor --creates N --shard S --writers W`: the same N calls made by W processes side by side (each
to collections of its own, starting together): the rate is N over the time from the first call's
start to the last one's end, the daemon's and the machine's own drop under W writers.
`cache --prefill K --out FILE`: MSAL Python's serialized cache with K accounts, to import.
`run --processes N --additions M --prefill K --work DIR` prefills one libsecret-backed cache
with K accounts (not timed), then starts N processes that together add M new accounts' tokens
through PersistedTokenCache (each addition: lock file, reload the blob, add, write the whole
blob back). Prints one JSON object: processes, additions made, seconds, rate, failures by kind.
Start-up failures (msal-extensions' self-test probe, which concurrent starts clobber) are counted
apart, as they happen. Never prints a token.
"""
import argparse
import json
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msal_cache  # noqa: E402  (the token responses MSAL Python's interop test uses)

SCHEMA = "org.sharedkeychain.peer.msalextensions"


def persistence(work):
    from msal_extensions import LibsecretPersistence
    return LibsecretPersistence(os.path.join(work, "cache.bin"), schema_name=SCHEMA, attributes={"run": work})


def event(index):
    username = "peer%d@contoso.com" % index
    oid = "00000000-0000-4000-8000-%012d" % index
    return {"client_id": msal_cache.CLIENT_ID, "scope": msal_cache.SCOPES,
            "token_endpoint": msal_cache.AUTHORITY + "/oauth2/v2.0/token",
            "response": msal_cache.response(username, oid), "grant_type": "authorization_code",
            "environment": "login.microsoftonline.com"}


def prefill(work, count):
    import msal
    cache = msal.SerializableTokenCache()
    for index in range(count):
        cache.add(event(1_000_000 + index), now=msal_cache.NOW)
    persistence(work).save(cache.serialize())
    return len(cache.serialize())


def worker(work, first, count, start_at, results):
    from msal_extensions import PersistedTokenCache
    failures = {}
    try:
        cache = PersistedTokenCache(persistence(work))
    except Exception as error:  # the self-test probe another process clobbered, say
        results.put({"added": 0, "failures": {"startup: " + type(error).__name__: 1}, "end": time.time()})
        return
    while time.time() < start_at:
        time.sleep(0.001)
    added = 0
    for index in range(first, first + count):
        try:
            cache.add(event(index), now=msal_cache.NOW)
            added += 1
        except Exception as error:  # LockError after msal-extensions' own retries, say
            name = type(error).__name__
            failures[name] = failures.get(name, 0) + 1
    results.put({"added": added, "failures": failures, "end": time.time()})


def run(processes, additions, prefill_count, work):
    blob = prefill(work, prefill_count)
    context = multiprocessing.get_context("spawn")  # no GLib state crosses a fork
    results = context.Queue()
    per_process = additions // processes
    start_at = time.time() + 2.0  # every process constructed before the clock starts
    children = [context.Process(target=worker, args=(work, p * per_process, per_process, start_at, results))
                for p in range(processes)]
    for child in children:
        child.start()
    reports = [results.get() for _ in children]
    for child in children:
        child.join()
    seconds = max(r["end"] for r in reports) - start_at
    failures = {}
    for report in reports:
        for name, count in report["failures"].items():
            failures[name] = failures.get(name, 0) + count
    added = sum(r["added"] for r in reports)
    return {"peer": "msal-extensions", "processes": processes, "additions": per_process * processes, "added": added,
            "prefill": prefill_count, "blobBytes": blob, "seconds": round(seconds, 3),
            "rate": round(added / seconds, 2) if seconds > 0 else 0, "failures": failures}


def serialized_cache(count, path):
    import msal
    cache = msal.SerializableTokenCache()
    for index in range(count):
        cache.add(event(2_000_000 + index), now=msal_cache.NOW)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
        out.write(cache.serialize())
    return {"accounts": count, "bytes": os.path.getsize(path)}


def floor(creates, shard):
    import raw_floor  # gnome-keyring's own CreateItem rate, shared with scripts/scale.py
    return raw_floor.floor(creates, shard)


def floor_writer(creates, shard, start_at, results):
    while time.time() < start_at:
        time.sleep(0.001)
    results.put(floor(creates, shard))


def concurrent_floor(creates, shard, writers):
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    start_at = time.time() + 2.0  # every writer started before the first call
    children = [context.Process(target=floor_writer, args=(creates // writers, shard, start_at, results)) for _ in range(writers)]
    for child in children:
        child.start()
    halves = [results.get() for _ in children]
    for child in children:
        child.join()
    timings = sorted(t for half in halves for t in half["timingsMs"])
    seconds = max(h["endedAt"] for h in halves) - min(h["startedAt"] for h in halves)
    return {"floor": "CreateItem", "writers": writers, "creates": len(timings), "shard": shard, "seconds": round(seconds, 3),
            "rate": round(len(timings) / seconds, 2) if seconds > 0 else 0,
            "p50ms": round(timings[len(timings) // 2], 3) if timings else 0, "timingsMs": timings}


def raw(count):
    import gi
    gi.require_version("Secret", "1")
    from gi.repository import Secret
    schema = Secret.Schema.new(SCHEMA + ".raw", Secret.SchemaFlags.NONE,
                               {"n": Secret.SchemaAttributeType.STRING, "run": Secret.SchemaAttributeType.STRING})
    run_id = str(os.getpid())
    start = time.time()
    for index in range(count):
        Secret.password_store_sync(schema, {"n": str(index), "run": run_id}, Secret.COLLECTION_DEFAULT,
                                   "raw %d" % index, "x" * 1200, None)
    seconds = time.time() - start
    Secret.password_clear_sync(schema, {"run": run_id}, None)
    return {"peer": "libsecret", "stores": count, "seconds": round(seconds, 3), "rate": round(count / seconds, 2)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["run", "raw", "floor", "cache"])
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--additions", type=int, default=40)
    parser.add_argument("--prefill", type=int, default=0)
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--work")
    parser.add_argument("--creates", type=int, default=256)
    parser.add_argument("--shard", type=int, default=32)
    parser.add_argument("--writers", type=int, default=1)
    parser.add_argument("--out")
    arguments = parser.parse_args()
    if arguments.command == "raw":
        print(json.dumps(raw(arguments.count)))
    elif arguments.command == "floor":
        if arguments.writers > 1:
            print(json.dumps(concurrent_floor(arguments.creates, arguments.shard, arguments.writers)))
        else:
            print(json.dumps(floor(arguments.creates, arguments.shard)))
    elif arguments.command == "cache":
        print(json.dumps(serialized_cache(arguments.prefill, arguments.out)))
    else:
        print(json.dumps(run(arguments.processes, arguments.additions, arguments.prefill, arguments.work)))
