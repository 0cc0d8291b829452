"""MSAL Python's side of the cache interop test.

`write OUT`: MSAL Python's own TokenCache signs in two accounts of one client in family "1"
(FOCI), from token responses shaped as the Microsoft identity platform sends them (no network),
and serializes the cache to OUT.
`check ORIGINAL EXPORTED`: MSAL Python loads both files and checks it finds the same accounts
and the same access, refresh and ID tokens (by their fields, the way MSAL looks them up).
Prints one line per check and exits non-zero on the first difference.
"""
import base64
import hashlib
import json
import sys

import msal

CLIENT_ID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"
TENANT = "2fa1062c-61da-81ff-9cc7-620982cb378b"
AUTHORITY = "https://login.microsoftonline.com/" + TENANT
SCOPES = ["user.read", "calendars.read"]
USERS = [("alice@contoso.com", "53a7fa1f-21ad-8ae1-8db9-f1134553af83"),
         ("bob@contoso.com", "ff941df6-180f-8276-8986-cf1c4497bcbe")]
NOW = 1_764_000_000


def b64(data):
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def response(username, oid):
    claims = {"aud": CLIENT_ID, "iss": "https://login.microsoftonline.com/%s/v2.0" % TENANT,
              "iat": NOW, "exp": NOW + 3600, "oid": oid, "sub": oid, "tid": TENANT,
              "preferred_username": username, "name": username.split("@")[0].title()}
    id_token = ".".join([b64({"alg": "none", "typ": "JWT"}), b64(claims), ""])
    return {"token_type": "Bearer", "scope": " ".join(SCOPES), "expires_in": 3600, "ext_expires_in": 7200,
            "access_token": "at-for-" + username, "refresh_token": "rt-for-" + username,
            "id_token": id_token, "client_info": b64({"uid": oid, "utid": TENANT}), "foci": "1"}


def write(path):
    cache = msal.SerializableTokenCache()
    for username, oid in USERS:
        cache.add({"client_id": CLIENT_ID, "scope": SCOPES, "token_endpoint": AUTHORITY + "/oauth2/v2.0/token",
                   "response": response(username, oid), "grant_type": "authorization_code",
                   "environment": "login.microsoftonline.com"}, now=NOW)
    with open(path, "w") as out:
        out.write(cache.serialize())
    print("msal %s wrote %s: %d accounts, family refresh tokens" % (msal.__version__, path, len(USERS)))


def load(path):
    cache = msal.SerializableTokenCache()
    with open(path) as source:
        cache.deserialize(source.read())
    return cache


def view(cache):
    """What MSAL finds, by fields: accounts, and each user's tokens for the client."""
    T = msal.TokenCache.CredentialType
    accounts = sorted((a["username"], a["home_account_id"], a["environment"], a["realm"])
                      for a in cache.find(T.ACCOUNT))
    tokens = {}
    for username, _ in USERS:
        home = [a for a in cache.find(T.ACCOUNT) if a["username"] == username][0]["home_account_id"]
        query = {"home_account_id": home, "client_id": CLIENT_ID}
        ats = cache.find(T.ACCESS_TOKEN, target=SCOPES, query=query, now=NOW)
        rts = cache.find(T.REFRESH_TOKEN, query={"home_account_id": home, "family_id": "1"}, now=NOW)
        idts = cache.find(T.ID_TOKEN, query=query, now=NOW)
        tokens[username] = (sorted(t["secret"] for t in ats), sorted({t["secret"] for t in rts}),
                            sorted(t["secret"] for t in idts))
    return accounts, tokens


def fingerprint(tokens):
    """Token secrets as short digests, so the output never shows a secret."""
    return {user: [[hashlib.sha256(s.encode()).hexdigest()[:8] for s in kind] for kind in kinds]
            for user, kinds in tokens.items()}


def keys(path):
    with open(path) as source:
        return {section: sorted(entries) for section, entries in json.load(source).items() if entries}


def check(original_path, exported_path):
    original, exported = view(load(original_path)), view(load(exported_path))
    results = [
        ("accounts", original[0] == exported[0], [a[0] for a in exported[0]]),
        ("tokens (access, refresh by family, ID)", original[1] == exported[1], fingerprint(exported[1])),
        ("entry keys, in MSAL Python's shape", keys(original_path) == keys(exported_path),
         {k: len(v) for k, v in keys(exported_path).items()}),
        ("nothing missing", len(exported[0]) == len(USERS) and all(all(v) for v in exported[1].values()), ""),
    ]
    for name, same, shown in results:
        print("%s %s %s" % ("ok  " if same else "FAIL", name, json.dumps(shown) if shown else ""))
    passed = sum(1 for _, same, _ in results if same)
    print("msal interop: %d passed, %d failed" % (passed, len(results) - passed))
    return passed == len(results)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "check":
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
    else:
        sys.exit("usage: msal_cache.py write OUT | check ORIGINAL EXPORTED")
