#!/usr/bin/env python3
"""Writes the chat template golden files: every template x conversation rendered by transformers itself.

Run it in the reference venv (scripts/reference-venv.sh: transformers 5.24.0, jinja2 3.1.6), from anywhere:
    /root/.cache/llmc/venv/bin/python test/runtime/Inputs/chat_goldens.py [--smollm2 MODEL.gguf] [--out DIR]
It renders with transformers.utils.chat_template_utils.render_jinja_template after _normalize_chat_messages,
exactly what tokenizer.apply_chat_template(tokenize=False) does, so the goldens are jinja2's output under
Hugging Face's environment (trim_blocks, lstrip_blocks, loopcontrols, raise_exception, its tojson). Outputs:
    chat_goldens.json          the templates in chat_templates/ (written for llmc, one per family style) and
                               small inline templates that pin down tricky jinja semantics
    chat_goldens_smollm2.json  the real SmolLM2 template read from the GGUF (needs --smollm2 or the cache)
Each case: name, template (file under Inputs/) or source (inline text) or "@model", messages_json, options,
and expected (the rendered text), error (the message raise_exception gave) or error_suffix (Python's message
for an undefined value used or a type error, which llmc prefixes with the position).
"""
import argparse
import json
import os
import sys

import jinja2
import transformers
from transformers.utils.chat_template_utils import _normalize_chat_messages, render_jinja_template

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "chat_templates")
PINNED = {"transformers": "5.24.0", "jinja2": "3.1.6"}

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Current weather in a city — in °C",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
                                                        "days": {"type": "integer"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {"name": "now", "description": "The time", "parameters": {"type": "object", "properties": {}}}},
]

CONVERSATIONS = {
    "single_user": [{"role": "user", "content": "Hello!"}],
    "system_multi": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And 3+3?"},
    ],
    "tricky_content": [
        {"role": "user", "content": "Quotes ' \" and braces {{ x }} {% y %} {# z #}\nnew line\ttab  "},
        {"role": "assistant", "content": "  Ünïcödé: 日本語, emoji 🙂, backslash \\ end\n"},
        {"role": "user", "content": "\n\nleading and trailing newlines\n\n"},
    ],
    "assistant_last": [
        {"role": "user", "content": "Say hi."},
        {"role": "assistant", "content": "Hi"},
    ],
    "extra_fields": [
        {"role": "user", "content": "Use the tool.", "name": None, "meta": {"k": [1, 2.5, True, None]}},
    ],
    "tool_round": [
        {"role": "system", "content": "Tools are available."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call12345", "type": "function",
             "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}]},
        {"role": "tool", "tool_call_id": "call12345", "content": "{\"temp\": 21}"},
        {"role": "tool", "tool_call_id": "call67890", "content": "second"},
        {"role": "assistant", "content": "It is 21 °C."},
    ],
    "not_alternating": [
        {"role": "user", "content": "one"},
        {"role": "user", "content": "two"},
    ],
    "system_first_only": [
        {"role": "system", "content": "  Be kind.  "},
        {"role": "user", "content": "Hi"},
    ],
    "content_parts": [
        {"role": "user", "content": [{"type": "text", "text": "Part one."}, {"type": "image"},
                                     {"type": "text", "text": "Part two."}]},
    ],
    "reasoning": [
        {"role": "user", "content": "Think."},
        {"role": "assistant", "content": "Done.", "reasoning_content": "Because."},
    ],
}

