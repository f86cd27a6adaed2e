"""Prints token ids of a golden file (smollm2_goldens.py) space-separated: `prompt`, `reply` (without a final
end-of-generation token, which llmc-run does not print either), or `all` (prompt + reply, as teacher-forced)."""
import json
import sys

golden = json.load(open(sys.argv[1]))
eos = int(sys.argv[3]) if len(sys.argv) > 3 else None
reply = golden["reply_ids"]
if sys.argv[2] == "reply" and reply and reply[-1] == eos:
    reply = reply[:-1]
ids = {"prompt": golden["prompt_ids"], "reply": golden["prompt_ids"] + reply,
       "all": golden["prompt_ids"] + golden["reply_ids"]}[sys.argv[2]]
print(" ".join(map(str, ids)))
