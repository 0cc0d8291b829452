# The hostile-app phase of scripts/adversarial.sh (sourced: it uses $bin, $state, $work and
# check). One app of the team, entitled to the token cache's group, plants crafted items with
# `item add --data-file`: ADAL-looking legacy items (account base64url(UPN), service
# `MSOpenTech.ADAL.1|...`, generic `MSOpenTech.ADAL.1`) and wipe records (account `TokenWipe`,
# generic `Microsoft.ADAL.WipeAll.1`) whose keyed archives have each shape that once stopped
# the readers. For each shape, the other apps run `token accounts`, `token acquire --silent`,
# `token wipe-info`, `cache export` and `token remove`: no exit code of 128 or more (a
# signal), each exits 0, the command names the unreadable item at most once (and once when it
# reads it), and Alice's account stays listed.

hostile_phase() {
    local team=ABCDE12345 client=4b0db8c2-9f26-4417-8bde-3f0e3656f8e0 calendar_client=4b0db8c2-9f26-4417-8bde-3f0e3656f8e1 dir="$work/hostile"
    mkdir -p "$dir"
    python3 - "$dir" <<'PY'
import base64, plistlib, sys
from plistlib import UID
out = sys.argv[1]
with open(f"{out}/entitlements.plist", "wb") as f:
    plistlib.dump({"keychain-access-groups": ["$(AppIdentifierPrefix)com.microsoft.adalcache"]}, f)

def cls(name):
    return {"$classname": name, "$classes": [name, "NSObject"]}

def archive(objects, root=1):
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": UID(root)},
                           "$objects": objects}, fmt=plistlib.FMT_BINARY)

