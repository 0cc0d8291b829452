"""Measures what issue 32 asks of big groups, side by side in one run on one private keyring
(driven by scripts/scale.sh, which builds and starts the keyring):

1. one-item `item add/get/update/delete`, each its own CLI process, in a group of each size,
   the runs interleaved between the sizes (so a drifting machine weighs on every size alike);
2. whole-group `restore`, `snapshot` and `item list --json` at default settings: wall time,
   items a second, max RSS (the child's rusage) against the size of the data, and beside them
   gnome-keyring's own rate for the same calls in the same daemon state (CreateItem into fresh
   collections of 32, as restore fills shards; SearchItems + GetSecrets for list and snapshot).

Usage: scale.py BIN STATE_DIR WORK_DIR  (environment: SIZES, RUNS, FLOOR_CREATES)
"""
import base64
import json
import os
import statistics
import subprocess
import sys
import time

import gi  # noqa: F401  (Debian's python3-gi, for the raw daemon calls)
from gi.repository import GLib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "interop"))
import raw_floor  # noqa: E402  (gnome-keyring's CreateItem rate, as compare-peers.sh measures it)
from secret_bus import ROOT, SecretBus  # noqa: E402

bin_path, state, work = sys.argv[1:4]
sizes = [int(s) for s in os.environ.get("SIZES", "10 10000").split()]
runs = int(os.environ.get("RUNS", "15"))
floor_creates = int(os.environ.get("FLOOR_CREATES", "1024"))
team = "SCALE00001"
env = dict(os.environ, SHARED_KEYCHAIN_STATE_DIR=state)


def app(size):
    return "com.example.scale%d" % size


def group(size):
    return "%s.%s" % (team, app(size))