# (template file, conversations, option sets) for the templates written for llmc.
OPTION_SETS = [
    {"add_generation_prompt": False},
    {"add_generation_prompt": True},
]
SPECIALS = {"bos_token": "<s>", "eos_token": "</s>"}
FAMILY_CASES = [
    ("chatml.jinja", ["single_user", "system_multi", "tricky_content", "assistant_last", "content_parts"], {}),
    ("qwen.jinja", ["single_user", "system_multi", "tricky_content", "tool_round"], {}),
    ("qwen.jinja", ["single_user", "tool_round"], {"tools": TOOLS}),
    ("llama3.jinja", ["single_user", "system_multi", "tricky_content", "assistant_last"],
     {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>", "date_string": "26 Jul 2024"}),
    ("llama3.jinja", ["system_multi", "tool_round"],
     {"bos_token": "<|begin_of_text|>", "tools": TOOLS, "date_string": "01 Dec 2026"}),
    ("llama3.jinja", ["system_multi"],
     {"bos_token": "<|begin_of_text|>", "tools": TOOLS, "tools_in_user_message": False, "date_string": "02 Jan 2025"}),
    ("mistral.jinja", ["single_user", "system_multi", "tricky_content", "assistant_last", "not_alternating"], SPECIALS),
    ("mistral.jinja", ["system_multi", "tool_round"], dict(SPECIALS, tools=TOOLS)),
    ("deepseek.jinja", ["single_user", "system_multi", "tricky_content", "assistant_last", "tool_round"],
     {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"}),
    ("gemma.jinja", ["single_user", "system_multi", "tricky_content", "assistant_last", "not_alternating",
                     "system_first_only"], {"bos_token": "<bos>", "eos_token": "<eos>"}),
    ("phi3.jinja", ["single_user", "system_multi", "tricky_content", "assistant_last", "extra_fields",
                    "reasoning"], {"bos_token": "<s>", "eos_token": "<|endoftext|>"}),
]

# Small templates whose output depends on one jinja2 rule each (whitespace control, scoping, filters...).
UNIT_TEMPLATES = {
    "ws_trim_blocks": "{% if true %}\nyes\n{% endif %}\nafter\n",
    "ws_lstrip_blocks": "line\n    {% if true %}\n    kept indent\n    {% endif %}\nend",
    "ws_lstrip_not_for_vars": "a\n    {{ 'x' }}\n  {# note #}\nb",
    "ws_minus_both": "a   \n  {%- if true -%}   \n  b  \n  {%- endif -%}\n  c",
    "ws_plus_disables_lstrip": "x\n    {%+ if true %}y{% endif %}\nz",
    "ws_plus_end_disables_trim": "{% if true +%}\nq{% endif %}",
    "ws_var_minus": "a  {{- 'b' -}}  \n c",
    "ws_comment_minus": "a \n{#- c -#}\n b",
    "ws_crlf_and_trailing_newline": "one\r\n{% if true %}\r\ntwo\r\n{% endif %}\r\n",
    "ws_edges": "  {# first #}\n  {% if true %}\n  a {% if true %}  b\n  {% endif %}\r  c\u3000\u00a0{%- if true %}d{% endif %}\n"
                "\u3000 {% if true %}e{% endif %}\n{{ 'v' }}  {% if true %}f{% endif %}\n{% endif %}   \n{%- if true -%}\t g \t{%- endif -%}\n\n",
    "loop_vars": "{% for m in messages %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.revindex }}/{{ loop.length }}"
                 "{{ '^' if loop.first }}{{ '$' if loop.last }}|{% endfor %}",
    "loop_else_and_filter": "{% for m in messages if m.role == 'nobody' %}x{% else %}empty{% endfor %};"
                            "{% for m in messages if m.role == 'user' %}{{ loop.index }}:{{ m.content }} {% endfor %}",
    "loop_break_continue": "{% for i in range(10) %}{% if i == 1 %}{% continue %}{% endif %}{% if i > 3 %}"
                           "{% break %}{% endif %}{{ i }}{% endfor %}",
    "loop_scope_vs_namespace": "{% set x = 0 %}{% set ns = namespace(n=0) %}{% for m in messages %}{% set x = x + 1 %}"
                               "{% set ns.n = ns.n + 1 %}{% endfor %}{{ x }} {{ ns.n }}",
    "slicing": "{{ messages[1:] | length }} {{ 'héllo'[::-1] }} {{ 'abcdef'[1:-1:2] }} {{ [1,2,3][-1] }}"
               " {{ messages[-1].role }} {{ 'abc'[5:] }}|{{ [1,2,3,4][::-2] }}",
    "filters_strings": "{{ '  pad  ' | trim }}|{{ 'xxhixx' | trim('x') }}|{{ 'MiXed' | lower }}{{ 'MiXed' | upper }}"
                       "|{{ 'hello world' | capitalize }}|{{ 'hello-big world' | title }}|{{ 'a.b.c' | replace('.', '/') }}"
                       "|{{ 'aaa' | replace('a', 'b', 2) }}|{{ none | string }}|{{ 12 | string }}",
    "filters_lists": "{{ [3, 1, 2] | join(', ') }}|{{ messages | map(attribute='role') | join(',') }}"
                     "|{{ messages | selectattr('role', 'equalto', 'user') | list | length }}"
                     "|{{ messages | rejectattr('role', 'equalto', 'user') | map(attribute='content') | first }}"
                     "|{{ [1, 2, 3] | first }}{{ [1, 2, 3] | last }}|{{ ['b', 'A', 'a'] | unique | list }}"
                     "|{{ [3, 1, 2] | sort }}|{{ [1, 2] | reverse | list }}|{{ {'k': 1, 'j': 2} | items | list }}"
                     "|{{ [0, 1, '', 'x'] | select | list }}|{{ ['a', 'b'] | reject('equalto', 'a') | list }}",
    "filters_default_int": "{{ missing | default('dflt') }}|{{ '' | default('e', true) }}|{{ '42' | int + 1 }}"
                           "|{{ 'x' | int(7) }}|{{ 3.9 | int }}|{{ '2.5' | float }}|{{ -3 | abs }}|{{ missing | d('d') }}",
    "tojson_variants": "{{ {'a': 1, 'b': [True, None, 2.5], 'ü': 'é\"\\n'} | tojson }}\n"
                       "{{ {'a': {'b': [1, {}], 'c': []}} | tojson(indent=2) }}\n{{ {'b': 1, 'a': 2} | tojson(sort_keys=true) }}\n"
                       "{{ 'x' | tojson }}{{ 1e20 | tojson }}{{ 0.1 | tojson }}{{ 100.0 | tojson }}",
    "tests": "{{ x is defined }}{{ messages is defined }}{{ none is none }}{{ 'a' is string }}{{ {} is mapping }}"
             "{{ [] is iterable }}{{ 'a' is iterable }}{{ 3 is number }}{{ 3 is integer }}{{ 3.0 is float }}"
             "{{ true is boolean }}{{ 4 is even }}{{ 3 is odd }}{{ 9 is divisibleby 3 }}{{ x is not defined }}"
             "{{ 'a' is in 'cat' }}{{ 'a' is equalto 'a' }}{{ undefined_thing is iterable }}",
    "operators": "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 10 }} {{ 'a' ~ 1 ~ none }}"
                 " {{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 'ab' * 2 }} {{ [1] + [2] }} {{ 1 < 2 < 3 }} {{ 1 == 1.0 }}"
                 " {{ 'b' > 'a' }} {{ 'x' in 'xyz' }} {{ 2 not in [1, 3] }} {{ not 0 }} {{ 1 and 'y' }} {{ 0 or 'z' }}"
                 " {{ true + 1 }} {{ 10 / 4 }} {{ 1e3 }} {{ -0.5 }} {{ 1.0e-5 }}",
    "methods": "{{ '  x y  '.strip() }}|{{ 'xxa'.lstrip('x') }}|{{ 'a\\n'.rstrip() }}|{{ 'abc'.startswith('ab') }}"
               "|{{ 'abc'.endswith(('x', 'c')) }}|{{ 'a b  c'.split() }}|{{ 'a,b,,c'.split(',') }}|{{ 'a,b,c'.split(',', 1) }}"
               "|{{ 'Ab'.upper() }}{{ 'Ab'.lower() }}|{{ 'a-b'.replace('-', '+') }}|{{ messages[0].get('role') }}"
               "|{{ messages[0].get('nope', 'dflt') }}|{{ messages[0].keys() | list }}|{{ {'a': 1}.items() | list }}"
               "|{{ {'a': 1}.values() | list }}|{{ 'a</think>b'.split('</think>')[-1] }}",
    "print_values": "{{ [1, 'a', none, true, 2.5] }} {{ {'k': 'v', 'n': [1]} }} {{ ('t',) }} {{ none }} {{ undefined_x }}|"
                    "{{ \"it's\" }} {{ [\"it's\", 'say \"hi\"'] }}",
    "namespace_and_set": "{% set ns = namespace(found=false, count=0) %}{% for m in messages %}{% if m.role == 'system' %}"
                         "{% set ns.found = true %}{% endif %}{% set ns.count = ns.count + 1 %}{% endfor %}"
                         "{{ ns.found }} {{ ns.count }}{% set a, b = 1, 2 %} {{ a + b }}{% set block %}B{{ 1 }}{% endset %} {{ block }}",
    "macro": "{% macro tag(name, body='x') %}<{{ name }}>{{ body }}</{{ name }}>{% endmacro %}"
             "{{ tag('a') }}{{ tag('b', 'y') }}{{ tag(body='z', name='c') }}",
    "conditional_expr": "{{ 'yes' if messages else 'no' }} {{ 'y' if false }}| {{ 1 if none is none else 2 }}",
    "string_escapes": "{{ 'tab\\there' }} {{ \"nl\\nhere\" }} {{ '\\u00e9\\x41' }} {{ 'keep \\d' }} {{ 'a' 'b' }}",
    "dict_access": "{{ messages[0]['role'] }} {{ messages[0].role }} {{ messages[0]['nope'] is defined }}"
                   " {{ messages[0].content.nope is defined }} {{ messages[5] is defined }}",
    "raise_in_loop": "{% for m in messages %}{% if m.role == 'assistant' %}{{ raise_exception('assistant at ' ~ loop.index0) }}"
                     "{% endif %}{{ m.content }}{% endfor %}",
    "add_generation_prompt_default": "{% if not add_generation_prompt is defined %}undef{% endif %}{{ add_generation_prompt }}",
    "filters_more": "{{ 'line1\nline2\n\nline4' | indent(2) }}|{{ 'a\nb' | indent(3, true) }}|{{ 'a\n\nb' | indent('> ', blank=true) }}"
                    "|{{ [3, 1, 2] | sort(reverse=true) }}|{{ ['b', 'C', 'a'] | sort }}|{{ messages | sort(attribute='role') | map(attribute='role') | join }}"
                    "|{{ [1, 2.5] | sum }}|{{ 'abc' | count }}|{{ 'abc' | list }}|{{ 'xy' | first }}|{{ 'ÉCOLE ÀÉ' | lower }}|{{ 'straße é' | upper }}"
                    "|{{ 'ff' | int(base=16) }}|{{ ' 1_000 ' | int }}|{{ 'x' | float(1.5) }}|{{ {'a': 1} | string }}|{{ ['a'] | join('-', attribute='missing') }}"
                    "|{{ \"o'neil mc-d (x) [y]\" | title }}|{{ 'ab' | replace('', '.') }}|{{ ['a', 'A', 'b'] | unique(case_sensitive=true) | list }}",
    "filters_aggregate": "{{ {'b': 1, 'A': 3, 'c': 2} | dictsort }}|{{ {'b': 1, 'a': 3} | dictsort(by='value', reverse=true) }}"
                         "|{{ [3, 1, 2] | min }}{{ [3, 1, 2] | max }}|{{ ['b', 'A', 'c'] | min }}|{{ ['b', 'A'] | max(case_sensitive=true) }}"
                         "|{{ messages | max(attribute='content') | string | length > 0 }}|{{ [] | min is defined }}",
    "falsy_select_map": "{{ none | selectattr('type', 'equalto', 'x') | list }}{{ none | map(attribute='a') | list }}"
                        "{{ '' | select | list }}{{ 0 | reject | list }}{{ tools | rejectattr('type') | list | length }}",
    "markup_concat": "{{ 'a<b>'|safe + ' & \"c\" <d>' }}|{{ 'x' + '<y>'|safe }}|{{ '<p>'|safe + '</p>'|safe }}|{{ '<' ~ '>'|safe }}"
                     "|{{ ('it\\'s'|safe + \"'\") | length }}",
    "filter_block": "{% filter upper %}ab{{ messages[0].role }}{% endfilter %}|{%- filter replace('a', 'b') | trim -%}\n  aa {% filter lower %}XY{% endfilter %}  \n{%- endfilter %}|",
    "tojson_more": "{{ {'é': 'ü', 'n': None} | tojson(ensure_ascii=true) }}|{{ [1, {'a': 2}] | tojson(separators=(',', ':')) }}"
                   "|{{ {'a': [1, 2]} | tojson(indent='\t') }}|{{ [] | tojson(indent=2) }}|{{ 'ctl\x01\x7f' | tojson }}",
    "tests_more": "{{ 'abc' is lower }}{{ 'ABC' is upper }}{{ 'aB' is lower }}{{ none is sameas none }}{{ 1 is in [1, 2] }}"
                  "{{ 'a' is sequence }}{{ 3 is iterable }}{{ true is true }}{{ 0 is false }}{{ 2 is ne 3 }}{{ 2 is lt 3 }}"
                  "{{ 3 is ge 3 }}{{ 5 is gt 9 }}{{ 1.5 is number }}{{ true is number }}{{ true is integer }}{{ raise_exception is callable }}",
    "loop_more": "{% for m in messages %}[{{ loop.previtem.role if loop.previtem is defined else '-' }}>{{ m.role }}>"
                 "{{ loop.nextitem.role if loop.nextitem is defined else '-' }} {{ loop.cycle('odd', 'even') }} {{ loop.revindex0 }}]"
                 "{% for c in m.role if c != 's' %}{{ loop.index }}{{ c }}{% endfor %}{% endfor %}"
                 "{% for k, v in {'x': 1, 'y': 2}.items() %}{{ k }}={{ v }};{% endfor %}{% for k in {'p': 1, 'q': 2} %}{{ k }}{% endfor %}",
    "macro_scope": "{% macro show(m, sep=': ') %}{{ m.role }}{{ sep }}{{ m.content }}{{ suffix }}{% endmacro %}{% set suffix = '!' %}"
                   "{% for m in messages %}{{ show(m) }}{{ show(m, sep='=') }} {% endfor %}"
                   "{% macro outer() %}[{{ inner() }}]{% endmacro %}{% macro inner() %}in{% endmacro %}{{ outer() }}",
    "generation_tag": "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}<a>{{ m.content }}</a>{% endgeneration %}"
                      "{% else %}<u>{{ m.content }}</u>{% endif %}{% endfor %}",
    "repr_more": "{{ [1.0, 1e16, 1e-5, 0.0001, -2.5e-7, 123456789.125] }} {{ ['a\\'b', 'q\"', 'nl\\n', 'tab\\t', 'x\\x00y', 'bs\\\\'] }}"
                 " {{ (1, (2,), []) }} {{ {'k': (1, 2)} }} {{ 1 ~ 2.0 ~ none ~ true ~ [1] }} {{ 'é' < 'z' }} {{ [1, 2] < [1, 3] }}",
    "whitespace_mix": "  {%- for m in messages -%}\n    {{ m.role }}\n    {%- if not loop.last %},{% endif %}\n  {% endfor %}\n"
                      "{% if true %}   x   {% endif %}\n\t{% if true %}\ttab{% endif %}\n  {#- c #}  y\n{%- set z = 1 +%}\nnext {{- ' ' -}} end",
    "string_methods_more": "{{ '  a b  '.split(none, 1) }}|{{ 'a b c'.split(' ', 1) }}|{{ 'xaxbx'.strip('x') }}|{{ 'ab'.find('b') }}"
                           "|{{ 'éab'.find('b') }}|{{ 'aaa'.count('a') }}|{{ \"hello world o'neil x2y\".title() }}|{{ 'hello'.capitalize() }}"
                           "|{{ 'a.b.c'.replace('.', '', 1) }}|{{ 'abc'.startswith(('x', 'a')) }}|{{ messages[0]['items'] is defined }}",
    "undefined_use": "{{ messages[0].content.nope.x }}",
    "iterators": "{% set g = messages | map(attribute='role') %}{{ g | join(',') }}|{{ g | join(',') }}"
                 "|{{ (messages | selectattr('role')) is iterable }}{{ (messages | selectattr('role')) is sequence }}"
                 "|{% if messages | selectattr('role', 'equalto', 'nobody') %}truthy{% endif %}|{{ messages | map(attribute='role') | first }}"
                 "|{{ [1, 2, 3] | reverse | join }}|{{ {'a': 1, 'b': (2, 'x')}.items() }}|{{ {'a': 1}.keys() | list }}"
                 "|{{ {'a': 1}.values() | length }}|{{ 'x' in {'x': 1}.keys() }}|{{ {'a': 1}.items() is sequence }}"
                 "|{% set h = [1, 2, 3] | select %}{{ 2 in h }}{{ h | list }}|{{ {} .items() | list }}",
    "error_gen_len": "{{ messages | map(attribute='role') | length }}",
    "error_gen_tojson": "{{ messages | map(attribute='role') | tojson }}",
    "error_gen_index": "{{ (messages | select)[0] }}",
    "error_view_index": "{{ {'a': 1}.items()[0] }}",
    "error_gen_last": "{{ messages | select | last }}",
    "error_list_plus_str": "{{ [1] + 'a' }}",
    "error_undefined_add": "{{ nope + 1 }}",
    "error_div_zero": "{{ 1 // 0 }}",
    "error_order": "{{ 'a' < 1 }}",
    "error_float_div": "{{ 1.5 / 0 }}",
    "error_float_mod": "{{ 1.5 % 0 }}",
    "error_float_floordiv": "{{ 1.5 // 0.0 }}",
    "error_inline_if": "\n{{ ('a' if false) + 'b' }}",
    "error_previtem": "{% for m in messages %}{{ loop.previtem.role }}{% endfor %}",
    "error_first_empty": "{{ ([] | first).x }}",
    "error_namespace_attr": "{% set ns = namespace(a=1) %}{{ ns.b.c }}",
    "error_loop_attr": "{% for m in messages %}{{ loop.nope.x }}{% endfor %}",
    "error_none_attr": "{{ none.x.y }}",
    "error_int_item": "{{ [1][5].x }}",
    "strftime_defined": "{{ strftime_now is defined }} {{ raise_exception is defined }} {{ tools is none }} {{ documents is none }}",
}
# Two renderings per small template: enough to see messages and the generation flag used, few enough to stay small.
UNIT_RUNS = [("system_multi", {"add_generation_prompt": False}), ("single_user", {"add_generation_prompt": True})]


def check_versions():
    have = {"transformers": transformers.__version__, "jinja2": jinja2.__version__}
    if have != PINNED:
        sys.exit(f"chat_goldens.py: needs {PINNED}, found {have} (run it in the reference venv)")


def render(template, messages, options):
    """apply_chat_template(tokenize=False) without a tokenizer: the same normalization and render call."""
    kwargs = dict(options)
    tools = kwargs.pop("tools", None)
    add_gen = kwargs.pop("add_generation_prompt", False)
    conversation = _normalize_chat_messages(messages)
    rendered, _ = render_jinja_template(conversations=[conversation], tools=tools, documents=None,
                                        chat_template=template, add_generation_prompt=add_gen, **kwargs)
    return rendered[0]


def make_case(name, template_ref, template_text, messages, options):
    case = {"name": name}
    case.update(template_ref)
    case["messages_json"] = json.dumps(messages, ensure_ascii=False)
    case["add_generation_prompt"] = bool(options.get("add_generation_prompt", False))
    for key in ("bos_token", "eos_token"):
        if key in options:
            case[key] = options[key]
    if "tools" in options:
        case["tools_json"] = json.dumps(options["tools"], ensure_ascii=False)
    extra = {k: v for k, v in options.items() if k not in ("bos_token", "eos_token", "tools", "add_generation_prompt")}
    if extra:
        case["vars_json"] = json.dumps(extra, ensure_ascii=False)
    try:
        case["expected"] = render(template_text, messages, options)
    except (jinja2.exceptions.UndefinedError, TypeError, ZeroDivisionError) as e:
        case["error_suffix"] = str(e)  # llmc puts the line and column in front of Python's message
    except jinja2.exceptions.TemplateError as e:
        case["error"] = str(e)  # raise_exception(): the template's own message, exactly
    return case


def family_cases():
    cases = []
    for file, conversations, base in FAMILY_CASES:
        with open(os.path.join(TEMPLATES, file), encoding="utf-8") as f:
            text = f.read()
        tag = "+".join(sorted(k for k in base if k not in ("bos_token", "eos_token", "date_string"))) or "plain"
        for conv in conversations:
            for opt in OPTION_SETS:
                options = dict(base, **opt)
                name = f"{file}:{conv}:{tag}:{'gen' if opt['add_generation_prompt'] else 'nogen'}"
                cases.append(make_case(name, {"template": "chat_templates/" + file}, text,
                                       CONVERSATIONS[conv], options))
    return cases


def unit_cases():
    cases = []
    for name, text in UNIT_TEMPLATES.items():
        for conv, opt in UNIT_RUNS:
            case_name = f"unit:{name}:{conv}:{'gen' if opt['add_generation_prompt'] else 'nogen'}"
            cases.append(make_case(case_name, {"source": text}, text, CONVERSATIONS[conv], opt))
    return cases


def smollm2_cases(gguf_path):
    import gguf
    reader = gguf.GGUFReader(gguf_path)
    field = reader.fields["tokenizer.chat_template"]
    text = bytes(field.parts[field.data[0]]).decode("utf-8")
    cases = []
    for conv in ["single_user", "system_multi", "tricky_content", "assistant_last", "extra_fields"]:
        for opt in OPTION_SETS:
            name = f"smollm2:{conv}:{'gen' if opt['add_generation_prompt'] else 'nogen'}"
            cases.append(make_case(name, {"template": "@model"}, text, CONVERSATIONS[conv],
                                   dict(opt, bos_token="<|im_start|>", eos_token="<|im_end|>")))
    return cases


def write(path, cases):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"generator": "test/runtime/Inputs/chat_goldens.py", "pinned": PINNED, "cases": cases},
                  f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smollm2", default=os.path.expanduser("~/.cache/llmc/models/SmolLM2-135M-Instruct.Q4_1.gguf"))
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    check_versions()
    write(os.path.join(args.out, "chat_goldens.json"), family_cases() + unit_cases())
    if os.path.isfile(args.smollm2):
        write(os.path.join(args.out, "chat_goldens_smollm2.json"), smollm2_cases(args.smollm2))
    else:
        print(f"no {args.smollm2}: chat_goldens_smollm2.json not rewritten")


if __name__ == "__main__":
    main()
