#!/usr/bin/env python3
"""Writes chat_case_goldens.json: Python's own str case operations on text in many scripts, rendered by jinja2.

Run it in the reference venv (scripts/reference-venv.sh: transformers 5.24.0, jinja2 3.1.6), from anywhere:
    /root/.cache/llmc/venv/bin/python test/runtime/Inputs/chat_case_goldens.py [--out DIR]
Each case renders one text (the user message) through the filters upper/lower/capitalize/title, the str
methods upper()/lower()/capitalize()/title()/islower()/isupper() and the tests lower/upper, with chat_goldens.py's render (the
exact apply_chat_template path). The texts use characters of Unicode 14 or older, so that Python 3.11's
unicodedata (Unicode 14.0) and ICU 72 (Unicode 15.0) agree on them; the script refuses an older Python.
"""
import argparse
import json
import os
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ beside the test inputs
import chat_goldens  # noqa: E402  (its pinned versions, render and case format)

HERE = os.path.dirname(os.path.abspath(__file__))
# The Unicode version the texts were chosen for: every character in them is at least this old.
MIN_UNIDATA = (14, 0, 0)

# name -> text. Each exercises a rule that a table of Latin/Greek/Cyrillic alone gets wrong.
TEXTS = {
    "ascii": "hello World o'neil mc-d (x) [y] <z> {w} ABC",
    "latin_full": "straße ŉ ÿ Ǳ ǲ ǳungla ǅemal ǆ ǈ Ǉ ǉ ǋ ǌ ḯ ẞ ſ",
    "turkish": "İstanbul ıi İı DİYARBAKIR iİ",
    "greek_final_sigma": "ΟΔΟΣ ΣΟΦΟΣ Σ ΑΣ ΑΣ'Α ΑΣ. ὈΔΥΣΣΕΎΣ Σ̈ΑΣ̈ ΑΣ̈",
    "greek_special": "ᾳ ᾼ ΐ ΰ ᾷ ὒ \u0345 α\u0345 ᾀ ᾈ ϐ ϑ ϕ ϖ ϰ ϱ ϵ µ",
    "cyrillic": "Москва ёЖИК ѐЀ ӀӏԀԁ ꙁꙀ ᲀ",
    "armenian": "Հայաստան և ﬓ ﬔ ԵՒ",
    "georgian": "ქართული ᲥᲐᲠᲗᲣᲚᲘ Ⴀⴀ ა",
    "cherokee": "Ꮳꮃꭰ ᏸᏰ ᎠᎡ ꭰꭱ",
    "deseret": "𐐀𐐨 𐐔𐐯𐑅𐐨𐑉𐐯𐐻 𐐸𐐯𐑊𐐬",
    "other_non_bmp": "𐒰𐓘 𐲀𐳀 𑢠𑣀 𖹀𖹠 𞤀𞤢",
    "fullwidth": "Ｈｅｌｌｏ ＷＯＲＬＤ ｗｏｒｌｄ",
    "ligatures": "ﬁ ﬂ ﬃ ﬄ ﬀ ﬅ ﬆ ﬁne",
    "symbols_numbers": "ⓐⒷ ⅰⅱ Ⅻ ʰᵃ ª º 日本語 ١٢٣ ½",
    "mixed_words": "école-ÉTÉ (ǆungla) [ßtraße] <ﬁne> {ΟΔΟΣ} σοφοσ",
}
# Applied to each text: every operation on the whole text, then the case tests and title-casings word by word.
TEMPLATE = (
    "{% set s = messages[0].content %}"
    "{{ s | upper }}\n{{ s | lower }}\n{{ s | capitalize }}\n{{ s | title }}\n"
    "{{ s.upper() }}\n{{ s.lower() }}\n{{ s.capitalize() }}\n{{ s.title() }}\n"
    "{{ s is lower }} {{ s is upper }} {{ s.lower() is lower }} {{ s.upper() is upper }} {{ s.islower() }} {{ s.isupper() }}\n"
    "{% for w in s.split() %}{{ w }}:{{ w is lower }}/{{ w is upper }}/{{ w | capitalize }}/{{ w.title() }}/"
    "{{ w | title }} {% endfor %}\n"
)
# Single code points whose case tests differ: titlecase, modifier letters, numerals and symbols that are cased.
TEST_POINTS = "ǅ ǈ ʰ ᵃ ⅰ Ⅰ ⓐ Ⓐ ß ẞ ꭰ Ꭰ ᲀ Ა ა 𐐀 𐐨 ﬁ µ ı İ ς Σ ͅ 日 ǲ ᾈ ᾀ"
POINTS_TEMPLATE = (
    "{% for w in messages[0].content.split() %}{{ w }}:{{ w is lower }}/{{ w is upper }}/{{ w.islower() }}/{{ w.isupper() }}/{{ w.upper() }}/"
    "{{ w.lower() }}/{{ w.capitalize() }}/{{ w.title() }}/{{ w | title }} {% endfor %}"
)


def cases():
    out = []
    for name, text in TEXTS.items():
        out.append(chat_goldens.make_case(f"case:{name}", {"source": TEMPLATE}, TEMPLATE,
                                          [{"role": "user", "content": text}], {"add_generation_prompt": False}))
    out.append(chat_goldens.make_case("case:code_points", {"source": POINTS_TEMPLATE}, POINTS_TEMPLATE,
                                      [{"role": "user", "content": TEST_POINTS}], {"add_generation_prompt": False}))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    chat_goldens.check_versions()
    have = tuple(int(p) for p in unicodedata.unidata_version.split("."))
    if have < MIN_UNIDATA:
        sys.exit(f"chat_case_goldens.py: needs Unicode {MIN_UNIDATA} data, Python has {unicodedata.unidata_version}")
    path = os.path.join(args.out, "chat_case_goldens.json")
    all_cases = cases()
    for c in all_cases:
        if "expected" not in c:
            sys.exit(f"chat_case_goldens.py: {c['name']} did not render: {c}")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"generator": "test/runtime/Inputs/chat_case_goldens.py", "pinned": chat_goldens.PINNED,
                   "unicode": unicodedata.unidata_version, "cases": all_cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(all_cases)} cases to {path}")


if __name__ == "__main__":
    main()