def run(arguments, check=True):
    """Runs the CLI once: (seconds, stdout bytes)."""
    start = time.perf_counter()
    process = subprocess.Popen([bin_path] + arguments, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate()
    seconds = time.perf_counter() - start
    if check and process.returncode != 0:
        raise SystemExit("scale: %s failed (%d): %s" % (" ".join(arguments), process.returncode, err.decode()[-400:]))
    return seconds, out


def run_rss(arguments):
    """Runs the CLI once with its stdout to a file: (seconds, max RSS kB, exit code)."""
    with open(os.path.join(work, "out"), "wb") as out, open(os.path.join(work, "err"), "wb") as err:
        start = time.perf_counter()
        process = subprocess.Popen([bin_path] + arguments, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss, code


def snapshot_file(size):
    items = [{"accessibility": "whenUnlocked", "account": "user%05d@contoso.com" % i, "creationDate": 817552881.0 + i,
              "data": base64.b64encode(("refresh-token-%05d-" % i).encode() + b"x" * 200).decode(), "group": group(size),
              "modificationDate": 817552881.0 + i, "provenance": {"addedBy": app(size)}, "service": "svc",
              "synchronizable": False, "version": 1} for i in range(size)]
    path = os.path.join(work, "fill-%d.json" % size)
    with open(path, "w") as file:
        json.dump({"format": 1, "group": group(size), "items": items, "takenAt": 817552882.0}, file)
    return path


CLIENT_ID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"
TENANT = "2fa1062c-61da-81ff-9cc7-620982cb378b"


def cache_group(size):
    return "%s.com.example.cache%d" % (team, size)


def cache_app(size):
    """The app that imports and exports the MSAL cache of `size` items, with its entitlements."""
    plist = os.path.join(work, "cache-%d.entitlements" % size)
    with open(plist, "w") as file:
        file.write('<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>keychain-access-groups</key>'
                   '<array><string>%s</string></array></dict></plist>\n' % cache_group(size))
    return ["--app", "com.example.cache%d" % size, "--team", team, "--entitlements", plist, "--client-id", CLIENT_ID,
            "--sharing-group", cache_group(size)]


def msal_cache_file(size):
    """An MSAL Python cache of size/4 accounts (an account, access, refresh and ID token each), in
    the shape scripts/interop/msal_cache.py has MSAL Python write: keys and fields as MSAL's."""
    def b64(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    cache = {"AccessToken": {}, "Account": {}, "IdToken": {}, "RefreshToken": {}, "AppMetadata": {}}
    environment, now, scopes = "login.microsoftonline.com", 1_764_000_000, "calendars.read user.read"
    for index in range(size // 4):
        oid = "%08x-0000-4000-8000-%012x" % (index, index)
        home = "%s.%s" % (oid, TENANT)
        username = "user%05d@contoso.com" % index
        claims = {"aud": CLIENT_ID, "iss": "https://login.microsoftonline.com/%s/v2.0" % TENANT, "iat": now, "exp": now + 3600,
                  "oid": oid, "sub": oid, "tid": TENANT, "preferred_username": username, "name": "User %d" % index}
        cache["AccessToken"]["%s-%s-accesstoken-%s-%s-%s" % (home, environment, CLIENT_ID, TENANT, scopes)] = {
            "credential_type": "AccessToken", "secret": "at-%05d-" % index + "a" * 1200, "home_account_id": home,
            "environment": environment, "client_id": CLIENT_ID, "target": scopes, "realm": TENANT, "token_type": "Bearer",
            "cached_at": str(now), "expires_on": str(now + 3600), "extended_expires_on": str(now + 7200)}
        cache["Account"]["%s-%s-%s" % (home, environment, TENANT)] = {
            "home_account_id": home, "environment": environment, "realm": TENANT, "local_account_id": oid,
            "username": username, "authority_type": "MSSTS", "account_source": "authorization_code"}
        cache["IdToken"]["%s-%s-idtoken-%s-%s-" % (home, environment, CLIENT_ID, TENANT)] = {
            "credential_type": "IdToken", "secret": ".".join([b64({"alg": "none", "typ": "JWT"}), b64(claims), ""]),
            "home_account_id": home, "environment": environment, "realm": TENANT, "client_id": CLIENT_ID}
        cache["RefreshToken"]["%s-%s-refreshtoken-%s--%s" % (home, environment, CLIENT_ID, scopes)] = {
            "credential_type": "RefreshToken", "secret": "rt-%05d-" % index + "r" * 400, "home_account_id": home,
            "environment": environment, "client_id": CLIENT_ID, "target": scopes, "last_modification_time": str(now)}
    path = os.path.join(work, "msal-%d.json" % size)
    with open(path, "w") as file:
        json.dump(cache, file)
    return path


# Raw daemon calls, on the same bus.
daemon = SecretBus(timeout_ms=600_000)
session = daemon.session


def call(path, interface, method, arguments, reply):
    return daemon.call(path, interface, method, arguments, reply).unpack()


def raw_create_rate(creates, shard=32):
    """CreateItem into fresh collections of `shard` items, as restore fills shards: (calls, seconds)."""
    measured = raw_floor.floor(creates, shard, secret_size=700)
    return measured["creates"], measured["seconds"]


def raw_read_rate(size, access_group=None):
    """SearchItems for the group, then GetSecrets of every item in batches of 1,000: items/s."""
    start = time.perf_counter()
    unlocked, locked = call(ROOT, "org.freedesktop.Secret.Service", "SearchItems",
                            GLib.Variant("(a{ss})", ({"access-group": access_group or group(size)},)), "(aoao)")
    for index in range(0, len(unlocked), 1000):
        call(ROOT, "org.freedesktop.Secret.Service", "GetSecrets",
             GLib.Variant("(aoo)", (unlocked[index:index + 1000], session)), "(a{o(oayays)})")
    seconds = time.perf_counter() - start
    return len(unlocked) / seconds if seconds else 0, len(unlocked)


rows = []
print("== fill: one `restore` per group (default settings), beside raw CreateItem before and after", flush=True)
# The daemon slows as it holds more items (gnome-keyring walks them all to find one), so its
# rate is measured before the fill and after it, and the two pooled: the restores run between.
floor_before = raw_create_rate(floor_creates)
for size in sizes:
    path = snapshot_file(size)
    seconds, rss, code = run_rss(["restore", "--admin", "--input", path])
    if code != 0:
        raise SystemExit("scale: restore of %d items failed (%d): %s" % (size, code, open(os.path.join(work, "err")).read()[-400:]))
    data = os.path.getsize(path)
    rows.append(("restore", size, seconds, size / seconds, rss, data))
print("== MSAL caches: `cache import` of each size (default settings)", flush=True)
for size in sizes:
    path = msal_cache_file(size)
    seconds, rss, code = run_rss(["cache", "import"] + cache_app(size) + ["--input", path])
    if code != 0:
        raise SystemExit("scale: cache import of %d items failed (%d): %s" % (size, code, open(os.path.join(work, "err")).read()[-400:]))
    entries = size // 4 * 4  # four entries an account
    rows.append(("cache import", entries, seconds, entries / seconds, rss, os.path.getsize(path)))
floor_after = raw_create_rate(floor_creates)
floor = (floor_before[0] + floor_after[0]) / (floor_before[1] + floor_after[1])

print("== one-item calls, %d runs each, interleaved between the groups" % runs, flush=True)
timings = {(size, call_name): [] for size in sizes for call_name in ("get", "add", "update", "delete")}
for index in range(runs):
    for size in sizes:
        who = ["--app", app(size), "--team", team]
        account = "probe-%d@contoso.com" % index
        existing = "user%05d@contoso.com" % ((index * 7919) % size)
        for call_name, arguments in (
            ("get", ["item", "get"] + who + ["--account", existing, "--service", "svc"]),
            ("add", ["item", "add"] + who + ["--account", account, "--service", "svc", "--data", "probe"]),
            ("update", ["item", "update"] + who + ["--account", account, "--service", "svc", "--new-label", "l%d" % index]),
            ("delete", ["item", "delete"] + who + ["--account", account, "--service", "svc"]),
        ):
            seconds, _ = run(arguments)
            timings[(size, call_name)].append(seconds)

print("== whole-group reads at default settings, beside raw SearchItems + GetSecrets", flush=True)
raw_reads = {}
for size in sizes:
    raw_reads[size] = raw_read_rate(size)[0]
    out_path = os.path.join(work, "snap-%d.json" % size)
    seconds, rss, code = run_rss(["snapshot", "--admin", "--group", group(size), "--output", out_path])
    rows.append(("snapshot", size, seconds if code == 0 else None, size / seconds if code == 0 else 0, rss,
                 os.path.getsize(out_path) if code == 0 else 0))
    seconds, rss, code = run_rss(["item", "list", "--json", "--app", app(size), "--team", team])
    rows.append(("item list --json", size, seconds if code == 0 else None, size / seconds if code == 0 else 0, rss,
                 os.path.getsize(os.path.join(work, "out")) if code == 0 else 0))
    raw_reads[("cache", size)] = raw_read_rate(size, cache_group(size))[0]
    export_path = os.path.join(work, "export-%d.json" % size)
    seconds, rss, code = run_rss(["cache", "export"] + cache_app(size) + ["--output", export_path])
    entries = size // 4 * 4
    rows.append(("cache export", entries, seconds if code == 0 else None, entries / seconds if code == 0 else 0, rss,
                 os.path.getsize(export_path) if code == 0 else 0))

print()
print("One-item calls (p50 ms of %d separate CLI processes each):" % runs)
header = "%-8s" % "CALL" + "".join("%14s" % ("%d items" % s) for s in sizes) + "%10s" % "RATIO"
print(header)
for call_name in ("get", "add", "update", "delete"):
    p50 = [statistics.median(timings[(s, call_name)]) * 1000 for s in sizes]
    print("%-8s" % call_name + "".join("%14.1f" % v for v in p50) + "%9.2fx" % (p50[-1] / p50[0]))
print()
print("Whole-group operations (one CLI process each, default settings):")
print("%-18s %8s %9s %10s %12s %12s %10s" % ("OPERATION", "ITEMS", "SECONDS", "ITEMS/S", "DAEMON/S", "OF DAEMON", "RSS/DATA"))
for name, size, seconds, rate, rss, data in rows:
    group_size = next(s for s in sizes if s // 4 * 4 == size) if name.startswith("cache") else size
    daemon = floor if name in ("restore", "cache import") else raw_reads[("cache", group_size) if name == "cache export" else size]
    # Max RSS beyond a small process's own (the 10-item group's) against the data handled.
    base = min(r[4] for r in rows if r[0] == name)
    rss_ratio = "%.2f" % ((rss - base) * 1024 / data) if data and size == max(r[1] for r in rows if r[0] == name) else "-"
    print("%-18s %8d %9s %10.0f %12.0f %11.2fx %10s" % (
        name, size, "%.2f" % seconds if seconds else "FAILED", rate, daemon, rate / daemon if daemon else 0, rss_ratio))
print()
print("(DAEMON/S: CreateItem into fresh collections of 32 for restore and cache import, %d calls before the fill (%.0f/s) and %d after"
      " (%.0f/s), pooled; SearchItems + GetSecrets in batches"
      " of 1,000 for snapshot, list and export. RSS/DATA: max RSS above the smallest group's run, over the bytes of the"
      " snapshot file or JSON written.)" % (floor_creates, floor_before[0] / floor_before[1], floor_creates,
                                     floor_after[0] / floor_after[1]))
