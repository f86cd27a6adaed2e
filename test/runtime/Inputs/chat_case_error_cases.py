"""Writes the chat templates and messages of chat-template-case-errors.test: case operations on non-ASCII text.

Usage: chat_case_error_cases.py <case> <out>. Standard library only. Each template names the operation that
must appear in the error when ICU cannot be loaded (a filter, a str method, a test).
"""
import json
import sys

CASES = {
    "messages": json.dumps([{"role": "user", "content": "Straße"}], ensure_ascii=False),
    "filter-upper": "{{ messages[0].content | upper }}",
    "filter-title": "{{ 'x' | title }} {{ messages[0].content | title }}",
    "method-lower": "ok {{ 'ASCII'.lower() }}\n{{ messages[0].content.lower() }}",
    "method-capitalize": "{{ messages[0].content.capitalize() }}",
    "method-isupper": "{{ 'ÉTÉ'.isupper() }}",
    "test-lower": "{{ 'é' is lower }}",
    "test-upper": "{{ 'É' is upper }}",
    "sort-folds-case": "{{ ['b', 'É'] | sort }}",
    # jinja2 (and Python): "ASCII ONLY|ascii only|Ascii only|Ascii Only|Ascii Only|False|False|False"
    "ascii-only": "{% set s = 'ascii ONLY' %}{{ s | upper }}|{{ s.lower() }}|{{ s | capitalize }}|{{ s | title }}"
                  "|{{ s.title() }}|{{ s is lower }}|{{ s is upper }}|{{ s.islower() }}",
}


def main():
    case, out = sys.argv[1], sys.argv[2]
    if case not in CASES:
        sys.exit(f"chat_case_error_cases.py: unknown case {case!r}; known: {', '.join(CASES)}")
    with open(out, "w", encoding="utf-8") as f:
        f.write(CASES[case])


if __name__ == "__main__":
    main()
