"""Describes a Hugging Face model directory written by make_hf_model.py (hf-family-models.test): config.json's
model_type and architectures, whether config.json and model.safetensors hash to the golden file's files_sha256
(the bytes family_goldens.py made the golden from), the number of stored elements next to the parameter count
transformers gave in the golden, and each tensor's dtype and shape in name order, a layer's tensors once as
`layers.N.` (GPT-J: `h.N.`) with the number of layers holding them.

Usage: describe_hf_dir.py <model dir> <golden_long.json>"""
import hashlib
import json
import os
import re
import struct
import sys

model_dir, golden_path = sys.argv[1], sys.argv[2]
golden = json.load(open(golden_path))
config = json.load(open(os.path.join(model_dir, "config.json")))
print("model_type: %s; architectures: %s" % (config["model_type"], " ".join(config["architectures"])))
for name, want in golden["files_sha256"].items():
    got = hashlib.sha256(open(os.path.join(model_dir, name), "rb").read()).hexdigest()
    print("%s: %s" % (name, "sha256 as in the golden" if got == want else
                      "sha256 %s differs from the golden's %s" % (got, want)))
with open(os.path.join(model_dir, "model.safetensors"), "rb") as f:
    header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
header.pop("__metadata__", None)
elements, layers = 0, {}
for name, entry in sorted(header.items()):
    n = 1
    for d in entry["shape"]:
        n *= d
    elements += n
    key = (re.sub(r"\.(layers|h)\.\d+\.", r".\1.N.", name), entry["dtype"], tuple(entry["shape"]))
    layers[key] = layers.get(key, 0) + 1
print("elements: %d; transformers' parameters: %d" % (elements, golden["parameters"]))
for (name, dtype, shape), count in layers.items():
    print("%s %s %s%s" % (name, dtype, list(shape), " x%d" % count if ".N." in name else ""))
