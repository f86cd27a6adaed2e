"""Writes chat templates at the edges of 64-bit integer arithmetic, for chat-template-int-limits.test.

Usage: chat_int_limits_cases.py <case> <out.jinja>. Standard library only.
The expected renderings in the test are jinja2 3.1.6's (ImmutableSandboxedEnvironment), where Python's
ints are unbounded: a result that needs more than 64 bits is an error in llmc, the same value otherwise.
"""
import sys

INT64_MIN = "(-9223372036854775807 - 1)"
HUGE = "1000000000000000000"  # 10**18: a count no loop may run to

CASES = {
    # jinja2: 1|9223372036854775806,|-9223372036854775807,|0|-4052555153018976267|[]|[]
    "fits": "|".join([
        "{{ 1 ** " + HUGE + " }}",
        "{% for x in range(9223372036854775806, 9223372036854775807, 10) %}{{ x }},{% endfor %}",
        "{% for x in range(-9223372036854775807, " + INT64_MIN + ", -10) %}{{ x }},{% endfor %}",
        "{{ " + INT64_MIN + " % -1 }}",
        "{{ (-3) ** 39 }}",
        "[{{ '' * " + HUGE + " }}]",
        "{{ [] * " + HUGE + " }}",
    ]),
    # jinja2: b|[3] (the second index, 1 + 2**63 - 1, is past the end)
    "slice-huge-step": "{{ 'abc'[1::9223372036854775807] }}|{{ [1, 2, 3][2::9223372036854775807] }}",
    # jinja2: 9223372036854775808 (needs 65 bits)
    "floordiv-min": "{{ " + INT64_MIN + " // -1 }}",
    # jinja2: 9223372036854775808
    "negate-min": "{{ -" + INT64_MIN + " }}",
    # jinja2: OverflowError: repeated string is too long
    "repeat-huge": "{{ 'abcdefghij' * " + HUGE + " }}",
    # jinja2: TemplateSyntaxError: illegal Unicode character
    "escape-above-max": "{{ '\\U00110000' }}",
    # jinja2 renders a lone surrogate, which has no UTF-8 encoding
    "escape-surrogate": "{{ '\\ud800' }}",
}


def main():
    case, out = sys.argv[1], sys.argv[2]
    if case not in CASES:
        raise SystemExit("unknown case " + case)
    with open(out, "w") as f:
        f.write(CASES[case])


if __name__ == "__main__":
    main()
