#!/usr/bin/env python3
"""A third-party client written from the contract alone: claims a pass and downloads it.

Usage: claim.py <base_url> <out.pkpass>. Prints the downloadUrl. Needs Python 3 and the
`cryptography` package (for Ed25519); base58 is written out below because the standard library
has none.
"""
import json
import sys
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def b58encode(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = ALPHABET[r] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def main() -> None:
    base, out_path = sys.argv[1], sys.argv[2]
    key = Ed25519PrivateKey.generate()
    public_key = b58encode(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    with urllib.request.urlopen(f"{base}/api/v1/claim/init?publicKey={urllib.parse.quote(public_key)}") as r:
        issued = json.load(r)
    signature = b58encode(key.sign(issued["message"].encode("utf-8")))

    body = json.dumps({"message": issued["message"], "signature": signature, "publicKey": public_key, "walletType": "Trust"}).encode()
    request = urllib.request.Request(f"{base}/api/v1/claim/wallet-pass", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as r:
        assert r.status == 201, r.status
        download_url = json.load(r)["downloadUrl"]

    with urllib.request.urlopen(download_url) as r:
        assert r.headers["Content-Type"] == "application/vnd.apple.pkpass"
        with open(out_path, "wb") as f:
            f.write(r.read())
    print(download_url)


if __name__ == "__main__":
    main()
