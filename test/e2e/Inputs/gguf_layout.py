"""What a GGUF file holds for its architecture, to compare two writers: the "<arch>." metadata (type and value)
and every tensor (type, GGUF shape, sha256 of its bytes). general.* and tokenizer.* keys are left out (names,
size labels and vocabularies are not the layout). Runs in the reference venv (the gguf package).

Usage: gguf_layout.py dump <file.gguf>                 prints the layout as JSON
       gguf_layout.py compare <file.gguf> <layout.json>   prints what differs and exits 1, else one summary line
"""
import hashlib
import json
import sys

import gguf


def layout(path):
    reader = gguf.GGUFReader(path)
    arch = reader.fields["general.architecture"].contents()
    metadata = {}
    for name, field in reader.fields.items():
        if name.startswith(arch + "."):
            value = field.contents()
            metadata[name] = [field.types[0].name, value]
    tensors = {t.name: [t.tensor_type.name, [int(d) for d in t.shape], hashlib.sha256(t.data.tobytes()).hexdigest()]
               for t in reader.tensors}
    return {"architecture": arch, "metadata": metadata, "tensors": tensors}


def differences(got, want):
    lines = []
    if got["architecture"] != want["architecture"]:
        lines.append("general.architecture: %s, expected %s" % (got["architecture"], want["architecture"]))
    for kind in ("metadata", "tensors"):
        for name in sorted(set(got[kind]) | set(want[kind])):
            g, w = got[kind].get(name), want[kind].get(name)
            if g != w:
                lines.append("%s: %s, expected %s" % (name, g if g is not None else "absent",
                                                       w if w is not None else "absent"))
    return lines


def main():
    if sys.argv[1] == "dump":
        json.dump(layout(sys.argv[2]), sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return
    got, want = layout(sys.argv[2]), json.load(open(sys.argv[3]))
    lines = differences(got, want)
    if lines:
        print("\n".join(lines))
        sys.exit(1)
    print("%s: %d metadata keys and %d tensors as expected" % (got["architecture"], len(got["metadata"]),
                                                              len(got["tensors"])))


if __name__ == "__main__":
    main()