def shapes(root_class):
    wipe = root_class == "NSDictionary"
    def root(ref, cls_ref=2, key="authority"):
        if wipe:
            return {"$class": UID(cls_ref), "NS.keys": [UID(3)], "NS.objects": [UID(ref)]}
        return {"$class": UID(cls_ref), key: UID(ref), "clientId": UID(3)}
    def base():
        return ["$null", None, cls(root_class), "https://login.microsoftonline.com/common", cls("NSArray"), cls("NSDictionary")]
    result = {}
    o = base(); o[1] = root(3); result["root-out-of-range"] = archive(o, root=4000)
    o = base(); o[1] = root(9999); result["reference-out-of-range"] = archive(o)
    o = base(); o[1] = root(3, cls_ref=3); result["class-record-not-a-class"] = archive(o)
    o = base(); o.append(b"NSData"); o[1] = root(3, cls_ref=len(o) - 1); result["class-record-is-data"] = archive(o)
    o = base(); o[1] = root(1); result["self-reference"] = archive(o)
    o = base(); o.append(root(1)); o[1] = root(len(o) - 1); result["cycle"] = archive(o)
    o = base(); first = len(o)
    for level in range(20000):
        nxt = 3 if level == 19999 else first + level + 1
        o.append({"$class": UID(5), "NS.keys": [UID(3)], "NS.objects": [UID(nxt)]} if wipe else {"$class": UID(4), "NS.objects": [UID(nxt)]})
    o[1] = root(first, key="userInformation"); result["nested-20000"] = archive(o)
    o = base(); o.append(b"AAAA"); o[1] = root(len(o) - 1); result["wrong-type"] = archive(o)
    o = base(); o[1] = root(3); whole = archive(o); result["truncated"] = whole[: len(whole) // 2]
    return result

def b64(text):
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

for kind, root_class in (("legacy", "ADTokenCacheStoreItem"), ("wipe", "NSDictionary")):
    for name, data in shapes(root_class).items():
        with open(f"{out}/{kind}.{name}", "wb") as f:
            f.write(data)
with open(f"{out}/legacy-account", "w") as f:
    f.write(b64("alice@contoso.com"))
with open(f"{out}/legacy-service-prefix", "w") as f:
    f.write("MSOpenTech.ADAL.1|" + b64("https://login.microsoftonline.com/common") + "|")
with open(f"{out}/client-b64", "w") as f:
    f.write(b64("4b0db8c2-9f26-4417-8bde-3f0e3656f8e1"))
PY
    local common=(--team "$team" --entitlements "$dir/entitlements.plist" --state-dir "$state" --timeout 10s)
    # Two apps of family 1 with client IDs of their own: Calendar's removal is Calendar's alone.
    local mail=(--app com.contoso.mail --client-id "$client" --family-id 1 "${common[@]}")
    local calendar=(--app com.contoso.calendar --client-id "$calendar_client" --family-id 1 "${common[@]}")
    local hostile=(--app com.fabrikam.hostile "${common[@]}")
    local group="$team.com.microsoft.adalcache" account prefix client64
    account=$(cat "$dir/legacy-account"); prefix=$(cat "$dir/legacy-service-prefix"); client64=$(cat "$dir/client-b64")
    local shapes=(root-out-of-range reference-out-of-range class-record-not-a-class class-record-is-data self-reference cycle nested-20000 wrong-type truncated)
    echo "==> a hostile app plants ${#shapes[@]} shapes of legacy items and wipe records; the other apps go on"

    # Runs one command of another app; $1 names it, $2 what it must name on standard error
    # (legacy, wipe, both, or any: at most once each).
    run_beside() {
        local what=$1 names=$2 shape=$3; shift 3
        local rc=0 out="$dir/out" err="$dir/err"
        "$bin" "$@" >"$out" 2>"$err" || rc=$?
        if [ "$rc" -ge 128 ]; then check no "$shape: $what died with signal $((rc - 128)): $(tail -c 300 "$err")"; return; fi
        check "$([ "$rc" -eq 0 ] && echo ok)" "$shape: $what exited $rc: $(tail -c 300 "$err")"
        local legacy wipe
        # Text or, with --json, one JSON object a line; either names the account and service.
        legacy=$(grep -F skipped "$err" | grep -F "$account" | grep -F -c "MSOpenTech.ADAL.1|" || true)
        wipe=$(grep -F skipped "$err" | grep -F TokenWipe | grep -F -c "hostile-$shape" || true)
        case "$names" in
            legacy) check "$([ "$legacy" -eq 1 ] && [ "$wipe" -le 1 ] && echo ok)" "$shape: $what named the legacy item $legacy times (once expected)" ;;
            wipe) check "$([ "$wipe" -eq 1 ] && [ "$legacy" -le 1 ] && echo ok)" "$shape: $what named the wipe record $wipe times (once expected)" ;;
            both) check "$([ "$legacy" -eq 1 ] && [ "$wipe" -eq 1 ] && echo ok)" "$shape: $what named the legacy item $legacy and the wipe record $wipe times (once each expected)" ;;
            *) check "$([ "$legacy" -le 1 ] && [ "$wipe" -le 1 ] && echo ok)" "$shape: $what named an item more than once" ;;
        esac
    }

    local shape listed
    for shape in "${shapes[@]}"; do
        # Both apps sign Alice in: the previous shape's removal signed her out of Calendar.
        "$bin" token signin --user alice@contoso.com "${mail[@]}" >/dev/null 2>&1 || { check no "$shape: mail could not sign Alice in"; continue; }
        "$bin" token signin --user alice@contoso.com "${calendar[@]}" >/dev/null 2>&1 || { check no "$shape: calendar could not sign Alice in"; continue; }
        # The wipe record MSAL reads is the first: a removal's record would come first, so
        # none is there (a previous removal's is deleted).
        "$bin" item delete --account TokenWipe --group "$group" "${hostile[@]}" >/dev/null 2>&1 || true
        "$bin" item add --account "$account" --service "${prefix}$(printf %s "$shape" | base64 | tr '+/' '-_' | tr -d '=')|$client64" \
            --generic MSOpenTech.ADAL.1 --group "$group" --data-file "$dir/legacy.$shape" "${hostile[@]}" >/dev/null 2>&1 \
            || check no "$shape: the hostile app could not plant its legacy item"
        "$bin" item add --account TokenWipe --service "hostile-$shape" --generic Microsoft.ADAL.WipeAll.1 --group "$group" \
            --data-file "$dir/wipe.$shape" "${hostile[@]}" >/dev/null 2>&1 || check no "$shape: the hostile app could not plant its wipe record"

        run_beside "token accounts" legacy "$shape" token accounts --json "${calendar[@]}"
        listed=$(python3 -c 'import json,sys; print(" ".join(a["username"] for a in json.load(open(sys.argv[1]))))' "$dir/out" 2>/dev/null || true)
        check "$([ "$listed" = alice@contoso.com ] && echo ok)" "$shape: token accounts listed '$listed', not Alice"
        run_beside "token acquire --silent" any "$shape" token acquire --account alice@contoso.com --silent "${calendar[@]}"
        run_beside "token wipe-info" wipe "$shape" token wipe-info "${calendar[@]}"
        run_beside "cache export" wipe "$shape" cache export "${calendar[@]}"
        if grep -q '"RefreshToken"' "$dir/out" && grep -q 'alice@contoso.com' "$dir/out"; then check ok; else check no "$shape: cache export lost Alice's tokens"; fi
        run_beside "token remove" both "$shape" token remove --account alice@contoso.com "${calendar[@]}"
        # Nothing else was lost: Alice's account record stays for Mail, and the planted items
        # are still there (readers skip them; they do not delete them).
        run_beside "token accounts (mail)" legacy "$shape" token accounts --json "${mail[@]}"
        if grep -q 'alice@contoso.com' "$dir/out"; then check ok; else check no "$shape: Mail lost Alice after Calendar's removal"; fi
        if "$bin" item list --json --group "$group" "${hostile[@]}" 2>/dev/null | grep -q "hostile-$shape"; then check ok; else
            check no "$shape: the planted wipe record is gone"
        fi
        "$bin" item delete --account "$account" --generic MSOpenTech.ADAL.1 --group "$group" "${hostile[@]}" >/dev/null 2>&1 || true
    done
}
