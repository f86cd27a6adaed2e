"""Compares llmc-run's greedy reply (--print-tokens: prompt ids then reply ids) with a Hugging Face golden file
(smollm2_goldens.py) where rounding may legitimately flip a near-tie: the reply must equal transformers' greedy
reply token by token until they first differ, and that first difference may only be at a token whose top-2
margin in the golden is below MIN_MARGIN (from there on the two generations part). A difference at a wider
margin fails, and so does a reply of which nothing was equal unless MIN_EQUAL is 0 (default 1): 0 only for a
path whose rounding may flip a near-tie at the very first reply token (the caller then checks where it stopped).

compare_greedy.py NAME IDS_FILE GOLDEN_JSON MIN_MARGIN EOS [MIN_EQUAL]
Prints one line: how many reply tokens were compared and equal, and where and why the comparison stopped."""
import json
import sys

name, ids_path, golden_path, min_margin, eos = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(
    sys.argv[5])
min_equal = int(sys.argv[6]) if len(sys.argv) > 6 else 1
golden = json.load(open(golden_path))
prompt, want = golden["prompt_ids"], golden["reply_ids"]
got = [int(t) for t in open(ids_path).read().split()]
if got[:len(prompt)] != prompt:
    sys.exit("FAILED: %s: the printed ids do not start with the golden prompt" % name)
got = got[len(prompt):]
# Reply token k is the argmax of position len(prompt) - 1 + k of the teacher-forced golden.
margins = [golden["positions"][len(prompt) - 1 + k]["margin"] for k in range(len(want))]
compared = 0
stop = "end of the golden reply"
for k, token in enumerate(want):
    if token == eos:
        stop = "end of generation"
        break
    if k >= len(got) or got[k] != token:
        if margins[k] < min_margin:
            stop = "reply token %d differs where transformers' top-2 margin is %.3f < %g" % (
                k, margins[k], min_margin)
            break
        sys.exit("FAILED: %s: reply token %d is %s, transformers' %d (margin %.3f)"
                 % (name, k, got[k] if k < len(got) else "missing", token, margins[k]))
    compared += 1
print("greedy %s: %d reply tokens equal, then %s" % (name, compared, stop))
if compared < min_equal:
    sys.exit("FAILED: %s: nothing compared" % name)
